"""Opening addresses that came from the server, carefully.

Only ``http``/``https`` addresses are ever opened. The full address is shown
before anything happens, and where no browser can appear (an SSH session, no
display) the address is copied instead of launched.

A browser is started by :func:`open_in_browser`, off the event loop, by a process of its
own that the app never gives its terminal and never waits on for long (see there).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Mapping

from ..interpreter import python
from ..web_urls import UnclearAddress, split_web_url


def link_problem(url: str) -> str | None:
    """Why ``url`` must not be opened, or None when it is an http(s) address with a host.

    The host is read as the browser will read it (:func:`.web_urls.split_web_url`): an
    address the two could read differently is refused, so the host the question names is
    the one visited.
    """
    try:
        parts = split_web_url(url)
    except UnclearAddress as error:
        return str(error)
    if parts.scheme.lower() not in {"http", "https"}:
        scheme = parts.scheme or "no scheme"
        return f"only http and https addresses are opened, not {scheme}"
    if not parts.hostname:
        return "the address has no host"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return "the address contains control characters"
    return None


def can_launch_browser(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a browser started here would appear in front of the user.

    Over SSH the browser would open on the remote machine, out of sight; on Linux
    without ``DISPLAY``/``WAYLAND_DISPLAY`` there is no screen at all.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"):
        return False
    if platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


OPEN_WAIT = 3.0
"""Seconds a browser is given to say it could not start. Python's :mod:`webbrowser` waits
for a program named in ``BROWSER`` (``lynx``, a script) until it ends; one still running
then has started."""

_OPENER = """
import os, sys, threading, webbrowser

said = []

def open_it():
    try:
        said.append(webbrowser.open(sys.argv[1]))
    except Exception:
        said.append(False)

opening = threading.Thread(target=open_it, daemon=True)
opening.start()
opening.join(float(sys.argv[2]))
os._exit(1 if said == [False] else 0)
"""
"""The opener: Python's own choice of browser (``BROWSER``, then what the system offers),
ended with status 1 when none could start, 0 once one has or is still running after
:data:`OPEN_WAIT` (what it started goes on without it)."""


def start_browser(url: str) -> bool:
    """Open ``url`` in this machine's browser; whether one started. Blocks for at most
    about :data:`OPEN_WAIT` seconds, never until the browser ends.

    The opener (:data:`_OPENER`) runs in a session of its own, with no terminal:
    input and output go to ``/dev/null``, and ``TERM`` is not passed on. So a browser
    that would run in the terminal (``lynx``, ``w3m``; ``BROWSER=lynx``) can neither
    draw over the app nor read its keys, even through ``/dev/tty``: Python does not
    choose one without ``TERM``, and one named in ``BROWSER`` finds no terminal.

    Raises:
        OSError: The opener could not be started.
        ValueError: ``url`` cannot be handed to a program (a character the system's
            names have no bytes for, a NUL).
    """
    interpreter = python()
    if interpreter is None:
        raise OSError("no Python interpreter to start")
    environment = {name: value for name, value in os.environ.items() if name != "TERM"}
    opener = subprocess.Popen(  # this interpreter, isolated (-I): no module of the folder
        [interpreter, "-I", "-c", _OPENER, url, str(OPEN_WAIT)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        env=environment,
    )
    try:
        return opener.wait(OPEN_WAIT + 5) != 1
    except subprocess.TimeoutExpired:  # a machine too busy to start Python in seconds
        return True  # not known to have failed; reaped by the next process started


async def open_in_browser(url: str) -> bool:
    """:func:`start_browser` in a thread of its own; whether a browser started.

    Not in the event loop's executor: a thread of it is waited for when the app ends,
    and quitting right after an open would wait for the opener.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bool] = loop.create_future()

    def settle(started: bool | None, error: BaseException | None) -> None:
        if answer.done():  # the wait was cancelled: the app is ending
            return
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(bool(started))

    def start() -> None:
        try:
            started, error = start_browser(url), None
        except BaseException as failed:  # said by the awaiting worker
            started, error = None, failed
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(settle, started, error)

    threading.Thread(target=start, name="open-in-browser", daemon=True).start()
    return await answer
