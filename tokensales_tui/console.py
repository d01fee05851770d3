"""The standard streams of a command: a terminal gets clean text, and a stream that cannot
be written ends the command in one line.

Every command prints text that is partly someone else's: a profile's name, a server's
message, a file's line, a value the parser echoes back in an error. Cleaning each of
them where it is printed leaves one forgotten ``print`` to write an escape sequence to
the user's terminal. So while a command runs, a standard stream that is a terminal is
replaced by one that cleans everything written to it, text or bytes: control and bidi
characters show as visible markers, zero-width and format characters (ZWSP, ZWJ, BOM…) as
"⸱" as in the app's tables, newlines and tabs stay. A stream that is not a
terminal gets the data exactly: a program reading it gets what the server sent (JSON
escapes its controls itself; CSV, ``--jq`` strings and a raw ``api`` answer go as they
came). Views made for reading — a table, one object's ``key  value`` lines, ``listen
--print`` — are cleaned where they are made, wherever they go: each row must stay one
line for its columns to hold.

Writing can fail wherever it happens: a full disk (``> /dev/full``), a closed
descriptor (``>&-``, when ``sys.stdout`` is ``None``), a reader that went away
(``| head``). Each command would need its own handler; instead, stdout is replaced too,
by a stream that turns the ``OSError`` into :class:`OutputFailed`, which the command
line's entry point turns into one line on stderr (or, for a reader that went away, a
quiet success). A message that cannot be written to stderr is dropped: there is nowhere
left to say it, and the exit code still does.

The terminal app writes to the terminal through Textual's driver, never through these
streams: :func:`guard_streams` is undone (:func:`unguard`) before it runs.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import sys
from typing import IO, Any, cast

from .clean import clean, mark_invisible

__all__ = [
    "OutputFailed",
    "OutputStream",
    "TerminalGate",
    "flush_output",
    "guard_streams",
    "quiet_stdout",
    "unguard",
]


class OutputFailed(Exception):
    """stdout cannot be written. Not an ``OSError``: an ``except OSError`` around a file
    read or a connection cannot take it for its own, so it reaches the entry point.

    Attributes:
        reader_gone: the reader closed the pipe (``| head``): what it wanted was printed.
    """

    def __init__(self, error: OSError | None) -> None:
        reason = "stdout is closed" if error is None else error.strerror or str(error)
        super().__init__(f"cannot write the output: {reason}")
        self.reader_gone = isinstance(error, BrokenPipeError)


class OutputStream(io.BufferedIOBase):
    """A byte stream that writes to ``target`` (``None``: a descriptor that is closed).

    For stdout, an ``OSError`` becomes :class:`OutputFailed`; for stderr (``dropping``),
    what cannot be written is dropped.
    """

    def __init__(self, target: IO[bytes] | None, *, dropping: bool = False) -> None:
        super().__init__()
        self._target = target
        self._dropping = dropping

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        size = len(memoryview(data).cast("B"))
        self._write(data)
        return size

    def _write(self, data: Any) -> None:
        if self._target is None:
            self._fail(None)
            return
        try:
            self._target.write(data)
        except OSError as error:
            self._fail(error)

    def flush(self) -> None:
        if self._target is None:  # nothing was written: nothing waits
            return
        try:
            self._target.flush()
        except OSError as error:
            self._fail(error)

    def _fail(self, error: OSError | None) -> None:
        if not self._dropping:
            raise OutputFailed(error) from None

    def fileno(self) -> int:
        if self._target is None:
            raise io.UnsupportedOperation("the stream is closed")
        return self._target.fileno()

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        # The target is the interpreter's own stream: it closes it at exit. What it
        # holds is flushed now if it can be, never by the base class's close, which
        # would raise OutputFailed again where nobody can report it.
        if not self.closed:
            with contextlib.suppress(OutputFailed, ValueError):
                self.flush()
            self._target = None
        super().close()


class TerminalGate(OutputStream):
    """An :class:`OutputStream` to a terminal: it writes what :func:`~.clean.clean`
    and :func:`~.clean.mark_invisible` make of the data.

    Bytes are read as UTF-8 as they come (a character split across two writes is
    joined; one that is not UTF-8 becomes "�"), so a write of half a C1 control cannot
    slip through.
    """

    def __init__(self, target: IO[bytes], *, dropping: bool = False) -> None:
        super().__init__(target, dropping=dropping)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def write(self, data: Any) -> int:
        size = len(memoryview(data).cast("B"))
        text = self._decoder.decode(bytes(data))
        if text:
            self._write(mark_invisible(clean(text)).encode("utf-8"))
        return size

    def isatty(self) -> bool:
        return True


_ORIGINAL: dict[str, IO[str] | None] = {}


def guard_streams() -> None:
    """Replace ``sys.stdout`` and ``sys.stderr`` by streams that clean what is written to
    a terminal and turn a failure to write stdout into :class:`OutputFailed` (see the
    module's docstring)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if name in _ORIGINAL:
            continue
        if stream is not None and getattr(stream, "buffer", None) is None:
            continue  # a stream someone else put in place (a test's capture): theirs
        _ORIGINAL[name] = stream
        setattr(sys, name, _guarded(stream, dropping=name == "stderr"))


def _guarded(stream: Any, *, dropping: bool) -> IO[str]:
    """``stream`` (``None``: a descriptor that is closed) with what it is written cleaned
    if it is a terminal, and its failures raised as :class:`OutputFailed` unless
    ``dropping``."""
    buffer: IO[bytes] | None = None
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
        buffer = stream.buffer
    if buffer is not None and _is_terminal(stream):
        return io.TextIOWrapper(
            cast("io.BufferedWriter", TerminalGate(buffer, dropping=dropping)),
            encoding="utf-8",
            # A lone surrogate (an argument that is not UTF-8) reaches the gate as
            # bytes that are not UTF-8 either, and shows as "�".
            errors="surrogateescape",
            line_buffering=True,
            write_through=True,
        )
    return io.TextIOWrapper(
        cast("io.BufferedWriter", OutputStream(buffer, dropping=dropping)),
        encoding=getattr(stream, "encoding", "utf-8"),
        errors=getattr(stream, "errors", "strict"),
        # Nothing waits in this text layer: text, and the bytes the printers write to
        # the buffer, arrive in the order they were written, buffered below.
        write_through=True,
    )


def flush_output() -> None:
    """Flush stdout: what is still buffered fails now (:class:`OutputFailed`), while the
    command can still say so, rather than at the interpreter's exit."""
    if "stdout" in _ORIGINAL:  # not after the app took the terminal back (unguard)
        sys.stdout.flush()


def quiet_stdout() -> None:
    """Point stdout's descriptor at /dev/null, so that what is still buffered for it
    raises nothing at the interpreter's exit."""
    stream = _ORIGINAL.get("stdout", sys.stdout)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # type: ignore[union-attr]
        os.close(devnull)


def unguard() -> None:
    """Put back the streams :func:`guard_streams` replaced."""
    for name, stream in list(_ORIGINAL.items()):
        with contextlib.suppress(OutputFailed, ValueError):
            getattr(sys, name).flush()
        setattr(sys, name, stream)
        del _ORIGINAL[name]


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False
