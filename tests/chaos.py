"""A seeded chaos run: random keys from the app's own bindings against a misbehaving service.

The app runs on two profiles served by in-process emulators whose faults change every few
dozen keys (slow, flaky, garbage, ratelimit, expiring, hostile, hang). A :class:`Walk`
chooses each key from where the app is: mostly the keys bound there now (the keymap
applied) — tabs, filter, sort, enter, reloads, deletes confirmed or not, forms opened,
half filled and abandoned through their discard dialog, profile switches — with text
typed into fields and random pauses, as an impatient person would press them. It goes
back to the main screen now and then, and always after ``AWAY_CAP`` keys away from it.

A run passes when the app is still running (or quit cleanly), no worker failed, no
escape sequence reached the terminal (the tripwire of ``tests/tripwire.py``, installed
by the caller) and no request went outside the interface's paths. Its summary gives the
keys pressed on each screen and tab, the requests by kind, and the fault sets; a run of
a few hundred keys also checks :meth:`ChaosReport.unreached`, that the walk went all over
the app.

``tests/test_chaos.py`` runs a fixed seed within about a minute in CI; run it longer by hand:

    CHAOS_KEYS=20000 CHAOS_SEED=7 pytest tests/test_chaos.py -n 0 -s -o addopts="" -k random
"""

from __future__ import annotations

import asyncio
import random
import re
import string
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from textual.binding import Binding
from textual.widgets import Button, Input, TextArea
from textual.worker import Worker, WorkerState

from tokensales_tui import config
from tokensales_tui.api import Secret
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.emulator.faults import FAULTS
from tokensales_tui.session import Launch
from tokensales_tui.ui import app as app_module
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.screens.browse import BrowseScreen
from tokensales_tui.ui.screens.confirm import ConfirmScreen, DiscardScreen
from tokensales_tui.ui.screens.setup import ProfileFormScreen

from .apphelpers import EMULATOR_URL

CHAOS_FAULTS = ["slow", "flaky", "garbage", "ratelimit", "expiring", "hostile", "hang"]
assert set(CHAOS_FAULTS) <= FAULTS.keys(), "a chaos fault the emulator does not know"

_SEGMENT = r"(?!\.{1,2}(?:/|$))[^/]+"
ALLOWED = [
    ("POST", r"/auth/getAccessToken"),
    ("GET", r"/v1/platform-webhooks"),
    ("POST", r"/v1/platform-webhooks"),
    ("PUT", rf"/v1/platform-webhooks/{_SEGMENT}"),
    ("DELETE", rf"/v1/platform-webhooks/{_SEGMENT}"),
    ("GET", r"/v1/items"),
    ("GET", rf"/v1/items/{_SEGMENT}"),
    ("DELETE", rf"/v1/items/{_SEGMENT}"),
    ("GET", r"/v1/assets"),
    ("GET", rf"/v1/assets/{_SEGMENT}"),
    ("POST", r"/v1/payouts/add"),
    ("GET", r"/collections"),
    ("POST", r"/collections"),
    ("DELETE", rf"/collection/{_SEGMENT}"),
]
"""Every request the interface describes, as method and raw path (one segment per id)."""


def is_allowed(method: str, raw_path: str) -> bool:
    """Whether a request is one the interface describes."""
    return request_kind(method, raw_path) is not None


def request_kind(method: str, raw_path: str) -> str | None:
    """The interface's name for a request (``DELETE /v1/items/{id}``), or ``None`` for one
    it does not describe."""
    for m, p in ALLOWED:
        if method == m and re.fullmatch(p, raw_path):
            return f"{m} {p.replace(_SEGMENT, '{id}')}"
    return None


