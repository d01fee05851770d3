"""A bracketed paste is text, never keys, however slowly its bytes come.

A terminal sends a paste between two markers, ``ESC [ 200 ~`` and ``ESC [ 201 ~``, all at
once: keys typed meanwhile come after its end marker. Textual's parser read an ESC inside
a paste as the start of keys (pasting ``foo ESC q bar`` quit the app), so every ESC
between the markers is written ``␛`` (its control picture) before the parser sees it, and
so is every sequence introducer in its 8-bit form (U+009B as ``␛[``: see
:mod:`.control_sequences`); other control characters stay the text pasted, which fields
draw as marks.

A paste's bytes may stall: an SSH link that pauses mid-paste. What came is given as a
paste once no byte has come for :data:`PASTE_WAIT`, so that it shows, and the paste stays
open: what comes next is its text too, given as a paste at its end marker (or at the next
stall), never keys. Pasted text whose rest came late had ``d`` ask to delete, ``r``
reload and ``q`` quit. A paste is given in parts of :data:`PASTE_PART` characters at
most, each a paste of its own, so that a paste without end holds no more than that.

A paste whose end marker never comes (a terminal's bug, a program killed as it wrote)
would take every key typed after it as its text. So a paste given at a stall ends for good
once nothing has come for :data:`PASTE_OPEN`, or :data:`PASTE_OPEN_MOST` after that
stall (keys typed all along): keys act again after that. A link that stalls longer
mid-paste gives the rest of the paste as keys; a person whose terminal lost the marker
sees the keys typed meanwhile pasted, and no longer than that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual._xterm_parser import XTermParser

from .control_sequences import SEVEN_BIT

__all__ = [
    "ESCAPE_PICTURE",
    "PASTE_END",
    "PASTE_OPEN",
    "PASTE_OPEN_MOST",
    "PASTE_PART",
    "PASTE_START",
    "PASTE_WAIT",
    "paste_waited",
    "pastes_apart",
]

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
ESCAPE_PICTURE = "\u241b"  # ␛

PASTE_WAIT = 2.0
"""Seconds a paste's bytes may stall before what came of it is given as a paste (it stays
open for its rest)."""

PASTE_OPEN = 10.0
"""Seconds without a byte after which a paste given at a stall ends for good: three TCP
retransmissions, doubling from one second, fit in it."""

PASTE_OPEN_MOST = 60.0
"""Seconds after its first stall after which a paste ends for good however its bytes come
(keys typed into a paste that lost its end marker keep it open no longer)."""

PASTE_PART = 1 << 20
"""Characters of a paste given at most in one paste (the parser holds a paste's text as
one list until its end)."""

# The start marker in either form; the end marker is then taken in the same form.
_STARTS = re.compile("\x1b\\[200~|\x9b200~")
_EIGHT_BIT_END = "\x9b201~"
_AS_TEXT = str.maketrans(
    {"\x1b": ESCAPE_PICTURE}
    | {c1: seven.replace("\x1b", ESCAPE_PICTURE) for c1, seven in SEVEN_BIT.items()}
)


@dataclass
class _Paste:
    """A paste under way, as the terminal sent it and as the parser was given it."""

    under_way: bool = False
    """Between the terminal's start marker and its end marker."""
    part: bool = False
    """Textual's parser is inside a paste: text given to it is pasted."""
    size: int = 0
    """Characters given in the part under way."""
    held: str = ""
    """The start of an end marker a read ended inside, held for the next read."""
    end: str = PASTE_END
    last: float = 0.0
    """When its last byte came (by the parser's clock)."""
    stalled: float | None = None
    """When it was first given at a stall."""

    def give(self, text: str) -> str:
        """``text`` of the paste as Textual's parser should get it: each introducer
        written as text, in parts of :data:`PASTE_PART` characters at most."""
        text = text.translate(_AS_TEXT)
        out: list[str] = []
        while text:
            if not self.part:
                out.append(PASTE_START)
                self.part, self.size = True, 0
            piece, text = text[: PASTE_PART - self.size], text[PASTE_PART - self.size :]
            out.append(piece)
            self.size += len(piece)
            if self.size >= PASTE_PART and text:
                out.append(PASTE_END)
                self.part = False
        return "".join(out)

    def end_part(self) -> str:
        if not self.part:
            return ""
        self.part = False
        return PASTE_END


def _paste_of(parser: XTermParser) -> _Paste:
    paste: _Paste | None = getattr(parser, "_paste", None)
    if paste is None:
        paste = parser._paste = _Paste()  # type: ignore[attr-defined]
    return paste


def pastes_apart(parser: XTermParser, data: str, now: float, ended: bool) -> str:
    """``data`` with each paste's text as Textual's parser should get it (see
    :meth:`_Paste.give`). An end marker cut between two reads is held until its rest
    comes (a start marker so cut is held with the other sequences: see
    :mod:`.escape_keys`)."""
    paste = _paste_of(parser)
    text, paste.held = paste.held + data, ""
    if data and paste.under_way:
        paste.last = now
    out: list[str] = []
    at = 0
    while at < len(text):
        if not paste.under_way:
            start = _STARTS.search(text, at)
            if start is None:
                out.append(text[at:])
                break
            out.append(text[at : start.start()] + PASTE_START)
            paste.under_way, paste.part, paste.size, paste.stalled = True, True, 0, None
            paste.end = _EIGHT_BIT_END if start.group()[0] == "\x9b" else PASTE_END
            paste.last = now
            at = start.end()
            continue
        end = text.find(paste.end, at)
        if end < 0:
            rest = text[at:]
            keep = 0 if ended else _marker_start_at_end(rest, paste.end)
            paste.held = rest[len(rest) - keep :]
            out.append(paste.give(rest[: len(rest) - keep]))
            break
        out.append(paste.give(text[at:end]) + paste.end_part())
        paste.under_way = False
        at = end + len(paste.end)
    return "".join(out)


def _marker_start_at_end(text: str, marker: str) -> int:
    """The length of the longest start of ``marker`` that ``text`` ends with."""
    return next((n for n in range(len(marker) - 1, 0, -1) if text.endswith(marker[:n])), 0)


def paste_waited(parser: XTermParser, now: float) -> str:
    """What Textual's parser should get once a paste's bytes have stalled: the end of the
    part under way after :data:`PASTE_WAIT`; after :data:`PASTE_OPEN` (or
    :data:`PASTE_OPEN_MOST` since its first stall), the paste's end."""
    paste = _paste_of(parser)
    if not paste.under_way:
        return ""
    stalled = paste.stalled is not None and now >= paste.stalled + PASTE_OPEN_MOST
    if now >= paste.last + PASTE_OPEN or stalled:
        paste.under_way = False
        held, paste.held = paste.held, ""
        return paste.give(held) + paste.end_part()
    if now >= paste.last + PASTE_WAIT and paste.part:
        if paste.stalled is None:
            paste.stalled = now
        return paste.end_part()
    return ""
