"""The terminal mode of an app on a real terminal, kept whole whatever signals and hang-ups do.

Textual's Linux driver sets the terminal up (raw mode, alternate screen, mouse reporting,
kitty keyboard mode) and puts it back at the end. :func:`keeping_the_terminal` makes a
subclass of it that

* stops on SIGTSTP (ctrl+z) as a job, its process group (:func:`stop_the_job`), and
  resumes where nothing stopped it (no job-control shell: a SIGTSTP is discarded);
* resumes on SIGCONT only what its own SIGTSTP suspended. Textual's started the terminal
  mode again on every SIGCONT — ``kill -CONT`` alone, the one GNU ``timeout`` and
  systemd send after SIGTERM, the end of a SIGSTOP: every setup sequence was written
  twice (the kitty mode pushed twice, popped once), a second input and output thread
  ran, and the settings to put back were read from the raw terminal, which stayed raw
  after the app. A SIGTSTP before the mode is on only stops the job;
* puts back the settings the terminal had before the app started, whatever came since;
* ends the app as a hang-up (exit 129) when its terminal is gone without a SIGHUP (a
  ``trap '' HUP``, a session of its own): at the end of its input (read as nothing, or
  EIO) the input thread span at a full core, and the first write error killed the
  output thread, whose queue then filled and blocked the app for good (no SIGTERM could
  end it, and an exit waited forever for the thread);
* never waits on the terminal, and outlasts one that stalls (a link that takes nothing for
  a while: a laptop's lid closed, a train's tunnel, a terminal window held). The app's
  writes go to an output thread (:class:`BoundedWriter`) and never block; while the
  terminal has not taken the :data:`FRAMES_HELD` frames waiting for it, a new frame is
  dropped whole (never a part of one: no escape sequence is cut), and once it has, the
  app draws all of its screen again (:class:`TerminalCaughtUp`, handled as a resume from
  SIGTSTP is). What is not a frame (a mode switched, the cursor shown or hidden, a copy,
  a bell) is never dropped. Only a write error or the end of input is the terminal gone:
  a stall, however long, ends nothing (the app ended on one of 15 s as on a hang-up, its
  terminal modes never put back), and signals end the app at once meanwhile. The app's
  end waits :data:`DRAIN_LIMIT` seconds (3) at most for the terminal to take what puts
  it back; past that the terminal counts as gone, and what is left is not written;
* draws at the terminal's own size (``TIOCGWINSZ``): Textual asked ``shutil``, which
  prefers ``COLUMNS`` and ``LINES``, exported by some shells and scripts, and the app
  drew 80x24 in a larger terminal and never followed a resize. The variables count only
  where the terminal gives no size.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import signal
import sys
import termios
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeVar

from textual import events
from textual.drivers._writer_thread import WriterThread

from . import running_time

__all__ = ["DRAIN_LIMIT", "FRAMES_HELD", "TerminalCaughtUp", "keeping_the_terminal", "one_frame"]

DriverT = TypeVar("DriverT")

FRAMES_HELD = 2
"""Frames being written or waiting to be, at most: while the terminal has not taken this
many, a new frame is dropped, and the screen is drawn whole once it has. What a stalled
terminal holds in memory is these frames and what is not a frame, each from something the
user did (a key's bell or copy, a suspend's modes), none from the passing of time."""

DRAIN_LIMIT = 3.0
"""Seconds the app's end (or a suspend) waits for the terminal to take what is still to
be written, the sequences that put its modes back last: at the end, a terminal that took
nothing for that long counts as gone, and the app ends all the same."""


class TerminalCaughtUp(events.Event):
    """The terminal took the frames held for it after frames were dropped: the app draws
    all of its screen again."""


@dataclass(frozen=True)
class _Frame:
    """A frame: what the app wrote in one ``App._display``."""

    text: str


class InputEnded(Exception):
    """The terminal's input ended: a read gave nothing (end of file)."""


class _EndingDecoder:
    """A decoder that says when a read gave nothing, which Textual's input loop took for
    "nothing yet" and read again at once, for ever."""

    def __init__(self, decoder: Any) -> None:
        self._decode = decoder.decode

    def decode(self, data: bytes, final: bool = False) -> str:
        if not data and not final:
            raise InputEnded
        text: str = self._decode(data, final)
        return text


def _ending_input(make: Any) -> Any:
    def getincrementaldecoder(encoding: str) -> Any:
        return lambda *args, **kwargs: _EndingDecoder(make(encoding)(*args, **kwargs))

    getincrementaldecoder.ends_input = True  # type: ignore[attr-defined]
    return getincrementaldecoder


