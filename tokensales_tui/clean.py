"""The one gate for text the program did not write: never markup, never a terminal control.

Anything a server sends may contain text that looks like Textual/Rich markup
(``[@click=app.quit]x[/]``) or raw terminal control sequences (``ESC ] 52`` writes
the clipboard, C1 ``CSI`` moves the cursor, bidi overrides reorder what a reader
sees). This module turns such text into something that is safe to display:

* :func:`clean` replaces every control, bidi embedding/override/isolate character
  and lone surrogate with a visible marker, keeping newlines and tabs.
* :func:`clean_line` also flattens newlines and tabs, for one-line cells.
* :func:`display_value` renders any JSON value as a short cleaned line.
* :func:`settle_width` writes the characters whose width terminals and Rich count
  differently (zero-width and format ones, spacing vowel signs) in a form of one
  agreed width.
* :func:`cell_text` is what a table cell shows of a value: both of the above;
  :func:`cell_text_in` the same in a number of terminal cells (:func:`cell_width`).
* :func:`visible` is what the screen shows of any text: :func:`clean` (or
  :func:`clean_line`) and :func:`settle_width`, so that nothing reaches it that a
  terminal acts on, hides, or counts another width than Rich.

The UI builds literal renderables from cleaned text in :mod:`tokensales_tui.ui.safe`;
the scripting commands print cleaned text. Nothing here imports Textual or Rich.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec

__all__ = [
    "cell_text",
    "cell_text_in",
    "cell_width",
    "clean",
    "clean_line",
    "cut_long_words",
    "display_value",
    "escape_unsafe",
    "escape_unsettled",
    "escapes_in",
    "grapheme_cut",
    "guard_formula",
    "is_clean",
    "mark_controls",
    "mark_invisible",
    "settle_all",
    "settle_in_place",
    "settle_width",
    "shorten",
    "shorten_cells",
    "unsettled",
    "visible",
]

ELLIPSIS = "…"
REPLACEMENT = "\ufffd"
NEWLINE_MARK = "↵"


def _build_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):
        if code not in (0x09, 0x0A):
            table[code] = chr(0x2400 + code)  # Control Pictures: ESC -> ␛
    table[0x7F] = "\u2421"  # ␡
    for code in range(0x80, 0xA0):  # C1 controls; 0x9B is a one-byte CSI
        table[code] = REPLACEMENT
    for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)):  # bidi controls
        table[code] = REPLACEMENT
    for code in range(0xD800, 0xE000):  # lone surrogates cannot be encoded
        table[code] = REPLACEMENT
    return table


_TABLE = _build_table()
_LINE_TABLE = {**_TABLE, 0x0A: NEWLINE_MARK, 0x0D: NEWLINE_MARK, 0x09: " "}

# Searching is several times cheaper than translating, and almost all server text
# is clean, so look first and translate only the strings that need it.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def is_clean(text: str, *, line: bool = False) -> bool:
    """Whether ``text`` is already safe (:func:`clean`, or :func:`clean_line` if ``line``).

    Checking one long string is much cheaper than cleaning many short ones, so
    callers with lots of strings can join them and test once.
    """
    # isprintable() is twice as fast as the search and true for almost all text;
    # it is false for every character either function replaces (and for others).
    return text.isprintable() or (_UNSAFE_LINE if line else _UNSAFE).search(text) is None


def clean(text: str) -> str:
    """Replace control, bidi and surrogate characters with visible markers.

    C0 controls (except newline and tab) become Control Pictures (ESC is "␛"),
    DEL becomes "␡", and C1 controls, bidi embedding/override/isolate characters
    and lone surrogates become "�".

    Args:
        text: Text from outside the program.

    Returns:
        Text that is safe to write to a terminal (the same object if nothing changed).
    """
    if text.isprintable() or _UNSAFE.search(text) is None:
        return text
    return text.translate(_TABLE)


def clean_line(text: str) -> str:
    """Like :func:`clean`, and also keep the text on one line.

    Newlines (and CRLF pairs) become "↵", tabs become a single space.

    Args:
        text: Text from outside the program.

    Returns:
        One line of safe text (the same object if nothing changed).
    """
    if text.isprintable() or _UNSAFE_LINE.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text.translate(_LINE_TABLE)


ZERO_WIDTH_MARK = "\u2e31"
"""⸱ (one cell everywhere) stands for a zero-width character in a cell."""

SKIN_TONES = range(0x1F3FB, 0x1F400)
"""The emoji modifiers Fitzpatrick 1-2 to 6 (🏻 … 🏿)."""


def _ranges(codes: list[int]) -> str:
    """A regex character class body for ``codes`` (sorted), as ranges."""
    parts: list[str] = []
    start = previous = codes[0]
    for code in [*codes[1:], -1]:
        if code == previous + 1:
            previous = code
            continue
        parts.append(
            re.escape(chr(start)) + ("-" + re.escape(chr(previous)) if previous > start else "")
        )
        start = previous = code
    return "".join(parts)


_ZERO_WIDTH: Final = (
    0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E,
    0x180F, 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164,
    0xFE00, 0xFE01, 0xFE02, 0xFE03, 0xFE04, 0xFE05, 0xFE06, 0xFE07, 0xFE08, 0xFE09,
    0xFE0A, 0xFE0B, 0xFE0C, 0xFE0D, 0xFE0E, 0xFE0F, 0xFEFF, 0xFFA0,
)  # fmt: skip
"""Zero-width format characters and fillers: Rich counts none of them, terminals differ
(a ZWSP takes a cell in some, U+3164 two in glibc's table; a ZWJ glues emoji in some)."""

_BY_CATEGORY: Final = (range(0x00A0, 0x20000), range(0xE0000, 0xE0080))
"""Where the characters settled by their category lie: every format character and spacing
mark but the tags (U+E00xx) lies below U+20000."""


def _settled_char(code: int) -> bool:
    """Whether :func:`_settle_table` holds ``code``, without building it (a text of a few
    characters, met before the table: the app's first frame has ``⏎`` in its footer)."""
    if code < 0xA0:
        return False
    if code in _ZERO_WIDTH or code in SKIN_TONES or 0xE0100 <= code < 0xE01F0:
        return True
    if not any(code in span for span in _BY_CATEGORY):
        return False
    kind = unicodedata.category(chr(code))
    return kind == "Mc" or (kind in ("Cf", "Zl", "Zp") and code not in _TABLE)


FEW_CHARACTERS: Final = 256
"""Texts up to this long are checked a character at a time until the table is built."""


@functools.cache
def _settle_table() -> tuple[re.Pattern[str], dict[int, str]]:
    """Built at the first text that is not ASCII (about 20 ms), not at import."""
    # Zero-width format characters and fillers: Rich counts none of them, terminals
    # differ (a ZWSP takes a cell in some, U+3164 two in glibc's table; a ZWJ glues
    # emoji in some). Spacing combining marks (category Mc, Devanagari's ा ि ी …): Rich
    # counts none, wcwidth-based terminals (xterm, tmux, VTE) one. Either way the
    # columns after them slide out of line. Each is written with one agreed width.
    # Every format character (category Cf: ZWJ, word joiner, LRM, soft hyphen, the tag
    # characters of emoji flags…) and the line and paragraph separators U+2028/U+2029,
    # except the bidi controls :func:`clean` replaces, are zero-width too; so are the
    # variation selectors beyond the BMP. (:func:`_settled_char` says the same of one
    # character without the table: a test holds the two to each other.)
    zero_width: list[int] = [*_ZERO_WIDTH]
    spacing_marks: list[int] = []
    category = unicodedata.category
    for code in itertools.chain(*_BY_CATEGORY):
        kind = category(chr(code))
        if kind == "Mc":
            spacing_marks.append(code)
        elif kind in ("Cf", "Zl", "Zp") and code not in _TABLE:
            zero_width.append(code)
    zero_width += range(0xE0100, 0xE01F0)
    table = dict.fromkeys(zero_width, ZERO_WIDTH_MARK)
    for code in spacing_marks:
        # A vowel sign shows as its vowel letter (ा as आ), which reads the same sound
        # and takes one cell everywhere; a mark without one as its JSON escape.
        name = unicodedata.name(chr(code), "")
        try:
            letter = unicodedata.lookup(name.replace(" VOWEL SIGN ", " LETTER ", 1))
        except KeyError:
            letter = ""
        if " VOWEL SIGN " in name and letter and unicodedata.category(letter) == "Lo":
            table[code] = letter
        else:
            table[code] = json.dumps(chr(code))[1:-1]  # "\u0903", surrogate pairs beyond
    # Emoji skin-tone modifiers (🏻 🏼 🏽 🏾 🏿): Rich counts none after an emoji (👍🏽 is
    # two cells), wcwidth-based terminals two, drawing the swatch beside the emoji.
    table.update(dict.fromkeys(SKIN_TONES, ZERO_WIDTH_MARK))
    # One class of the BMP characters, which the regex engine tests with a bitmap, and
    # a few ranges over those beyond it, one for each cluster (a hit there that is not
    # in the table only costs a translation that changes nothing): a single class
    # holding both is tested range by range, about twelve times slower. The clusters
    # (U+11000–U+1D17A, U+E0001–U+E01EF) leave out the emoji between them, and the skin
    # tones have a range of their own: one from the marks to them would take in most emoji.
    basic = sorted(code for code in table if code <= 0xFFFF)
    beyond = sorted(code for code in table if code > 0xFFFF and code not in SKIN_TONES)
    pattern = f"[{_ranges(basic)}]"
    spans: list[tuple[int, int]] = []
    for code in beyond:
        if spans and code - spans[-1][1] <= 0x1000:
            spans[-1] = (spans[-1][0], code)
        else:
            spans.append((code, code))
    if spans:
        pattern += (
            "|[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in spans) + "]"
        )
    pattern += f"|[{chr(SKIN_TONES[0])}-{chr(SKIN_TONES[-1])}]"
    return re.compile(pattern), table


