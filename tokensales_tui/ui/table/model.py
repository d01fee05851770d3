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

Besides the filter (:mod:`.query`), a view may be narrowed to a *scope* (a predicate
with a label: "the items paid out by this setting"), keeps the rows the user *marked*
(by identity, so marks survive filter, sort and reload) and the rows a reload
*changed* (:func:`diff_rows`), which the widget shows for a moment.
"""

from __future__ import annotations

import functools
import operator
import sys
import threading
import time
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any, NamedTuple

from ...api.arriving import still_arriving
from ...api.models import never_walked, paused_gc
from ...clean import clean_line, settle_width, visible
from .cells import (
    Column,
    Width,
    align_decimals,
    cell_text,
    column_ceiling,
    column_cells,
    column_widths,
    decimal_width,
    measure_cells,
    measure_decimals,
    natural_width,
    sample_widths,
)
from .index import (
    BLOCK,
    SLICE,
    ExtrasInterner,
    IndexPiece,
    OtherFields,
    SearchIndex,
    fold,
    folded_lines,
    sort_order,
)
from .query import Term, parse_filter

__all__ = [
    "EMPTY_MESSAGE",
    "Changes",
    "PreparedRows",
    "RowsIndexer",
    "Scope",
    "TableView",
    "Unnamed",
    "diff_rows",
    "identities_of",
    "identity_of",
    "prepare_rows",
]

ORDERS_KEPT = 2
"""Sort orders cached (a column one way and the other, typically)."""

MATCHES_KEPT = 8
"""Filters whose matches are cached (the steps of a word typed, then deleted)."""

EMPTY_MESSAGE = "Nothing here yet."


class Unnamed:
    """The identity of a row that has no id of its own: that row object, and no other.

    No id value can stand for such a row: not an empty one, not None, not one another
    row shares, so the cursor and the marks never move to another row that has the same
    (missing) id, nor to one a placeholder stood for while a list arrived. It holds the
    row, so no row made later can take its address (``id()`` values are reused) and, with
    it, a mark.
    """

    __slots__ = ("row",)

    def __init__(self, row: Any) -> None:
        self.row = row

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unnamed) and other.row is self.row

    def __hash__(self) -> int:
        return id(self.row)

    def __repr__(self) -> str:
        return f"Unnamed(<row at {id(self.row):#x}>)"


RowId = Callable[[Any], Hashable]
"""A row's id (an ``attrgetter``: read in C); falsy when it has none."""


def identity_of(row_id: RowId, row: Any) -> Hashable:
    """What ``row`` is across reloads: its id; without one (none, or empty: a placeholder
    for a row still being read has an empty one), the row object itself (:class:`Unnamed`)."""
    return row_id(row) or Unnamed(row)


def identities_of(row_id: RowId, rows: Sequence[Any]) -> list[Hashable]:
    """:func:`identity_of` each of ``rows``, in order: one pass in C where every row has
    an id, as they all do from a real server."""
    ids: list[Hashable] = list(map(row_id, rows))
    if all(ids):
        return ids
    return [key or Unnamed(row) for key, row in zip(ids, rows, strict=True)]


def _index(values: Iterable[object], wanted: object) -> int:
    """Place of the first of ``values`` equal to ``wanted`` (-1 if none), compared in C."""
    try:
        return operator.indexOf(values, wanted)
    except ValueError:
        return -1


FIND_FIRST = 256
"""Rows on each side of the cursor's place looked at first for its row (see
:meth:`TableView.find`); each stretch after that is :data:`FIND_GROWTH` times longer."""
FIND_GROWTH = 8


SCAN_STEP = 8_192
"""Rows a filter is looked for in at once, past the first screen (a few milliseconds):
a longer list is filtered a step at a time between frames (:meth:`TableView.step_filter`)."""

SCAN_FIRST = 16_384
"""Most rows looked at before the first frame of a new filter, if the first screen of
matches needs that many."""

SCAN_FIRST_STEP = 2_048
"""Rows looked at per step for the first screen (a text most rows contain fills it in one)."""

FIRST_ROWS = 200
"""Matches found before the first frame of a new filter: a screen, and more."""


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
    content: list[int] = field(default_factory=list)
    """The width of each column's cells alone, without its label."""
    tails: list[int] = field(default_factory=list)
    """Per column, the decimal tail its cells are padded to (see ``align_decimals``), or 0."""
    orders: dict[tuple[str, bool], array[int]] = field(default_factory=dict)
    """Sort orders computed ahead (the one in effect when preparing began)."""
    scope: tuple[Scope, array[int]] | None = None
    """The rows in the scope in effect when preparing began."""
    matches: Extension | None = None
    """The filter's matches extended to the rows indexed last, found in a thread (see
    :meth:`TableView.extension`)."""


@dataclass(frozen=True, eq=False)
class Scope:
    """A narrowing of the rows that is not typed: "the items paid out by this setting"."""

    label: str
    """What the rows in scope are, for the count line."""
    contains: Callable[[Any], bool]
    """Whether a row object is in the scope."""

    def positions(self, rows: Sequence[Any]) -> array[int]:
        """Positions of the rows in the scope, ascending."""
        return array("i", compress(range(len(rows)), map(self.contains, rows)))


def prepare_rows(
    columns: Sequence[Column],
    rows: Sequence[Any],
    sort: tuple[str, bool] | None = None,
    *,
    width: Width,
    other_fields: OtherFields | None = None,
    scope: Scope | None = None,
) -> PreparedRows:
    """Compute everything the table needs from ``rows``: widths, search index, a sort order.

    Reads the rows and calls the column functions, nothing else: it is safe to run in
    a thread while the table keeps drawing its current rows.

    Args:
        columns: Columns to show.
        rows: Row objects (kept, not copied).
        sort: The sort to compute ahead, ``(column key, reverse)``, if any.
        width: How many terminal cells a string takes, as the widget draws it.
        other_fields: The fields no column shows, which the filter matches too.
        scope: The scope whose rows to find ahead, if any.

    Returns:
        What the table widget's ``set_prepared`` takes.
    """
    indexer = RowsIndexer(columns, width=width, other_fields=other_fields)
    return indexer.prepared(rows, sort, scope)


PIECE_ROWS = 65_536
"""Rows indexed at once by :meth:`RowsIndexer.add`: the calls in C of a piece this long
take some 10 ms (of 1,000,000 rows in one piece, one held the interpreter for 250 ms, and
the event loop had no turn meanwhile)."""


Measures = tuple[list[int], list[int], list[int], list[int]]
"""See :attr:`RowsIndexer.measures`."""


