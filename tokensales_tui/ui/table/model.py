"""The data of a resource table: rows, search index, filter and sort; no Textual, no Rich.

:class:`ResourceTable` (in :mod:`.widget`) draws a :class:`TableView`: which rows are
shown, in which order. Everything computed from the rows at load time (cells, widths,
index, the current sort order) is built by :func:`prepare_rows`, which touches no
widget state, so a tab can run it in a thread.

The view keeps just enough per row to filter and sort fast:

* a search index (:class:`~.index.SearchIndex`): each row's cells, cleaned and
  case-folded, as one UTF-8 ``bytes`` line per row, so a filter is one C-level pass;
* the rows in view, as an ``array`` of positions (a ``range`` when unfiltered and
  unsorted), the last two sort orders computed, and the matches of the last few
  filters (typing a word and deleting it finds each step ready).

Cells are not stored: a visible line is rebuilt from its row object and cached by
the widget. Storing a tuple of strings per row would more than double the memory.
"""

from __future__ import annotations

import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any

from ...api.models import paused_gc
from ...clean import clean_line, display_value
from .cells import CELL_LIMIT, Column, Width, column_cells, natural_width, sample_widths
from .index import SearchIndex, sort_order

__all__ = ["EMPTY_MESSAGE", "PreparedRows", "TableView", "prepare_rows"]

ORDERS_KEPT = 2
"""Sort orders cached (a column one way and the other, typically)."""

MATCHES_KEPT = 8
"""Filters whose matches are cached (the steps of a word typed, then deleted)."""

EMPTY_MESSAGE = "Nothing here yet."


@dataclass(eq=False)
class PreparedRows:
    """Rows and what the table computes from them, ready for the table widget's ``set_prepared``.

    Built by :func:`prepare_rows`, which may run in a thread.
    """

    columns: tuple[Column, ...]
    rows: Sequence[Any]
    natural: list[int]
    """The width each column needs, measured over its cells."""
    index: SearchIndex
    orders: dict[tuple[str, bool], array[int]] = field(default_factory=dict)
    """Sort orders computed ahead (the one in effect when preparing began)."""


def prepare_rows(
    columns: Sequence[Column],
    rows: Sequence[Any],
    sort: tuple[str, bool] | None = None,
    *,
    width: Width,
) -> PreparedRows:
    """Compute everything the table needs from ``rows``: widths, search index, a sort order.

    Reads the rows and calls the column functions, nothing else: it is safe to run in
    a thread while the table keeps drawing its current rows.

    Args:
        columns: Columns to show.
        rows: Row objects (kept, not copied).
        sort: The sort to compute ahead, ``(column key, reverse)``, if any.
        width: How many terminal cells a string takes, as the widget draws it.

    Returns:
        What the table widget's ``set_prepared`` takes.
    """
    columns = tuple(columns)
    rows = rows if isinstance(rows, list | tuple) else list(rows)
    with paused_gc():
        measured = [column_cells(column, rows) for column in columns]
        natural = [
            natural_width(column, *cells, width)
            for column, cells in zip(columns, measured, strict=True)
        ]
        index = SearchIndex([cells for cells, _, _ in measured], len(rows))
        del measured
    prepared = PreparedRows(columns, rows, natural, index)
    if sort is not None and any(column.key == sort[0] for column in columns):
        prepared.orders[sort] = sort_order(columns, rows, index, *sort)
    return prepared