class Recorder(httpx.AsyncBaseTransport):
    """An in-process emulator that records every request it is sent."""

    def __init__(self, seed: int, kinds: Counter[str]) -> None:
        self.emulator_app = create_app(seed=seed, items=60)
        self.emulator = self.emulator_app.state.emulator
        self.inner = httpx.ASGITransport(app=self.emulator_app)
        self.requests: list[tuple[str, str]] = []
        self.kinds = kinds
        """Requests counted by their kind as they come (see :func:`request_kind`)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        method, path = request.method, request.url.raw_path.decode("ascii", "replace")
        self.requests.append((method, path))
        self.kinds[request_kind(method, path) or f"{method} outside the interface"] += 1
        return await self.inner.handle_async_request(request)


class ChaosApp(TokenSalesApp):
    """The app, noting every worker that fails instead of finishing or being cancelled."""

    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")
    failed_workers: list[str]
    exit_started: float

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.failed_workers.append(f"{event.worker.name}: {error!r}")


@dataclass
class ChaosReport:
    """What a run did and found."""

    seed: int
    keys: int = 0
    apps: int = 0
    seconds: float = 0.0
    screens: Counter[str] = field(default_factory=Counter)
    """Keys pressed on each screen, by the screen's class."""
    tabs: Counter[str] = field(default_factory=Counter)
    """Keys pressed on the main screen, by the tab in view."""
    form_keys: int = 0
    """Keys pressed in forms (an object's or a profile's)."""
    requests: Counter[str] = field(default_factory=Counter)
    fault_sets: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    slowest: list[tuple[float, str, str]] = field(default_factory=list)
    """The slowest keys: seconds until handled (Pilot's wait included), key, screen."""

    def timed(self, seconds: float, key: str, screen: str) -> None:
        """Keep ``key`` among the five slowest, so a screen that slows down shows."""
        self.slowest = sorted([*self.slowest, (seconds, key, screen)], reverse=True)[:5]

    def summary(self) -> str:
        """A few lines for a person: where the keys went, what reached the service, what broke."""

        def counts(counter: Counter[str]) -> str:
            return ", ".join(f"{name} {count}" for name, count in counter.most_common()) or "none"

        slow = ", ".join(f"{key!r} on {screen} {took:.1f} s" for took, key, screen in self.slowest)
        return "\n  ".join(
            [
                f"seed {self.seed}: {self.keys} keys in {self.seconds:.0f} s over"
                f" {self.apps} app run(s); problems: {len(self.problems)}",
                f"keys by screen: {counts(self.screens)}",
                f"keys by tab: {counts(self.tabs)}",
                f"{sum(self.requests.values())} requests: {counts(self.requests)}",
                f"{len(self.fault_sets)} fault sets: {counts(Counter(self.fault_sets))}",
                f"slowest keys: {slow or 'none'}",
                *self.problems,
            ]
        )

    def unreached(self) -> list[str]:
        """What a walk of a few hundred keys should have reached and did not: the main
        screen (most of the keys, on several tabs), the detail view, a form, the service."""
        missed = []
        if self.screens["BrowseScreen"] < self.keys / 3:
            missed.append(f"the main screen had {self.screens['BrowseScreen']} keys of {self.keys}")
        if len(self.tabs) < 3:
            missed.append(f"the main screen was seen on {len(self.tabs)} tab(s)")
        if not self.screens["DetailScreen"]:
            missed.append("no detail view")
        if not self.form_keys:
            missed.append("no form")
        if not sum(n for kind, n in self.requests.items() if "/auth/" not in kind):
            missed.append("no request beyond the token's")
        return missed


ACTION_WEIGHTS = {
    "show_tab": 4.0,  # every tab, each loading its list from a faulty service
    "refresh": 10.0,
    "select_cursor": 3.0,  # the detail view
    "select": 3.0,  # a profile picked: the session switches
    "cursor_down": 2.0,
    "cursor_up": 1.0,
    "sort": 2.0,
    "reverse_sort": 1.0,
    "focus_filter": 2.0,
    "delete": 2.0,
    "new": 4.0,
    "edit": 4.0,
    "switch_profile": 1.5,
    "mark": 1.0,
    "help": 0.5,
    "quit": 0.02,  # now and then: the run goes on in a new app
}
"""How much more (or less) often than 1 a bound key is pressed, by its action's name."""

NEVER = {"help_quit", "suspend_process"}
"""Actions the walk leaves alone: they end the test process, not the app."""

LEAVE = ("back", "cancel", "close", "escape")
"""The actions that go back from a screen, in the order the walk prefers them."""

