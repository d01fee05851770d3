"""Writing a server's objects as JSON again; no Textual, no Rich.

:func:`preview_json` writes ``json.dumps(indent=2)``-style lines of a value until a
budget runs out: at most :data:`MAX_LINES` lines and :data:`MAX_CHARS` characters,
strings cut at :data:`MAX_STRING` characters and nesting cut at :data:`MAX_DEPTH`
levels. :func:`full_json` writes the whole value, for copying; :func:`json_line` writes
it on one line, for an export. Each writes a number kept as the JSON text the server
wrote (``msgspec.Raw``, :attr:`.api.models.Model.sent`) as that text: ``1.10``,
``-0``, ``1e400`` stay so. The first two escape every character that is unsafe on a
terminal, so what they write parses back to the value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import msgspec

from ..api.shapes import without_surrogates
from ..clean import clean, escape_unsettled, is_clean

__all__ = ["JsonPreview", "full_json", "json_line", "preview_json"]

MAX_LINES = 2_000
"""Most JSON lines rendered."""
MAX_CHARS = 200_000
"""Most characters of JSON rendered."""
MAX_STRING = 10_000
"""Longest string rendered in full; longer ones end with "… (N more characters)"."""
MAX_DEPTH = 50
"""Deepest nesting rendered; deeper objects and arrays show as ``{…}`` / ``[…]``."""
# json.dumps(ensure_ascii=False) escapes C0 controls but passes DEL, C1 controls,
# line separators, bidi controls and lone surrogates through. Escaping them keeps
# the text valid JSON that parses back to the same value, and safe to display.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(dumped: str) -> str:
    if _JSON_UNSAFE.search(dumped) is None:
        return dumped
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", dumped)


def full_json(value: object) -> str:
    """The whole value as pretty JSON (indent 2) that parses back to an equal value, its
    numbers kept as text (``msgspec.Raw``) written as they are.

    Characters that are unsafe on a terminal are written as ``\\uXXXX`` escapes.

    Raises:
        ValueError: The value cannot be written as JSON (a circular reference).
        RecursionError: The value is nested too deeply.
    """
    return _escape(msgspec.json.format(_encoded(value), indent=2).decode())


def json_line(value: object) -> str:
    """The whole value as JSON on one line, as an export writes a server's object that
    it does not write as the text sent (``{"a": 1, "b": [2]}``); its numbers kept as
    text (``msgspec.Raw``) written as they are; characters as themselves.

    Raises:
        ValueError: The value cannot be written as JSON (a circular reference).
        RecursionError: The value is nested too deeply.
    """
    return msgspec.json.format(_encoded(value), indent=0).decode()


_ENCODE = msgspec.json.Encoder(enc_hook=str).encode
"""Writes JSON text as it is (``msgspec.Raw``), anything JSON has no type for as its
``str`` (as ``json.dumps(default=str)`` did)."""


def _encoded(value: object) -> bytes:
    try:
        return _ENCODE(value)
    except UnicodeEncodeError:  # a lone surrogate, which no UTF-8 holds
        return _ENCODE(without_surrogates(value))
    except (TypeError, msgspec.EncodeError) as error:  # a circular reference, among others
        raise ValueError(str(error)) from None


@dataclass(frozen=True, slots=True)
class JsonPreview:
    """The lines of JSON to render, and whether anything was left out."""

    lines: list[str]
    capped: bool


class _Full(Exception):
    """The preview has used its whole budget."""


class _Printer:
    """Writes ``json.dumps(indent=2)``-style lines until a budget runs out.

    Only what is written is visited, so an object with a million keys costs no
    more than one with two thousand.
    """

    def __init__(self, max_lines: int, max_chars: int, max_string: int, max_depth: int) -> None:
        self.lines: list[str] = []
        self.chars = 0
        self.capped = False
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.max_string = max_string
        self.max_depth = max_depth

    def emit(self, line: str) -> None:
        if len(self.lines) >= self.max_lines or self.chars + len(line) > self.max_chars:
            raise _Full
        self.lines.append(line)
        self.chars += len(line) + 1

    def string(self, value: str) -> str:
        if len(value) <= self.max_string:
            return escape_unsettled(_escape(json.dumps(value, ensure_ascii=False)))
        self.capped = True
        more = len(value) - self.max_string
        head = escape_unsettled(_escape(json.dumps(value[: self.max_string], ensure_ascii=False)))
        return f'{head[:-1]}… ({more:,} more characters)"'

    def key(self, key: object) -> str:
        if isinstance(key, str):
            return self.string(key)
        if key is None or isinstance(key, bool | int | float):
            return self.string(json.dumps(key))  # what json.dumps does to such keys
        return self.string(str(key))

    def scalar(self, value: object) -> str:
        if isinstance(value, str):
            return self.string(value)
        if value.__class__ is msgspec.Raw:  # a number, as the server wrote it
            return self.number(bytes(value))  # type: ignore[arg-type]
        try:
            dumped = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):  # e.g. an int of 5,000 digits
            self.capped = True
            return "…"
        if len(dumped) > self.max_string:  # e.g. a huge object's str()
            return self.string(json.loads(dumped)) if dumped[0] == '"' else "…"
        return _escape(dumped)

    def number(self, text: bytes) -> str:
        if len(text) > self.max_string:  # longer than a string shown whole
            self.capped = True
            return "…"
        return _escape(text.decode("utf-8", "replace"))

    def value(self, value: object, prefix: str, indent: str, suffix: str, depth: int) -> None:
        if isinstance(value, dict):
            opening, closing = "{", "}"
        elif isinstance(value, list | tuple):
            opening, closing = "[", "]"
        else:
            self.emit(f"{prefix}{self.scalar(value)}{suffix}")
            return
        if not value:
            self.emit(f"{prefix}{opening}{closing}{suffix}")
            return
        if depth >= self.max_depth:
            self.capped = True
            self.emit(f"{prefix}{opening}…{closing}{suffix}")
            return
        self.emit(prefix + opening)
        inner = indent + "  "
        last = len(value) - 1
        if isinstance(value, dict):
            for position, (key, item) in enumerate(value.items()):
                comma = "," if position < last else ""
                self.value(item, f"{inner}{self.key(key)}: ", inner, comma, depth + 1)
        else:
            for position, item in enumerate(value):
                comma = "," if position < last else ""
                self.value(item, inner, inner, comma, depth + 1)
        self.emit(f"{indent}{closing}{suffix}")


def preview_json(
    value: object,
    *,
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_CHARS,
    max_string: int = MAX_STRING,
    max_depth: int = MAX_DEPTH,
) -> JsonPreview:
    """Pretty JSON lines of ``value`` for display, capped so hostile data stays cheap.

    Args:
        value: A value decoded from JSON.
        max_lines: Most lines written; a last "…" line marks the cut.
        max_chars: Most characters written.
        max_string: Longest string written in full.
        max_depth: Deepest nesting written.

    Returns:
        Cleaned lines (no control or bidi characters) and whether anything was cut.
    """
    printer = _Printer(max_lines, max_chars, max_string, max_depth)
    try:
        printer.value(value, "", "", "", 0)
    except _Full:
        printer.capped = True
        printer.lines.append("…")
    lines = printer.lines
    if not is_clean("\n".join(lines)):  # escaping above should leave nothing to do
        lines = [clean(line) for line in lines]
    return JsonPreview(lines, printer.capped)