class RowsIndexer:
    """Measures and indexes a list a slice at a time: :func:`prepare_rows` for rows that
    arrive while their body is read.

    Each :meth:`add` indexes the rows that came since the last one (in a thread, one call
    at a time), so that once the body has arrived only its last rows are left to do;
    :meth:`prepared` gives what :func:`prepare_rows` gives for the whole list, however it
    was cut. A row's cells and index line depend on that row alone, widths and decimal
    tails are maxima (measured over blocks of ``BLOCK`` rows, each exactly), and the
    other fields are numbered in the order they are first seen.

    Args:
        columns: Columns to show.
        width: How many terminal cells a string takes, as the widget draws it.
        other_fields: The fields no column shows, which the filter matches too.
    """

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        width: Width,
        other_fields: OtherFields | None = None,
    ) -> None:
        self.columns = tuple(columns)
        self.width = width
        self._index = SearchIndex()
        self._handed_out = False  # whether someone may read _index: then it never changes
        self._interner = None if other_fields is None else ExtrasInterner(other_fields)
        self._widest = [1] * len(self.columns)
        # Decimal columns: the widest cell but its tail, and of the cells that fit the
        # column, the widest head and tail (measure_decimals).
        self._heads = [0] * len(self.columns)
        self._fit_heads = [0] * len(self.columns)
        self._fit_tails = [0] * len(self.columns)

    @property
    def count(self) -> int:
        """How many rows are indexed."""
        return self._index.count

    @property
    def index(self) -> SearchIndex:
        """The rows indexed so far. Once read here, never changed: :meth:`add` and
        :meth:`take` put a new one in its place."""
        self._handed_out = True
        return self._index

    def add(self, rows: Sequence[Any], stop: int | None = None) -> SearchIndex:
        """Index ``rows[count:stop]`` (default: to the end); the index of every row so far.

        In pieces of :data:`PIECE_ROWS`: this runs in a thread for a long list, and
        grouping a piece's rows by text (:func:`.index.grouped`) is one call in C, which
        holds the interpreter to its end.
        """
        for _ in self.steps(rows, stop, PIECE_ROWS):
            pass
        return self.index

    def steps(
        self, rows: Sequence[Any], stop: int | None = None, size: int = BLOCK
    ) -> Iterator[None]:
        """:meth:`add`, ``size`` rows at a time: a step between two yields is short
        enough for the event loop (which then keeps the reading of a body arriving to
        itself: a thread would take the interpreter from it at every read). The new
        index is put in :attr:`index` after the last step; until then it is built
        apart, and the one before stays whole for whoever reads it."""
        start = self.count
        stop = len(rows) if stop is None else min(stop, len(rows))
        built: SearchIndex | None = None
        for at in range(start, stop, size):
            piece = self.piece(rows[at : min(at + size, stop)], at)
            if built is None:
                built = self._index.extended(piece)  # the only copy of the rows before
            else:
                built.take(piece)
            yield
        if built is not None:
            self._index, self._handed_out = built, False

    def take(self, piece: IndexPiece, measures: Measures) -> None:
        """Add a piece indexed elsewhere (another process: see
        :mod:`~tokensales_tui.ui.index_process`), with the measures of every row up to
        its end, to :attr:`index` (a new one if the one before was read: it stays whole)."""
        if self._handed_out:
            self._index, self._handed_out = self._index.extended(piece), False
        else:
            self._index.take(piece)
        for mine, theirs in zip(self.measures, measures, strict=True):
            mine[:] = map(max, mine, theirs)

    def take_apart(self, pieces: Sequence[IndexPiece], measures: Measures) -> None:
        """:meth:`take` the pieces another indexer made, one after another (their texts
        numbered from 0 by it), with the measures of them all."""
        first = len(self._index.extras)
        for piece in pieces:
            self.take(piece.numbered_from(first), measures)

    @property
    def measures(self) -> Measures:
        """The widest cell of each column, and of decimal columns the widest part before
        the tail, and the widest head and tail of the cells that fit the column
        (:func:`.cells.measure_decimals`), over every row measured so far."""
        return self._widest, self._heads, self._fit_heads, self._fit_tails

    def piece(self, added: Sequence[Any], start: int) -> IndexPiece:
        """``added`` (the list's rows from ``start`` on) measured and indexed, to be added
        to an index (this one's, by :meth:`steps`, or another's, by its :meth:`take`)."""
        columns = self.columns
        with paused_gc():
            texts: list[list[str]] = [[] for _ in columns]
            for block in range(0, len(added), BLOCK):
                part = added[block : block + BLOCK]
                for place, column in enumerate(columns):
                    cells, is_ascii, longest = column_cells(column, part, pad=False)
                    self._measure(place, cells, is_ascii, longest)
                    texts[place] += cells
            lines = folded_lines(texts, len(added))
            del texts
            interned = None if self._interner is None else self._interner.intern(added, start)
        return IndexPiece(start, lines, interned)

    def _measure(self, place: int, cells: list[str], is_ascii: bool, longest: int) -> None:
        column = self.columns[place]
        if column.align != "decimal":
            ceiling = column_ceiling(column)
            widest = measure_cells(cells, is_ascii, longest, 1, ceiling, self.width)
            self._widest[place] = max(self._widest[place], widest)
            return
        # Padded to a tail of the whole list, known at the end only (decimal_width).
        head, fit_head, fit_tail = measure_decimals(column, cells, is_ascii, self.width)
        self._heads[place] = max(self._heads[place], head)
        self._fit_heads[place] = max(self._fit_heads[place], fit_head)
        self._fit_tails[place] = max(self._fit_tails[place], fit_tail)

    def prepared(
        self,
        rows: Sequence[Any],
        sort: tuple[str, bool] | None = None,
        scope: Scope | None = None,
    ) -> PreparedRows:
        """What :func:`prepare_rows` gives for ``rows``, the rows not indexed yet indexed now.

        Args:
            rows: Every row: those indexed by :meth:`add` first, in the same order.
            sort: The sort to compute ahead, ``(column key, reverse)``, if any.
            scope: The scope whose rows to find ahead, if any.
        """
        columns = self.columns
        rows = rows if isinstance(rows, tuple) else _rows_list(rows)
        index = self.add(rows)
        index.gather_pending()
        natural: list[int] = []
        content: list[int] = []
        tails: list[int] = []
        for place, column in enumerate(columns):
            widest, tail = self._widest[place], 0
            if column.align == "decimal":
                widest, tail = decimal_width(
                    column, self._heads[place], self._fit_heads[place], self._fit_tails[place]
                )
            both = column_widths(column, widest, self.width)
            natural.append(both[0])
            content.append(both[1])
            tails.append(tail)
        prepared = PreparedRows(columns, rows, natural, index, content=content, tails=tails)
        if sort is not None and any(column.key == sort[0] for column in columns):
            prepared.orders[sort] = sort_order(columns, rows, index, *sort, in_runs=True)
        if scope is not None:
            prepared.scope = (scope, scope.positions(rows))
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
        self.content: list[int] = []
        """The width of each column's cells alone (empty: not measured)."""
        """The width each column needs (measured, or from a sample of the rows)."""
        self.view: Sequence[int] = range(0)
        """Positions of the shown rows, in display order."""
        self.filter = ""
        """The filter as typed."""
        self.sort: tuple[str, bool] | None = None
        """``(column key, reverse)``, or None when the rows keep the server's order."""
        self.other_fields: OtherFields | None = None
        """A row's fields that no column shows, which the filter matches too."""
        self.row_id: RowId | None = None
        """A row's id, which is its :meth:`identity` (None: rows have no ids)."""
        self.marks: set[Hashable] = set()
        """The identities of the marked rows (shown or not)."""
        self.changed: set[Hashable] = set()
        """The identities of the rows the last reload added or changed."""
        self.deleting: set[Hashable] = set()
        """The identities (ids) of the objects whose delete is under way: sent and not
        answered yet, or waiting its turn in a bulk delete. Kept across reloads: a list
        read while the delete runs still holds them."""
        self.scope: Scope | None = None
        self.empty_message = EMPTY_MESSAGE
        """Said when there are no rows at all (the tab's: that its list could not be loaded)."""
        self.clear_key: str | None = None
        """The key that clears the filter and the scope where the table is shown, named
        when nothing matches them (None: no key does)."""
        self._scope_hits: array[int] | None = None
        self._index: SearchIndex | None = SearchIndex([], 0)  # None: being prepared
        self._partial = False  # the index holds the first rows only (more are arriving)
        self._orders: dict[tuple[str, bool], array[int]] = {}
        self._terms: tuple[Term, ...] = ()
        self._hits: array[int] | None = None  # rows passing filter and scope; None: all
        self._mask: bytearray | None = None  # the same as a byte per row, made when needed
        self._matches: dict[tuple[int | None, str], array[int]] = {}  # recent terms' hits
        self._scan: FilterScan | None = None  # the filter being looked for a step at a time
        self.first_rows = FIRST_ROWS
        """Matches of a new filter found before its first frame (see :attr:`filtering`)."""
        self.set_columns(())

    # --- data ----------------------------------------------------------------------

    def set_columns(
        self,
        columns: Sequence[Column],
        natural: Sequence[int] = (),
        tails: Sequence[int] = (),
        content: Sequence[int] = (),
    ) -> None:
        """Take the columns, the widths they need (``natural``; empty: not measured), the
        decimal tails their cells are padded to (``tails``; empty: none) and the widths
        of their cells alone (``content``; empty: not measured)."""
        self.columns = tuple(columns)
        if not natural:
            natural = [natural_width(column, [], True, 1, self.width) for column in self.columns]
        self.natural = list(natural)
        self.content = list(content) if len(content) == len(self.columns) else []
        self.tails = list(tails) or [0] * len(self.columns)

    def prepare(
        self,
        columns: Sequence[Column],
        rows: Sequence[Any],
        indexer: RowsIndexer | None = None,
    ) -> PreparedRows:
        """:func:`prepare_rows` for these rows, with the sort and scope in effect computed
        ahead; with ``indexer`` (made by :meth:`indexer`, its first rows indexed already),
        only the rest are indexed."""
        if indexer is None:
            indexer = self.indexer(columns)
        return indexer.prepared(rows, self.sort, self.scope)

    def indexer(self, columns: Sequence[Column]) -> RowsIndexer:
        """A :class:`RowsIndexer` for rows of these columns, to index them as they arrive."""
        return RowsIndexer(columns, width=self.width, other_fields=self.other_fields)

    def load(self, prepared: PreparedRows) -> bool:
        """Show prepared rows, keeping the filter, the sort, the scope and the marks.

        Returns:
            True when the sort column is gone with the old columns (the rows are unsorted now).
        """
        # The same rows complete show(), or a list that arrived; their index is new only
        # where no indexer saw them arrive.
        release(
            *([] if prepared.rows is self.rows else [self.rows]),
            *self._replaced_index(prepared.index),
        )
        self.set_columns(prepared.columns, prepared.natural, prepared.tails, prepared.content)
        same_columns = len(prepared.columns) == len(self.columns) and all(
            new is old for new, old in zip(prepared.columns, self.columns, strict=True)
        )
        if prepared.rows is self.rows and self._partial and self._terms and same_columns:
            found = prepared.matches
            old = self._index
            if found is not None and self.takes(found, prepared.index):
                self._matches = found.matches  # looked for in a thread
            elif old is not None and prepared.index.count - old.count <= SCAN_STEP:
                self._extend_matches(prepared.index)  # only the last rows need a look
            else:  # too many for one frame: looked for again, a step at a time unsorted
                self._matches = {}
        else:
            self._matches = {}
        self._index, self._partial = prepared.index, False
        self.rows = prepared.rows
        self._orders = dict(prepared.orders)
        dropped = self.sort is not None and self.sort[0] not in {c.key for c in self.columns}
        if dropped:
            self.sort = None
        self._scope_hits = None
        if self.scope is not None:
            ready = prepared.scope
            if ready is not None and ready[0] is self.scope:
                self._scope_hits = ready[1]
            else:
                self._scope_hits = self.scope.positions(self.rows)
        if self.marks:  # a mark of a row that is gone would be counted and acted on
            self.marks.intersection_update(self._identities(self.rows))
        self._terms = parse_filter(self._folded, self.columns)
        self._refilter()
        return dropped

    def _replaced_index(self, index: SearchIndex | None) -> list[Sequence[Any]]:
        """The lists of the index in use that ``index``, taking its place, does not share
        (one extended from it shares its lines): see :func:`release`."""
        old = self._index
        if old is None or (index is not None and index.lines is old.lines):
            return []
        return old.per_row()

    def can_show(self) -> bool:
        """Whether :meth:`show` may show rows before they are indexed (no filter, sort, scope)."""
        return not self._terms and self.sort is None and self.scope is None

    def show(self, columns: Sequence[Column], rows: Sequence[Any]) -> None:
        """Show rows at once, before :func:`prepare_rows` has measured and indexed them.

        Column widths come from a sample of the rows, and the search index is missing
        until :meth:`load` brings it (a filter or sort asked for meanwhile builds it on
        the spot). Only when :meth:`can_show`.
        """
        if rows is not self.rows:
            release(self.rows, *self._replaced_index(None))
        self.set_columns(columns, *sample_widths(columns, rows, self.width))
        if isinstance(rows, list):
            never_walked(rows)  # see _rows_list
        self.rows = rows
        if self.marks:
            self.marks.intersection_update(self._identities(rows))
        self._index, self._partial = None, False
        self._orders = {}
        self._matches = {}
        self._hits, self._mask, self._scan = None, None, None
        self.view = range(len(rows))

    def grow(self) -> bool:
        """Show the rows that :meth:`show` was given and that grew since (the same list,
        longer: a list still arriving); False when there is nothing new to show."""
        if self.index_ready or not self.can_show() or len(self.view) == len(self.rows):
            return False
        self.view = range(len(self.rows))
        return True

    def show_indexed(self, index: SearchIndex, found: Extension | None = None) -> bool:
        """Take the index of the first rows of a list still arriving (given to :meth:`show`).

        A filter typed meanwhile applies to the rows indexed so far: only the rows
        indexed since the last call are looked at for it (``found``: already looked at,
        a step at a time, by :meth:`extension`). While the filter is still looked for
        (:attr:`filtering`), its scan goes on into the new rows.

        Returns:
            Whether the rows in view changed now.
        """
        if self.index_ready or index.count > len(self.rows):
            return False
        if self._scan is not None:
            # The filter is still looked for: its scan goes on into the new rows (one
            # started over would look at the rows before again).
            self._scan.extend(index)
            self._index, self._matches = index, {}  # those kept were of fewer rows
            return False
        if found is not None and self.takes(found, index):
            self._matches = found.matches
        elif self._index is not None and self._terms:
            self._extend_matches(index)
        else:
            self._matches = {}
        self._index, self._partial = index, True
        if not self._terms:
            return False
        self._refilter()
        return True

    def _extend_matches(self, index: SearchIndex) -> None:
        """Keep the matches of the current terms, looked for in ``index``'s new rows too."""
        self._matches = extended_matches(self._index, index, self._terms, self._matches)

    def extension(
        self, index: SearchIndex, more_than: int = 0, step: int = SLICE
    ) -> Iterator[Extension | None] | None:
        """The filter's matches in the rows ``index`` holds beyond the partial index in
        use, ``step`` rows at a time: None after each step, the :class:`Extension` last
        (None: nothing to look for, or not more than ``more_than`` rows to look at).

        The rows of a list still arriving may be indexed far ahead of the last slice a
        filter saw (every row, once the list has ended): looking there in one go on the
        event loop would hold a frame for as long. :meth:`load` and
        :meth:`show_indexed` take what this found when the filter and the index it
        started from are still those in effect (:meth:`takes`); the steps stop as soon
        as they are not.
        """
        if not (self._partial and self._terms and self._matches) or self._scan is not None:
            return None  # nothing to extend (a scan goes on into new rows itself)
        if index.count - (0 if self._index is None else self._index.count) <= more_than:
            return None
        old, terms, matches = self._index, self._terms, dict(self._matches)
        return self._extension_steps(
            old, index, extending_matches(old, index, terms, matches, step)
        )

    def _extension_steps(
        self,
        old: SearchIndex | None,
        index: SearchIndex,
        steps: Iterator[dict[tuple[int | None, str], array[int]] | None],
    ) -> Iterator[Extension | None]:
        terms = self._terms
        for kept in steps:
            if self._index is not old or self._terms != terms or self._scan is not None:
                return  # the filter or the partial index changed: of no use any more
            yield None if kept is None else Extension(old, terms, kept, index)

    def takes(self, found: Extension, index: SearchIndex) -> bool:
        """Whether ``found`` (by :meth:`extension`) is of the filter and the partial
        index still in use, and was looked for in ``index``."""
        return found.index is self._index and found.terms == self._terms and found.target is index

    @property
    def partial_count(self) -> int:
        """How many rows the partial index of a list still arriving holds (0: none yet)."""
        if self._partial and self._index is not None:
            return self._index.count
        return 0

    @property
    def indexed_count(self) -> int:
        """How many rows the filter can answer for (those indexed so far, while arriving)."""
        if self._partial and self._index is not None:
            return self._index.count
        return len(self.rows)

    def search_index(self) -> SearchIndex:
        """The search index, built here and now if :meth:`show` left it pending."""
        if self._index is None:
            self._index = prepare_rows(
                self.columns, self.rows, width=self.width, other_fields=self.other_fields
            ).index
        return self._index

    def identity(self, row: Any) -> Hashable:
        """What a row is, across reloads: the cursor, marks and changes are kept by it.
        Its id (:attr:`row_id`); a row without one is the row object itself
        (:class:`Unnamed`)."""
        return Unnamed(row) if self.row_id is None else identity_of(self.row_id, row)

    def find(self, wanted: Hashable, hint: int) -> int:
        """Place of the shown row whose :meth:`identity` is ``wanted``: of several, the
        nearest to ``hint``, the one above on a tie (-1 if none; while the filter is still
        looked for, among the rows found so far: finding it in every row here would hold
        the frame).

        It runs on the event loop each time the rows change, and the row is often gone
        (deleted, or gone in a reload): the rows are compared in C, a stretch at a time
        on each side of ``hint``, each stretch longer than the one before.
        """
        view = self.view
        count = len(view)
        if not count or not wanted:  # an empty id is no row's identity
            return -1
        hint = max(0, min(hint, count - 1))
        if self.identity(self.rows[view[hint]]) == wanted:
            return hint  # usually it has not moved
        first = self._first_in(wanted)
        if first is None:
            return -1
        near, span = 0, FIND_FIRST  # rows nearer than ``near`` on either side are not it
        while near < max(hint, count - 1 - hint):
            far = near + span
            above = first(self._shown(max(hint - far, 0), max(hint - near, 0), backward=True))
            # Below, only as near as the row found above: a tie goes to the row above.
            below = first(
                self._shown(hint + near + 1, hint + 1 + (near + above if above >= 0 else far))
            )
            if below >= 0:
                return hint + near + 1 + below
            if above >= 0:
                return hint - near - 1 - above
            near, span = far, span * FIND_GROWTH
        return -1

    def _first_in(self, wanted: Hashable) -> Callable[[Iterable[Any]], int] | None:
        """How to find the first of some rows that is ``wanted`` (its place among them,
        -1 if none), comparing in C; None when no row can be it."""
        if isinstance(wanted, Unnamed):  # that row object, and no other: ``is``, not ==
            row = wanted.row
            return lambda rows: _index(map(operator.is_, rows, repeat(row)), True)
        row_id = self.row_id
        if row_id is None:
            return None  # every row is Unnamed
        return lambda rows: _index(map(row_id, rows), wanted)

    def _shown(self, start: int, stop: int, *, backward: bool = False) -> Iterable[Any]:
        """The rows shown from place ``start`` to ``stop``, in display order or backward,
        read in C."""
        rows, places = self.rows, self.view[start:stop]
        if isinstance(places, range) and places.step == 1 and isinstance(rows, list):
            picked = rows[places.start : places.stop]  # the server's order: a slice
            return reversed(picked) if backward else picked
        return map(rows.__getitem__, reversed(places) if backward else places)

    @property
    def shown_rows(self) -> list[Any]:
        """The row objects in view, in display order."""
        self.finish_filter()
        rows = self.rows
        return [rows[position] for position in self.view]

    @property
    def empty_reason(self) -> str | None:
        """Why no rows are shown, or None when there are rows."""
        if self.view:
            return None
        if not self.rows:
            return self.empty_message
        press = f" — press {self.clear_key}" if self.clear_key else ""
        if not self._terms and self.scope is not None:
            return f"No {visible(self.scope.label, line=True)}" + (
                press and f"{press} to see every row"
            )
        if self._scan is not None:
            return f"Looking for “{visible(self.filter, line=True)}”…"
        return f"No rows match “{visible(self.filter, line=True)}”" + (
            press and f"{press} to clear"
        )

    def cells_at(self, place: int) -> tuple[str, ...]:
        """The cleaned display text of the row shown at ``place``."""
        return tuple(self.cells_of(self.rows[self.view[place]]))

    def cells_of(self, row: Any) -> list[str]:
        """The cleaned display text of ``row``, decimal cells padded to line up."""
        cells = [cell_text(column.get(row)) for column in self.columns]
        for place, tail in enumerate(self.tails):
            if tail:
                cells[place] = align_decimals([cells[place]], tail, self.width)[0]
        return cells

    def first(self, predicate: Callable[[Any], bool]) -> int:
        """Place of the first shown row for which ``predicate`` is true (-1 if none)."""
        self.finish_filter()
        rows = self.rows
        for place, position in enumerate(self.view):
            if predicate(rows[position]):
                return place
        return -1

    # --- filter and scope ----------------------------------------------------------

    @property
    def _folded(self) -> str:
        # Cells show characters of disputed width settled: so is the query, to find them.
        return fold(settle_width(clean_line(self.filter)))

    def set_filter(self, text: str) -> bool:
        """Show only the rows matching the filter ``text`` (see :mod:`.query`), ignoring case.

        Returns:
            Whether the rows in view changed.
        """
        self.filter = text
        terms = parse_filter(self._folded, self.columns)
        if terms == self._terms:
            return False
        self._terms = terms
        self._refilter()
        return True

    def set_scope(self, scope: Scope | None) -> None:
        """Narrow the rows to ``scope`` (None: every row), on top of the filter."""
        self.scope = scope
        self._scope_hits = None if scope is None else scope.positions(self.rows)
        self._refilter()

    def _refilter(self) -> None:
        self._scan = scan = self._new_scan()
        if scan is not None:
            # The rows for the first screen now, the rest a step at a time (step_filter).
            while scan.done < SCAN_FIRST and len(scan.hits) < self.first_rows:
                if self._scan_step(SCAN_FIRST_STEP):
                    break
            self._hits, self._mask = scan.hits, None
            self.view = scan.hits  # grows with it
            return
        hits = self._filter_hits()
        if self._scope_hits is not None:
            hits = self._scope_hits if hits is None else intersect(hits, self._scope_hits)
        self._hits, self._mask = hits, None
        self.view = self._compute_view()

    def _filter_hits(self) -> array[int] | None:
        """The rows matching every term of the filter (None: no terms, every row)."""
        terms = self._terms
        if not terms:
            return None
        hits: array[int] | None = None
        for term in sorted(terms, key=lambda t: t.exclude):  # what to keep, then what not
            found = self._term_hits(term)
            if not term.exclude:
                hits = found if hits is None else intersect(hits, found)
            else:
                hits = subtract(range(self.indexed_count) if hits is None else hits, found)
        assert hits is not None
        return hits

    def _term_hits(self, term: Term) -> array[int]:
        """The rows containing a term's text (where the term says), kept for the next keys."""
        key = (term.place, term.text)
        hits = self._matches.get(key)
        if hits is None:
            hits = term_matches(self.search_index(), term, self._candidates(term))
        self._keep_matches({key: hits})
        return hits

    def _candidates(self, term: Term) -> array[int] | None:
        """The fewest rows a term's text can be among (None: every row): rows containing a
        longer text contain the shorter one too."""
        narrower = [
            found
            for (place, text), found in self._matches.items()
            if place == term.place and text in term.text
        ]
        return min(narrower, key=len) if narrower else None

    def _keep_matches(self, found: dict[tuple[int | None, str], array[int]]) -> None:
        """Keep the rows matching these terms for the next keys (the latest few)."""
        for key, hits in found.items():
            self._matches.pop(key, None)
            self._matches[key] = hits
        while len(self._matches) > MATCHES_KEPT:
            del self._matches[next(iter(self._matches))]

    def _new_scan(self) -> FilterScan | None:
        """A scan of the filter a step at a time, when the rows are in their own order
        and a term needs more rows looked at than one step (None: found at once)."""
        index = self._index
        if not self._terms or self.sort is not None or index is None:
            return None
        among = {
            (term.place, term.text): self._candidates(term)
            for term in self._terms
            if (term.place, term.text) not in self._matches
        }
        if all(
            len(range(index.count) if rows is None else rows) <= SCAN_STEP
            for rows in among.values()
        ):
            return None
        keys = {(term.place, term.text) for term in self._terms}
        known = {key: self._matches[key] for key in keys - among.keys()}
        return FilterScan(index, self._terms, among, known, self._scope_hits)

    @property
    def filtering(self) -> bool:
        """Whether the filter is still being looked for: the view holds the rows matching
        among the first rows only, and grows with each :meth:`step_filter`."""
        return self._scan is not None

    def step_filter(self, rows: int | None = None) -> bool:
        """Look for the filter in the next rows (:data:`SCAN_STEP`); True once it is found
        in every row (the view is whole)."""
        if self._scan is not None:
            self._scan_step(rows or SCAN_STEP)
        return self._scan is None

    def _scan_step(self, rows: int) -> bool:
        scan = self._scan
        assert scan is not None
        scan.step(rows)
        self._mask = None
        if not scan.finished:
            return False
        self._scan = None
        self._keep_matches(scan.found)
        return True

    def finish_filter(self) -> None:
        """Look for the filter in every row now (what needs the whole view)."""
        while not self.step_filter():
            pass

    def filter_job(self, text: str) -> FilterJob | None:
        """What a thread needs to find the rows of filter ``text`` (None: nothing to find).

        The job reads an index that is never changed (a new one replaces it as rows
        arrive); :meth:`take_matches` keeps what it found, and :meth:`set_filter` then
        answers from it without scanning.
        """
        index = self._index
        if index is None:
            return None
        terms = parse_filter(fold(settle_width(clean_line(text))), self.columns)
        return FilterJob(index, terms, dict(self._matches))

    def take_matches(self, job: FilterJob, found: dict[tuple[int | None, str], array[int]]) -> None:
        """Keep the matches a :class:`FilterJob` found, if they are of the rows shown."""
        if job.index is not self._index:
            return  # new rows or an index came meanwhile: set_filter looks again
        self._keep_matches(found)

    def place_of(self, position: int) -> int:
        """Where the row at ``position`` is in :attr:`view`; -1 when the filter or the
        scope hides it, or the filter has not been looked for there yet (:attr:`filtering`).

        Unsorted, the view is the matches in ascending order: a bisection finds the row,
        where a mask of the matches would cost a write per match (a few milliseconds of
        each filter key at 100,000 rows).
        """
        view, hits = self.view, self._hits
        if isinstance(view, range):
            return view.index(position) if position in view else -1
        if view is hits:
            place = bisect_left(view, position)
            return place if place < len(view) and view[place] == position else -1
        return view.index(position) if self.matches(position) else -1

    def matches(self, position: int) -> bool:
        """Whether the row at ``position`` passes the filter and the scope."""
        self.finish_filter()
        return self._hits is None or bool(self._matched()[position])

    def _matched(self) -> bytearray:
        """One byte per row, 1 where the row passes the filter and the scope."""
        self.finish_filter()
        if self._mask is None:
            self._mask = mask_of(self._hits if self._hits is not None else (), len(self.rows))
        return self._mask

    def _compute_view(self) -> Sequence[int]:
        order, hits = self._order(), self._hits
        if hits is None:
            return order
        if isinstance(order, range):
            return hits
        mask = self._matched()
        return array("i", compress(order, map(mask.__getitem__, order)))

    # --- marks ---------------------------------------------------------------------

    def toggle_mark(self, place: int) -> bool:
        """Mark the row shown at ``place``, or unmark it; True when it is marked now."""
        key = self.identity(self.rows[self.view[place]])
        if key in self.marks:
            self.marks.discard(key)
            return False
        self.marks.add(key)
        return True

    def mark_shown(self) -> int:
        """Mark every row shown; the number of rows newly marked."""
        self.finish_filter()
        before = len(self.marks)
        self.marks.update(self._shown_identities())  # gate: a set of row ids, nothing shown
        return len(self.marks) - before

    def _shown_identities(self) -> list[Hashable]:
        return self._identities(self._rows_at(self.view))

    def _rows_at(self, positions: Sequence[int]) -> Sequence[Any]:
        """The rows at ``positions``: the list itself when they are all of it, in order."""
        rows = self.rows
        if positions == range(len(rows)):  # only a range can be equal to one
            return rows
        return list(map(rows.__getitem__, positions))

    def _identities(self, rows: Sequence[Any]) -> list[Hashable]:
        if self.row_id is None:
            return list(map(Unnamed, rows))
        return identities_of(self.row_id, rows)

    def is_marked(self, position: int) -> bool:
        """Whether the row at ``position`` is marked."""
        return bool(self.marks) and self.identity(self.rows[position]) in self.marks

    def marked_in_view(self) -> int:
        """How many of the marked objects are shown (an id the list repeats counts once)."""
        return self._shown_of(self.marks)

    def shown_among(self, rows: Sequence[Any]) -> int:
        """How many of the objects of ``rows`` are shown (each once, as a mark counts)."""
        return self._shown_of(set(self._identities(rows)))

    def _shown_of(self, keys: set[Any]) -> int:
        if not keys:
            return 0
        self.finish_filter()
        shown = self._decoded_at(self.view)
        return len(keys.intersection(self._identities(shown)))

    def marked_rows(self) -> list[Any]:
        """The marked objects, shown or not, in the order of the sort: one row for each.

        A mark is an object's (its id's): where a server lists an id twice, both rows
        show it, and the first of them, in the order of the sort, stands for the object,
        so that what is counted, named, copied and deleted is each object once.
        """
        if not self.marks:
            return []
        ordered = self._decoded_at(self._order())
        ids = self._identities(ordered)
        marked = list(map(self.marks.__contains__, ids))
        rows = list(compress(ordered, marked))
        keys = list(compress(ids, marked))
        if len(set(keys)) == len(keys):
            return rows
        first: dict[Hashable, Any] = {}
        for key, row in zip(keys, rows, strict=True):
            first.setdefault(key, row)
        return list(first.values())

    def rows_sharing(self, rows: Sequence[Any]) -> list[Any]:
        """Every row, in the list's order, that stands for the same object as one of
        ``rows``: those rows, and any other the server listed with the same id."""
        keys = set(self._identities(rows))
        every = self._decoded_at(range(len(self.rows)))
        return list(compress(every, map(keys.__contains__, self._identities(every))))

    def _decoded_at(self, positions: Sequence[int]) -> Sequence[Any]:
        """:meth:`_rows_at`, but of rows still arriving only those decoded already: a row
        is marked from the screen, where it was drawn, so no mark is on the others (and
        reading them would decode a stretch each, most of a long list, on the event loop)."""
        rows = self.rows
        if not still_arriving(rows):
            return self._rows_at(positions)
        read: Iterator[Any] = map(list.__getitem__, repeat(rows), positions)  # type: ignore[arg-type]
        return [row for row in read if row is not None]

    def is_deleting(self, position: int) -> bool:
        """Whether the object of the row at ``position`` is being deleted."""
        return bool(self.deleting) and self.identity(self.rows[position]) in self.deleting

    def is_changed(self, position: int) -> bool:
        """Whether the last reload added or changed the row at ``position``."""
        return bool(self.changed) and self.identity(self.rows[position]) in self.changed

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
        self.finish_filter()  # a sorted view is made from every match
        self.sort = new
        self.view = self._compute_view()
        return True

    def next_sort(self, after: tuple[str, bool] | None = None) -> tuple[str | None, bool]:
        """The sort after ``after`` (default: the current one): the next column; after
        the last, unsorted."""
        keys = [column.key for column in self.columns]
        current = after or self.sort
        if current is None or current[0] not in keys:
            return (keys[0] if keys else None), False
        place = keys.index(current[0]) + 1
        return (keys[place] if place < len(keys) else None), False

    @property
    def index_ready(self) -> bool:
        """Whether the search index is built (not pending after :meth:`show`)."""
        return self._index is not None and not self._partial

    def has_order(self, sort: tuple[str, bool] | None) -> bool:
        """Whether showing the rows in ``sort`` order needs no sorting now."""
        return sort is None or sort in self._orders

    def keep_order(self, sort: tuple[str, bool], order: array[int]) -> None:
        """Keep an order computed elsewhere (a thread) for these rows, for :meth:`sort_by`."""
        while len(self._orders) >= ORDERS_KEPT:
            del self._orders[next(iter(self._orders))]
        self._orders[sort] = order

    def _order(self) -> Sequence[int]:
        """All row positions in sort order, computed once per column and direction."""
        if self.sort is None:
            return range(len(self.rows))
        order = self._orders.get(self.sort)
        if order is None:
            order = sort_order(self.columns, self.rows, self.search_index(), *self.sort)
            self.keep_order(self.sort, order)  # the last few only: each costs 4 bytes a row
        return order


