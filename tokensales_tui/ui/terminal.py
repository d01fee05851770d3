"""The last gate between the app and the terminal: no foreign control sequence gets out.

Text we did not write is cleaned where it becomes a widget (:mod:`.safe`,
:mod:`tokensales_tui.clean`). This module is the second line: every write to the
terminal passes :func:`neutralize`, which removes the sequences that could act outside
the screen — OSC (clipboard, title, links), DCS, APC, PM and SOS strings, and C1
control characters — unless they are the few our own code and Textual write on purpose:

* OSC 52, one clipboard write of an explicit copy, alone in its write, whose decoded
  text holds no control character a shell would act on when pasted;
* OSC 22, Textual's pointer shape.

The tests use :func:`foreign_sequences` to fail on anything this would have removed
(``tests/tripwire.py``), so a leak at the source is found even though the gate holds.

The way in is guarded too: bytes the terminal sends that are not UTF-8 are read as
U+FFFD (:func:`read_leniently`). Textual decoded them strictly, and one such byte ended
the app with a traceback: a stray byte, or a mouse report of a terminal that ignores
the SGR mouse mode and sends a column past 95 as one raw byte (GNU screen).
Nothing here imports Textual; :func:`guarded_driver` wraps a driver class by duck typing.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import functools
import logging
import re
import sys
from typing import Any, TypeVar

__all__ = [
    "clipboard_problem",
    "foreign_sequences",
    "guarded_driver",
    "neutralize",
    "read_leniently",
]

log = logging.getLogger(__name__)

# Where a string-carrying sequence or a C1 control may begin: ESC ] (OSC), ESC P (DCS),
# ESC _ (APC), ESC ^ (PM), ESC X (SOS), or a C1 character (0x9B is a one-byte CSI).
_SUSPECT = re.compile("\x1b[\\]P_^X]|[\x80-\x9f]")
# A control string ends at BEL (OSC only), ST as ESC \, or a C1 ST.
_STRING_END = re.compile("\x07|\x1b\\\\|\x9c")

_OWN_OSC = re.compile(r"\x1b\](?:52;c;(?P<clip>[A-Za-z0-9+/=]*)|22;[a-z-]{1,32})(?:\x07|\x1b\\)")

# What a pasted clipboard must not hold: C0 controls but tab and newline, DEL, C1.
_PASTE_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clipboard_problem(encoded: str) -> str | None:
    """Why an OSC 52 payload is unsafe to paste, or ``None`` if it is fine.

    Args:
        encoded: The base64 text of an OSC 52 clipboard write.
    """
    try:
        text = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return "the clipboard text is not base64 of UTF-8"
    if found := _PASTE_UNSAFE.search(text):
        return f"the clipboard text holds the control character U+{ord(found[0]):04X}"
    return None


def _scan(data: str) -> list[tuple[int, int, str]]:
    """The spans of ``data`` that are foreign sequences, with the reason for each."""
    spans: list[tuple[int, int, str]] = []
    position = 0
    while (found := _SUSPECT.search(data, position)) is not None:
        start = found.start()
        if found[0][0] != "\x1b":  # a C1 character
            spans.append((start, start + 1, f"C1 control U+{ord(found[0]):04X}"))
            position = start + 1
            continue
        end_match = _STRING_END.search(data, found.end())
        end = len(data) if end_match is None else end_match.end()
        sequence = data[start:end]
        own = _OWN_OSC.fullmatch(sequence)
        if own is not None and (own["clip"] is None or (start == 0 and end == len(data))):
            problem = None if own["clip"] is None else clipboard_problem(own["clip"])
            if problem is None:
                position = end
                continue
            spans.append((start, end, problem))
        else:
            kind = {"]": "OSC", "P": "DCS", "_": "APC", "^": "PM", "X": "SOS"}[sequence[1]]
            spans.append((start, end, f"{kind} sequence {sequence[:24]!r}"))
        position = end
    return spans


def foreign_sequences(data: str) -> list[str]:
    """Describe each sequence in ``data`` that :func:`neutralize` would remove.

    Args:
        data: Text about to be written to the terminal.

    Returns:
        One description per foreign sequence; empty when ``data`` is clean.
    """
    if _SUSPECT.search(data) is None:
        return []
    return [reason for _start, _end, reason in _scan(data)]


def neutralize(data: str) -> str:
    """``data`` without the control sequences our code did not mean to write.

    Args:
        data: Text about to be written to the terminal.

    Returns:
        ``data`` itself when it is clean (the common case costs one search).
    """
    if _SUSPECT.search(data) is None:
        return data
    spans = _scan(data)
    if not spans:
        return data
    kept: list[str] = []
    position = 0
    for start, end, reason in spans:
        kept.append(data[position:start])
        position = end
        log.warning("terminal guard removed %s", reason)
    kept.append(data[position:])
    return "".join(kept)


DriverT = TypeVar("DriverT")


def guarded_driver(driver_class: type[DriverT]) -> type[DriverT]:
    """A subclass of ``driver_class`` whose ``write`` passes :func:`neutralize` first.

    Args:
        driver_class: A Textual driver class (anything with ``write(data: str)``).
    """
    read_leniently(driver_class)

    def write(self: Any, data: str) -> None:
        driver_class.write(self, neutralize(data))  # type: ignore[attr-defined]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        driver_class.__init__(self, *args, **kwargs)
        in_utf8(getattr(self, "_file", None))

    guarded = type(
        f"Guarded{driver_class.__name__}", (driver_class,), {"write": write, "__init__": __init__}
    )
    guarded.__module__ = __name__
    return guarded


def in_utf8(stream: object) -> None:
    """Have the terminal's text stream write UTF-8 whatever the locale says, as the
    commands do: under a locale of another charset (``LC_ALL=C`` with coercion off, an
    ISO-8859-1 one) every line, border and mark was written as ``\\u2578``-like text."""
    reconfigure = getattr(stream, "reconfigure", None)
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if reconfigure is not None and encoding != "utf8":
        with contextlib.suppress(OSError, ValueError):
            reconfigure(encoding="utf-8", errors="replace")


def _lenient_decoder(encoding: str) -> Any:
    """``codecs.getincrementaldecoder``, whose decoders read what is not valid as U+FFFD."""
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


def read_leniently(driver_class: type) -> None:
    """Have ``driver_class`` read input bytes that are not UTF-8 as U+FFFD.

    A Textual driver makes its decoder inside its input thread, from the
    ``getincrementaldecoder`` of its own module, strict: the first byte that is not
    UTF-8 raised there, and the app ended (with status 0). That name is replaced in the
    module of each class ``driver_class`` comes from. A mouse report whose column came
    as such a byte stays a whole report (its byte one U+FFFD), which is then ignored.
    """
    for klass in driver_class.__mro__:
        module = sys.modules.get(klass.__module__)
        if getattr(module, "getincrementaldecoder", None) is codecs.getincrementaldecoder:
            module.getincrementaldecoder = _lenient_decoder  # type: ignore[union-attr]