@functools.cache
def _in_place_table() -> dict[int, str]:
    """:func:`_settle_table`'s, with each character written as one character."""
    return {
        code: ZERO_WIDTH_MARK if len(settled) > 1 else settled
        for code, settled in _settle_table()[1].items()
    }


def unsettled(text: str) -> bool:
    """Whether ``text`` may hold a character :func:`settle_width` rewrites.

    False means none; true may also come from a letter beyond the BMP among such marks
    (settling leaves it as it is).
    """
    if text.isascii():
        return False
    if len(text) <= FEW_CHARACTERS and not _settle_table.cache_info().currsize:
        # The table takes about 20 ms to build: not for a short text that needs none.
        return any(map(_settled_char, map(ord, text)))
    return _settle_table()[0].search(text) is not None


def unsettled_in(text: str) -> Iterator[re.Match[str]]:
    """Each character of ``text`` that :func:`settle_width` rewrites (and maybe a letter
    beyond the BMP among such marks, which it leaves as it is), one match each."""
    if text.isascii():
        return iter(())
    return _settle_table()[0].finditer(text)


def settle_width(text: str) -> str:
    """``text`` with every character of disputed width written in a form of one width.

    Zero-width characters (ZWSP, ZWJ, BOM, variation selectors, fillers…) and emoji
    skin-tone modifiers become "⸱";
    a spacing vowel sign becomes its vowel letter (Devanagari ``का`` shows as ``कआ``);
    another spacing mark its ``\\uXXXX`` escape. For cells and views whose columns
    must line up in any terminal; copies and exports keep the text as it was.

    Returns:
        The text (the same object when nothing changed).
    """
    if not unsettled(text):
        return text
    return text.translate(_settle_table()[1])


