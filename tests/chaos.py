"""A seeded chaos run: random keys from the app's own bindings against a misbehaving service.

The app runs on two profiles served by in-process emulators whose faults change every few
dozen keys (slow, flaky, garbage, ratelimit, expiring, hostile, hang). Keys are drawn
from every screen's bindings — tabs, filter, sort, enter and escape at random moments,
forms opened, filled and abandoned, deletes confirmed or not, profile switches — with
random pauses, as an impatient person would press them.

A run passes when the app is still running (or quit cleanly), no worker failed, no
escape sequence reached the terminal (the tripwire of ``tests/tripwire.py``, installed
by the caller) and no request went outside the interface's paths.

``tests/test_chaos.py`` runs a fixed seed within about a minute in CI; run it longer by hand:

    CHAOS_KEYS=20000 CHAOS_SEED=7 pytest tests/test_chaos.py -n 0 -s
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
from typing import Any

import httpx
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from tokensales_tui import config
from tokensales_tui.api import Secret
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.emulator.faults import FAULTS
from tokensales_tui.session import Launch
from tokensales_tui.ui import app as app_module
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms import form_bindings
from tokensales_tui.ui.screens.browse import BrowseScreen
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.table.widget import ResourceTable

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
    return any(method == m and re.fullmatch(p, raw_path) for m, p in ALLOWED)


class Recorder(httpx.AsyncBaseTransport):
    """An in-process emulator that records every request it is sent."""

    def __init__(self, seed: int) -> None:
        self.emulator_app = create_app(seed=seed, items=60)
        self.emulator = self.emulator_app.state.emulator
        self.inner = httpx.ASGITransport(app=self.emulator_app)
        self.requests: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.raw_path.decode("ascii", "replace")))
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
    requests: Counter[str] = field(default_factory=Counter)
    fault_sets: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    slowest: list[tuple[float, str, str]] = field(default_factory=list)
    """The slowest keys: seconds until handled (Pilot's wait included), key, screen."""

    def timed(self, seconds: float, key: str, screen: str) -> None:
        """Keep ``key`` among the five slowest, so a screen that slows down shows."""
        self.slowest = sorted([*self.slowest, (seconds, key, screen)], reverse=True)[:5]

    def summary(self) -> str:
        """A few lines for a person."""
        top = ", ".join(f"{name} {count}" for name, count in self.screens.most_common(8))
        slow = ", ".join(f"{key!r} on {screen} {took:.1f} s" for took, key, screen in self.slowest)
        return (
            f"seed {self.seed}: {self.keys} keys in {self.seconds:.0f} s over {self.apps} app run(s); "
            f"{sum(self.requests.values())} requests; screens: {top}; "
            f"fault sets: {len(self.fault_sets)}; problems: {len(self.problems)}; "
            f"slowest keys: {slow or 'none'}"
        )


def _keys_of(bindings: list[Any]) -> list[str]:
    keys: list[str] = []
    for binding in bindings:
        if isinstance(binding, Binding):
            keys += [key.strip() for key in binding.key.split(",")]
    return keys


def key_pool() -> list[str]:
    """Every key the app's screens bind, plus typing, navigation and the usual escapes."""
    keys = _keys_of(BrowseScreen.BINDINGS) * 3 + ["r"] * 6  # reloads reach the service
    keys += _keys_of(ResourceTable.BINDINGS) * 3
    keys += _keys_of(DetailScreen.BINDINGS)
    keys += _keys_of(form_bindings())
    keys += ["enter"] * 6 + ["escape"] * 6 + ["tab"] * 3 + ["shift+tab", "backspace", "space"]
    keys += [*string.ascii_lowercase[:8], "0", "x", "comma", "full_stop", "slash"]
    keys += ["ctrl+p"]
    return [key for key in keys if key not in ("ctrl+q", "ctrl+c")]


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
    pool = key_pool()
    started = time.monotonic()
    write_profiles()
    transports: list[Recorder] = []

    def transport() -> Recorder:
        recorder = Recorder(seed + len(transports))
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
                key = rng.choice(pool)
                if key == "q" and isinstance(app.screen, BrowseScreen) and rng.random() < 0.9:
                    key = "escape"  # quit now and then, not every time q comes up
                screen = type(app.screen).__name__
                report.screens[screen] += 1
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
            report.requests[f"{method} {path.split('/')[1] if '/' in path else path}"] += 1
            if not is_allowed(method, path):
                report.problems.append(f"a request outside the interface: {method} {path!r}")
    report.seconds = time.monotonic() - started
    return report
