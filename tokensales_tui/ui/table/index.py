"""The search index of a table and the sort orders computed from it; no Textual, no Rich."""

from __future__ import annotations

import operator
from array import array
from collections.abc import Sequence
from itertools import compress, repeat
from typing import Any

from ...api.models import paused_gc
from .cells import Column

__all__ = ["SearchIndex", "sort_order"]

BLOCK = 4096
"""Rows folded at once when building the search index."""

FIELD_SEP = "\x1f"  # cells and queries are cleaned, so neither contains it
ROW_SEP = "\n"  # nor this


def fold_block(lines: list[str]) -> bytes:
    """Rows joined by newlines, case-folded, as UTF-8.

    ``bytes.lower`` folds ASCII several times faster than ``str.casefold`` folds a
    string widened by one emoji, so only the non-ASCII rows go through casefold.
    """
    text = ROW_SEP.join(lines)
    if not text.isascii():
        text = ROW_SEP.join([line if line.isascii() else line.casefold() for line in lines])
    return text.encode().lower()


class SearchIndex:
    """The case-folded display text of every row, for substring filtering.

    One UTF-8 ``bytes`` object per row: testing 100,000 of them for a substring is a
    single C-level pass (``map`` of ``operator.contains``), and a line per row costs
    about 40 bytes more than the text itself. UTF-8 keeps ASCII rows at one byte a
    character, and sorts like the text it encodes, so :meth:`field` can serve as
    sort keys.
    """

    __slots__ = ("lines",)

    def __init__(self, columns_cells: Sequence[list[str]], count: int) -> None:
        if not columns_cells:
            columns_cells = [[""] * count]
        lines: list[bytes] = []
        for start in range(0, count, BLOCK):
            rows = map(
                FIELD_SEP.join,
                zip(*(cells[start : start + BLOCK] for cells in columns_cells), strict=True),
            )
            lines += fold_block(list(rows)).split(b"\n")
        self.lines = lines

    def match(self, query: str, candidates: Sequence[int] | None = None) -> array[int]:
        """Positions of the rows that contain ``query`` (cleaned and case-folded).

        Args:
            query: Text to look for.
            candidates: Only look at these positions (ascending): the matches of a
                shorter query that this one contains.

        Returns:
            The matching positions, ascending.
        """
        needle = query.encode()
        lines = self.lines
        if candidates is None:
            found = map(operator.contains, lines, repeat(needle))
            return array("i", compress(range(len(lines)), found))
        found = map(operator.contains, map(lines.__getitem__, candidates), repeat(needle))
        return array("i", compress(candidates, found))

    def field(self, place: int) -> list[bytes]:
        """The case-folded text of column ``place`` for every row, as UTF-8."""
        return [line.split(b"\x1f", place + 1)[place] for line in self.lines]


def sort_order(
    columns: Sequence[Column],
    rows: Sequence[Any],
    index: SearchIndex,
    column_key: str,
    reverse: bool,
) -> array[int]:
    """All row positions sorted by one column (stable; text columns by folded text)."""
    place = next(i for i, c in enumerate(columns) if c.key == column_key)
    with paused_gc():
        keys = sort_keys(columns[place], place, rows, index)
        try:
            positions = sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)
        except TypeError:  # a sort_key returned values that do not compare
            keys = index.field(place)
            positions = sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)
    return array("i", positions)


def sort_keys(column: Column, place: int, rows: Sequence[Any], index: SearchIndex) -> list[Any]:
    try:
        if column.row_key is not None:
            return list(map(column.row_key, rows))
        if column.sort_key is not None:
            return list(map(column.sort_key, map(column.get, rows)))
    except Exception:  # server data the key did not expect: sort by the text
        pass
    return index.field(place)
