"""The app on a real terminal: every signal that ends a process ends it as quitting does,
the terminal put back; SIGCONT resumes only what SIGTSTP suspended, and redraws all of
it; a terminal gone without SIGHUP ends it as a hang-up; it draws at the terminal's own
size, in UTF-8 whatever the locale; input that is not UTF-8 ends nothing; a terminal
that stalls ends nothing, and is drawn whole once it takes output again."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator, Sequence

import pytest
from rich.cells import cell_len

from tokensales_tui.ui.control_strings import STRING_OPEN
from tokensales_tui.ui.pastes import PASTE_WAIT

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
ENTER_ALTERNATE_SCREEN = b"\x1b[?1049h"
PUSH_KITTY_KEYS = b"\x1b[>25u"
POP_KITTY_KEYS = b"\x1b[<u"


class OnTerminal:
    """The app started on a terminal of its own; what it drew, read as it goes."""

    def __init__(self, process: subprocess.Popen[bytes], controller: int) -> None:
        self.process = process
        self.controller = controller
        self.input = controller
        self.drawn = b""
        self.before = self.settings()  # the app takes longer to start than this

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

    def ended(self, seconds: float = 60) -> int:
        """Wait for the end (reading what is drawn meanwhile); its exit status."""
        self.until(lambda: self.process.poll() is not None, seconds)
        self.read_rest()
        return self.process.returncode

    def read_rest(self) -> None:
        """Read all the terminal still holds of what an ended process drew: a read gives a
        chunk at a time, and the last sequences come after many (one read missed them)."""
        with contextlib.suppress(BlockingIOError, OSError):  # EIO: all of it read
            while chunk := os.read(self.controller, 65536):
                self.drawn += chunk

    def stopped(self, *pids: int) -> None:
        """Wait until the process (or those of ``pids``) is stopped (SIGSTOP, or
        SIGTSTP's handler)."""
        self.until(lambda: all(state_of(pid) == "T" for pid in pids or [self.process.pid]))

    def app_pid(self) -> int:
        """The app's process: the one started, or the last of those it started in turn
        (under a job of :data:`JOB_CONTROL`)."""
        pid = self.process.pid
        while children := children_of(pid):
            (pid,) = children
        return pid

    def drain(self) -> None:
        """Forget what was drawn, and what the terminal still holds of it."""
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self.controller, 65536):
                pass
        self.drawn = b""

    def settings(self) -> list[object]:
        """The terminal's settings now (a pty's are the same on either side)."""
        return termios.tcgetattr(self.controller)