TYPED = [*string.ascii_letters[:12], "0", "7", "minus", "full_stop", "comma", "slash", "colon"]
"""Keys typed into a text field: a URL, a price or an address half typed."""

MOVES = ["enter", "escape", "tab", "shift+tab", "up", "down", "backspace", "space"]
"""Keys pressed anywhere, bound or not."""

LEAVE_CHANCE = {"BrowseScreen": 0.0, "DetailScreen": 0.12}
"""The chance that the next key leaves a screen (``DEFAULT_LEAVE`` for the others)."""
DEFAULT_LEAVE = 0.2
TYPING_LEAVE_CHANCE = {"BrowseScreen": 0.2, "SafePalette": 0.3}
"""The chance that the next key leaves a text field (``TYPING_LEAVE`` for the others): the
filter a few letters in, so that the main screen's keys go mostly to its tables."""
TYPING_LEAVE = 0.06
"""About 15 keys typed into a form (or the filter) before it is left, and a discard
dialog answered."""
CONFIRM_CHANCE = 0.5
"""The chance a delete is confirmed (the rest are cancelled)."""
DISCARD_CHANCE = 0.85
"""The chance that what was typed is discarded when a form asks (the rest keep editing)."""
AWAY_CAP = 60
"""Keys in a row away from the main screen before the walk goes back to it for sure."""


def _action(binding: Binding) -> str:
    """``app.switch_profile`` and ``show_tab('items')`` as ``switch_profile`` and ``show_tab``."""
    return binding.action.split("(")[0].rsplit(".", 1)[-1]


def _key_for(bound: dict[str, Binding], actions: tuple[str, ...], default: str) -> str:
    """The key bound to the first of ``actions`` that has one."""
    for action in actions:
        for key, binding in bound.items():
            if _action(binding) == action:
                return key
    return default


@dataclass
class Walk:
    """Chooses each key from where the app is: the bindings active there (as the keymap
    binds them now) most of the time, typing in text fields, and a way back out.

    A person leaves a form after a while, answering its discard dialog, and backs out of a
    detail view; a walk that drew every key from one pool stayed in the first form it
    typed into. Every choice comes from ``rng`` and what the app shows.
    """

    rng: random.Random
    away: int = 0
    """Keys pressed in a row on screens above the main one."""

    def key(self, app: TokenSalesApp) -> str:
        """The next key to press in ``app``."""
        screen = app.screen
        self.away = 0 if isinstance(screen, BrowseScreen) else self.away + 1
        stuck = self.away > AWAY_CAP
        bound = {
            key: active.binding
            for key, active in screen.active_bindings.items()
            if active.enabled and _action(active.binding) not in NEVER
        }
        if isinstance(screen, ConfirmScreen):
            return self._answer(screen, bound, stuck)
        name = type(screen).__name__
        typing = isinstance(screen.focused, Input | TextArea)
        if typing:
            leave = TYPING_LEAVE_CHANCE.get(name, TYPING_LEAVE)
        else:
            leave = LEAVE_CHANCE.get(name, DEFAULT_LEAVE)
        if stuck or self.rng.random() < leave:
            return _key_for(bound, LEAVE, "escape")
        if typing and self.rng.random() < 0.6:
            return self.rng.choice(TYPED)
        if bound and self.rng.random() < 0.8:
            keys = list(bound)
            weights = [ACTION_WEIGHTS.get(_action(bound[key]), 1.0) for key in keys]
            return self.rng.choices(keys, weights)[0]
        return self.rng.choice(MOVES)

    def _answer(self, screen: ConfirmScreen, bound: dict[str, Binding], stuck: bool) -> str:
        """Yes (move to the confirm button, press it) or no, as a person would answer; a
        walk that is stuck discards what it typed, or cancels a delete."""
        discard = isinstance(screen, DiscardScreen)
        focused = screen.focused
        on_yes = isinstance(focused, Button) and focused.id == "confirm"
        if stuck:
            yes = discard
        else:  # on the confirm button, the walk went there to say yes
            yes = on_yes or self.rng.random() < (DISCARD_CHANCE if discard else CONFIRM_CHANCE)
        if not yes:
            return _key_for(bound, LEAVE, "escape")
        if on_yes:
            return _key_for(bound, ("press",), "enter")
        return _key_for(bound, ("toggle_focus",), "tab")