class TableView:
    """Which rows a table shows, in which order: the rows, the filter and the sort.

    Args:
        width: How many terminal cells a string takes, as the widget draws it.
    """

    def __init__(self, width: Width) -> None:
        self.width = width
        self.columns: tuple[Column, ...] = ()
        self.rows: Sequence[Any] = ()
        self.natural: list[int] = []
        """The width each column needs (measured, or from a sample of the rows)."""
        self.view: Sequence[int] = range(0)
        """Positions of the shown rows, in display order."""
        self.filter = ""
        """The filter as typed."""
        self.sort: tuple[str, bool] | None = None
        """``(column key, reverse)``, or None when the rows keep the server's order."""
        self._index: SearchIndex | None = SearchIndex([], 0)  # None: being prepared
        self._orders: dict[tuple[str, bool], array[int]] = {}
        self._folded = ""
        self._hits: array[int] | None = None  # rows matching the filter, None: no filter
        self._mask: bytearray | None = None  # the same as a byte per row, made when needed
        self._matches: dict[str, array[int]] = {}  # recent filters and their hits
        self.set_columns(())

    # --- data ----------------------------------------------------------------------

    def set_columns(self, columns: Sequence[Column], natural: Sequence[int] = ()) -> None:
        """Take the columns and the widths they need (``natural``; empty: not measured)."""
        self.columns = tuple(columns)
        if not natural:
            natural = [natural_width(column, [], True, 1, self.width) for column in self.columns]
        self.natural = list(natural)

    def prepare(self, columns: Sequence[Column], rows: Sequence[Any]) -> PreparedRows:
        """:func:`prepare_rows` for these rows, with the sort in effect computed ahead."""
        return prepare_rows(columns, rows, self.sort, width=self.width)

    def load(self, prepared: PreparedRows) -> bool:
        """Show prepared rows, keeping the filter and the sort.

        Returns:
            True when the sort column is gone with the old columns (the rows are unsorted now).
        """
        if prepared.rows is not self.rows:  # else it completes show(): same rows
            release(self.rows)
        self.set_columns(prepared.columns, prepared.natural)
        self._index = prepared.index
        self.rows = prepared.rows
        self._orders = dict(prepared.orders)
        self._matches = {}
        dropped = self.sort is not None and self.sort[0] not in {c.key for c in self.columns}
        if dropped:
            self.sort = None
        self._hits = prepared.index.match(self._folded) if self._folded else None
        self._mask = None
        if self._hits is not None:
            self._matches[self._folded] = self._hits
        self.view = self._compute_view()
        return dropped

    def can_show(self) -> bool:
        """Whether :meth:`show` may show rows before they are indexed (no filter, no sort)."""
        return not self._folded and self.sort is None

    def show(self, columns: Sequence[Column], rows: Sequence[Any]) -> None:
        """Show rows at once, before :func:`prepare_rows` has measured and indexed them.

        Column widths come from a sample of the rows, and the search index is missing
        until :meth:`load` brings it (a filter or sort asked for meanwhile builds it on
        the spot). Only when :meth:`can_show`.
        """
        release(self.rows)
        self.set_columns(columns, sample_widths(columns, rows, self.width))
        self.rows = rows
        self._index = None
        self._orders = {}
        self._matches = {}
        self._hits, self._mask = None, None
        self.view = range(len(rows))

    def search_index(self) -> SearchIndex:
        """The search index, built here and now if :meth:`show` left it pending."""
        if self._index is None:
            self._index = prepare_rows(self.columns, self.rows, width=self.width).index
        return self._index

    def find(self, key: Callable[[Any], object], wanted: object, hint: int) -> int:
        """Place of the first shown row whose key is ``wanted`` (-1 if none)."""
        rows, view = self.rows, self.view
        if 0 <= hint < len(view) and key(rows[view[hint]]) == wanted:
            return hint  # usually the row has not moved
        for place, position in enumerate(view):
            if key(rows[position]) == wanted:
                return place
        return -1

    @property
    def shown_rows(self) -> list[Any]:
        """The row objects in view, in display order."""
        rows = self.rows
        return [rows[position] for position in self.view]

    @property
    def empty_reason(self) -> str | None:
        """Why no rows are shown, or None when there are rows."""
        if self.view:
            return None
        if not self.rows:
            return EMPTY_MESSAGE
        return f"No rows match “{clean_line(self.filter)}” — press escape to clear"

    def cells_at(self, place: int) -> tuple[str, ...]:
        """The cleaned display text of the row shown at ``place``."""
        row = self.rows[self.view[place]]
        return tuple(display_value(column.get(row), CELL_LIMIT) for column in self.columns)

    def first(self, predicate: Callable[[Any], bool]) -> int:
        """Place of the first shown row for which ``predicate`` is true (-1 if none)."""
        rows = self.rows
        for place, position in enumerate(self.view):
            if predicate(rows[position]):
                return place
        return -1

    # --- filter --------------------------------------------------------------------

    def set_filter(self, text: str) -> bool:
        """Show only rows containing ``text`` in any column, ignoring case.

        Returns:
            Whether the rows in view changed.
        """
        folded = clean_line(text).casefold()
        self.filter = text
        if folded == self._folded:
            return False
        hits = None
        if folded:
            hits = self._matches.pop(folded, None)
            if hits is None:
                # Rows matching a longer filter matched the shorter one too.
                narrower = self._hits is not None and self._folded in folded
                hits = self.search_index().match(folded, self._hits if narrower else None)
            self._matches[folded] = hits
            while len(self._matches) > MATCHES_KEPT:
                del self._matches[next(iter(self._matches))]
        self._hits, self._mask = hits, None
        self._folded = folded
        self.view = self._compute_view()
        return True

    def matches(self, position: int) -> bool:
        """Whether the row at ``position`` passes the filter."""
        return self._hits is None or bool(self._matched()[position])

    def _matched(self) -> bytearray:
        """One byte per row, 1 where the row matches the filter."""
        if self._mask is None:
            mask = bytearray(len(self.rows))
            if self._hits is not None:
                deque(map(mask.__setitem__, self._hits, repeat(1)), maxlen=0)
            self._mask = mask
        return self._mask

    def _compute_view(self) -> Sequence[int]:
        order, hits = self._order(), self._hits
        if hits is None:
            return order
        if isinstance(order, range):
            return hits
        mask = self._matched()
        return array("i", compress(order, map(mask.__getitem__, order)))

    # --- sort ----------------------------------------------------------------------

    def forget_orders(self) -> None:
        """Drop the sort orders kept from earlier sorts (the next sort computes its own)."""
        self._orders.clear()

    def sort_by(self, column_key: str | None, reverse: bool = False) -> bool:
        """Sort the rows by a column, or restore the server's order.

        Returns:
            Whether the sort changed.

        Raises:
            KeyError: When no column has ``column_key``.
        """
        if column_key is not None and column_key not in {c.key for c in self.columns}:
            raise KeyError(column_key)
        new = None if column_key is None else (column_key, reverse)
        if new == self.sort:
            return False
        self.sort = new
        self.view = self._compute_view()
        return True

    def next_sort(self) -> tuple[str | None, bool]:
        """The sort after the current one: the next column; after the last, unsorted."""
        keys = [column.key for column in self.columns]
        if self.sort is None:
            return (keys[0] if keys else None), False
        place = keys.index(self.sort[0]) + 1
        return (keys[place] if place < len(keys) else None), False

    def _order(self) -> Sequence[int]:
        """All row positions in sort order, computed once per column and direction."""
        if self.sort is None:
            return range(len(self.rows))
        order = self._orders.get(self.sort)
        if order is None:
            order = sort_order(self.columns, self.rows, self.search_index(), *self.sort)
            # Keep the last few orders only: each costs 4 bytes a row.
            while len(self._orders) >= ORDERS_KEPT:
                del self._orders[next(iter(self._orders))]
            self._orders[self.sort] = order
        return order


RELEASE_IN_THREAD = 20_000
"""Rows let go of in a thread, a slice at a time, when there are more than this."""


def release(rows: Sequence[Any]) -> None:
    """Let the table's old rows go without freezing the event loop.

    Freeing 100,000 items takes ~60 ms and 1,000,000 ~0.6 s. A thread holds its own
    list of them and drops it a slice at a time, so the freeing happens there and the
    event loop gets its turns in between. (Whoever else holds some rows keeps them.)
    """
    if len(rows) > RELEASE_IN_THREAD:
        threading.Thread(target=_drop_slowly, args=(list(rows),), daemon=True).start()


def _drop_slowly(rows: list[Any]) -> None:
    time.sleep(0.05)  # until the table has let go of its own list
    while rows:
        del rows[-2_000:]