def state_of(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def children_of(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as children:
        return [int(child) for child in children.read().split()]


JOB_CONTROL = """
import fcntl, os, signal, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
job = os.fork()
if job == 0:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpgrp())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execvp(sys.argv[1], sys.argv[1:])
try:
    os.setpgid(job, job)
except OSError:
    pass
sys.exit(os.waitstatus_to_exitcode(os.waitpid(job, 0)[1]))
"""
"""What a job-control shell does with a command: the leader of the terminal's session
(the terminal its own), it runs the command (its arguments) as a job, a process group of
its own in the terminal's foreground, and ends with its exit status once it ends. The
job's process group is not orphaned: it may be stopped (SIGTSTP), where that of a
process whose session is its own may not (Linux discards the signal)."""


_DRAWN = re.compile(
    r"\x1b\[(?P<parameters>[0-9;?<>=$]*)(?P<final>[@-~])"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: a pointer shape, a copy
    r"|(?P<text>[^\x1b])"
)


def screen_of(drawn: bytes, columns: int, lines: int) -> list[str]:
    """The lines a terminal of ``columns`` x ``lines`` shows after ``drawn``, all the app
    wrote from its start: cursor moves, colours (ignored), modes, text; entering the
    alternate screen clears it."""
    screen = [[" "] * columns for _ in range(lines)]
    row = column = 0
    for found in _DRAWN.finditer(drawn.decode(errors="replace")):
        if (text := found["text"]) is not None:
            for cell in (text, "")[: cell_len(text)]:  # a wide character: two cells
                if 0 <= row < lines and 0 <= column < columns:
                    screen[row][column] = cell
                column += 1
        elif found["final"] == "H":
            row, column, *_ = [int(n or 1) - 1 for n in found["parameters"].split(";")] + [0, 0]
        elif found["parameters"] == "?1049" and found["final"] == "h":
            screen = [[" "] * columns for _ in range(lines)]
        else:  # none that moves the cursor or changes what is shown
            assert found["final"] in (None, "m", "h", "l", "u", "p"), found[0]
    return ["".join(line) for line in screen]


def set_size(fd: int, columns: int, lines: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))


@contextlib.contextmanager
def app_on_terminal(
    *,
    size: tuple[int, int] | None = None,
    drawing_apart: bool = False,
    extra: Sequence[str] = (),
    job: Sequence[str] | None = None,
    demo: bool = True,
    **env: str,
) -> Iterator[OnTerminal]:
    """The app on a pty of its own (the leader of its own session, so no SIGHUP reaches
    it when the pty closes, and no job control: its process group is orphaned); ``size``
    (columns, lines) set on the pty, which has none otherwise; with ``drawing_apart``,
    stderr, where Textual draws, on a second pty, whose controller is
    ``OnTerminal.controller`` (and the first's ``OnTerminal.input``); ``extra`` arguments
    after ``--demo`` (without ``demo``, the profile the environment gives). With ``job``, the pty's session is that of :data:`JOB_CONTROL`, which
    runs ``job`` (the app's command line after it) as a job in the foreground."""
    controller, terminal = pty.openpty()
    drawing, drawn_on = pty.openpty() if drawing_apart else (controller, terminal)
    if size is not None:
        set_size(terminal, *size)
    command = [sys.executable, "-m", "tokensales_tui", *(["--demo"] if demo else []), *extra]
    if job is not None:
        command = [sys.executable, "-c", JOB_CONTROL, *job, *command]
    process = subprocess.Popen(
        command,
        stdin=terminal,
        stdout=terminal,
        stderr=drawn_on,
        env={**os.environ, "TERM": "xterm-256color", **env},
        start_new_session=True,
    )
    for fd in {terminal, drawn_on}:
        os.close(fd)
    for fd in {controller, drawing}:
        os.set_blocking(fd, False)
    running = OnTerminal(process, drawing)
    running.input = controller
    try:
        yield running
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for fd in {controller, drawing}:
            with contextlib.suppress(OSError):  # closed by the test
                os.close(fd)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_ends_the_app_with_the_terminal_put_back(signum: int) -> None:
    # Their default killed the process mid-frame: the alternate screen, mouse reporting,
    # a hidden cursor and raw mode stayed on the user's terminal.
    with app_on_terminal() as app:
        app.started()
        app.drawn = b""
        app.process.send_signal(signum)
        app.until(lambda: app.process.poll() is not None)
        app.read_rest()
    assert app.process.returncode == 128 + signum
    assert LEAVE_ALTERNATE_SCREEN in app.drawn


@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM],
    ids=["INT", "QUIT", "USR1", "USR2", "ALRM"],
)
def test_every_signal_that_ends_the_app_puts_the_terminal_back_first(signum: int) -> None:
    # Their default killed the app with the terminal raw, on the alternate screen, mouse
    # reporting and the kitty keyboard mode on; SIGINT from outside ended it with 0.
    with app_on_terminal() as app:
        before = app.settings()
        app.started()
        app.process.send_signal(signum)
        assert app.ended() == 128 + signum
        assert app.settings() == before
    assert app.drawn.count(POP_KITTY_KEYS) == app.drawn.count(PUSH_KITTY_KEYS) == 1
    assert LEAVE_ALTERNATE_SCREEN in app.drawn


