"""Which control sequences from the terminal are keys, which Textual reads, and which are
dropped whole.

A terminal sends more than keys: replies to questions (device attributes, ``ESC [ > 0 ;
95 ; 0 c``; its version, ``ESC P > | xterm(388) ESC \\``; its colours, ``ESC ] 11 ; rgb:…``),
asked by another program or by nobody. Textual's parser knows a fixed table of keys and
reads anything else as escape and the keys it is made of: a reply switched tabs, opened
the help or the export dialog, and typed ``^P>|xterm(388)`` into a form. And its reading
of a kitty key raised on forms it does not expect (a key's release, ``ESC [ 97 ; 1:3 u``;
a code point past Unicode, ``ESC [ 99999999 u``), which ended the app.

So every complete control sequence is found by its ECMA-48 grammar first — a CSI is
``ESC [``, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F and a final byte
0x40–0x7E; an OSC, DCS, APC, PM or SOS string is ``ESC ]``, ``ESC P``, ``ESC _``, ``ESC ^``
or ``ESC X`` up to BEL or ST (an ESC that starts anything else cuts it short) — and goes
on to Textual's parser only if it is a key of Textual's table or a report Textual reads
(mouse, paste markers, focus, cursor position, mode reports, in-band resize). A key in
the kitty or xterm forms is written as Textual reads it right (see :func:`_key_of`);
everything else is dropped whole. The start of a CSI cut short by a character that is
none of its bytes (``ESC [ 1 ; 5``, then ESC) is dropped too: its ``1`` and ``5`` were
keys that switched tabs. Only ``ESC [`` alone stays what it may have been: escape and
``[`` typed.

The 8-bit forms of the introducers, C1 controls — CSI U+009B, SS3 U+008F, DCS U+0090,
OSC U+009D, SOS U+0098, PM U+009E, APC U+009F — are read as their 7-bit forms (``ESC
[``, ``ESC O``…), by the same grammar: a key they name is that key (SS3 ``P``: F1, as a
terminal sending 8-bit controls means), a reply or anything else is dropped whole, and
an introducer that begins no sequence (CSI, then a character no CSI holds) is dropped
with what it began. Textual read U+009B as shift+escape and the rest as keys (U+009B ``1
; 5 A`` switched to the first tab), and U+009D, U+0090 as keys, then their text. Reading
them as 7-bit, rather than dropping the introducer alone, is the safer rule: what
follows an introducer is a sequence's bytes, never keys. ST (U+009C) ends a string as
``ESC \\`` does; it and every other C1 control is no key (see :mod:`.escape_keys`), and
none is ever typed: no keyboard types one, and no UTF-8 terminal sends them. Inside a
paste they are text (see :mod:`.escape_keys`).
"""

from __future__ import annotations

import re

from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._keyboard_protocol import FUNCTIONAL_KEYS
from textual._xterm_parser import (
    SPECIAL_SEQUENCES,
    _re_cursor_position,
    _re_in_band_window_resize,
    _re_mouse_event,
    _re_terminal_mode_response,
)

__all__ = [
    "CONTROL_START",
    "CSI",
    "REPLY",
    "SEQUENCE_WAIT",
    "SEVEN_BIT",
    "controls_apart",
    "is_string",
    "read_as",
]

SEQUENCE_WAIT = 0.5
"""Seconds the start of a sequence that a key may also be (``ESC [``, and ESC inside a
string: the start of ST) waits for its rest, at most: a person typed escape and ``[`` in
one read (no Alt key is bound), or a terminal cut a sequence between reads far apart."""