@dataclass(frozen=True, eq=False)
class Extension:
    """The matches of a filter's terms, extended from a partial index to a fuller one."""

    index: SearchIndex | None
    """The partial index the matches were of."""
    terms: tuple[Term, ...]
    matches: dict[tuple[int | None, str], array[int]]
    target: SearchIndex
    """The index they were looked for in."""


def all_steps(steps: Iterable[Extension | None]) -> Extension | None:
    """Every step of :meth:`TableView.extension` at once (in a thread): what it found
    (None: the filter or the partial index changed meanwhile)."""
    last = deque(steps, maxlen=1)
    return last.pop() if last else None


def extended_matches(
    old: SearchIndex | None,
    index: SearchIndex,
    terms: Sequence[Term],
    matches: dict[tuple[int | None, str], array[int]],
) -> dict[tuple[int | None, str], array[int]]:
    """The ``matches`` of ``terms`` in ``old``, looked for in the rows ``index`` adds too,
    at a cost that follows their number (a list arriving adds a slice at a time)."""
    *_, kept = extending_matches(old, index, terms, matches, SLICE)
    assert kept is not None
    return kept


def extending_matches(
    old: SearchIndex | None,
    index: SearchIndex,
    terms: Sequence[Term],
    matches: dict[tuple[int | None, str], array[int]],
    step: int,
) -> Iterator[dict[tuple[int | None, str], array[int]] | None]:
    """:func:`extended_matches`, ``step`` new rows at a time: None after each step (one
    call in C over a slice of rows holds the interpreter), the matches last."""
    new = range(0 if old is None else old.count, index.count)
    kept: dict[tuple[int | None, str], array[int]] = {}
    for term in terms:
        key = (term.place, term.text)
        hits = matches.get(key)
        if hits is None or key in kept:
            continue
        if new:
            matcher = index.matcher(term.text, term.place)
            hits = array("i", hits)
            for start in range(0, len(new), step):
                hits += matcher(new[start : start + step])
                yield None
        kept[key] = hits
    yield kept


