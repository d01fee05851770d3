"""Helpers for Pilot tests of the whole app against the in-process emulator."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from textual import events

from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp

EMULATOR_URL = "http://127.0.0.1:9"
"""A loopback address for profiles served by the in-process transport (no socket opens)."""


class Rigged(httpx.AsyncBaseTransport):
    """The in-process emulator, with per-path failures and delays for one test."""

    def __init__(self, app: Any) -> None:
        self.inner = httpx.ASGITransport(app=app)
        self.fail: dict[str, int] = {}
        self.fail_headers: dict[str, dict[str, str]] = {}
        self.fail_body: dict[str, Any] = {}
        self.delay: dict[str, float] = {}
        self.held: dict[str, asyncio.Event] = {}
        """Per path, what a request waits for before it is answered (the test sets it)."""
        self.hook: Callable[[httpx.Request], None] | None = None
        self.edit_json: dict[str, Callable[[Any], Any]] = {}
        """Per path, what a GET's answer says instead of the emulator's (given its JSON)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if self.hook:
            self.hook(request)
        if path in self.delay:
            await asyncio.sleep(self.delay[path])
        if path in self.held:
            await self.held[path].wait()
        if path in self.fail:
            return httpx.Response(
                self.fail[path],
                json=self.fail_body.get(path, {"message": "emulated failure"}),
                headers=self.fail_headers.get(path, {}),
            )
        response = await self.inner.handle_async_request(request)
        edit = self.edit_json.get(path)
        if edit is None or request.method != "GET" or response.status_code != 200:
            return response
        await response.aread()
        return httpx.Response(200, json=edit(response.json()))


def emulator_env() -> dict[str, str]:
    """Environment for a profile pointing at the emulator, demo credentials."""
    return {
        "TOKENSALES_BASE_URL": EMULATOR_URL,
        "TOKENSALES_API_KEY": DEMO_API_KEY,
        "TOKENSALES_API_SECRET": DEMO_API_SECRET,
    }


def rigged_app(**launch: Any) -> tuple[TokenSalesApp, Rigged]:
    """An app on an environment-only profile served by a rigged emulator."""
    emulator = create_app(seed=0)
    transport = Rigged(emulator)
    app = TokenSalesApp(
        Launch(env=launch.pop("env", emulator_env()), transport_factory=lambda: transport, **launch)
    )
    app.rigged_emulator = emulator.state.emulator  # type: ignore[attr-defined]
    return app, transport


async def wait_for(condition: Callable[[], bool], pilot: Any, timeout: float = 15.0) -> None:
    """Let the app run until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def loaded(app: TokenSalesApp, pilot: Any, *keys: str) -> None:
    """Wait until the named tabs (default: all) have loaded or failed."""
    await wait_for(lambda: not app.browse.mounting, pilot)
    tabs = [app.browse.tab(key) for key in keys] if keys else app.browse.tabs
    await wait_for(lambda: all(t.loaded_once or t.error for t in tabs), pilot)


def screen_text(app: TokenSalesApp) -> str:
    """Everything on the current screen as plain text, one line per row."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def screen_segments(app: TokenSalesApp) -> list[Any]:
    """Every segment on the current screen (to check styles, links and actions)."""
    return [segment for strip in app.screen._compositor.render_strips() for segment in strip]


async def wait_for_screen(app: TokenSalesApp, pilot: Any, name: str) -> None:
    """Wait until a screen of class ``name`` (or of a subclass) is on top, composed and drawn."""

    def on_top() -> bool:
        classes = {cls.__name__ for cls in type(app.screen).__mro__}
        return name in classes and app.screen.is_mounted

    await wait_for(on_top, pilot)
    await pilot.pause()
    await pilot.pause()


def resident_bytes() -> int:
    """Resident memory of this process (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


CHARACTERS = {
    "slash": "/",
    "pagedown": None,
    "escape": None,
    "backspace": "\x7f",
    "left": None,
    "home": None,
    "exclamation_mark": "!",
    "tab": "\t",
    "shift+tab": None,
    "enter": "\r",
    "ctrl+o": "\x0f",
    "ctrl+n": "\x0e",
    "ctrl+j": "\n",
    "colon": ":",
    "full_stop": ".",
}


def burst(app: TokenSalesApp, *keys: str) -> None:
    """Queue ``keys`` at once in the app's queue, none handled yet.

    Posted here, not through the driver: the driver hands each key to the loop for a
    later turn, and a load the test has just let go could finish before the app has
    its first key.
    """
    for key in keys:
        event = events.Key(key, CHARACTERS.get(key, key))
        event.set_sender(app)
        posted = app.post_message(event)
        assert posted


async def delete_held(app: TokenSalesApp, pilot: Any, transport: Rigged) -> asyncio.Event:
    """Delete the highlighted webhook, its DELETE held by the rigged server until the
    event returned is set: asked, confirmed, and under way (the tab's ``deleting``)."""
    tab = app.active_tab
    path = f"/v1/platform-webhooks/{tab.highlighted.id}"  # type: ignore[union-attr]
    transport.held[path] = release = asyncio.Event()
    await pilot.press("d")
    await wait_for_screen(app, pilot, "ConfirmScreen")
    await pilot.press("tab", "enter")  # Cancel is the default
    await wait_for(lambda: bool(tab.deleting), pilot)
    return release


@contextlib.contextmanager
def calls_held(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, most: float = 20.0
) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Each call of ``owner.name`` (a write, in its thread) waits until the test lets it
    go, ``most`` seconds at most, then runs: (a call has begun, let them go)."""
    begun, release = threading.Event(), threading.Event()
    real = getattr(owner, name)

    def held(*args: Any, **kwargs: Any) -> Any:
        begun.set()
        release.wait(most)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, held)
    try:
        yield begun, release
    finally:
        release.set()