@functools.cache
def _invisible_table() -> dict[int, str]:
    """:func:`_settle_table`'s characters that take no cell, alone: not the spacing marks
    (their vowel letters read the same) nor the skin tones (they draw a swatch)."""
    return {
        code: settled
        for code, settled in _settle_table()[1].items()
        if settled == ZERO_WIDTH_MARK and code not in SKIN_TONES
    }


def mark_invisible(text: str) -> str:
    """``text`` with each zero-width or format character written "⸱", as the app's tables
    show them: ZWSP, ZWJ, BOM, LRM and RLM, the word joiner, the soft hyphen, variation
    selectors, fillers, the line and paragraph separators (every character of Unicode's
    category Cf that :func:`clean` leaves; the bidi controls it replaces already).

    A terminal shows nothing for them, or a cell in some: "it\u200bm_1" read as the id
    ``itm_1`` it is not. For text that reaches a terminal otherwise as it is (a command's
    output and messages: :class:`tokensales_tui.console.TerminalGate`).

    Returns:
        The text (the same object when nothing changed).
    """
    if not unsettled(text):
        return text
    return text.translate(_invisible_table())


def visible(text: str, *, line: bool = False) -> str:
    """``text`` as the screen shows it: controls and bidi characters as marks
    (:func:`clean`, or :func:`clean_line` if ``line``), and every character of disputed
    width settled (:func:`settle_width`): ZWSP, ZWJ, BOM, the word joiner, the soft
    hyphen and every other zero-width or format character as "⸱", as the tables show
    them. Every text the app draws passes here (``ui/safe.py``), a request's preview as
    much as a cell: ``https://pay\\u200bpal.com`` must not read as ``paypal.com``. What is
    sent, copied or exported keeps the text as it was.

    Returns:
        The text (the same object when nothing changed).
    """
    return settle_width(clean_line(text) if line else clean(text))


