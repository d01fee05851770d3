"""SIGTERM and SIGHUP end the app as quitting does: the terminal is put back as it was."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import sys
import time

import pytest

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_ends_the_app_with_the_terminal_put_back(signum: int) -> None:
    # Their default killed the process mid-frame: the alternate screen, mouse reporting,
    # a hidden cursor and raw mode stayed on the user's terminal.
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    app = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "--demo"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        start_new_session=True,
    )
    os.close(terminal)
    os.set_blocking(controller, False)
    drawn = b""
    try:
        deadline = time.monotonic() + 60
        while b"Webhooks" not in drawn:  # the screen is up
            assert time.monotonic() < deadline and app.poll() is None, drawn[-500:]
            with contextlib.suppress(BlockingIOError):
                drawn += os.read(controller, 65536)
            time.sleep(0.05)
        app.send_signal(signum)
        drawn = b""
        deadline = time.monotonic() + 60
        while app.poll() is None:
            assert time.monotonic() < deadline
            with contextlib.suppress(BlockingIOError, OSError):
                drawn += os.read(controller, 65536)
            time.sleep(0.05)
        with contextlib.suppress(BlockingIOError, OSError):
            drawn += os.read(controller, 65536)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        os.close(controller)
    assert app.returncode == 128 + signum
    assert LEAVE_ALTERNATE_SCREEN in drawn
