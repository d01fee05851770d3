"""What the commands write to a terminal passes :func:`~.clean.clean` on its way out.

Every command prints text that is partly someone else's: a profile's name, a server's
message, a file's line, a value the parser echoes back in an error. Cleaning each of
them where it is printed leaves one forgotten ``print`` to write an escape sequence to
the user's terminal. So while a command runs, a standard stream that is a terminal is
replaced by one that cleans everything written to it, text or bytes: control and bidi
characters show as visible markers, newlines and tabs stay. A stream that is not a
terminal is left alone: a program reading it gets the data exactly (JSON escapes its
controls itself).

The terminal app writes to the terminal through Textual's driver, never through these
streams: :func:`gate_terminal_streams` is undone (:func:`ungate`) before it runs.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import sys
from typing import IO, Any, cast

from .clean import clean

__all__ = ["TerminalGate", "gate_terminal_streams", "ungate"]


class TerminalGate(io.BufferedIOBase):
    """A byte stream that writes to ``target`` what :func:`~.clean.clean` makes of it.

    Bytes are read as UTF-8 as they come (a character split across two writes is
    joined; one that is not UTF-8 becomes "�"), so a write of half a C1 control cannot
    slip through.
    """

    def __init__(self, target: IO[bytes]) -> None:
        super().__init__()
        self._target = target
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        size = len(memoryview(data).cast("B"))
        text = self._decoder.decode(bytes(data))
        if text:
            self._target.write(clean(text).encode("utf-8"))
        return size

    def flush(self) -> None:
        self._target.flush()

    def fileno(self) -> int:
        return self._target.fileno()

    def isatty(self) -> bool:
        return True

    def close(self) -> None:
        # The target is the interpreter's own stream: it closes it at exit.
        if not self.closed:
            with contextlib.suppress(BrokenPipeError, ValueError):
                self.flush()
        super().close()


_ORIGINAL: dict[str, IO[str]] = {}


def gate_terminal_streams() -> None:
    """Replace ``sys.stdout`` and ``sys.stderr``, where each is a terminal, by streams
    that clean what is written to them (see the module's docstring)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if name in _ORIGINAL or stream is None or not _is_terminal(stream):
            continue
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            continue
        stream.flush()
        gated = io.TextIOWrapper(
            cast("io.BufferedWriter", TerminalGate(buffer)),  # writes only: all it needs
            encoding="utf-8",
            # A lone surrogate (an argument that is not UTF-8) reaches the gate as bytes
            # that are not UTF-8 either, and shows as "�".
            errors="surrogateescape",
            line_buffering=True,
            write_through=True,
        )
        _ORIGINAL[name] = stream
        setattr(sys, name, gated)


def ungate() -> None:
    """Put back the streams :func:`gate_terminal_streams` replaced."""
    for name, stream in list(_ORIGINAL.items()):
        with contextlib.suppress(BrokenPipeError, ValueError):
            getattr(sys, name).flush()
        setattr(sys, name, stream)
        del _ORIGINAL[name]


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False