def settle_in_place(text: str) -> str:
    """Like :func:`settle_width`, one character for each: a character that it writes as
    several (an escape) becomes "⸱". For text being edited, whose cursor and selection
    are character offsets (see :func:`mark_controls`)."""
    if not unsettled(text):
        return text
    return text.translate(_in_place_table())


def settle_all(texts: list[str]) -> list[str]:
    """:func:`settle_width` of each of ``texts``, at about the cost of a loop over them."""
    search = _settle_table()[0].search
    settle = _settle_table()[1]
    return [
        text.translate(settle) if not text.isascii() and search(text) else text for text in texts
    ]


def escape_unsettled(text: str) -> str:
    """``text`` with every character :func:`settle_width` rewrites as a JSON ``\\uXXXX`` escape.

    For JSON shown on screen: it still parses back to the same value.
    """
    if not unsettled(text):
        return text
    return _settle_table()[0].sub(lambda found: json.dumps(found[0])[1:-1], text)


def mark_controls(text: str) -> str:
    """Like :func:`clean_line`, but one mark per character, so that positions stay.

    For text being edited, whose cursor and selection are character offsets.
    """
    if text.isprintable() or _UNSAFE_LINE.search(text) is None:
        return text
    return text.translate(_LINE_TABLE)


def escape_unsafe(text: str, *, line: bool = False) -> str:
    """Write each character :func:`clean` would replace as a ``\\uXXXX`` escape.

    For text that leaves the program whole, such as a copy to the clipboard: nothing
    is lost, nothing a terminal or a shell acts on remains, and JSON stays valid JSON
    (such characters can only stand inside its strings). Newlines and tabs stay,
    unless ``line``: a value copied on its own (an id, an address) must not end a
    shell command line when pasted.

    Args:
        text: Text from outside the program.
        line: Escape newlines and tabs too.

    Returns:
        Safe text (the same object if nothing changed).
    """
    unsafe = _UNSAFE_LINE if line else _UNSAFE
    if text.isprintable() or unsafe.search(text) is None:
        return text
    return unsafe.sub(lambda found: _escape(found[0]), text)


def _escape(character: str) -> str:
    return f"\\u{ord(character):04x}"


def escapes_in(text: str, *, line: bool = False) -> list[str]:
    """The escape :func:`escape_unsafe` writes for each character it escapes in ``text``,
    in order (``["\\u202e"]``): what a message says of a copy that is not exact."""
    if text.isprintable():
        return []
    return [_escape(found) for found in (_UNSAFE_LINE if line else _UNSAFE).findall(text)]


# --------------------------------------------------------------------------- cutting


_JOINER = "\u200d"


def _continues(char: str) -> bool:
    """Whether ``char`` is drawn as part of the character before it: a combining mark,
    a joiner, a variation selector, a skin tone, an emoji tag, a Hangul vowel or final
    consonant, or "⸱", the mark such a character shows as once settled."""
    code = ord(char)
    if code < 0x300:
        return False
    return (
        char in (_JOINER, "\u200c", ZERO_WIDTH_MARK)
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0020 <= code <= 0xE01EF  # emoji tags, then the variation selectors beyond
        or code in SKIN_TONES
        or 0x1160 <= code <= 0x11FF
        or 0xD7B0 <= code <= 0xD7FF
        or unicodedata.category(char) in ("Mn", "Me", "Mc")
    )


def _pictograph(char: str) -> bool:
    return 0x1F000 <= ord(char) <= 0x1FAFF or unicodedata.category(char) == "So"


def _regional(char: str) -> bool:
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def _cut_allowed(text: str, index: int) -> bool:
    """Whether ``text`` may be cut before ``text[index]`` (0 < index < len) without
    leaving part of a character as the terminal draws it (a grapheme, near enough)."""
    before, after = text[index - 1], text[index]
    if _continues(after) or before == _JOINER:
        return False
    if _regional(before) and _regional(after):  # two make a flag: count them from the start
        start = index - 1
        while start > 0 and _regional(text[start - 1]):
            start -= 1
        return (index - start) % 2 == 0
    if before == ZERO_WIDTH_MARK and _pictograph(after):
        # Emoji joined by a joiner shown settled ("👩⸱💻"): one picture still.
        base = index - 1
        while base > 0 and _continues(text[base]):
            base -= 1
        return not _pictograph(text[base])
    return True