_ESCAPE = "\x1b"
# Each sequence's introducer, in its 7-bit form or its 8-bit one (a C1 control).
_CSI = "(?:\x1b\\[|\x9b)"
_STRING_START = "(?:\x1b[]P_^X]|[\x90\x98\x9d\x9e\x9f])"
# A string's end: BEL, ST (ESC \ or its C1 form), or an ESC that starts anything else.
_BODY = "[^\x07\x1b\x9c]*(?:\x07|\x9c|\x1b\\\\|(?=\x1b[^\\\\]))"
_CONTROL = re.compile(
    f"{_CSI}(?:"
    "\\[[A-E]"  # the Linux console's F1–F5: ESC [ [ A
    "|[0-9]+\\$"  # rxvt's shifted keys: ESC [ 2 3 $
    "|[\x20-\x3f]*[\x40-\x7e])"  # any CSI (a parameter byte after an intermediate too)
    f"|{_STRING_START}{_BODY}"
    "|\x8f[\x40-\x7e]"  # SS3 and its key's letter (ESC O, the 7-bit form, is Textual's)
)
CONTROL_START = re.compile(
    f"\x1b|{_CSI}[\x20-\x3f]*|{_CSI}\\[|{_STRING_START}[^\x07\x1b\x9c]*\x1b?|\x8f"
)
"""What a read may end inside of: a lone ESC, a CSI or a string not yet ended."""
CSI = re.compile(f"{_CSI}(?:\\[[A-E]|[0-9]+\\$|[\x20-\x3f]*[\x40-\x7e])")
"""A whole CSI, in either form."""
REPLY = re.compile(f"{_CSI}[=>?][\x20-\x3f]*[\x40-\x7e]|{_STRING_START}{_BODY}")
"""A sequence that begins as no key does: a string, or a CSI with a private marker (but
``<``, a mouse report's, whose start cut off is dropped alone: see :mod:`.escape_keys`)."""
# The start of a CSI cut short by a character that is none of its bytes (ESC [ alone may
# be escape and [ typed, and stays), and SS3 with the character it shifts, which is no key.
_BROKEN = re.compile("\x1b\\[[\x20-\x3f]+|\x9b[\x20-\x3f]*|\x8f[\x20-\x3f]?")
SEVEN_BIT = {"\x9b": "\x1b[", "\x8f": "\x1bO", "\x90": "\x1bP", "\x98": "\x1bX"}
SEVEN_BIT |= {"\x9d": "\x1b]", "\x9e": "\x1b^", "\x9f": "\x1b_"}
"""Each introducer's 8-bit form, a C1 control, and its 7-bit form."""
_INTRODUCER = re.compile(f"[\x1b{''.join(SEVEN_BIT)}]")
_READ_BY_TEXTUAL = (
    _re_mouse_event,
    _re_cursor_position,
    _re_terminal_mode_response,
    _re_in_band_window_resize,
)
_X10_MOUSE = "\x1b[M"  # and three bytes, which Textual reads with it
_DIGITS = "[0-9]{0,7}"  # up to 0x10FFFF; more is no key (and int() refuses 4,300 digits)
_FIELD = f"{_DIGITS}(?::{_DIGITS})*"
_KEY = re.compile(f"\x1b\\[({_FIELD}(?:;{_FIELD}){{0,2}})([u~ABCDEFHPQRS])")
_SHIFT = 1
_LOCKS = 64 | 128  # caps lock and num lock: Textual names neither
_PRESS, _REPEAT, _RELEASE = 1, 2, 3


def is_string(start: str) -> bool:
    """Whether ``start`` (a sequence or its start) is an OSC, DCS, APC, PM or SOS string."""
    return re.match(_STRING_START, start) is not None


def read_as(sequence: str) -> str:
    """A complete sequence as Textual's parser should get it: "" for none of it."""
    return _read(sequence)