def test_a_signal_ignored_when_the_app_starts_stays_ignored() -> None:
    # nohup and `trap '' USR2` leave a signal ignored for what they start: the app took
    # it over all the same, and ended on it.
    ignored = signal.signal(signal.SIGUSR2, signal.SIG_IGN)  # inherited by the app
    try:
        running = app_on_terminal(COLUMNS="120", LINES="40")
        app = running.__enter__()
    finally:
        signal.signal(signal.SIGUSR2, ignored)
    try:
        app.started()
        app.process.send_signal(signal.SIGUSR2)
        os.write(app.controller, b"/still")  # drawn only by an app that goes on
        app.until(lambda: b"still" in app.drawn or app.process.poll() is not None)
        assert app.process.poll() is None, app.drawn[-2000:]
        os.write(app.controller, b"\x1bq")
        assert app.ended() == 0
    finally:
        running.__exit__(None, None, None)


def test_the_one_way_signals_are_taken_keeps_ignored_ones_and_puts_each_back() -> None:
    # What the app, the commands, listen, serve and the emulator share (each took its
    # own set its own way: the commands took SIGHUP under nohup, serve and listen too).
    import asyncio

    from tokensales_tui.signals import SignalEnded, ending_on, raising_on

    seen: list[tuple[str, int]] = []
    kept = signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    before = signal.getsignal(signal.SIGUSR1)
    try:

        async def nested() -> None:
            loop = asyncio.get_running_loop()
            async with asyncio.timeout(30):
                await taking(loop)

        async def taking(loop: asyncio.AbstractEventLoop) -> None:
            with ending_on(lambda n: seen.append(("outer", n)), loop=loop):
                with ending_on(lambda n: seen.append(("inner", n)), loop=loop):
                    os.kill(os.getpid(), signal.SIGUSR1)
                    os.kill(os.getpid(), signal.SIGUSR2)  # ignored: stays so
                    await asyncio.sleep(0)
                    while not seen:
                        await asyncio.sleep(0.01)
                os.kill(os.getpid(), signal.SIGUSR1)  # the outer one's again
                while len(seen) < 2:
                    await asyncio.sleep(0.01)
                assert signal.getsignal(signal.SIGUSR2) == signal.SIG_IGN

        asyncio.run(nested())
        assert seen == [("inner", signal.SIGUSR1), ("outer", signal.SIGUSR1)]
        assert signal.getsignal(signal.SIGUSR1) == before
        with pytest.raises(SignalEnded) as ended, raising_on():
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(30)  # a signal ends the wait at once
        assert ended.value.signum == signal.SIGUSR1
        assert signal.getsignal(signal.SIGUSR1) == before
        assert signal.getsignal(signal.SIGUSR2) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGUSR2, kept)


RUN_UNTIL_A_SIGNAL = {
    "listen": (["listen", "--print", "--port", "0"], b"listening on "),
    "serve": (["serve", "--demo", "--port", "0"], b"Ctrl+C stops."),
    "emulator": (["emulator", "--port", "0", "--items", "2"], b"Press Ctrl+C here to stop."),
}
"""Each subcommand that runs until a signal ends it: how it starts, and what it says once
it runs. The app is held to the same in the tests above, the commands in
test_script_interrupts.py."""

ONE_GO = {"get", "create", "update", "delete", "add", "api", "token", "profiles", "completion"}
"""The subcommands that end by themselves (held in test_script_interrupts.py)."""


