"""The terminal mode of an app on a real terminal, kept whole whatever signals and hang-ups do.

Textual's Linux driver sets the terminal up (raw mode, alternate screen, mouse reporting,
kitty keyboard mode) and puts it back at the end. :func:`keeping_the_terminal` makes a
subclass of it that

* resumes on SIGCONT only what its own SIGTSTP suspended. Textual's started the terminal
  mode again on every SIGCONT — ``kill -CONT`` alone, the one GNU ``timeout`` and
  systemd send after SIGTERM, the end of a SIGSTOP: every setup sequence was written
  twice (the kitty mode pushed twice, popped once), a second input and output thread
  ran, and the settings to put back were read from the raw terminal, which stayed raw
  after the app. A SIGTSTP before the mode is on only stops the process;
* puts back the settings the terminal had before the app started, whatever came since;
* ends the app as a hang-up (exit 129) when its terminal is gone without a SIGHUP (a
  ``trap '' HUP``, a session of its own): at the end of its input (read as nothing, or
  EIO) the input thread span at a full core, and the first write error killed the
  output thread, whose queue then filled and blocked the app for good (no SIGTERM could
  end it, and an exit waited forever for the thread);
* bounds every write: one the terminal takes nothing of for :data:`WRITE_LIMIT` seconds
  counts as the terminal gone;
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
from typing import IO, Any, TypeVar

from textual.drivers._writer_thread import WriterThread

__all__ = ["WRITE_LIMIT", "keeping_the_terminal"]

DriverT = TypeVar("DriverT")

WRITE_LIMIT = 15.0
"""Seconds a write may wait for room in the output queue (30 writes, a few frames) before
the terminal counts as gone. A terminal, even over a slow link, takes a frame in far less;
one that takes nothing for this long is stopped or lost, and waiting on held the whole
app, signals included."""

HANG_UP = 128 + signal.SIGHUP


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
    """Textual's output thread, whose writes never block for more than :data:`WRITE_LIMIT`
    and which outlives a write error: from the first failure on, the terminal is gone,
    ``failed`` is called once, and what comes is dropped."""

    def __init__(self, file: IO[str], failed: Any) -> None:
        super().__init__(file)
        self._failed = failed
        self.broken = False

    def _break(self) -> None:
        if not self.broken:
            self.broken = True
            self._failed()

    def write(self, text: str) -> None:
        if self.broken:
            return
        try:
            self._queue.put(text, timeout=WRITE_LIMIT)
        except queue.Full:
            self._break()

    def run(self) -> None:
        write, flush = self._file.write, self._file.flush
        get, qsize = self._queue.get, self._queue.qsize
        while (text := get()) is not None:
            if self.broken:
                continue
            try:
                write(text)
                if qsize() == 0:
                    flush()
            except (OSError, ValueError):  # EIO once the terminal hung up; closed
                self._break()
        if not self.broken:
            with contextlib.suppress(OSError, ValueError):
                flush()

    def stop(self) -> None:
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=WRITE_LIMIT)
        self.join(WRITE_LIMIT)


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
            writer = BoundedWriter(writer._file, self._terminal_gone)
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
            base.stop_application_mode(self)

    def _sigtstp_application(self: Any, *_: Any) -> None:
        if self._auto_restart and self._mode_on:
            self.suspend_application_mode()
            self._must_signal_resume = True  # resumed on SIGCONT, and the app told
        os.kill(os.getpid(), signal.SIGSTOP)

    def _sigcont_application(self: Any, *_: Any) -> None:
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
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the app has ended
                self._loop.call_soon_threadsafe(
                    functools.partial(self._app.exit, return_code=HANG_UP)
                )

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
            "_sigtstp_application": _sigtstp_application,
            "_sigcont_application": _sigcont_application,
            "run_input_thread": run_input_thread,
            "_terminal_gone": _terminal_gone,
            "_get_terminal_size": _get_terminal_size,
        },
    )
    keeping.__module__ = __name__
    return keeping