def write_profiles() -> None:
    """Two profiles on the emulators: one that may change data, one read-only."""
    profile = dict(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    config.save_config(
        config.ConfigFile(
            default_profile="alpha",
            profiles={
                "alpha": config.Profile(**profile),  # type: ignore[arg-type]
                "beta": config.Profile(**profile, read_only=True, label="PROD"),  # type: ignore[arg-type]
            },
        )
    )


EXIT_TIMEOUT = 60.0
"""Seconds an app may take to shut down once the keys stop."""
KEY_TIMEOUT = 60.0
"""Seconds a key may take, pauses and a slow service included, before the run calls the app wedged."""


async def run_chaos(
    seed: int,
    keys: int,
    *,
    seconds: float,
    progress: Callable[[ChaosReport], None] | None = None,
) -> ChaosReport:
    """Press ``keys`` random keys (or stop after ``seconds``) and report what broke."""
    rng = random.Random(seed)
    report = ChaosReport(seed)
    walk = Walk(rng)
    started = time.monotonic()
    write_profiles()
    transports: list[Recorder] = []

    def transport() -> Recorder:
        recorder = Recorder(seed + len(transports), report.requests)
        recorder.emulator.set_faults(rng.sample(CHAOS_FAULTS, rng.randint(0, 2)))
        transports.append(recorder)
        return recorder

    async def one_app(app: ChaosApp) -> None:
        async with app.run_test(size=rng.choice([(120, 40), (80, 24)])) as pilot:
            while report.keys < keys and time.monotonic() - started < seconds:
                if app._exit:
                    break
                if report.keys % 40 == 0:  # the service changes its mind
                    faults = rng.sample(CHAOS_FAULTS, rng.randint(0, 2))
                    report.fault_sets.append(",".join(faults) or "none")
                    for recorder in transports:
                        recorder.emulator.set_faults(faults)
                key = walk.key(app)
                screen = type(app.screen).__name__
                report.screens[screen] += 1
                if isinstance(app.screen, BrowseScreen):
                    report.tabs[app.screen.active_tab.resource.key] += 1
                if isinstance(app.screen, FormScreen | ProfileFormScreen):
                    report.form_keys += 1
                pressed = time.monotonic()
                try:  # a key that is not handled in time means the app is wedged
                    await asyncio.wait_for(pilot.press(key), KEY_TIMEOUT)
                except TimeoutError:
                    report.problems.append(
                        f"app {report.apps}: {key!r} on {screen} was not handled in"
                        f" {KEY_TIMEOUT:.0f} s (key {report.keys}); faults {report.fault_sets[-1]}"
                    )
                    break
                report.timed(time.monotonic() - pressed, key, screen)
                report.keys += 1
                if progress is not None and report.keys % 500 == 0:
                    report.seconds = time.monotonic() - started
                    progress(report)
                if rng.random() < 0.3:
                    await pilot.pause(rng.choice([0, 0.01, 0.05, 0.2]))
            for recorder in transports:
                recorder.emulator.set_faults([])  # let hung requests end with the app
            app.exit_started = time.monotonic()

    while report.keys < keys and time.monotonic() - started < seconds and not report.problems:
        report.apps += 1
        app = ChaosApp(Launch(env={}, transport_factory=transport))
        app.failed_workers = []
        app.exit_started = 0.0
        running = asyncio.create_task(one_app(app))
        while not running.done():  # leaving the app must not hang either
            await asyncio.wait({running}, timeout=1.0)
            if app.exit_started and time.monotonic() - app.exit_started > EXIT_TIMEOUT:
                running.cancel()
                report.problems.append(f"app {report.apps} did not quit in {EXIT_TIMEOUT:.0f} s")
                return report
        running.result()
        if app.return_code not in (None, 0):
            report.problems.append(f"app {report.apps} ended with code {app.return_code}")
        report.problems += app.failed_workers
    for recorder in transports:
        for method, path in recorder.requests:
            if not is_allowed(method, path):
                report.problems.append(f"a request outside the interface: {method} {path!r}")
    report.seconds = time.monotonic() - started
    return report
