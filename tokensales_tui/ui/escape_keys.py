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

A paste is text, never keys: Textual's parser read an ESC inside a bracketed paste as the
start of keys, so that pasting ``foo ESC q bar`` quit the app (and ``ESC d`` asked to
delete). Every ESC between the terminal's paste markers is read as ``␛`` (its control
picture) before the parser sees it: :func:`read_escape_apart` has the parser do so.

A mouse report is never keys either: one cut between two reads (``ESC [ < 35;42;12``,
then ``M``) waited in Textual's parser for its rest 0.1 s at most, and was then read as
the keys it is made of (its ``2`` switched to Items). Its start is held out of the parser
until the next read: with the rest, it is one report; without, it is dropped. A lone
escape never waits for this: only what can be nothing but a mouse report is held.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, cast

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.keys import _character_to_key

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
    if not getattr(XTermParser.feed, "pastes_apart", False):
        XTermParser.feed = _pasting_apart(XTermParser.feed)  # type: ignore[method-assign]
    if not getattr(XTermParser._sequence_to_key_events, "keeps_alt", False):
        reading = _keeping_alt(XTermParser._sequence_to_key_events)
        XTermParser._sequence_to_key_events = reading  # type: ignore[method-assign,assignment]


_Keys = Callable[[XTermParser, str, bool], Iterable[events.Key]]


def _keeping_alt(keys_of: _Keys) -> _Keys:
    """Textual's reading of a sequence, where ESC and a sign it names by a word (ESC /:
    ``slash``) keep the ``alt+`` that says an ESC came first; it dropped it."""

    def reading(parser: XTermParser, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        for event in keys_of(parser, sequence, alt):
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


PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
ESCAPE_PICTURE = "\u241b"  # ␛


def _pasting_apart(feed: Callable[[XTermParser, str], Iterable[Any]]) -> Any:
    """Textual's ``feed``, with each ESC inside a bracketed paste made ``␛`` first."""

    def feeding(parser: XTermParser, data: str) -> Iterable[Any]:
        text = _mouse_reports_whole(parser, _paste_escapes_apart(parser, data), ended=not data)
        if data and not text:
            return []  # all held for the next read: "" would end the parser's input
        if data or not text:
            return feed(parser, text)
        # The end of the input ("" fed) with a held marker's start: given first.
        return [*feed(parser, text), *feed(parser, "")]

    feeding.pastes_apart = True  # type: ignore[attr-defined]
    return feeding


def _paste_escapes_apart(parser: XTermParser, data: str) -> str:
    """``data`` with every ESC between paste markers written ``␛``. A paste's text that
    ends a read the next read goes on with: an end marker cut between two reads is held
    until its rest comes. A start marker cut so is given on at once (an escape typed
    alone must not wait; Textual's parser joins the marker's parts), and its part at the
    end of a read is remembered, so the paste is known when the rest comes."""
    text = getattr(parser, "_paste_held", "") + data
    pasting: bool = getattr(parser, "_pasting", False)
    started: str = getattr(parser, "_paste_started", "")
    held = ""
    out: list[str] = []
    at = 0
    if started and not pasting:
        if (started + text).startswith(PASTE_START):
            at = len(PASTE_START) - len(started)  # the marker's rest: a paste now
            out.append(text[:at])
            pasting = True
        elif PASTE_START.startswith(started + text) and text:
            parser._paste_started = started + text  # type: ignore[attr-defined]
            return text
    while at < len(text):
        if not pasting:
            start = text.find(PASTE_START, at)
            if start < 0:
                out.append(text[at:])
                break
            out.append(text[at : start + len(PASTE_START)])
            at, pasting = start + len(PASTE_START), True
            continue
        end = text.find(PASTE_END, at)
        if end < 0:
            rest = text[at:]
            keep = next(
                (n for n in range(len(PASTE_END) - 1, 0, -1) if rest.endswith(PASTE_END[:n])), 0
            )
            if not data:  # the input has ended: nothing more to wait for
                keep = 0
            out.append(rest[: len(rest) - keep].replace(_ESCAPE, ESCAPE_PICTURE))
            held = rest[len(rest) - keep :]
            break
        out.append(text[at:end].replace(_ESCAPE, ESCAPE_PICTURE) + PASTE_END)
        at, pasting = end + len(PASTE_END), False
    parser._paste_held = held  # type: ignore[attr-defined]
    parser._pasting = pasting  # type: ignore[attr-defined]
    parser._paste_started = (  # type: ignore[attr-defined]
        ""
        if pasting or not data
        else next(
            (
                PASTE_START[:n]
                for n in range(len(PASTE_START) - 1, 0, -1)
                if text.endswith(PASTE_START[:n])
            ),
            "",
        )
    )
    return "".join(out)


# The start of an SGR mouse report a read ended inside, and what goes on with one.
_CUT_MOUSE_REPORT = re.compile("\x1b\\[<[0-9;]*\\Z")
_MOUSE_REPORT_REST = re.compile("[0-9;]*(?:[Mm]|\\Z)")


def _mouse_reports_whole(parser: XTermParser, text: str, ended: bool) -> str:
    """``text`` with a mouse report cut between reads made whole: the start of one that
    ends a read is held until the next, which it is given with if that goes on with it,
    and dropped otherwise (or when the input ends)."""
    held: str = getattr(parser, "_mouse_held", "")
    if held and _MOUSE_REPORT_REST.match(text) and not ended:
        text = held + text
    cut = None if getattr(parser, "_pasting", False) else _CUT_MOUSE_REPORT.search(text)
    parser._mouse_held = "" if cut is None or ended else cut[0]  # type: ignore[attr-defined]
    return text if cut is None else text[: cut.start()]


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
