"""Writing a table's rows to a file: CSV of the columns shown, or JSON / JSON Lines of
the whole objects; no Textual, no Rich.

The file is written atomically (:func:`~tokensales_tui.files.atomic_writer`: complete,
or not at all; mode 0600, as every file the app writes) and never replaces an existing
file unless asked to. :func:`export_rows` reports its progress and can be stopped, so a
screen can run it in a thread.

What a server sent is data here too: CSV cells are the cleaned text the table shows,
with a quote before anything a spreadsheet would run as a formula; JSON writes each
object as the server sent it, on one line (in mask mode, decoded and written again, so
that masks find the characters themselves), and keeps every character, writing as
``\\uXXXX`` escapes those a terminal would act on (so that ``cat`` of the file is safe).
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import msgspec

from ..api.shapes import decode_as_sent
from ..clean import display_value, escape_unsafe, guard_formula
from ..files import atomic_writer
from ..mask import masking, shown
from .json_text import json_line
from .table.cells import Column

__all__ = ["FORMATS", "ExportStopped", "default_path", "export_rows"]


@dataclass(frozen=True)
class Format:
    """One kind of export file."""

    key: str
    label: str
    extension: str


FORMATS = (
    Format("csv", "CSV — the columns shown", "csv"),
    Format("json", "JSON — the whole objects, one array", "json"),
    Format("jsonl", "JSON Lines — the whole objects, one a line", "jsonl"),
)

PROGRESS_EVERY = 2_000
"""Rows written between two progress reports."""


def _one_line(row: Any, text: bytes | None, raw: Callable[[Any], Any]) -> str:
    """``text`` (``row``'s JSON as sent) on one line, without decoding it into objects:
    its numbers, escapes and keys as the server wrote them. A row without one, or whose
    text is not UTF-8 (fields no model names are not checked), is written from ``raw``
    (bad bytes replaced, characters as themselves, numbers as sent)."""
    if text is not None:
        try:
            return msgspec.json.format(text, indent=0).decode()
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass
    return json_line(raw(row))


def _written_again(row: Any, text: bytes | None, raw: Callable[[Any], Any]) -> str:
    """``row``'s object decoded from ``text`` and written again, its characters as
    themselves (a mask looks for them, not for the escapes, ``\\u00e9``, a server may
    write them as), its numbers as the server wrote them (:func:`.shapes.decode_as_sent`)."""
    return json_line(raw(row) if text is None else decode_as_sent(text))


class ExportStopped(Exception):
    """The export was asked to stop; nothing was written."""


def default_path(name: str, extension: str, folder: Path, now: float | None = None) -> Path:
    """``folder/NAME-YYYYMMDD-HHMMSS.EXT``: a new name each second, sorted by time."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return folder / f"{name}-{stamp}.{extension}"


def with_extension(path: str, extension: str) -> str:
    """``path`` with its export extension swapped for ``extension`` (other names unchanged)."""
    stem, dot, old = path.rpartition(".")
    if dot and old in {f.extension for f in FORMATS} and "/" not in old:
        return f"{stem}.{extension}"
    return path


def csv_cell(value: object) -> str:
    """The cleaned text a table cell shows, safe from being run by a spreadsheet."""
    return guard_formula(shown(display_value(value)))


def export_rows(
    path: Path,
    kind: str,
    columns: Sequence[Column],
    rows: Sequence[Any],
    raw: Callable[[Any], Any],
    *,
    raw_texts: Callable[[Sequence[Any]], Sequence[bytes | None]] | None = None,
    replace: bool = False,
    progress: Callable[[int], None] = lambda done: None,
    stopped: Callable[[], bool] = lambda: False,
) -> int:
    """Write ``rows`` to ``path`` as ``kind`` (a :data:`FORMATS` key); the rows written.

    Args:
        path: The file; its folder must exist.
        kind: ``csv``, ``json`` or ``jsonl``.
        columns: The columns shown (CSV).
        rows: The row objects, in the order shown.
        raw: A row's whole object as the server sent it (JSON), its numbers kept as
            the text sent (:func:`.resources.as_sent`).
        raw_texts: The JSON texts of many rows at once, in order, as the server sent
            them (None for a row without one), where the rows keep them (read from
            the list's spool in bulk). Each is written as it is, on one line: its
            numbers and escapes as sent, and nothing decoded and encoded again.
        replace: Replace an existing file (else ``FileExistsError``).
        progress: Told the rows written so far, every :data:`PROGRESS_EVERY` rows.
        stopped: Asked as often; True stops the export (:class:`ExportStopped`).

    Raises:
        ExportStopped: ``stopped()`` said so; no file was written.
        OSError: The file cannot be written; no file was written.
    """
    with atomic_writer(path, replace=replace) as binary:
        out = io.TextIOWrapper(binary, encoding="utf-8", newline="")
        for start in range(0, len(rows), PROGRESS_EVERY):
            if start:
                if stopped():
                    raise ExportStopped
                progress(start)
            batch = rows[start : start + PROGRESS_EVERY]
            if kind == "csv":
                writer = csv.writer(out)
                if not start:
                    writer.writerow([csv_cell(column.label) for column in columns])
                writer.writerows([csv_cell(column.get(row)) for column in columns] for row in batch)
                continue
            if raw_texts is None:
                texts = [json_line(raw(row)) for row in batch]
            else:
                line = _written_again if masking() else _one_line
                texts = list(map(line, batch, raw_texts(batch), repeat(raw)))
            # Each object is escaped on its own: one C-level check finds most of them
            # printable, and only the others are searched (a batch joined first was
            # searched and rewritten whole for any one character to escape: 0.8 s of
            # 100,000 objects).
            safe = [escape_unsafe(shown(text)) for text in texts]
            if kind == "json":
                out.write(("[\n  " if not start else ",\n  ") + ",\n  ".join(safe))
            else:
                out.write("\n".join(safe) + "\n")
        if kind == "json":
            out.write("\n]\n" if rows else "[]\n")
        elif kind == "csv" and not rows:
            csv.writer(out).writerow([csv_cell(column.label) for column in columns])
        out.flush()
        out.detach()  # the writer closes the file
    progress(len(rows))
    return len(rows)