class BoundedWriter(WriterThread):
    """Textual's output thread, whose writes never block, and which outlives a stall and
    a write error.

    A frame (what the app writes inside :func:`one_frame`) is dropped whole while
    :data:`FRAMES_HELD` frames are still to be taken by the terminal, and so is every frame
    after it until the terminal has taken them; ``caught_up`` is called then. Any other write is kept. From the first write error
    on, the terminal is gone: ``failed`` is called once, and what comes is dropped. The
    thread begins once ``after`` (the writer before it, still writing what put the
    terminal back for a suspend) has ended.
    """

    def __init__(
        self, file: IO[str], failed: Any, caught_up: Any, after: threading.Thread | None
    ) -> None:
        super().__init__(file)
        self._items: queue.SimpleQueue[str | _Frame | None] = queue.SimpleQueue()
        self._failed = failed
        self._caught_up = caught_up
        self._after = after
        self.broken = False
        self._ending = False
        self._frame: list[str] | None = None
        self._held = threading.Lock()  # over the two below, shared with the thread
        self._frames_held = 0
        self._dropped = False

    def _break(self) -> None:
        if not self.broken:
            self.broken = True
            self._failed()

    def write(self, text: str) -> None:
        if self.broken or self._ending:
            return
        if self._frame is not None:
            self._frame.append(text)
        else:
            self._items.put(text)

    def begin_frame(self) -> None:
        """What is written until :meth:`end_frame` is one frame."""
        self._frame = []

    def drop_frame(self) -> None:
        """Forget the frame begun: what is written from now on is written as any other
        write. A SIGTSTP's handler may run in the middle of a frame, and what it writes to
        put the terminal back must go out (the app draws all of its screen on resume)."""
        self._frame = None

    def end_frame(self) -> None:
        text = "".join(self._frame or ())
        self._frame = None
        if not text or self.broken or self._ending:
            return
        with self._held:
            # Once one is dropped, every frame is, until the terminal has taken those
            # held and the app draws all: a frame is mostly the change from the one
            # before, and one written after a drop drew on a screen the terminal never had.
            if self._dropped or self._frames_held >= FRAMES_HELD:
                self._dropped = True
                return
            self._frames_held += 1
        self._items.put(_Frame(text))

    def _frame_taken(self) -> None:
        with self._held:
            self._frames_held -= 1
            caught_up = self._dropped and not self._frames_held
            if caught_up:
                self._dropped = False
        if caught_up:
            self._caught_up()

    def run(self) -> None:
        if self._after is not None:
            self._after.join()
        file = self._file
        fd = -1
        try:
            file.flush()  # what was written through it before
            fd = file.fileno()
        except (AttributeError, OSError, ValueError):
            self._break()
        encoding = getattr(file, "encoding", None) or "utf-8"
        errors = getattr(file, "errors", None) or "strict"
        while (item := self._items.get()) is not None:
            if isinstance(item, _Frame):
                if not self._ending:  # the frames of an app ending are drawn no more
                    self._write(fd, item.text.encode(encoding, errors))
                self._frame_taken()
            else:
                self._write(fd, item.encode(encoding, errors))

    def _write(self, fd: int, data: bytes) -> None:
        """Write all of ``data`` to the terminal's descriptor, waiting as long as it takes.
        No buffer of the file object's comes between: a frame counts as taken once the
        terminal has taken all of it."""
        if self.broken:
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:  # EIO once the terminal hung up, EPIPE, a closed descriptor
            self._break()

    def stop(self) -> None:
        """End the thread once it has written what is not a frame (frames still waiting
        are dropped), waiting :data:`DRAIN_LIMIT` seconds at most."""
        self._ending = True
        self._items.put(None)
        self.join(DRAIN_LIMIT)


@contextlib.contextmanager
def one_frame(driver: object) -> Iterator[None]:
    """What the app writes to ``driver`` inside is one frame, dropped whole while the
    terminal is backed up (see :class:`BoundedWriter`): ``App._display`` runs inside."""
    writer = getattr(driver, "_writer_thread", None)
    if not isinstance(writer, BoundedWriter):
        yield
        return
    writer.begin_frame()
    try:
        yield
    finally:
        writer.end_frame()