def grapheme_cut(text: str, end: int) -> int:
    """The last place at or before ``end`` where ``text`` may be cut without splitting
    what the terminal draws as one character: a letter and its combining marks, an emoji
    and its skin tone or variation selector, emoji joined by zero-width joiners (a family,
    "👩‍💻", settled or not), the two regional indicators of a flag. 0 when none is."""
    end = max(0, min(end, len(text)))
    while 0 < end < len(text) and not _cut_allowed(text, end):
        end -= 1
    return end


def shorten(text: str, limit: int) -> str:
    """``text`` in ``limit`` characters at most: longer, cut between two characters as
    drawn (:func:`grapheme_cut`), with "…" after it. Every text of the package cut to a
    length is cut here (or, to a width in cells, by :func:`shorten_cells`, or by
    ``ui/wrap.cut_to_cells`` where Rich measures)."""
    if len(text) <= limit:
        return text
    if limit < 1:
        return ""
    return text[: grapheme_cut(text, limit - 1)] + ELLIPSIS


_NO_CELL = frozenset(("Mn", "Me", "Cf"))
"""Categories of the characters that take no cell of their own: combining marks (many
of them of class 0, which :func:`unicodedata.combining` does not see) and the format
characters (:func:`cell_text` has made each of them a visible mark already)."""


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes, as terminals and Rich count the text of a cell
    (:func:`cell_text`): East Asian wide and full-width characters take two, combining
    marks and Hangul's conjoining vowels and final consonants none. (The commands do not
    load Rich, which measures the app's tables.)"""
    if text.isascii():
        return len(text)
    return sum(map(_char_cells, text))


@functools.lru_cache(maxsize=4096)
def _char_cells(char: str) -> int:
    if (
        unicodedata.category(char) in _NO_CELL
        or "\u1160" <= char <= "\u11ff"
        or "\ud7b0" <= char <= "\ud7ff"
    ):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def shorten_cells(text: str, cells: int) -> str:
    """``text`` in ``cells`` terminal cells at most (:func:`cell_width`): wider, cut
    between two characters as drawn (:func:`grapheme_cut`: a ZWJ sequence, a flag, a
    letter and its accent stay whole or go), with "…" after it. What :func:`shorten`
    is to a length, for text laid out in columns: 48 Japanese characters take 96 cells."""
    if cell_width(text) <= cells:
        return text
    if cells < 1:
        return ""
    room = cells - 1  # the ellipsis takes one
    end = 0
    while (taken := _char_cells(text[end])) <= room:  # to the first character past it
        room -= taken
        end += 1
    return text[: grapheme_cut(text, end)] + ELLIPSIS


LONG_WORD = 160
"""Characters of a run without a space (an address, a path, an id) a message shows; a
longer one keeps its start and its end (:func:`cut_long_words`)."""

_LONG_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")
_HEAD = LONG_WORD * 2 // 3


def _cut_middle(word: str) -> str:
    tail = grapheme_cut(word, len(word) - (LONG_WORD - _HEAD - 1))
    return word[: grapheme_cut(word, _HEAD)] + ELLIPSIS + word[tail:]


def cut_long_words(text: str) -> str:
    """``text`` with every run of more than :data:`LONG_WORD` characters without a space
    cut in its middle to that many, "…" where the rest was.

    For messages that quote what they are about: a URL of 2,000 characters filled a
    toast, and the screen under it, with one word nobody reads whole. Its start (the
    scheme and host) and its end (a file's name; a host after a long ``user@``) stay.
    What is copied or acted on keeps the whole text; only what is shown is cut.
    """
    if len(text) <= LONG_WORD:
        return text
    return _LONG_WORD.sub(lambda found: _cut_middle(found[0]), text)


def quoted(text: str) -> str:
    """``text`` from outside the program (typed, read from a file) as a message quotes
    it: between “ ”, on one line, cleaned (:func:`clean_line`), a long word cut in its
    middle (:func:`cut_long_words`)."""
    return f"“{clean_line(cut_long_words(text))}”"


def _truncate(value: str, limit: int | None) -> str:
    return value if limit is None else shorten(value, limit)


def _float_text(value: float) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # 3.0 -> "3"
    return repr(value)


_NESTING_SHOWN = 20
"""Levels of a deeply nested value shown in one line; deeper ones become ``[…]``/``{…}``."""


class _HoldsRaw(Exception):
    """A value holds JSON text kept as written (:class:`msgspec.Raw`)."""