def test_every_subcommand_is_held_to_how_signals_end_it() -> None:
    # A subcommand added is named here, and one that runs until a signal is tested below.
    import argparse

    from tokensales_tui.cli import build_parser

    (commands,) = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    assert set(commands.choices) == set(RUN_UNTIL_A_SIGNAL) | ONE_GO


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"]
)
@pytest.mark.parametrize("program", list(RUN_UNTIL_A_SIGNAL))
def test_every_program_that_runs_until_a_signal_ends_with_128_and_its_number(
    program: str, signum: int
) -> None:
    # serve ended with 0 on every signal; the emulator with 0 on ctrl+c and killed by
    # the others (uvicorn raised the signal again once it had stopped): a script or a
    # service manager read a stop by kill as a success, or as a crash.
    argv, running = RUN_UNTIL_A_SIGNAL[program]
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert process.stdout is not None
        said = b""
        while running not in said:
            line = process.stdout.readline()
            assert line, said  # it ended before it ran
            said += line
        process.send_signal(signum)
        assert process.wait(30) == 128 + signum, said + process.stdout.read()
        assert b"Traceback" not in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize(
    ("signals", "status"),
    [
        ([signal.SIGCONT], 0),
        ([signal.SIGTERM, signal.SIGCONT], 128 + signal.SIGTERM),  # GNU timeout, systemd
        ([signal.SIGSTOP, signal.SIGCONT], 0),
    ],
    ids=["CONT", "TERM-CONT", "STOP-CONT"],
)
def test_a_sigcont_without_a_suspend_changes_nothing(signals: list[int], status: int) -> None:
    # Textual started the terminal mode again on any SIGCONT: every setup sequence written
    # twice (the kitty keyboard mode pushed twice, popped once), and the settings to put
    # back read from the raw terminal, which stayed raw after the app.
    with app_on_terminal() as app:
        before = app.settings()
        app.started()
        for signum in signals:
            app.process.send_signal(signum)
            if signum == signal.SIGSTOP:
                app.stopped()
        if status == 0:
            os.write(app.input, b"q")
        assert app.ended() == status
        assert app.settings() == before
    assert app.drawn.count(ENTER_ALTERNATE_SCREEN) == 1, app.drawn[-2000:]
    assert app.drawn.count(POP_KITTY_KEYS) == app.drawn.count(PUSH_KITTY_KEYS) == 1


def suspended_then_fg(app: OnTerminal, stop: Callable[[], None], *also: int) -> None:
    """``stop()`` suspends the app (and ``also`` those processes with it), giving the
    shell its terminal back; then ``fg``: it is drawn whole, answers keys and ends as it
    should, the terminal as it was (``app.before``)."""
    before = app.before
    app.started()
    app.until(lambda: b"Items" in app.drawn)  # the first frame whole: keys taken
    pid = app.app_pid()
    app.drain()
    stop()
    app.stopped(pid, *also)
    assert app.settings() == before  # the shell gets its terminal back
    app.until(lambda: LEAVE_ALTERNATE_SCREEN in app.drawn, seconds=10)  # written before
    app.drain()
    os.killpg(os.getpgid(pid), signal.SIGCONT)  # fg
    app.until(lambda: b"Webhooks" in app.drawn, seconds=20)
    assert app.drawn.count(ENTER_ALTERNATE_SCREEN) == 1
    os.write(app.input, b"q")
    assert app.ended() == 0
    assert app.settings() == before


def test_a_suspend_and_resume_redraws_the_whole_screen() -> None:
    # Back from SIGTSTP (fg), only the header was drawn again: the rest stayed blank.
    with app_on_terminal(COLUMNS="120", LINES="40", job=()) as app:
        suspended_then_fg(app, lambda: os.kill(app.app_pid(), signal.SIGTSTP))


def test_ctrl_z_suspends_as_sigtstp_does_and_fg_redraws() -> None:
    # ctrl+z did nothing and said nothing, and the "fg" typed after it went to the app
    # as keys (f jumped to Payouts).
    with app_on_terminal(COLUMNS="120", LINES="40", job=()) as app:
        suspended_then_fg(app, lambda: os.write(app.input, b"\x1a"))  # as a raw terminal sends it


def test_ctrl_z_stops_a_wrapper_that_waits_for_the_app_with_it_and_fg_resumes_both() -> None:
    # Only the app stopped (SIGSTOP): "sh -c 'tokensales-tui; ...'" or "uv run" went on
    # waiting for it, holding the terminal, and the shell's prompt never came back.
    wrapper = ("sh", "-c", '"$@"; echo wrapper-went-on', "sh")
    with app_on_terminal(COLUMNS="120", LINES="40", job=wrapper) as app:
        app.started()
        (sh,) = children_of(app.process.pid)
        assert app.app_pid() != sh
        # The job stopped whole: the shell's prompt comes back.
        suspended_then_fg(app, lambda: os.write(app.input, b"\x1a"), sh)
    assert b"wrapper-went-on" in app.drawn


