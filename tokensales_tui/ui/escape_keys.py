"""``escape`` and the key typed right after it stay two keys.

A terminal sends escape as one byte, ESC, and Alt+key as ESC and the key: Textual's
parser reads ESC and a key that follows within its 0.1 s wait as one key, ``alt+key``
(and ESC 1 … ESC 0, ESC - and ESC = as ``¡ ™ £ …``). Escape, then ``2`` typed fast —
leave the filter, go to Items — typed ``™`` into the filter instead. This app binds no
Alt key (a keymap may not: see :func:`~.keys.untypable_keys`), so every ``alt+key`` that
came as ESC and a printable key is read as what it most likely was typed as: escape,
then the key. ESC b and ESC f stay Textual's word movements (ctrl+left, ctrl+right),
which is what macOS terminals send for Option+← and Option+→. A sign Textual names by
a word (``/`` is ``slash``, a space ``space``) it read without its escape: it is read as
``alt+slash`` too, and split the same way; so are ESC and enter (``alt+enter``) and ESC
and tab (which Textual read as shift+tab). ESC and backspace stays a word deleted back.
(A terminal speaking the kitty keyboard protocol sends escape unambiguously.)

Escape and a key typed fast (in one read of the terminal) are two keys at once, never
left waiting in Textual's parser: it waited 0.1 s for more after ``ESC ?``, and an escape
typed meanwhile made it read the first escape as ``^`` (``circumflex_accent``), a key lost
(escape, ``?``, escape typed every 50 ms, or a loaded machine reading two of them at once,
left the help open and closed it on the wrong keys). An ESC that no key of Textual's table
goes on with from there (all but ESC [, ESC O and the keys ESC b, ESC f, ESC DEL) is
the escape key there and then, and what follows it is read after it; ``ESC O``
that ends a read is held for its rest as a lone escape is (see below).

A paste is text, never keys, however its bytes come: see :mod:`.pastes`
(:func:`read_escape_apart` has the parser read pastes so). A terminal's replies, the
kitty and xterm key forms Textual misreads and the 8-bit forms of sequences are sorted
out before it sees them too: see :mod:`.control_sequences`; and a string (an OSC or DCS
reply) cut between reads is dropped up to its end however late it comes: see
:mod:`.control_strings`.

A mouse report is never keys either, nor a paste marker: Textual's parser waits 0.1 s for
the rest of a sequence cut between two reads (``ESC [ < 35;42;12``, then ``M``; ``ESC [ 20``,
then ``0~``), then reads what it has as the keys it is made of (its ``2`` switched to
Items, and the paste's text came as keys). Such a start that ends a read is held out of
the parser for the next read: with the rest, it is one report or marker; cut short by
another character (another key's ESC), it is dropped, never keys (its ``1`` and ``5``
switched tabs), but for ``ESC [`` alone, which may be escape and ``[`` typed.

Every state held has a bound in time and in size. A held start waits for its rest as
long as the parser waits for a key's (a lone escape, ``ESC O``), or half a second (any
other, 8-bit ones too); then one that may be keys typed (escape, ``ESC O``, ``ESC [``)
goes out as those keys, and any other is no keys. A start held goes on growing with the
reads that go on with it no longer than :data:`START_HELD_MOST`, and no longer than
:data:`START_LONGEST` characters: past that, the rest of it up to its final byte is
dropped with it. (A string's body is never kept, and is given up in two seconds: see
:mod:`.control_strings`; a paste is given in bounded parts: see :mod:`.pastes`.)

A held start whose wait is over joins a later read only as a terminal's bytes would:

- A read of one character is a key typed, whenever it comes: ``P``, ``]`` or ``[`` after
  an escape gone out is that key (it opened a string that dropped every key for two
  seconds; ``[`` began a CSI that held each key typed after it), ``j`` or a digit after
  ``ESC [ ? 62 ; 22`` or ``ESC [ 1 ; 5`` cut off for good is that key, and so is ``j``
  after a lone SS3 (it was keypad ``*``). Only a final byte that makes a key or a report
  of a start with its parameters (``ESC [ 1 ; 5``, then ``A``: ctrl+up) is read with it.
- A longer read that completes a whole known sequence is that sequence: a key, a mouse
  report or a paste marker is read so (``ESC [``, then ``1;5A``: ctrl+up), a reply is
  dropped; one that goes on with the start without ending is held as its rest (``ESC``,
  then ``[20``, then ``0~``: a paste; ``ESC``, then ``]11;rgb:0``: a string opened).
  Else the read is read alone, and the start is dropped: a final byte at its head ends
  a sequence no terminal sends, a key typed (``ESC [ 1 ; 5``, then ``jk``). Within the
  wait, a sequence no terminal sends is dropped whole (``ESC [ 1 ; 5``, then ``j``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from textual import _parser, constants, events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.keys import Keys, _character_to_key

from .control_sequences import (
    CONTROL_START,
    CSI,
    REPLY,
    SEQUENCE_WAIT,
    controls_apart,
    is_string,
    read_as,
)
from .control_strings import open_string, string_waited, strings_apart
from .pastes import paste_waited, pastes_apart

__all__ = ["escape_apart", "read_escape_apart"]

_ESCAPE = "\x1b"


def read_escape_apart() -> None:
    """Have Textual's parser read ESC and a digit or sign as ``alt+key`` (then split by
    :func:`escape_apart`), not as the character its table makes of them (``™``). ESC b
    and ESC f stay word movements: macOS terminals send them for Option+← and →."""
    table = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)  # a dict, typed as a Mapping
    for sequence in [key for key, value in table.items() if _escape_then_character(key, value)]:
        del table[sequence]
    # ESC TAB is escape then tab typed fast (shift+tab comes as ESC [ Z from terminals).
    table.pop(_ESCAPE + "\t", None)
    global _KEY_STARTS
    _KEY_STARTS = _starts_of(table)
    if not getattr(XTermParser.feed, "pastes_apart", False):
        feed, tick = XTermParser.feed, XTermParser.tick
        XTermParser.feed = _pasting_apart(feed)  # type: ignore[method-assign,assignment]
        XTermParser.tick = _ticking_apart(tick, feed)  # type: ignore[method-assign,assignment]
    if not getattr(XTermParser._sequence_to_key_events, "keeps_alt", False):
        reading = _keeping_alt(XTermParser._sequence_to_key_events)
        XTermParser._sequence_to_key_events = reading  # type: ignore[method-assign,assignment]


_Keys = Callable[[XTermParser, str, bool], Iterable[events.Key]]
_Feed = Callable[[XTermParser, str], Iterable[Any]]
_Tick = Callable[[XTermParser], Iterable[Any]]

_KEY_STARTS: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
"""Of the keys of Textual's table that begin with ESC and go on with neither ``[`` nor
another ESC: their proper starts, and the keys themselves (set by
:func:`read_escape_apart`)."""


def _starts_of(table: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    # ESC ESC is in the table, but the parser never reads it whole: a second ESC ends
    # the first, as escape.
    keys = {key for key in table if key[:1] == _ESCAPE and key[1:2] not in ("", "[", _ESCAPE)}
    starts = {key[:end] for key in keys for end in range(1, len(key))}
    return frozenset(starts), frozenset(keys)


def _escapes_alone(text: str) -> tuple[list[str], str]:
    """``text`` in pieces, each ESC that starts no key of Textual's table a piece of its
    own (the escape key), and apart the start of such a key ``text`` ends in (``ESC O``),
    to hold for the next read. An ESC before ``[`` (a sequence whole by now, see
    :func:`~.control_sequences.controls_apart`) stays where it is."""
    starts, keys = _KEY_STARTS
    known = starts | keys
    pieces: list[str] = []
    done = 0
    at = text.find(_ESCAPE)
    while at >= 0:
        end = at + 1
        while end < len(text) and text[at : end + 1] in known:
            end += 1
        run = text[at:end]
        if run in keys or (run == _ESCAPE and text[end : end + 1] == "["):
            at = text.find(_ESCAPE, end)  # a key (ESC b, ESC O P), or a CSI: Textual's
            continue
        if end == len(text) and len(run) > 1:  # ESC O, the rest to come
            pieces.append(text[done:at])
            return [piece for piece in pieces if piece], run
        pieces += [text[done:at], _ESCAPE]  # no key goes on so: escape, then the rest
        done = at + 1
        at = text.find(_ESCAPE, done)
    pieces.append(text[done:])
    return [piece for piece in pieces if piece], ""


def _fed(parser: XTermParser, feed: _Feed, pieces: list[str]) -> list[Any]:
    """What Textual's parser reads of ``pieces``, each lone ESC the escape key at once."""
    return [
        event
        for piece in pieces
        for event in ([events.Key("escape", _ESCAPE)] if piece == _ESCAPE else feed(parser, piece))
    ]


def _keeping_alt(keys_of: _Keys) -> _Keys:
    """Textual's reading of a sequence, where ESC and a sign it names by a word (ESC /:
    ``slash``) keep the ``alt+`` that says an ESC came first; it dropped it. A C1 control
    is no key (Textual read U+009B as shift+escape): see :mod:`.control_sequences`."""

    def reading(parser: XTermParser, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if len(sequence) == 1 and "\x80" <= sequence <= "\x9f":
            yield events.Key(Keys.Ignore, sequence)
            return
        try:
            read = list(keys_of(parser, sequence, alt))
        except (ValueError, OverflowError):  # a key form Textual cannot read: no key
            read = [events.Key(Keys.Ignore, sequence)]
        for event in read:
            if (
                alt
                and len(sequence) == 1
                and event.character == sequence
                and not event.key.startswith("alt+")
            ):
                yield events.Key(f"alt+{event.key}", event.character)
            else:
                yield event

    reading.keeps_alt = True  # type: ignore[attr-defined]
    return reading


def _pasting_apart(feed: _Feed) -> _Feed:
    """Textual's ``feed``, with each ESC inside a bracketed paste made ``␛`` first (see
    :mod:`.pastes`), and the start of a paste marker or mouse report that ends a read
    held for the next."""

    def feeding(parser: XTermParser, data: str) -> Iterable[Any]:
        ended, now = not data, _parser_time()
        given = _held_waited(parser, feed, now)  # its wait over, though no tick said so yet
        given_up, text = strings_apart(parser, _with_held(parser, data, now), now)
        pieces = _held_back(parser, pastes_apart(parser, text, now, ended), ended)
        given += _fed(parser, feed, given_up)
        if data and not pieces:
            return given  # all held for the next read: "" would end the parser's input
        given += _fed(parser, feed, pieces)
        # The end of the input ("" fed): what was held is given first.
        return given if data else [*given, *feed(parser, "")]

    feeding.pastes_apart = True  # type: ignore[attr-defined]
    return feeding


def _ticking_apart(tick: _Tick, feed: _Feed) -> _Tick:
    """Textual's ``tick``, which first gives the parser a paste's text once its bytes
    have stalled (see :mod:`.pastes`), what a string's wait ends in (see
    :mod:`.control_strings`), and the keys of a held start whose wait is over (see
    :func:`_held_waited`)."""

    def ticking(parser: XTermParser) -> Iterable[Any]:
        now = _parser_time()
        pasted = paste_waited(parser, now)
        given = [*feed(parser, pasted)] if pasted else []
        given += _fed(parser, feed, string_waited(parser, now))
        given += _held_waited(parser, feed, now)
        return [*given, *tick(parser)]

    return ticking


START_HELD_MOST = 60.0
"""Seconds after it began that a start held (and the rest of it that came) is dropped,
whatever comes: a link may stall mid-sequence, but not for ever."""
START_LONGEST = 64
"""Characters a start held may grow to (no sequence a terminal sends is longer; Textual's
parser gives up at 32): one longer is held as :data:`_OVERLONG`, a start no key has, so
that the rest of it up to its final byte is dropped with it, never keys."""
_OVERLONG = "\x1b[="


@dataclass
class _Cut:
    """The start of a sequence (a paste marker, a mouse report, a key) a read ended
    inside, held out of Textual's parser until the next read: the parser waits 0.1 s for
    a sequence's rest, then reads what it has as keys (``ESC [ 2 0`` as escape, ``[``,
    ``2`` and ``0``: the ``2`` switched to Items)."""

    start: str = ""
    given: int = 0
    """How much of it went to the parser as keys once its wait was over (all of a start a
    key may be, none of any other); a rest that completes it is still read with it, as
    the paste or report it is."""
    until: float | None = None
    """When its wait for its rest ends (by the parser's clock); None: it is over."""
    began: float = 0.0
    """When its first piece came: it is dropped :data:`START_HELD_MOST` after."""

    def hold(self, start: str, began: float | None = None) -> None:
        """Hold ``start`` (the rest of a start held since ``began``) for its rest: a lone
        escape or ``ESC O`` as long as the parser waits for its next key, any other
        :data:`~.control_sequences.SEQUENCE_WAIT`; after that as :func:`_with_held` says.
        A string (OSC, DCS…) is held apart: see :mod:`.control_strings`."""
        now = _parser_time()
        if len(start) > START_LONGEST:
            start = _OVERLONG
        self.start, self.given, self.began = start, 0, now if began is None else began
        self.until = now + _wait_for_rest(start) if start else None


# A held start and the next read: the paste marker, mouse report or reply it began (read
# so even when its escape went out as a key: its rest is no keys either).
_WHOLE = re.compile(f"(?:\x1b\\[|\x9b)(?:200~|<[0-9;]*[Mm])|{REPLY.pattern}")
# A CSI's start no key has: a mouse report's, or a reply's (a private marker).
_NO_KEY_START = re.compile("(?:\x1b\\[|\x9b)[<=>?]")


def _may_be_keys(start: str) -> bool:
    """Whether ``start`` may be keys typed: a lone escape, ``ESC [``, or the start of a
    key of Textual's table that is no CSI (``ESC O``)."""
    return start in (_ESCAPE, "\x1b[") or start in _KEY_STARTS[0]


def _wait_for_rest(start: str) -> float:
    """How long a start held waits for its rest: a lone escape, or the start of a key that
    is no CSI (ESC O), as long as the parser waits for a key's; any other longer."""
    if start == _ESCAPE or start in _KEY_STARTS[0]:
        return float(constants.ESCAPE_DELAY)
    return max(constants.ESCAPE_DELAY, SEQUENCE_WAIT)


def _held_waited(parser: XTermParser, feed: _Feed, now: float) -> list[Any]:
    """The keys of the start held, once its wait is over: a start that may be keys typed
    goes out as them (``ESC [``: escape and ``[``), any other is no keys; either stays
    held for a later read that completes it, as :func:`_with_held` says, until
    :data:`START_HELD_MOST` after it began."""
    cut = _cut_of(parser)
    if cut.start and now >= cut.began + START_HELD_MOST:
        cut.hold("")
    if cut.until is None or now < cut.until:
        return []
    cut.until = None
    if not _may_be_keys(cut.start):
        return []
    cut.given = len(cut.start)
    return _fed(parser, feed, [_ESCAPE, cut.start[1:]] if cut.start[1:] else [_ESCAPE])


def _parser_time() -> float:
    """The clock the parser times its waits by."""
    return float(_parser.get_time())  # type: ignore[attr-defined]


def _cut_of(parser: XTermParser) -> _Cut:
    cut: _Cut | None = getattr(parser, "_cut", None)
    if cut is None:
        cut = parser._cut = _Cut()  # type: ignore[attr-defined]
    return cut


def _with_held(parser: XTermParser, data: str, now: float) -> str:
    """``data`` after the start held from the read before: with it if ``data`` completes
    it (held again if it still only goes on with it; see :func:`_ended_by` for a CSI),
    else alone; a start cut short is dropped, never keys. A string it begins is opened
    (see :mod:`.control_strings`). Once the start's wait is over, a read of one
    character is a key typed (but the final byte of a key whose parameters were held),
    and a longer one joins it only as the terminal's bytes do."""
    cut = _cut_of(parser)
    held, given, waited, began = cut.start, cut.given, cut.until is None, cut.began
    cut.hold("")
    if not held:
        return data
    if not data:  # the end of the input: a start whose wait is not over is its keys
        return "" if waited or _NO_KEY_START.match(held) else held
    joined = held + data
    if waited and len(data) == 1:
        known = not given and len(held) > _introducer(held) and read_as(joined)
        return joined if known and CSI.fullmatch(joined) else data
    if _WHOLE.match(joined):
        return joined
    if CONTROL_START.fullmatch(joined):
        if is_string(joined):  # after a lone escape: ESC ] 11;rgb:0
            open_string(parser, joined, now, given)
        else:
            cut.hold(joined, began)
        return ""
    if _NO_KEY_START.match(held):  # a mouse report's or a reply's start: never keys
        return data
    ended = CSI.match(joined)
    if ended is not None:
        return _ended_by(ended.group(), held, given, data, late=waited)
    return data if waited else joined


def _introducer(start: str) -> int:
    return 2 if start[:1] == _ESCAPE else 1


def _ended_by(sequence: str, held: str, given: int, data: str, late: bool) -> str:
    """What is read of a held CSI start and the read ``data`` that ends it as
    ``sequence``. A key or a report is read whole, however late its rest came (but for a
    start that went out as keys, typed, followed by a final byte alone: typed too). A
    sequence that is none is dropped whole, but for a final byte at the head of a read
    ``late``, once the start's wait was over: that was a key typed after a start whose
    rest never came (``ESC [ 1 ; 5``, then ``j``: the ``j`` was lost), and the start is
    dropped instead."""
    if given:
        typed = len(sequence) - given < 2 or not read_as(sequence)
        return held[given:] + data if typed else held + data
    if read_as(sequence) or len(sequence) > len(held) + 1 or not late:
        return held + data
    return data


def _held_back(parser: XTermParser, text: str, ended: bool) -> list[str]:
    """``text`` with its control sequences as Textual's parser should get them (see
    :mod:`.control_sequences`), in pieces, each lone escape one (see
    :func:`_escapes_alone`), less the start of a sequence or key it ends with, held for
    the next read (see :meth:`_Cut.hold`)."""
    text, start = controls_apart(text)
    pieces, key_start = _escapes_alone(text)
    if ended:
        start = "" if is_string(start) else start  # a string is never keys
        return [*pieces, key_start + start] if key_start or start else pieces
    if key_start and start:  # ESC O, then an ESC: no key goes on so
        pieces += [_ESCAPE, key_start[1:]]
    elif key_start:
        start = key_start
    if is_string(start):  # open up to its end, apart: see control_strings
        open_string(parser, start, _parser_time())
    elif start:
        _cut_of(parser).hold(start)
    return pieces


def _escape_then_character(sequence: str, read_as: object) -> bool:
    return (
        len(sequence) == 2
        and sequence[0] == _ESCAPE
        and sequence[1].isprintable()
        and isinstance(read_as, str)  # a character, not keys (ESC b: ctrl+left)
    )


def escape_apart(event: events.Key) -> list[events.Key]:
    """``event`` as the keys it most likely was: escape and the key for an ``alt+key``
    of one character (enter, ctrl+j and the like too), else itself."""
    key, character = event.key, event.character
    if not key.startswith("alt+") or character is None or len(character) != 1:
        return [event]
    if character.isprintable():
        # The key as typed alone ("J" for alt+shift+j), as Textual names a character.
        alone = events.Key(_character_to_key(character), character)
    else:  # ESC CR: alt+enter, escape then enter typed fast
        alone = events.Key(key.removeprefix("alt+"), character)
    return [events.Key("escape", _ESCAPE), alone]
