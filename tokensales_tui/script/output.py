"""What the commands print: a table, JSON, JSON lines or CSV, ``--fields`` and ``--jq``.

JSON is the server's data re-encoded: every control character, DEL, C1 control and
bidi control arrives escaped (``\\u001b``), so printing it on a terminal is harmless
and a JSON reader gets the text back exactly. The table and CSV clean server text
with :mod:`tokensales_tui.clean`, as the app's tables do.

Rows reach a :class:`Printer` as JSON text (``msgspec.Raw``, straight from a streamed
list) or as plain values; a list is printed a batch at a time, never held, except
for a table (its columns need every width) and ``--jq`` (a program sees the whole).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any
from unicodedata import combining, east_asian_width

import msgspec

from ..clean import clean, display_value

__all__ = ["DEFAULT_FIELDS", "OutputError", "Printer", "encode_json"]

DEFAULT_FIELDS: dict[str, tuple[str, ...]] = {
    "webhooks": ("id", "url", "isActive", "events", "createdAt"),
    "items": ("id", "title", "price", "currency", "payout.type"),
    "assets": (),  # none assumed: the keys of the first row
    "collections": ("id", "name", "blockchain", "contractAddress", "whitelisted"),
    "payouts": ("id", "type", "name", "chain", "account", "usedBy", "source"),
}
"""The table's and CSV's columns when ``--fields`` is not given."""

CELL_WIDTH = 48
"""Widest table column; longer text ends with an ellipsis."""

_ESCAPE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
_ENCODER = msgspec.json.Encoder()
_DECODE = msgspec.json.decode


class OutputError(Exception):
    """The output cannot be made as asked (a broken ``--jq`` program); the message says why."""


def _escape(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode())


def encode_json(value: Any) -> bytes:
    """``value`` as compact JSON, every control character escaped."""
    try:
        encoded = _ENCODER.encode(value)
    except (TypeError, ValueError, UnicodeEncodeError):  # a lone surrogate
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()
    return _ESCAPE.sub(_escape, encoded)


def _decode(raw: Any) -> Any:
    """A row as plain values: JSON text is decoded, anything else is taken as it is."""
    if isinstance(raw, msgspec.Raw | bytes):
        try:
            return _DECODE(raw)
        except (msgspec.DecodeError, UnicodeDecodeError):
            # A lone surrogate or a byte that is not UTF-8: what the stdlib makes of it.
            return json.loads(bytes(raw).decode("utf-8", "replace"))
    return raw


def width(text: str) -> int:
    """Terminal cells ``text`` takes: East Asian wide and full-width characters take two."""
    if text.isascii():
        return len(text)
    return sum(2 if east_asian_width(ch) in "WF" else 0 if combining(ch) else 1 for ch in text)


def _pad(text: str, cells: int) -> str:
    return text + " " * (cells - width(text))


def pick(row: Any, path: str) -> Any:
    """The value at ``path`` (``a.b`` reaches inside objects); ``None`` when absent."""
    value = row
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


class Printer:
    """Prints rows in one format to ``stream`` (bytes).

    Args:
        fmt: ``table``, ``json``, ``jsonl`` or ``csv``.
        fields: the keys to keep (``a.b`` reaches inside); empty keeps every field,
            except that a table and CSV then show the resource's usual columns.
        jq: a jq program run over the whole output, or ``None``.
        kind: the resource, for the default columns.
        stream: where to write; ``sys.stdout.buffer`` by default.
    """

    def __init__(
        self,
        fmt: str,
        *,
        fields: Sequence[str] = (),
        jq: str | None = None,
        kind: str = "",
        stream: IO[bytes] | None = None,
    ) -> None:
        self.fmt = fmt
        self.fields = tuple(fields)
        self.kind = kind
        self.stream = stream if stream is not None else sys.stdout.buffer
        self._program = _compile(jq) if jq else None
        self._held: list[Any] = []
        self._count = 0
        self._columns: tuple[str, ...] = ()

    # --- lists ----------------------------------------------------------------------

    def rows(self, batch: Iterable[Any]) -> None:
        """Print (or, for a table and ``--jq``, keep) a batch of rows of a list."""
        if self._program is not None or self.fmt == "table":
            self._held.extend(map(self._shape, batch))
            return
        if self.fmt == "csv":
            self._csv(map(self._shape, batch))
            return
        lines = [encode_json(self._shape(row)) for row in batch]
        if not lines:
            return
        if self.fmt == "json":
            lead = b"[\n" if self._count == 0 else b",\n"
            self.stream.write(lead + b",\n".join(lines))
        else:
            self.stream.write(b"\n".join(lines) + b"\n")
        self._count += len(lines)

    def end(self) -> None:
        """The list is complete: print what was kept, close the JSON array."""
        if self._program is not None:
            self._jq(self._held)
        elif self.fmt == "table":
            self._table(self._held)
        elif self.fmt == "json":
            self.stream.write(b"\n]\n" if self._count else b"[]\n")
        self.stream.flush()

    # --- one object -----------------------------------------------------------------

    def one(self, row: Any) -> None:
        """Print one object (``get KIND ID``, an ``api`` answer)."""
        value = self._shape(row)
        if self._program is not None:
            self._jq(value)
        elif self.fmt == "table":
            self._record(value)
        elif self.fmt == "csv":
            self._csv([value])
        elif self.fmt == "json":
            self.stream.write(msgspec.json.format(encode_json(value), indent=2) + b"\n")
        else:
            self.stream.write(encode_json(value) + b"\n")
        self.stream.flush()

    # --- the formats ----------------------------------------------------------------

    def _shape(self, row: Any) -> Any:
        value = _decode(row)
        if self.fields and isinstance(value, dict):
            return {name: pick(value, name) for name in self.fields}
        return value

    def _column_names(self, rows: Sequence[Any]) -> tuple[str, ...]:
        if self.fields:
            return self.fields
        default = DEFAULT_FIELDS.get(self.kind, ())
        if default:
            return default
        first = next((row for row in rows if isinstance(row, dict)), {})
        return tuple(first)[:8]

    def _cells(self, row: Any, columns: Sequence[str]) -> list[str]:
        if not isinstance(row, dict):
            return [display_value(row, CELL_WIDTH)]
        return [display_value(pick(row, name), CELL_WIDTH) for name in columns]

    def _table(self, rows: Sequence[Any]) -> None:
        columns = self._column_names(rows)
        header = [display_value(name, CELL_WIDTH).upper() for name in columns]
        body = [self._cells(row, columns) for row in rows]
        widths = [width(cell) for cell in header]
        for cells in body:
            widths = [max(w, width(cell)) for w, cell in zip(widths, cells, strict=False)]
        out = io.StringIO()
        for cells in (header, *body):
            out.write("  ".join(_pad(c, w) for c, w in zip(cells, widths, strict=False)).rstrip())
            out.write("\n")
        self.stream.write(out.getvalue().encode("utf-8", "replace"))

    def _record(self, row: Any) -> None:
        """One object as ``key  value`` lines."""
        if not isinstance(row, dict):
            self.stream.write(display_value(row).encode("utf-8", "replace") + b"\n")
            return
        keys = [display_value(key, CELL_WIDTH) for key in row]
        widest = max((width(key) for key in keys), default=0)
        lines = [
            f"{_pad(key, widest)}  {display_value(value, 200)}"
            for key, value in zip(keys, row.values(), strict=True)
        ]
        self.stream.write(("\n".join(lines) + "\n").encode("utf-8", "replace"))

    def _csv(self, rows: Iterable[Any]) -> None:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        for row in rows:
            if not self._columns:
                self._columns = self._column_names([row])
                writer.writerow([_csv_cell(name) for name in self._columns])
            values = [pick(row, name) for name in self._columns] if isinstance(row, dict) else [row]
            writer.writerow([_csv_cell(value) for value in values])
        self.stream.write(out.getvalue().encode("utf-8", "replace"))

    def _jq(self, value: Any) -> None:
        assert self._program is not None
        try:
            results = self._program.input_text(encode_json(value).decode()).all()
        except ValueError as error:
            raise OutputError(f"--jq: {clean(str(error))}") from None
        lines = [
            clean(result).encode("utf-8", "replace")
            if isinstance(result, str)
            else encode_json(result)
            for result in results
        ]
        self.stream.write(b"".join(line + b"\n" for line in lines))


def _compile(program: str) -> Any:
    import jq

    try:
        return jq.compile(program)
    except ValueError as error:
        raise OutputError(f"--jq: {clean(str(error))}") from None


def _csv_cell(value: Any) -> str:
    """A CSV cell: scalars as text, lists and objects as compact JSON, cleaned; text a
    spreadsheet would run as a formula (=, +, -, @ first) gets a leading quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    text = value if isinstance(value, str) else encode_json(value).decode()
    text = clean(text)
    if text[:1] in ("=", "+", "@", "-") and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