def test_ctrl_z_without_job_control_draws_the_app_again_at_once() -> None:
    # Started by no job-control shell (a tmux or ssh command, docker run), the app stopped
    # itself for good: nothing sends it SIGCONT. Its process group is orphaned here (its
    # session is its own), and Linux discards a SIGTSTP sent to one.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        before = app.settings()
        app.started()
        app.until(lambda: b"Items" in app.drawn)
        app.drain()
        os.write(app.input, b"\x1a")
        app.until(lambda: ENTER_ALTERNATE_SCREEN in app.drawn.partition(LEAVE_ALTERNATE_SCREEN)[2])
        app.until(lambda: b"Webhooks" in app.drawn.rpartition(ENTER_ALTERNATE_SCREEN)[2])
        assert state_of(app.process.pid) != "T"
        os.write(app.input, b"q")  # keys answered still
        assert app.ended() == 0
        assert app.settings() == before


@pytest.mark.parametrize("drawing_apart", [False, True], ids=["terminal", "stderr-alone"])
def test_a_terminal_gone_without_a_hang_up_signal_ends_the_app_as_one(
    drawing_apart: bool,
) -> None:
    # Its own session's leader, the app gets no SIGHUP when its pty closes: it span at a
    # full core on the end of its input, or (the drawing terminal alone gone) blocked for
    # good on a full output queue once the output thread died of EIO.
    with app_on_terminal(drawing_apart=drawing_apart) as app:
        app.started()
        os.close(app.controller)
        assert app.ended(seconds=30) == 128 + signal.SIGHUP