def _str_unless_raw(value: object) -> str:
    if isinstance(value, msgspec.Raw):
        raise _HoldsRaw
    return str(value)


def _compact_json(value: object) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_str_unless_raw)
    except _HoldsRaw:  # a number as the server wrote it (``1.10``): written as it is
        return msgspec.json.encode(value).decode("utf-8", "replace")
    except RecursionError:
        # A server can send JSON nested ~1,000 deep, which the decoder accepts but
        # json.dumps cannot write from inside a render: show the first levels only.
        return _shallow_json(value, _NESTING_SHOWN)


def _shallow_json(value: object, depth: int) -> str:
    """Compact JSON of ``value`` with nesting below ``depth`` levels cut to ``[…]``/``{…}``."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        if depth <= 0:
            return "{" + ELLIPSIS + "}"
        members = (
            f"{_compact_json(key if isinstance(key, str) else str(key))}:"
            f"{_shallow_json(item, depth - 1)}"
            for key, item in value.items()
        )
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        if depth <= 0:
            return "[" + ELLIPSIS + "]"
        return "[" + ",".join(_shallow_json(item, depth - 1) for item in value) + "]"
    return _compact_json(value)


# Values whose text can hold neither markup that matters nor control characters.
_SIMPLE: dict[type, Callable[[Any], str]] = {
    type(None): lambda _value: "",
    type(msgspec.UNSET): lambda _value: "",
    bool: lambda value: "yes" if value else "no",
    int: int.__repr__,
    float: _float_text,
}


def _plain(value: object) -> str:
    simple = _SIMPLE.get(value.__class__)
    if simple is not None:
        return simple(value)
    if isinstance(value, str):
        return value
    if isinstance(value, msgspec.Struct):
        value = msgspec.to_builtins(value)
    if isinstance(value, msgspec.Raw):  # JSON text kept as written (a number beyond a float)
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, list | tuple):
        return ", ".join(
            _compact_json(item) if isinstance(item, dict | list | tuple) else _plain(item)
            for item in value
        )
    if isinstance(value, dict):
        return _compact_json(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float_text(value)
    return str(value)


def display_value(value: object, limit: int | None = None) -> str:
    """A short, one-line, cleaned display of a JSON value.

    ``None`` (and msgspec's ``UNSET``) is empty, booleans are "yes"/"no", integral
    floats lose their ".0", lists are comma-joined, objects and structs are
    compact JSON.

    Args:
        value: Any value decoded from JSON (other objects are shown with ``str``).
        limit: Maximum length in characters; longer text ends with "…".

    Returns:
        Text for a single table cell or label.
    """
    simple = _SIMPLE.get(value.__class__)
    if simple is not None:  # the common case in a table: skip the cleaning
        return _truncate(simple(value), limit)
    if isinstance(value, str):
        if limit is not None and len(value) > limit:
            # Cleaning maps one character to at most one, so cut first: a huge
            # string costs no more than a short one.
            value = value[: limit + 1]
        return _truncate(clean_line(value), limit)
    return _truncate(clean_line(_plain(value)), limit)


def cell_text(value: object, limit: int | None = None) -> str:
    """What a table cell (or a detail field) shows of ``value``: :func:`display_value`,
    with every character of disputed width settled, so that Rich, the terminal and
    the commands' tables count the same cells (:func:`settle_width`). The app's tables
    and the commands' are made of it; exports keep the text unsettled."""
    return settle_width(display_value(value, limit))


_CHARS_A_CELL = 4
"""Characters kept per cell before a text is cut to its cells (:func:`cell_text_in`):
past that many, a text is mostly marks that take no cell, and its cut says so."""


def cell_text_in(value: object, cells: int) -> str:
    """:func:`cell_text` of ``value`` in ``cells`` terminal cells at most
    (:func:`shorten_cells`): a column of the commands' tables."""
    # Cut to a length first, so that a huge string costs no more than a short one: no
    # character takes more than two cells, and marks of none come a few to a letter.
    return shorten_cells(cell_text(value, _CHARS_A_CELL * cells), cells)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
"""A spreadsheet cell starting with one of these is run as a formula (OWASP's list, and a
new line, which some read past)."""


def guard_formula(text: str) -> str:
    """``text`` for a spreadsheet's cell (CSV): one a spreadsheet would run as a formula
    gets a leading ``'``; a number (``-1,234.5``) stays a number."""
    if text.startswith(FORMULA_STARTS) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True
