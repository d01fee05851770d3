"""What the app does before its first frame: only what that frame shows.

The screens it does not show (a confirmation, the help, the profile picker), the other
four tabs, and the modules used once a session runs or a file is read or written (the
TOML reader and writer, OpenSSL's hashes, the e-mail date parser) come after it; the
signals an app takes are checked against the system's list once, not once each."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from typing import Any

import pytest

from tokensales_tui.signals import APP_ENDING_SIGNALS, ending_on

NOT_BEFORE_THE_FIRST_FRAME = (
    "tokensales_tui.ui.screens.confirm",
    "tokensales_tui.ui.screens.help",
    "tokensales_tui.ui.screens.profiles",
    "tomllib",
    "tomli_w",
    "hashlib",
    "email.utils",
)

FIRST_FRAME = f"""
import functools, gc, json, os, sys
from textual.app import App
from tokensales_tui import cli
from tokensales_tui.ui.tabs import ResourceTab

def display(self, screen, renderable):
    App._drawn(self, screen, renderable)
    if renderable is None:
        return
    loaded = [name for name in {NOT_BEFORE_THE_FIRST_FRAME!r} if name in sys.modules]
    tabs = sum(isinstance(each, ResourceTab) for each in gc.get_objects())
    print(json.dumps({{"loaded": loaded, "tabs": tabs}}), flush=True)
    os._exit(0)

App._drawn = App._display
App._display = display
App.run = functools.partialmethod(App.run, headless=True, size=(120, 40))
cli.has_terminal = lambda: True
cli.main(["--demo"])
print("no frame was drawn", flush=True)
"""


def test_the_first_frame_comes_before_what_it_does_not_show() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == '{"loaded": [], "tabs": 1}'


def test_the_signals_an_app_takes_are_checked_against_one_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # asyncio asks signal.valid_signals() for each signal a loop takes or lets go, and
    # each answer is built anew (8 ms for the app's 44 before its first frame).
    calls = 0
    original = signal.valid_signals

    def counted() -> set[Any]:
        nonlocal calls
        calls += 1
        return original()

    monkeypatch.setattr(signal, "valid_signals", counted)
    taken: list[bool] = []

    async def run() -> None:
        loop = asyncio.get_running_loop()
        before = {each: signal.getsignal(each) for each in APP_ENDING_SIGNALS}
        with ending_on(lambda _signum: None, loop=loop):
            taken.append(all(signal.getsignal(each) != before[each] for each in before))
        taken.append(all(signal.getsignal(each) == before[each] for each in before))

    asyncio.run(run())
    assert taken == [True, True]  # every one taken, then every one put back
    assert calls <= 2
    assert signal.valid_signals is counted