@dataclass(eq=False)
class FilterScan:
    """A filter looked for a step at a time, in the rows' own order (:meth:`TableView.step_filter`).

    ``hits`` holds the rows matching among the first ``done``, and grows in place.
    """

    index: SearchIndex
    terms: tuple[Term, ...]
    among: dict[tuple[int | None, str], array[int] | None]
    """The terms to look for, each with the rows it can be among (None: every row)."""
    known: dict[tuple[int | None, str], array[int]]
    """The rows matching the other terms, found before."""
    scope: array[int] | None
    done: int = 0
    hits: array[int] = field(default_factory=lambda: array("i"))
    found: dict[tuple[int | None, str], array[int]] = field(init=False)
    """The rows matching each term looked for, among the first ``done``."""
    _match: dict[tuple[int | None, str], Callable[[Sequence[int]], array[int]]] = field(
        init=False, repr=False
    )

    until: dict[tuple[int | None, str], int] = field(init=False)
    """For each term of ``among``, the rows its candidates are of: those after may all match."""

    def __post_init__(self) -> None:
        self.until = dict.fromkeys(self.among, self.index.count)
        self._match = {key: self.index.matcher(key[1], key[0]) for key in self.among}
        self.found = {key: array("i") for key in self.among}

    def extend(self, index: SearchIndex) -> None:
        """Go on into the rows of ``index`` (of the same list, more rows) after these:
        the rows looked at stay as found; the matches known of the other terms hold
        for the rows before only, so those terms are looked for from here on too."""
        for key, hits in self.known.items():
            self.among[key], self.until[key] = hits, self.index.count
            self.found[key] = between(hits, 0, self.done)
        self.known = {}
        self.index = index
        self._match = {key: index.matcher(key[1], key[0]) for key in self.among}

    def _rows(self, key: tuple[int | None, str], start: int, stop: int) -> Sequence[int]:
        """The rows from ``start`` to before ``stop`` that may contain a term's text."""
        candidates, until = self.among[key], self.until[key]
        if candidates is None or start >= until:
            return range(start, stop)
        if stop <= until:
            return between(candidates, start, stop)
        return between(candidates, start, until) + array("i", range(until, stop))

    @property
    def finished(self) -> bool:
        return self.done >= self.index.count

    def step(self, rows: int) -> None:
        """Look in the next ``rows`` rows."""
        start, stop = self.done, min(self.done + rows, self.index.count)
        span = range(start, stop)
        hits: array[int] | None = None
        looked: dict[tuple[int | None, str], array[int]] = {}  # a text twice: once
        for term in sorted(self.terms, key=lambda t: t.exclude):  # what to keep, then what not
            key = (term.place, term.text)
            found = looked.get(key)
            if found is None:
                known = self.known.get(key)
                if known is not None:
                    found = between(known, start, stop)
                else:
                    found = self._match[key](self._rows(key, start, stop))
                    self.found[key] += found
                looked[key] = found
            if not term.exclude:
                hits = found if hits is None else intersect(hits, found)
            else:
                hits = subtract(span if hits is None else hits, found)
        assert hits is not None
        if self.scope is not None:
            hits = intersect(hits, between(self.scope, start, stop))
        self.hits += hits
        self.done = stop


