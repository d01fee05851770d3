"""Free text typed into a form: no control characters, and collection names."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from ..clean import shorten

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_MULTILINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def split_lines(text: str) -> list[str]:
    """``text``'s lines: a line ends at CR LF, CR or LF only, what an editor, a file and a
    terminal's paste end one with, so lines number as an editor shows them.

    The other characters :meth:`str.splitlines` ends a line at (VT, FF, the separators
    U+001C-U+001E, NEL, U+2028, U+2029) are characters of the line: an entry holding one
    stays one entry, and its check names the character.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def split_list(text: str) -> list[str]:
    """The entries of a list typed on one line or in lines (event names): separated by
    commas and line breaks (:func:`split_lines`), as they are, untrimmed."""
    return [part for line in split_lines(text) for part in line.split(",")]


def secret_as_given(text: str) -> str:
    """A secret as its owner gave it, typed, on stdin or in a file: the one line ending
    after it left out (what ``echo``, a here-string or an editor's last line adds), every
    other character kept, spaces around it too. A secret is the bytes its owner chose,
    and a signature made with a space less fails. ``""`` (no secret) for an empty line or
    one of white space only, which nobody chose as a secret."""
    for ending in ("\r\n", "\n"):
        if text.endswith(ending):
            text = text[: -len(ending)]
            break
    return text if text.strip() else ""


_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters drawn as nothing that Unicode does not class as format or space: the
Hangul fillers and the blank Braille pattern."""


def shows_nothing(text: str) -> bool:
    """Whether ``text`` draws nothing: only spaces, format characters (zero-width
    space and joiners, the byte-order mark), marks with no letter to sit on (variation
    selectors, the combining grapheme joiner) and blank fillers."""
    return all(
        ch.isspace() or ch in _BLANK_LETTERS or unicodedata.category(ch) in ("Cf", "Zs", "Mn", "Me")
        for ch in text
    )


def seen_length(text: str) -> int:
    """How many characters ``text`` shows, near enough: a letter and the marks on it
    (spacing ones too: a Devanagari vowel sign) are one, Hangul jamo make a syllable, an emoji joined by zero-width joiners (a family) or with a skin tone is one, two
    regional indicators (a flag) are one."""
    count = flags = 0
    joined = False
    for ch in unicodedata.normalize("NFC", text):  # Hangul typed as jamo: syllables
        kind = unicodedata.category(ch)
        if kind in ("Mn", "Mc", "Me", "Cf") or "\U0001f3fb" <= ch <= "\U0001f3ff":
            joined = ch == "\u200d"
            continue
        if "\U0001f1e6" <= ch <= "\U0001f1ff":  # a regional indicator: two make a flag
            flags += 1
            if flags % 2 == 0:
                continue
        if not joined:
            count += 1
        joined = False
    return count


def describe_char(ch: str) -> str:
    """Name a character for a message without letting it disturb the terminal."""
    if ch == " ":
        return "a space"
    if ch.isprintable():
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"


def clip(text: str, limit: int = 40) -> str:
    """Shorten ``text`` for a message."""
    return shorten(text, limit)


def check_text(value: str, field: str, *, multiline: bool = False) -> str | None:
    """Flag characters that cannot be sent or that would corrupt the display.

    Args:
        value: the text as typed or pasted.
        field: how the message names the field, e.g. ``"the name"``.
        multiline: allow tab and line breaks (CR, LF), as in a text area.

    Returns:
        ``None`` when the text is fine; otherwise a message giving the 1-based position. A lone
        surrogate (what a broken paste or a bad file name can produce) cannot be encoded as UTF-8.
        C0 controls, DEL and C1 controls (ESC among them) are refused too. The message never
        repeats the character, so it is safe for secrets.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"{field} contains a character that cannot be sent (position {exc.start + 1}) "
            "— delete it and type it again"
        )
    found = (_CONTROL_MULTILINE if multiline else _CONTROL).search(value)
    if found is None:
        return None
    what = {"\t": "a tab", "\n": "a line break", "\r": "a line break"}.get(
        found.group(), "a control character"
    )
    return f"{field} contains {what} (position {found.start() + 1}) — remove it"


COLLECTION_NAME_LIMIT: Final = 24
"""Longest collection name that checkout modals show in full."""


def check_collection_name(value: str) -> tuple[str | None, str | None]:
    """Check a collection name; returns ``(error, warning)``.

    A name is required. Past :data:`COLLECTION_NAME_LIMIT` characters it is accepted with a
    warning, since checkout modals cut it off.
    """
    name = value.strip()
    if not name:
        return "enter a name for the collection", None
    if problem := check_text(name, "the name"):
        return problem, None
    if shows_nothing(name):
        return "the name holds only invisible characters — type one that shows", None
    length = seen_length(name)
    if length > COLLECTION_NAME_LIMIT:
        return None, (
            "long names are cut off in checkout modals — keep it to "
            f"{COLLECTION_NAME_LIMIT} characters or fewer (now {length})"
        )
    return None, None
