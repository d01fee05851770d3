"""A string from the terminal is never keys, however late its bytes come.

An OSC, DCS, APC, PM or SOS string (``ESC ]``, ``ESC P``, ``ESC _``, ``ESC ^``, ``ESC X``
or their 8-bit forms, up to BEL or ST) is a terminal's reply: its colours (``ESC ] 11 ;
rgb:ffff/ffff/ffff ESC \\``), its version, a capability (DECRQSS, XTGETTCAP), a kitty
graphics answer. A reply whole in one read is dropped by its grammar (see
:mod:`.control_sequences`). One cut between reads was open for half a second, and its rest
coming later was read as keys: cut after ``ESC ]``, OSC 11 typed ``11;rgb:…``, whose
``1`` switched tabs, ``r`` reloaded and ``d`` asked to delete. An SSH link may hold a
reply up mid-way for longer.

So a string, once its introducer is read, is open: all that comes after it up to its
terminator — BEL, or ST (``ESC \\``, U+009C) — is its body and is dropped, however the
reads cut it and however far apart they come. Its body is never kept (an open string
holds when it began and whether an ESC ended the last read), so a long one costs
nothing. Nothing but time bounds it: a bound on its length would read the rest of a
long reply (an OSC 52 clipboard) as keys, the very fault.

- An ESC that begins anything but ST cuts it short, and is read as it would be anywhere:
  escape, an arrow, any key a terminal sends as a sequence acts at once and ends the
  string (an ESC that ends a read waits for its ``\\`` as long as ``ESC [`` waits for
  its rest, :data:`~.control_sequences.SEQUENCE_WAIT`, then is escape; a ``\\`` heading
  the read after it is then dropped, the end of that ST).
- It is given up :data:`STRING_OPEN` after its introducer came, and keys act again. A
  key typed into it meanwhile — after a string that lost its terminator, or ESC and
  ``P`` typed in one read (escape, then shift+p) — is dropped with it, printable or
  not, however long after its start it comes: its rest may be one character too, and no
  read tells the one from the other. If nothing came after a 7-bit introducer, it was
  escape and its letter typed, and they go out as those keys when it is given up.
- Its rest coming after it was given up is still dropped when one read brings it: the
  first read that runs up to a terminator, with no ESC before it, is taken as the rest of
  a string given up (a person types neither BEL nor ST), until a read with an ESC that
  begins anything else shows that the terminal has gone on. A rest cut again between
  reads past the bound has its pieces before the last read as keys: the bound is what
  lets a person's keys through.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual._xterm_parser import XTermParser

from .control_sequences import SEQUENCE_WAIT

__all__ = ["STRING_OPEN", "open_string", "string_waited", "strings_apart"]

STRING_OPEN = 2.0
"""Seconds after its introducer came that a string not ended is given up: keys typed
into it are dropped no longer than that, and escape or an arrow cuts it short at once."""

_ESCAPE = "\x1b"
_ST = "\x1b\\"
_NO_BODY = re.compile("[\x07\x1b\x9c]")
"""What ends a string's body: BEL, ST (U+009C, or ESC and ``\\``), or another ESC."""


@dataclass
class _String:
    """The string a read ended inside, open until its terminator or its bound, and what
    may still come of one that ended before its terminator."""

    since: float | None = None
    """When its introducer came (by the parser's clock); None: none is open."""
    alone: str = ""
    """Its introducer, while nothing came after it, less what already went out as keys
    (a lone escape before ``P``): the keys given if it is given up."""
    escape: float | None = None
    """When a read that ended in an ESC inside it came (ST's start, or a key's)."""
    lost: bool = False
    """One was given up: its rest may still come, up to a terminator."""
    escaped: bool = False
    """One was cut short by an ESC at the end of a read: a ``\\`` heading the next read
    is the end of its ST."""

    def close(self) -> None:
        self.since, self.alone, self.escape = None, "", None


def _string_of(parser: XTermParser) -> _String:
    string: _String | None = getattr(parser, "_string", None)
    if string is None:
        string = parser._string = _String()  # type: ignore[attr-defined]
    return string


def open_string(parser: XTermParser, start: str, now: float, given: int = 0) -> None:
    """Open the string ``start`` begins (its introducer and the body that came, which a
    read ended inside), of which ``given`` characters went out as keys."""
    string = _string_of(parser)
    introducer = 2 if start[0] == _ESCAPE else 1
    escape = len(start) > introducer and start.endswith(_ESCAPE)
    string.close()
    string.since, string.lost, string.escaped = now, False, False
    string.escape = now if escape else None
    if start[0] == _ESCAPE and len(start) == introducer:  # a C1 control is never typed
        string.alone = start[given:]


def strings_apart(parser: XTermParser, text: str, now: float) -> tuple[list[str], str]:
    """The keys given for a string given up first (as :func:`string_waited` gives them:
    its bound is over, though no tick said so yet), and ``text`` less the rest of the
    string open, or of one given up (see the module's docstring)."""
    string = _string_of(parser)
    given = [] if string.escape is not None else _given_up(string, now)
    if string.since is not None:
        return given, _rest_dropped(string, text, now)
    if string.escaped:
        string.escaped = False
        text = text.removeprefix("\\")
    if string.lost:
        body = _body_end(text)
        end = _terminator_end(text, body)
        if end is not None:  # its rest, up to its terminator
            string.lost = False
            return given, text[end:]
        if body + 1 < len(text):
            string.lost = False  # ESC, and anything but ST: the terminal went on
    return given, text


def _rest_dropped(string: _String, text: str, now: float) -> str:
    """``text`` after the body of the string open and its terminator; "" while it goes
    on."""
    if string.escape is not None:  # the read before ended in ESC: ST's, or a key's
        text, string.escape = _ESCAPE + text, None
    body = _body_end(text)
    if body:
        string.alone = ""
    end = _terminator_end(text, body)
    if end is not None:
        string.close()
        return text[end:]
    if body == len(text):
        return ""
    if body + 1 == len(text):  # an ESC that ends the read: wait for what follows it
        string.escape, string.alone = now, ""
        return ""
    string.close()  # an ESC that begins anything else: read as it would be anywhere
    return text[body:]


def _body_end(text: str) -> int:
    """Where the body ``text`` begins with ends."""
    found = _NO_BODY.search(text)
    return len(text) if found is None else found.start()


def _terminator_end(text: str, body: int) -> int | None:
    """Where the terminator after a body ending at ``body`` ends; None if none follows
    it there."""
    if text.startswith(("\x07", "\x9c"), body):
        return body + 1
    return body + 2 if text.startswith(_ST, body) else None


def string_waited(parser: XTermParser, now: float) -> list[str]:
    """What Textual's parser should get once a string's wait is over, in pieces (a lone
    ESC the escape key): the ESC that ended a read inside it, once it has waited
    :data:`~.control_sequences.SEQUENCE_WAIT` for its ``\\`` (it cuts the string short);
    the keys of its introducer typed alone, once it is given up."""
    string = _string_of(parser)
    if string.escape is not None:
        if now < string.escape + SEQUENCE_WAIT:
            return []
        string.close()
        string.escaped = True
        return [_ESCAPE]
    return _given_up(string, now)


def _given_up(string: _String, now: float) -> list[str]:
    if string.since is None or now < string.since + STRING_OPEN:
        return []
    alone = string.alone
    string.close()
    string.lost = True
    return [_ESCAPE, alone[1:]] if alone.startswith(_ESCAPE) else [alone] if alone else []