def between(positions: array[int], start: int, stop: int) -> array[int]:
    """Those of ``positions`` (ascending) from ``start`` to before ``stop``."""
    return positions[bisect_left(positions, start) : bisect_left(positions, stop)]


@dataclass(frozen=True, eq=False)
class FilterJob:
    """The scan of a filter's terms over an index, for a thread (:meth:`TableView.filter_job`)."""

    index: SearchIndex
    terms: tuple[Term, ...]
    known: dict[tuple[int | None, str], array[int]]
    """Matches found before, of the same index: a longer text is looked for among them."""

    def run(self) -> dict[tuple[int | None, str], array[int]]:
        """The rows matching each term."""
        found: dict[tuple[int | None, str], array[int]] = {}
        for term in self.terms:
            key = (term.place, term.text)
            if key in self.known or key in found:
                continue
            narrower = [
                hits
                for (place, text), hits in (self.known | found).items()
                if place == term.place and text in term.text
            ]
            candidates = min(narrower, key=len) if narrower else None
            found[key] = term_matches(self.index, term, candidates)
        return found


def term_matches(
    index: SearchIndex, term: Term, candidates: Sequence[int] | None = None
) -> array[int]:
    """The rows (among ``candidates``, ascending) containing a term's text, where it says."""
    if term.place is None:
        return index.match(term.text, candidates)
    return index.match_field(term.place, term.text, candidates)


