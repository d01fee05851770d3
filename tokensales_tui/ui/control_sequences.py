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

__all__ = ["CONTROL_START", "CSI", "REPLY", "controls_apart", "is_string", "read_as"]

_ESCAPE = "\x1b"
# A string's end: BEL, ST (ESC \ or its C1 form), or an ESC that starts anything else.
_STRING = "[]P_^X][^\x07\x1b\x9c]*(?:\x07|\x9c|\x1b\\\\|(?=\x1b[^\\\\]))"
_CONTROL = re.compile(
    "\x1b(?:\\[(?:"
    "\\[[A-E]"  # the Linux console's F1–F5: ESC [ [ A
    "|[0-9]+\\$"  # rxvt's shifted keys: ESC [ 2 3 $
    "|[\x20-\x3f]*[\x40-\x7e])"  # any CSI (a parameter byte after an intermediate too)
    f"|{_STRING})"
)
CONTROL_START = re.compile("\x1b(?:\\[[\x20-\x3f]*|\\[\\[|[]P_^X][^\x07\x1b\x9c]*\x1b?)?")
"""What a read may end inside of: a lone ESC, a CSI or a string not yet ended."""
CSI = re.compile("\x1b\\[(?:\\[[A-E]|[0-9]+\\$|[\x20-\x3f]*[\x40-\x7e])")
"""A whole CSI."""
REPLY = re.compile(f"\x1b(?:\\[[=>?][\x20-\x3f]*[\x40-\x7e]|{_STRING})")
"""A sequence that begins as no key does: a string, or a CSI with a private marker (but
``<``, a mouse report's, whose start cut off is dropped alone: see :mod:`.escape_keys`)."""
# The start of a CSI cut short by a character that is none of its bytes (ESC [ alone may
# be escape and [ typed, and stays).
_BROKEN = re.compile("\x1b\\[[\x20-\x3f]+")
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
    return len(start) > 1 and start[1] in "]P_^X"


def read_as(sequence: str) -> str:
    """A complete sequence as Textual's parser should get it: "" for none of it."""
    return _read(sequence)


def controls_apart(text: str) -> tuple[str, str]:
    """``text`` with each complete control sequence as Textual's parser should get it (or
    dropped), and apart from it the start of a sequence ``text`` ends inside ("" if none).
    A CSI's start cut short by another character is dropped."""
    at = text.find(_ESCAPE)
    if at < 0:
        return text, ""
    out: list[str] = []
    done = 0
    while at >= 0:
        match = _CONTROL.match(text, at) or _BROKEN.match(text, at)
        if match is None:
            if CONTROL_START.fullmatch(text, at):
                out.append(text[done:at])
                return "".join(out), text[at:]
            at = text.find(_ESCAPE, at + 1)  # ESC and a key: Textual reads them
            continue
        if match.re is _BROKEN and CONTROL_START.fullmatch(text, at):  # cut by the read
            out.append(text[done:at])
            return "".join(out), text[at:]
        read = _read(match.group()) if match.re is _CONTROL else ""
        out += [text[done:at], read]
        done = match.end()
        at = text.find(_ESCAPE, done)
    out.append(text[done:])
    return "".join(out), ""


def _read(sequence: str) -> str:
    """A complete sequence as Textual's parser should get it: "" for none of it."""
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
