"""The app on a real terminal: SIGTERM and SIGHUP end it as quitting does, the terminal
put back; it draws in UTF-8 whatever the locale; input that is not UTF-8 ends nothing."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


class OnTerminal:
    """The app started on a terminal of its own; what it drew, read as it goes."""

    def __init__(self, process: subprocess.Popen[bytes], controller: int) -> None:
        self.process = process
        self.controller = controller
        self.drawn = b""

    def until(self, done: Callable[[], bool], seconds: float = 60) -> None:
        """Read what it draws (it would block on a full terminal) until ``done()``."""
        deadline = time.monotonic() + seconds
        while not done():
            assert time.monotonic() < deadline, self.drawn[-500:]
            with contextlib.suppress(BlockingIOError, OSError):
                self.drawn += os.read(self.controller, 65536)
            time.sleep(0.05)

    def started(self) -> None:
        self.until(lambda: b"Webhooks" in self.drawn or self.process.poll() is not None)
        assert self.process.poll() is None, self.drawn[-500:]


@contextlib.contextmanager
def app_on_terminal(**env: str) -> Iterator[OnTerminal]:
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "--demo"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm-256color", **env},
        start_new_session=True,
    )
    os.close(terminal)
    os.set_blocking(controller, False)
    running = OnTerminal(process, controller)
    try:
        yield running
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_ends_the_app_with_the_terminal_put_back(signum: int) -> None:
    # Their default killed the process mid-frame: the alternate screen, mouse reporting,
    # a hidden cursor and raw mode stayed on the user's terminal.
    with app_on_terminal() as app:
        app.started()
        app.drawn = b""
        app.process.send_signal(signum)
        app.until(lambda: app.process.poll() is not None)
        with contextlib.suppress(BlockingIOError, OSError):
            app.drawn += os.read(app.controller, 65536)
    assert app.process.returncode == 128 + signum
    assert LEAVE_ALTERNATE_SCREEN in app.drawn


def test_the_app_writes_utf8_under_a_locale_of_another_charset() -> None:
    # Under LC_ALL=C with the locale not coerced, every border and mark was written as
    # text such as "\u2578": a garbled screen, columns spilling over.
    with app_on_terminal(LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0") as app:
        app.started()
        app.process.send_signal(signal.SIGTERM)
        app.until(lambda: app.process.poll() is not None)
    assert "━".encode() in app.drawn and b"\\u2501" not in app.drawn


@pytest.mark.parametrize(
    "sent",
    [
        b"\xff",
        # A mouse report of a terminal that ignores the SGR mouse mode (GNU screen): the
        # column of a click past column 95 comes as one raw byte.
        b"\x1b[M \x84%",
        b"\x1b[M#\xe2%",
    ],
    ids=["stray-byte", "x10-mouse", "x10-mouse-lead-byte"],
)
def test_input_that_is_not_utf8_ends_nothing(sent: bytes) -> None:
    # One byte that is not UTF-8 ended the app with a UnicodeDecodeError traceback, and
    # exit status 0.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, sent)
        settled = time.monotonic() + 1
        app.until(lambda: time.monotonic() > settled or app.process.poll() is not None)
        assert app.process.poll() is None, app.drawn[-2000:]
        app.drawn = b""
        os.write(app.controller, b"q")
        app.until(lambda: app.process.poll() is not None)
    assert app.process.returncode == 0
    assert b"Traceback" not in app.drawn


def test_a_paste_whose_start_marker_comes_in_two_reads_far_apart_is_text() -> None:
    # The marker's start was read as keys 0.1 s after it came, and so was the paste:
    # "foo ESC q bar" quit the app, the filter's text thrown away.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"/abc")
        app.until(lambda: b"abc" in app.drawn)
        os.write(app.controller, b"\x1b[20")
        time.sleep(0.15)
        os.write(app.controller, b"0~foo\x1bqbar\x1b[201~")
        pasted = "abcfoo\u241bqbar".encode()
        app.until(lambda: pasted in app.drawn or app.process.poll() is not None)
        assert app.process.poll() is None, app.drawn[-2000:]


def test_terminal_replies_and_broken_keys_end_nothing_and_act_on_nothing() -> None:
    # A kitty key's release ended the app (a ValueError in Textual's reading of it);
    # a terminal's replies were escape and keys: DA1 opened the help, DA2 switched tabs,
    # XTVERSION the export dialog; in the filter, escape left it and the rest was typed.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"/abc")
        app.until(lambda: b"abc" in app.drawn)
        for sent in [
            b"\x1b[?62;22;52c",
            b"\x1b[>0;95;0c",
            b"\x1bP>|xterm(388)\x1b\\",
            b"\x1b]11;rgb:0000/0000/0000\x07",
            b"\x1b[97;1:3u",
            b"\x1b[99999999u",
            b"\x1b[999999999999999999999A",
        ]:
            os.write(app.controller, sent)
        os.write(app.controller, b"\x1b[97;1:1u")  # a kitty press of a: types a
        # Still in the filter, with nothing typed but the a.
        app.until(lambda: b"abca" in app.drawn or app.process.poll() is not None, 20)
        assert app.process.poll() is None, app.drawn[-2000:]
        app.drawn = b""
        os.write(app.controller, b"\x1bq")  # escape leaves the filter, q quits
        app.until(lambda: app.process.poll() is not None)
    assert app.process.returncode == 0
    assert b"Traceback" not in app.drawn


def test_a_paste_never_ended_leaves_keys_working() -> None:
    # Every key after a paste whose end marker was lost went into it: q, ctrl+q and
    # escape did nothing, and only a signal ended the app.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"/\x1b[200~hello")
        app.until(lambda: b"hello" in app.drawn or app.process.poll() is not None, 20)
        os.write(app.controller, b"X")
        app.until(lambda: b"helloX" in app.drawn or app.process.poll() is not None, 20)
        assert app.process.poll() is None, app.drawn[-2000:]