def mask_of(positions: Iterable[int], count: int) -> bytearray:
    """One byte per row, 1 at ``positions``."""
    mask = bytearray(count)
    deque(map(mask.__setitem__, positions, repeat(1)), maxlen=0)
    return mask


def intersect(first: array[int], second: array[int]) -> array[int]:
    """The positions in both (ascending arrays, each position once), ascending: one of
    the two itself when it is all in the other (never to be changed in place)."""
    if not first or not second:
        return array("i")
    low, high = max(first[0], second[0]), min(first[-1], second[-1])
    if low > high:
        return array("i")
    first, second = _within(first, low, high), _within(second, low, high)
    if len(second) < len(first):
        first, second = second, first
    if len(second) == high - low + 1:  # every position there: the shorter's are all in it
        return first
    if len(second) > len(first) * LOOKUP:
        return array("i", compress(first, _held(first, second)))
    return array("i", compress(second, _held(second, first)))


def subtract(positions: Sequence[int], removed: array[int]) -> array[int]:
    """The ``positions`` (ascending) not in ``removed`` (ascending, each position once)."""
    if not positions:
        return array("i")
    low, high = positions[0], positions[-1]
    removed = _within(removed, low, high)
    if not removed:
        return array("i", positions)
    if len(removed) == high - low + 1:  # every position there is removed
        return array("i")
    if isinstance(positions, range) and positions.step == 1:  # a byte per position
        return array("i", compress(positions, mask_of(removed, high + 1)[low:].translate(INVERT)))
    return array("i", compress(positions, _held(positions, removed, held=False)))