def _to_null(stream: object) -> None:
    """Point the file descriptor of a terminal that is gone at ``/dev/null``, so that what
    still writes to it (the interpreter's last flush of stderr: exit status 120) neither
    fails nor blocks."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        fd = stream.fileno()  # type: ignore[attr-defined]
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)


def stop_the_job() -> None:
    """Stop the app's process group (its job) with SIGTSTP, as the terminal's ctrl+z
    does, and return once it runs again; call it from the main thread, the terminal put
    back.

    The whole group stops, so a shell that started it through a wrapper that waits
    for the app (``sh -c 'tokensales-tui; …'``, ``uv run``) sees its job stopped, gives
    its prompt back, and continues all of it on ``fg``: a SIGSTOP of the app alone left
    the wrapper holding the terminal, and no prompt came back. Where no job-control shell
    started the app (a ``tmux`` or ``ssh`` command, ``docker run``), its process group is
    orphaned, and Linux discards a SIGTSTP sent to one: this returns at once, the app
    not stopped, where a SIGSTOP stopped it for good (nothing sends it SIGCONT).
    """
    handler = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    try:
        os.killpg(0, signal.SIGTSTP)
    finally:
        signal.signal(signal.SIGTSTP, handler)


def keeping_the_terminal(driver_class: type[DriverT]) -> type[DriverT]:
    """A subclass of Textual's Linux driver ``driver_class`` that keeps the terminal whole
    (see the module's docstring)."""
    for klass in driver_class.__mro__:
        module = sys.modules.get(klass.__module__)  # type: ignore[assignment]
        make = getattr(module, "getincrementaldecoder", None)
        if make is not None and not getattr(make, "ends_input", False):
            module.getincrementaldecoder = _ending_input(make)  # type: ignore[union-attr]
    base: Any = driver_class

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        self._mode_on = False
        self._suspending = False
        self._gone = threading.Lock()
        self._loop = None  # the app's, once the mode is on
        base.__init__(self, *args, **kwargs)
        try:
            self._settings_before = termios.tcgetattr(self.fileno)
        except (OSError, termios.error):
            self._settings_before = None

    def get_writer(self: Any) -> WriterThread | None:
        writer: WriterThread | None = self.__dict__.get("_bounded_writer")
        return writer

    def set_writer(self: Any, writer: WriterThread | None) -> None:
        # Textual makes its own WriterThread in start_application_mode: the bounded one
        # takes its place before it starts.
        if writer is not None and not isinstance(writer, BoundedWriter):
            before = self.__dict__.get("_bounded_writer")
            writer = BoundedWriter(writer._file, self._terminal_gone, self._caught_up, before)
        self.__dict__["_bounded_writer"] = writer

    def start_application_mode(self: Any) -> None:
        if self._mode_on:
            return
        self._loop = asyncio.get_running_loop()
        writer = self._writer_thread
        base.start_application_mode(self)
        if self._writer_thread is writer:  # in the background: stopped again, not started
            return
        self._mode_on = True
        if self._settings_before is not None:
            self.attrs_before = self._settings_before

    def stop_application_mode(self: Any) -> None:
        if self._mode_on:
            self._mode_on = False
            if isinstance(writer := self._writer_thread, BoundedWriter):
                writer.drop_frame()
            base.stop_application_mode(self)

    def suspend_application_mode(self: Any) -> None:
        self._suspending = True
        try:
            base.suspend_application_mode(self)
        finally:
            self._suspending = False

    def close(self: Any) -> None:
        base.close(self)  # the writer stopped, DRAIN_LIMIT seconds at most
        writer = self._writer_thread
        if not self._suspending and writer is not None and writer.is_alive():
            _to_null(self._file)  # the app's end: the terminal took nothing for that long

    def _sigtstp_application(self: Any, *_: Any) -> None:
        if self._auto_restart and self._mode_on:
            self.suspend_application_mode()
            self._must_signal_resume = True  # resumed once running again, and the app told
        stop_the_job()
        self._sigcont_application()  # no SIGCONT comes where nothing stopped

    def _sigcont_application(self: Any, *_: Any) -> None:
        """Running again: after a stop (SIGCONT), or right after :func:`stop_the_job`
        (where nothing stopped the app, no SIGCONT comes; where something did, this is the
        second call, and does nothing)."""
        running_time.continued()
        if self._auto_restart and self._must_signal_resume and not self._mode_on:
            self.resume_application_mode()

    def run_input_thread(self: Any) -> None:
        try:
            base.run_input_thread(self)
        except (InputEnded, OSError):  # EIO: the terminal hung up
            self._terminal_gone(output=False)

    def _terminal_gone(self: Any, output: bool = True) -> None:
        """End the app as a hang-up does; called from the input or the output thread."""
        if not self._gone.acquire(blocking=False):
            return
        if output:
            _to_null(self._file)
        self._on_loop(functools.partial(self._app.end_by_signal, signal.SIGHUP))

    def _caught_up(self: Any) -> None:
        """Have the app draw all of its screen; called from the output thread."""
        self._on_loop(functools.partial(self._app.post_message, TerminalCaughtUp()))

    def _on_loop(self: Any, call: Any) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the app has ended
                self._loop.call_soon_threadsafe(call)

    def _get_terminal_size(self: Any) -> tuple[int, int]:
        for stream in (self._file, sys.__stdin__):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                columns, lines = os.get_terminal_size(stream.fileno())  # type: ignore[union-attr]
                if columns > 0 and lines > 0:
                    return columns, lines
        size: tuple[int, int] = base._get_terminal_size(self)
        return size

    keeping = type(
        f"Keeping{driver_class.__name__}",
        (driver_class,),
        {
            "__init__": __init__,
            "_writer_thread": property(get_writer, set_writer),
            "start_application_mode": start_application_mode,
            "stop_application_mode": stop_application_mode,
            "suspend_application_mode": suspend_application_mode,
            "close": close,
            "_sigtstp_application": _sigtstp_application,
            "_sigcont_application": _sigcont_application,
            "run_input_thread": run_input_thread,
            "_terminal_gone": _terminal_gone,
            "_caught_up": _caught_up,
            "_on_loop": _on_loop,
            "_get_terminal_size": _get_terminal_size,
        },
    )
    keeping.__module__ = __name__
    return keeping