def controls_apart(text: str) -> tuple[str, str]:
    """``text`` with each complete control sequence as Textual's parser should get it (or
    dropped), and apart from it the start of a sequence ``text`` ends inside ("" if none).
    A CSI's start cut short by another character is dropped, and so is a C1 introducer
    that begins no sequence."""
    found = _INTRODUCER.search(text)
    if found is None:
        return text, ""
    at = found.start()
    out: list[str] = []
    done = 0
    while at >= 0:
        match = _CONTROL.match(text, at) or _BROKEN.match(text, at)
        if match is None:
            if CONTROL_START.fullmatch(text, at):
                out.append(text[done:at])
                return "".join(out), text[at:]
            at = _next_introducer(text, at + 1)  # ESC and a key: Textual reads them
            continue
        if match.re is _BROKEN and CONTROL_START.fullmatch(text, at):  # cut by the read
            out.append(text[done:at])
            return "".join(out), text[at:]
        read = _read(match.group()) if match.re is _CONTROL else ""
        out += [text[done:at], read]
        done = match.end()
        at = _next_introducer(text, done)
    out.append(text[done:])
    return "".join(out), ""


def _next_introducer(text: str, start: int) -> int:
    found = _INTRODUCER.search(text, start)
    return -1 if found is None else found.start()


def _read(sequence: str) -> str:
    """A complete sequence as Textual's parser should get it, in its 7-bit form: "" for
    none of it."""
    if sequence[:1] in SEVEN_BIT:
        sequence = SEVEN_BIT[sequence[0]] + sequence[1:]
    if sequence in ANSI_SEQUENCES_KEYS or sequence in SPECIAL_SEQUENCES:
        return sequence
    if sequence == _X10_MOUSE or any(known.fullmatch(sequence) for known in _READ_BY_TEXTUAL):
        return sequence
    return _key_of(sequence)


def _key_of(sequence: str) -> str:
    """The key a kitty or xterm key sequence names, written as Textual's parser reads it
    right; "" for a release, a sequence naming no key, or anything else.

    Textual's reading typed the letter of xterm's modifyOtherKeys ctrl+a (``ESC [ 27 ; 5 ;
    97 ~``), typed nothing for a shifted letter sent without its text (``ESC [ 97 ; 2 u``),
    and raised on an event type (``97;1:3``), alternate keys (``97:65``) or a number past
    Unicode. So a press or repeat is the key, a release nothing; a key with shift at most
    is the text it types (its text, its shifted key, or the letter's capital); with any
    other modifier it is the key Textual names, without text (ctrl+a types no ``a``).
    """
    match = _KEY.fullmatch(sequence)
    if match is None:
        return ""
    params, final = match.groups()
    fields = params.split(";")
    if final == "~" and len(fields) == 3 and fields[0] == "27":  # xterm's modifyOtherKeys
        fields, final = [fields[2], fields[1]], "u"
    keys = _numbers(fields[0])
    modifier, event = [*(_numbers(fields[1]) if len(fields) > 1 else []), None, None][:2]
    text = [code for code in _numbers(fields[2]) if code] if len(fields) > 2 else []
    code = keys[0] or 1
    shifted = keys[1] if len(keys) > 1 else None
    held = ((modifier or 1) - 1) & ~_LOCKS
    if (event or _PRESS) not in (_PRESS, _REPEAT) or held > 255:
        return ""
    if not all(_is_character(each) for each in [code, shifted or 1, *text]):
        return ""
    if f"{code}{final}" not in FUNCTIONAL_KEYS:
        if final != "u":
            return ""  # ESC [ 9 A, ESC [ 99 ~: no key
        if not held & ~_SHIFT:
            typed = _typed(chr(code), shifted, text, shift=bool(held & _SHIFT))
            if typed:
                return typed
    return f"\x1b[{code};{held + 1}{final}" if held else f"\x1b[{code}{final}"


def _numbers(field: str) -> list[int | None]:
    return [int(part) if part else None for part in field.split(":")]


def _is_character(code: int) -> bool:
    return code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF


def _typed(key: str, shifted: int | None, text: list[int], shift: bool) -> str:
    """What a key with shift at most types, if it is known: "" otherwise (shift+1 on a
    layout not said)."""
    if text:
        typed = "".join(map(chr, text))
    elif not shift:
        typed = key
    elif shifted:
        typed = chr(shifted)
    else:
        typed = key.upper() if key.islower() and len(key.upper()) == 1 else ""
    return typed if typed.isprintable() else ""