def _within(positions: array[int], low: int, high: int) -> array[int]:
    """Those of ``positions`` (ascending) from ``low`` to ``high``, both included."""
    if not positions or (positions[0] >= low and positions[-1] <= high):
        return positions
    return positions[bisect_left(positions, low) : bisect_right(positions, high)]


LOOKUP = 8
"""Looking a position up in a list of positions (a binary search) costs about this many
times as much as setting its byte in a mask of the list: a list this many times longer
than the positions asked about is searched, not made into a mask."""


def _held(positions: Sequence[int], other: array[int], *, held: bool = True) -> Iterable[int]:
    """For each of ``positions`` (ascending), whether ``other`` (ascending, each position
    once) holds it (with ``held`` false, whether it does not)."""
    if len(other) > len(positions) * LOOKUP:
        places = map(functools.partial(bisect_left, other), positions)
        last = len(other) - 1  # a position after the last one: compared with the last
        found = map(other.__getitem__, map(min, places, repeat(last)))
        return map(operator.eq if held else operator.ne, found, positions)
    mask = mask_of(other, max(positions[-1], other[-1]) + 1)
    return map((mask if held else mask.translate(INVERT)).__getitem__, positions)


INVERT = bytes([1, 0]) + bytes(254)
"""A ``bytes.translate`` table turning a mask's 0s into 1s and its 1s into 0s."""