def draw_while_stalled(app: OnTerminal, seconds: float) -> None:
    """Have the app draw for ``seconds`` (Items and Webhooks in turn, most of a screen
    each time), read by nobody: far more than the terminal holds, which takes nothing
    more; Webhooks shown at the end."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for tab in (b"2", b"1"):
            os.write(app.input, tab)
            time.sleep(0.2)


def test_a_stalled_terminal_ends_nothing_and_is_drawn_whole_once_it_takes_output_again() -> None:
    # A terminal that took nothing for 15 s (a link stalled, a window held) ended the app
    # as a hang-up, its modes never put back. While it takes nothing, frames are dropped;
    # once it takes them again, the screen is drawn whole as the app shows it now.
    with app_on_terminal(size=(120, 40)) as app:
        app.started()
        draw_while_stalled(app, seconds=20)
        os.write(app.input, b"/stalled")  # drawn last, and only if drawn whole again
        time.sleep(1)

        def drawn_whole() -> bool:
            if "No rows match “stalled”".encode() not in app.drawn:
                return False
            screen = "\n".join(screen_of(app.drawn, 120, 40))
            return (
                " 1 Webhooks  2 Items" in screen
                and "No rows match “stalled”" in screen
                and "wh_" not in screen  # no row left of a frame before
                and "Title" not in screen  # nor of Items
            )

        app.until(lambda: drawn_whole() or app.process.poll() is not None)
        assert app.process.poll() is None, app.drawn[-2000:]
        os.write(app.input, b"\x1bq")
        assert app.ended() == 0


def test_a_signal_ends_the_app_at_once_while_its_terminal_takes_nothing() -> None:
    # It waited 15 s for room in the output queue, then 15 s for the output thread,
    # which never ended, and ended with 129; the app's end now waits DRAIN_LIMIT at most.
    with app_on_terminal(size=(120, 40)) as app:
        before = app.settings()
        app.started()
        draw_while_stalled(app, seconds=2)
        app.process.send_signal(signal.SIGTERM)
        assert app.process.wait(timeout=12) == 128 + signal.SIGTERM  # never read
        assert app.settings() == before


def test_a_stalled_terminal_that_goes_away_ends_the_app_as_a_hang_up() -> None:
    # The drawing terminal alone closed while it took nothing: the write waiting on it
    # fails, and that is the terminal gone.
    with app_on_terminal(drawing_apart=True) as app:
        app.started()
        draw_while_stalled(app, seconds=2)
        os.close(app.controller)
        assert app.process.wait(timeout=30) == 128 + signal.SIGHUP


def test_the_terminal_s_own_size_wins_over_columns_and_lines() -> None:
    # COLUMNS and LINES exported made the app draw 80x24 in a larger terminal, and never
    # follow a resize.
    with app_on_terminal(size=(120, 40), COLUMNS="80", LINES="24") as app:
        app.until(lambda: b"\x1b[40;1H" in app.drawn or app.process.poll() is not None)
        set_size(app.controller, 130, 45)
        app.process.send_signal(signal.SIGWINCH)
        app.until(lambda: b"\x1b[45;1H" in app.drawn or app.process.poll() is not None)
        assert app.process.poll() is None, app.drawn[-500:]


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
            # Their 8-bit forms (U+009B for ESC [): the text typed into the filter.
            "\x9b?62;22;52c".encode(),
            "\x90>|xterm(388)\x9c".encode(),
            "\x9d11;rgb:0000/0000/0000\x07\x9c\x85".encode(),
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


def test_a_paste_whose_bytes_stall_is_text_up_to_its_end_marker_never_keys() -> None:
    # A paste on the table whose rest came after a stall of more than 2 s: the rest was
    # read as keys, its 2 switched to Items and its q quit the app.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"\x1b[200~see the")
        time.sleep(PASTE_WAIT + 0.5)  # the stall, by the app's clock
        os.write(app.controller, b" 2 docs q\x1b[201~")
        os.write(app.controller, b"/zz9")  # keys after the paste: the filter, typed into
        app.until(lambda: b"zz9" in app.drawn or app.process.poll() is not None, 20)
        assert app.process.poll() is None, app.drawn[-2000:]


def test_a_terminal_reply_whose_rest_comes_late_acts_on_nothing() -> None:
    # A terminal's window title report held up by the link after its ESC ]: the rest was
    # read as keys half a second on, and the q of "quick notes" quit the app.
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"\x1b]")
        time.sleep(STRING_OPEN / 2)  # the stall, by the app's clock
        os.write(app.controller, b"lquick notes\x1b\\")
        os.write(app.controller, b"/zz9")  # keys after it: the filter, typed into
        app.until(lambda: b"zz9" in app.drawn or app.process.poll() is not None, 20)
        assert app.process.poll() is None, app.drawn[-2000:]


def test_a_colour_system_that_does_not_exist_is_refused_in_one_line() -> None:
    # Rich's KeyError: 'bogus' ended the app with a traceback, exit 1.
    with app_on_terminal(TEXTUAL_COLOR_SYSTEM="bogus") as app:
        assert app.ended() == 2
    assert app.drawn.decode().strip().splitlines() == [
        "tokensales-tui: TEXTUAL_COLOR_SYSTEM='bogus' is not a colour system:"
        " choose auto, standard, 256, truecolor or windows"
    ]


def test_a_dumb_terminal_gets_the_standard_colours_at_most() -> None:
    # Rich finds no colour for TERM=dumb, and Textual drew in 24-bit colour then.
    with app_on_terminal(TERM="dumb") as app:
        app.started()
        app.process.send_signal(signal.SIGTERM)
        assert app.ended() == 128 + signal.SIGTERM
    assert re.search(rb"\x1b\[[0-9;]*[34]8;[25];", app.drawn) is None
    assert re.search(rb"\x1b\[(?:[0-9]+;)*(?:3[0-7]|9[0-7])[;m]", app.drawn) is not None


def test_a_key_typed_after_escape_acts_however_late() -> None:
    # Escape, then P: the P opened a terminal string, and every key for two seconds after
    # it went into it (the filter below was never opened).
    with app_on_terminal(COLUMNS="120", LINES="40") as app:
        app.started()
        os.write(app.controller, b"\x1b")
        time.sleep(0.5)  # the escape has gone out, by the app's clock
        os.write(app.controller, b"P")
        time.sleep(0.2)
        os.write(app.controller, b"/zz9")
        app.until(lambda: b"zz9" in app.drawn or app.process.poll() is not None, STRING_OPEN)
        assert app.process.poll() is None, app.drawn[-2000:]