class Changes(NamedTuple):
    """What a reload changed (:func:`diff_rows`)."""

    changed: set[Hashable]
    """The identities of the rows added or changed, to show for a moment."""
    added: int
    """Rows now that were not there before."""
    removed: int
    """Rows before that are not there now."""
    modified: int
    """Rows there before and now whose content is not the same."""


def diff_rows(
    old: Sequence[Any],
    new: Sequence[Any],
    identity: Callable[[Any], Hashable],
    content: Callable[[Any], object],
) -> Changes:
    """What a reload changed.

    A server may list two rows of one id: the rows of an id are paired in their order,
    and one without a pair is added (or removed).

    Args:
        old: The rows before.
        new: The rows now.
        identity: What a row is (its id).
        content: What a row holds, to compare (its JSON as the server sent it).
    """
    before = {identity(row): row for row in old}
    repeated: dict[Hashable, list[Any]] = {}  # the rows after the first of an id repeated
    if len(before) < len(old):
        firsts: dict[Hashable, Any] = {}
        for row in old:
            key = identity(row)
            if key in firsts:
                repeated.setdefault(key, []).append(row)
            else:
                firsts[key] = row
        before = firsts
    changed: set[Hashable] = set()
    added = modified = 0
    missing = object()
    for row in new:
        key = identity(row)
        previous = before.pop(key, missing)
        if previous is missing and repeated.get(key):
            previous = repeated[key].pop(0)
        if previous is missing:
            added += 1
            changed.add(key)
        elif previous is not row and content(previous) != content(row):
            modified += 1
            changed.add(key)
    removed = len(before) + sum(map(len, repeated.values()))
    return Changes(changed, added, removed, modified)


RELEASE_IN_THREAD = 20_000
"""Entries let go of in a thread, a slice at a time, when a sequence has more than this."""

RELEASE_STEP = 2_000
"""Entries let go of at once by that thread (a fraction of a millisecond)."""

RELEASE_WAIT = 60.0
"""Seconds that thread waits for the others holding a sequence to let go of it (a sort or
a comparison with the new rows, in a thread of its own); past them, the last to let go
frees it."""

RELEASE_POLL = 0.05
"""Seconds between two looks at whether the others have let go."""


def _rows_list(rows: Sequence[Any]) -> list[Any]:
    """``rows`` as a list the collector never walks (:func:`never_walked`): a row never
    refers back to the list of rows."""
    return never_walked(rows if isinstance(rows, list) else list(rows))


def release(*parts: Sequence[Any]) -> threading.Thread | None:
    """Let the table's old rows go, and the lists of their index, without freezing the
    event loop.

    Whoever lets go of a list last frees its entries, in one call that holds the
    interpreter: 100,000 items take ~60 ms and 1,000,000 ~0.6 s, their index lines
    20-40 ms more. So the long ones are handed to a thread, which waits until it alone
    holds each (the table, a sort or a comparison running in a thread, have let go),
    then empties it a slice at a time: the freeing happens there, and the event loop
    gets its turns in between. Until then, nothing is changed in them: whoever else
    holds one reads it as it was.

    Returns:
        The thread, when there is one.
    """
    held = [part for part in parts if len(part) > RELEASE_IN_THREAD]
    if not held:
        return None
    thread = threading.Thread(target=_drop_slowly, args=(held,), daemon=True)
    thread.start()
    return thread


def _drop_slowly(parts: list[Sequence[Any]]) -> None:
    probes: list[Any] = [[]]  # held here as each part is, and by nothing else
    waited_until = time.monotonic() + RELEASE_WAIT
    while parts:
        for place in reversed(range(len(parts))):
            if _alone(parts[place], probes[0]):  # then no one else can come to hold it
                _empty(parts.pop(place))
        if parts:
            if time.monotonic() >= waited_until:
                return  # held elsewhere for long: freed where the last holder lets go
            time.sleep(RELEASE_POLL)


def _alone(part: object, probe: object) -> bool:
    """Whether ``part`` is held by no more than ``probe`` is (each by one entry of a list,
    and here): references counted, as Python counts them."""
    return sys.getrefcount(part) <= sys.getrefcount(probe)


def _empty(part: Sequence[Any]) -> None:
    """Empty ``part``, held here alone, a slice at a time."""
    if not isinstance(part, list):
        part = _entries(part)  # a tuple, say: let go of, its entries held here
    while part:
        list.__delitem__(part, slice(-RELEASE_STEP, None))  # rows arriving: not decoded


def _entries(part: Sequence[Any]) -> list[Any]:
    """The entries of ``part`` in a new list, a slice at a time."""
    entries: list[Any] = never_walked([])
    for start in range(0, len(part), RELEASE_STEP):
        entries += part[start : start + RELEASE_STEP]
    return entries
