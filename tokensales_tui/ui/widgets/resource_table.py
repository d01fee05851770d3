"""A virtualised table of server objects, shared by all resource tabs.

Textual's ``DataTable`` builds renderables per cell and takes seconds to load
100,000 rows. :class:`ResourceTable` draws only the visible lines (a ``ScrollView``
with ``render_line``) and keeps just enough per row to filter and sort fast:

* a search index: each row's cells, cleaned and case-folded, joined with U+001F, as
  one UTF-8 ``bytes`` line per row, so a filter is one C-level pass over a list;
* the rows in view, as an ``array`` of positions (a ``range`` when unfiltered and
  unsorted), the last two sort orders computed, and the matches of the last few
  filters (typing a word and deleting it finds each step ready).

Everything computed from the rows at load time (cells, widths, index, the current
sort order) is built by :func:`prepare_rows`, which touches no widget state, so a tab
can run it in a thread and hand the result to :meth:`ResourceTable.set_prepared`.

Cells are not stored: a visible line is rebuilt from its row object (a few
microseconds) and cached. Storing a tuple of strings per row would more than double
the table's memory.

Cells are server data: they go through :func:`~tokensales_tui.ui.safe.display_value`
and are drawn as plain ``Segment`` text, never as markup.
"""

from __future__ import annotations

import operator
import threading
import time
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from itertools import compress, filterfalse, repeat
from typing import Any, ClassVar, Literal

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...api.models import paused_gc
from ..safe import ELLIPSIS, clean_line, display_value, is_clean

__all__ = ["Column", "PreparedRows", "ResourceTable", "numeric_sort_key", "prepare_rows"]

CELL_LIMIT = 200
"""Longest cell text kept, in characters: more can never be seen in a column."""

BLOCK = 4096
"""Rows folded at once when building the search index."""

ORDERS_KEPT = 2
"""Sort orders cached (a column one way and the other, typically)."""

MATCHES_KEPT = 8
"""Filters whose matches are cached (the steps of a word typed, then deleted)."""

MEASURE_SAMPLE = 20_000
"""Most non-ASCII cells measured per column (the longest ones)."""

EMPTY_MESSAGE = "Nothing here yet."
SORT_MARKS = {False: " ▲", True: " ▼"}
_MARK_WIDTH = 2
_FIELD_SEP = "\x1f"  # cells and queries are cleaned, so neither contains it
_ROW_SEP = "\n"  # nor this


def numeric_sort_key(value: object) -> float | int | Decimal:
    """A sort key for numeric columns that tolerates ``None`` and junk.

    Numbers (and numeric strings) sort by value; anything else sorts first.

    Args:
        value: A column value.

    Returns:
        A number comparable with the keys of every other value.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if value == value else float("-inf")  # NaN breaks sorting
    if isinstance(value, Decimal):
        return value if not value.is_nan() else float("-inf")
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                number = Decimal(value.strip())
            except InvalidOperation:
                return float("-inf")
            return number if not number.is_nan() else float("-inf")
    return float("-inf")


@dataclass(frozen=True, slots=True)
class Column:
    """How one column gets and shows its value.

    Attributes:
        key: Identifier used by :meth:`ResourceTable.sort_by`.
        label: Header text.
        get: Extracts the column's value from a row object.
        min_width: Narrowest the column gets, in cells.
        max_width: Widest the column gets; longer cells end with "…".
        align: "right" for numbers.
        sort_key: Turns the value (what ``get`` returns) into a sort key; by
            default the displayed text, case-folded. Must accept ``None``.
        row_key: A sort key taken from the row object itself, used instead of
            ``sort_key``: a column showing a number as formatted text sorts by the
            number, without formatting and parsing every row again.
    """

    key: str
    label: str
    get: Callable[[Any], object]
    min_width: int = 4
    max_width: int = 40
    align: Literal["left", "right"] = "left"
    sort_key: Callable[[Any], Any] | None = None
    row_key: Callable[[Any], Any] | None = None


@dataclass(slots=True)
class _Palette:
    """Rich styles of one render pass."""

    base: Style
    header: Style
    even: Style
    cursor: Style
    empty: Style


def _fit(cell: str, width: int, right: bool) -> str:
    """Pad or truncate ``cell`` to exactly ``width`` cells."""
    if cell.isascii():
        size = len(cell)
        if size > width:
            return cell[: width - 1] + ELLIPSIS
        if size == width:
            return cell
        return cell.rjust(width) if right else cell.ljust(width)
    size = cell_len(cell)
    if size > width:
        return set_cell_size(cell, width - 1) + ELLIPSIS
    padding = " " * (width - size)
    return padding + cell if right else cell + padding


def _join_cells(cells: Iterable[str], widths: Sequence[int], rights: Sequence[bool]) -> str:
    """One table line: a margin, then each cell fitted to its column, one space apart."""
    if not widths:
        return ""
    return " " + " ".join(map(_fit, cells, widths, rights)) + " "


def _is_narrow(line: str) -> bool:
    """True if every character of ``line`` takes exactly one cell (so slicing crops)."""
    return line.isascii() or line.replace(ELLIPSIS, "").isascii()


def _measure(cells: list[str], is_ascii: bool, longest: int, floor: int, ceiling: int) -> int:
    """Width a column needs: the widest cell, clamped to ``floor``..``ceiling``.

    ``longest`` is the most characters in a cell; for ASCII that is the width.
    """
    if is_ascii:
        widest = longest
    else:
        widest = max(map(len, compress(cells, map(str.isascii, cells))), default=0)
        if widest < ceiling:
            # A character takes at most two cells: measure the longest others first,
            # and stop when no cell left can be wider (or after MEASURE_SAMPLE of them).
            wide = sorted(filterfalse(str.isascii, cells), key=len, reverse=True)
            for cell in wide[:MEASURE_SAMPLE]:
                if widest >= ceiling or 2 * len(cell) <= widest:
                    break
                widest = max(widest, cell_len(cell))
    return max(floor, min(ceiling, widest))


def _column_cells(column: Column, rows: Sequence[Any]) -> tuple[list[str], bool, int]:
    """The display text of one column for every row, cleaned and capped.

    Returns:
        The cells, whether they are all ASCII, and the most characters in one.
    """
    cells: list[Any] = list(map(column.get, rows))
    try:
        joined = "".join(cells)  # fails unless every value is a string already
    except TypeError:
        cells = [
            value if value.__class__ is str else display_value(value, CELL_LIMIT) for value in cells
        ]
        joined = "".join(cells)
    longest = max(map(len, cells), default=0)
    # Almost every column is clean and short: check it as a whole, fix it if not.
    if longest > CELL_LIMIT or not is_clean(joined, line=True):
        cells = [display_value(cell, CELL_LIMIT) for cell in cells]
        joined = "".join(cells)
        longest = max(map(len, cells), default=0)
    return cells, joined.isascii(), longest


def _fold_block(lines: list[str]) -> bytes:
    """Rows joined by newlines, case-folded, as UTF-8.

    ``bytes.lower`` folds ASCII several times faster than ``str.casefold`` folds a
    string widened by one emoji, so only the non-ASCII rows go through casefold.
    """
    text = _ROW_SEP.join(lines)
    if not text.isascii():
        text = _ROW_SEP.join([line if line.isascii() else line.casefold() for line in lines])
    return text.encode().lower()


class _SearchIndex:
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
                _FIELD_SEP.join,
                zip(*(cells[start : start + BLOCK] for cells in columns_cells), strict=True),
            )
            lines += _fold_block(list(rows)).split(b"\n")
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


@dataclass(eq=False)
class PreparedRows:
    """Rows and what the table computes from them, ready for :meth:`ResourceTable.set_prepared`.

    Built by :func:`prepare_rows`, which may run in a thread.
    """

    columns: tuple[Column, ...]
    rows: Sequence[Any]
    natural: list[int]
    """The width each column needs, measured over its cells."""
    index: _SearchIndex
    orders: dict[tuple[str, bool], array[int]] = field(default_factory=dict)
    """Sort orders computed ahead (the one in effect when preparing began)."""


def prepare_rows(
    columns: Sequence[Column], rows: Sequence[Any], sort: tuple[str, bool] | None = None
) -> PreparedRows:
    """Compute everything the table needs from ``rows``: widths, search index, a sort order.

    Reads the rows and calls the column functions, nothing else: it is safe to run in
    a thread while the table keeps drawing its current rows.

    Args:
        columns: Columns to show.
        rows: Row objects (kept, not copied).
        sort: The sort to compute ahead, ``(column key, reverse)``, if any.

    Returns:
        What :meth:`ResourceTable.set_prepared` takes.
    """
    columns = tuple(columns)
    rows = rows if isinstance(rows, list | tuple) else list(rows)
    with paused_gc():
        measured = [_column_cells(column, rows) for column in columns]
        natural = [
            _natural_width(column, *cells) for column, cells in zip(columns, measured, strict=True)
        ]
        index = _SearchIndex([cells for cells, _, _ in measured], len(rows))
        del measured
    prepared = PreparedRows(columns, rows, natural, index)
    if sort is not None and any(column.key == sort[0] for column in columns):
        prepared.orders[sort] = _sort_order(columns, rows, index, *sort)
    return prepared


SAMPLE = 2_000
"""Rows measured by :meth:`ResourceTable.show_rows`: the first ones and a spread of others."""


def _sample_widths(columns: Sequence[Column], rows: Sequence[Any]) -> list[int]:
    """Column widths measured over a sample of ``rows``."""
    step = max(1, len(rows) // SAMPLE)
    sample = [*rows[:SAMPLE], *rows[SAMPLE::step]]
    return [_natural_width(column, *_column_cells(column, sample)) for column in columns]


def _natural_width(column: Column, cells: list[str], is_ascii: bool, longest: int) -> int:
    ceiling = max(column.max_width, column.min_width, 1)
    width = _measure(cells, is_ascii, longest, 1, ceiling)
    # Room for the label and a sort mark, within the column's limits.
    label = min(cell_len(clean_line(column.label)) + _MARK_WIDTH, ceiling)
    return max(width, label, column.min_width, 1)


def _sort_order(
    columns: Sequence[Column],
    rows: Sequence[Any],
    index: _SearchIndex,
    column_key: str,
    reverse: bool,
) -> array[int]:
    """All row positions sorted by one column (stable; text columns by folded text)."""
    place = next(i for i, c in enumerate(columns) if c.key == column_key)
    with paused_gc():
        keys = _sort_keys(columns[place], place, rows, index)
        try:
            positions = sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)
        except TypeError:  # a sort_key returned values that do not compare
            keys = index.field(place)
            positions = sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)
    return array("i", positions)


def _sort_keys(column: Column, place: int, rows: Sequence[Any], index: _SearchIndex) -> list[Any]:
    try:
        if column.row_key is not None:
            return list(map(column.row_key, rows))
        if column.sort_key is not None:
            return list(map(column.sort_key, map(column.get, rows)))
    except Exception:  # server data the key did not expect: sort by the text
        pass
    return index.field(place)


RELEASE_IN_THREAD = 20_000
"""Rows let go of in a thread, a slice at a time, when there are more than this."""


def _release(rows: Sequence[Any]) -> None:
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


@dataclass(eq=False)
class _TableMessage(Message):
    """Base of the table's messages: they carry the table that sent them."""

    table: ResourceTable

    @property
    def control(self) -> ResourceTable:
        """The table that sent the message."""
        return self.table


class ResourceTable(ScrollView, can_focus=True):
    """A fast, filterable, sortable table of server objects.

    Call :meth:`set_data` with the columns and the row objects; the table shows
    the rows matching :meth:`set_filter`, in the order of :meth:`sort_by`.
    The first line is a header that stays put when the body scrolls vertically.
    """

    DEFAULT_CSS = """
    ResourceTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        &:focus {
            background-tint: $foreground 5%;
            & > .resource-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        & > .resource-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .resource-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .resource-table--even {
            background: $surface-lighten-1 50%;
        }
        &:dark > .resource-table--even {
            background: $surface-darken-1 40%;
        }
        & > .resource-table--empty {
            color: $text-muted;
            text-style: italic;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "resource-table--header",
        "resource-table--cursor",
        "resource-table--even",
        "resource-table--empty",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Previous row", show=False, id="resource_table.up"),
        Binding("down", "cursor_down", "Next row", show=False, id="resource_table.down"),
        Binding("pageup", "cursor_page_up", "Page up", show=False, id="resource_table.pageup"),
        Binding(
            "pagedown", "cursor_page_down", "Page down", show=False, id="resource_table.pagedown"
        ),
        Binding("home", "cursor_first", "First row", show=False, id="resource_table.home"),
        Binding("end", "cursor_last", "Last row", show=False, id="resource_table.end"),
        Binding("enter", "select_cursor", "Open", id="resource_table.select"),
    ]

    ALLOW_SELECT = False  # clicks move the cursor; they do not select text

    @dataclass(eq=False)
    class RowHighlighted(_TableMessage):
        """The cursor moved to another row (``row`` is None when nothing is shown)."""

        row: Any
        cursor_row: int

    @dataclass(eq=False)
    class RowSelected(_TableMessage):
        """A row was chosen: enter, a click on the highlighted row, or a double click."""

        row: Any

    @dataclass(eq=False)
    class SortChanged(_TableMessage):
        """The sort column or direction changed (``column_key`` None: unsorted)."""

        column_key: str | None
        reverse: bool

    @dataclass(eq=False)
    class FilterChanged(_TableMessage):
        """The rows in view changed: a new filter or new data."""

        filter_text: str
        shown: int
        total: int

    def __init__(
        self,
        columns: Sequence[Column] = (),
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Create an empty table.

        Args:
            columns: Initial columns (rows come with :meth:`set_data`).
            name: Name of the widget.
            id: ID of the widget in the DOM.
            classes: Space-separated CSS classes.
            disabled: Whether the widget is disabled.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._columns: tuple[Column, ...] = ()
        self._rows: Sequence[Any] = ()
        self._index: _SearchIndex | None = _SearchIndex([], 0)  # None: being prepared
        self._widths: list[int] = []
        self._natural: list[int] = []
        self._starts: list[int] = []
        self._rights: list[bool] = []
        self._total_width = 0
        self._orders: dict[tuple[str, bool], array[int]] = {}
        self._view: Sequence[int] = range(0)
        self._filter = ""
        self._folded = ""
        self._hits: array[int] | None = None  # rows matching the filter, None: no filter
        self._mask: bytearray | None = None  # the same as a byte per row, made when needed
        self._matches: dict[str, array[int]] = {}  # recent filters and their hits
        self._sort: tuple[str, bool] | None = None
        self._cursor = 0
        self._posted_row: object = _NOTHING
        self._click_selected = False
        self._palette: _Palette | None = None
        self._header_text: str | None = None
        self._line_cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(1024)
        self._set_columns(columns, [])

    # --- state ---------------------------------------------------------------------

    @property
    def columns(self) -> tuple[Column, ...]:
        """The columns, in display order."""
        return self._columns

    @property
    def rows(self) -> Sequence[Any]:
        """Every row object, in the order given to :meth:`set_data` (filter and sort aside)."""
        return self._rows

    @property
    def total_count(self) -> int:
        """Number of rows in the data."""
        return len(self._rows)

    @property
    def shown_count(self) -> int:
        """Number of rows matching the filter."""
        return len(self._view)

    @property
    def filter_text(self) -> str:
        """The current filter, as typed."""
        return self._filter

    @property
    def sort_column(self) -> str | None:
        """Key of the sort column, or None when unsorted."""
        return self._sort[0] if self._sort else None

    @property
    def sort_reverse(self) -> bool:
        """Whether the sort is descending."""
        return self._sort[1] if self._sort else False

    @property
    def cursor_row(self) -> int:
        """Position of the cursor among the shown rows."""
        return self._cursor

    @cursor_row.setter
    def cursor_row(self, value: int) -> None:
        self._move_cursor(value)

    @property
    def highlighted(self) -> Any:
        """The row object under the cursor, or None when no row is shown."""
        if not self._view:
            return None
        return self._rows[self._view[self._cursor]]

    @property
    def shown_rows(self) -> list[Any]:
        """The row objects in view, in display order."""
        rows = self._rows
        return [rows[position] for position in self._view]

    @property
    def empty_reason(self) -> str | None:
        """Why no rows are shown, or None when there are rows."""
        if self._view:
            return None
        if not self._rows:
            return EMPTY_MESSAGE
        return f"No rows match “{clean_line(self._filter)}” — press escape to clear"

    def row_at(self, cursor_row: int) -> Any:
        """The row object shown at ``cursor_row`` (IndexError when out of range)."""
        return self._rows[self._view[cursor_row]]

    def cells_at(self, cursor_row: int) -> tuple[str, ...]:
        """The cleaned display text of the row shown at ``cursor_row``."""
        row = self._rows[self._view[cursor_row]]
        return tuple(display_value(column.get(row), CELL_LIMIT) for column in self._columns)

    # --- data ----------------------------------------------------------------------

    def set_data(
        self,
        columns: Sequence[Column],
        rows: Sequence[Any],
        *,
        keep_cursor_key: Callable[[Any], object] | None = None,
    ) -> None:
        """Replace the columns and rows, keeping the filter and the sort.

        ``rows`` is kept, not copied: do not change it (or its objects) afterwards,
        hand the table a new sequence instead.

        Args:
            columns: Columns to show.
            rows: Row objects; each column's ``get`` reads its value from one.
            keep_cursor_key: Identity of a row (e.g. its id); when given, the cursor
                stays on the row with the same identity if it is still shown.
        """
        self.set_prepared(prepare_rows(columns, rows, self._sort), keep_cursor_key=keep_cursor_key)

    def set_prepared(
        self, prepared: PreparedRows, *, keep_cursor_key: Callable[[Any], object] | None = None
    ) -> None:
        """Show rows prepared by :func:`prepare_rows`, keeping the filter and the sort.

        This is :meth:`set_data` without the work that grows with the rows, which a
        caller can do beforehand in a thread.

        Args:
            prepared: The rows, columns, widths and index.
            keep_cursor_key: As for :meth:`set_data`.
        """
        previous = self.highlighted
        previous_place = self._cursor
        if prepared.rows is not self._rows:  # else it completes show_rows: same rows
            _release(self._rows)
        self._posted_row = _NOTHING  # holding an old row would keep all its body
        self._set_columns(prepared.columns, prepared.natural)
        self._index = prepared.index
        self._rows = prepared.rows
        self._orders = dict(prepared.orders)
        self._matches = {}
        if self._sort and self._sort[0] not in {column.key for column in self._columns}:
            self._sort = None
            self._header_text = None
            self.post_message(self.SortChanged(self, None, False))
        self._hits = prepared.index.match(self._folded) if self._folded else None
        self._mask = None
        if self._hits is not None:
            self._matches[self._folded] = self._hits
        self._view = self._compute_view()
        cursor = min(previous_place, len(self._view) - 1)
        if previous is not None and keep_cursor_key is not None and self._view:
            found = self._find(keep_cursor_key, keep_cursor_key(previous), previous_place)
            if found >= 0:
                cursor = found
        self._after_view_change(cursor)

    def show_rows(
        self,
        columns: Sequence[Column],
        rows: Sequence[Any],
        *,
        keep_cursor_key: Callable[[Any], object] | None = None,
    ) -> bool:
        """Show new rows at once, before :func:`prepare_rows` has measured and indexed them.

        Column widths come from a sample of the rows, and the search index is missing
        until :meth:`set_prepared` brings it (a filter or sort asked for meanwhile
        builds it on the spot). Only without a filter or sort in effect: those need the
        index to show anything right.

        Args:
            columns: Columns to show.
            rows: Row objects; give the same sequence to :func:`prepare_rows`.
            keep_cursor_key: As for :meth:`set_data`.

        Returns:
            Whether the rows are shown (False: a filter or a sort is in effect).
        """
        if self._folded or self._sort is not None:
            return False
        previous = self.highlighted
        previous_place = self._cursor
        _release(self._rows)
        self._posted_row = _NOTHING  # holding an old row would keep all its body
        self._set_columns(columns, _sample_widths(columns, rows))
        self._rows = rows
        self._index = None
        self._orders = {}
        self._matches = {}
        self._hits, self._mask = None, None
        self._view = range(len(rows))
        cursor = min(previous_place, len(self._view) - 1)
        if previous is not None and keep_cursor_key is not None and self._view:
            found = self._find(keep_cursor_key, keep_cursor_key(previous), previous_place)
            if found >= 0:
                cursor = found
        self._after_view_change(cursor)
        return True

    def _search_index(self) -> _SearchIndex:
        """The search index, built here and now if :meth:`show_rows` left it pending."""
        if self._index is None:
            self._index = prepare_rows(self._columns, self._rows).index
        return self._index

    def _set_columns(self, columns: Sequence[Column], natural: Sequence[int]) -> None:
        """Take the columns and the widths they need (``natural``; empty: not measured)."""
        self._columns = tuple(columns)
        if not natural:
            natural = [_natural_width(column, [], True, 1) for column in self._columns]
        self._natural = list(natural)
        self._widths = list(natural)
        self._rights = [column.align == "right" for column in self._columns]
        self._layout()

    def _layout(self) -> None:
        """Fit the measured widths into the width on screen.

        When the columns are wider than the table, the widest ones give up cells first,
        down to their ``min_width``; only then does the table scroll sideways.
        """
        widths = list(self._natural)
        available = self.size.width if self.is_mounted else 0
        if available and len(self._view) + 1 > self.size.height:
            available -= self.styles.scrollbar_size_vertical  # room for the scrollbar
        if available > 0:
            excess = sum(widths) + len(widths) + 1 - available
            floors = [max(column.min_width, 3) for column in self._columns]
            while excess > 0:
                # The widest column gives up a cell first, so short columns stay whole.
                place = max(
                    (i for i in range(len(widths)) if widths[i] > floors[i]),
                    key=lambda i: widths[i],
                    default=-1,
                )
                if place < 0:
                    break
                widths[place] -= 1
                excess -= 1
        self._widths = widths
        self._starts = []
        x = 1
        for width in widths:
            self._starts.append(x)
            x += width + 1
        self._total_width = x if widths else 0
        self._header_text = None

    def _find(self, key: Callable[[Any], object], wanted: object, hint: int) -> int:
        """Place of the first shown row whose key is ``wanted`` (-1 if none)."""
        rows, view = self._rows, self._view
        if 0 <= hint < len(view) and key(rows[view[hint]]) == wanted:
            return hint  # usually the row has not moved
        for place, position in enumerate(view):
            if key(rows[position]) == wanted:
                return place
        return -1

    def move_cursor_to(self, predicate: Callable[[Any], bool]) -> bool:
        """Highlight the first shown row for which ``predicate`` is true.

        Args:
            predicate: Test applied to row objects.

        Returns:
            True if a row was found (and highlighted).
        """
        rows = self._rows
        for place, position in enumerate(self._view):
            if predicate(rows[position]):
                self._move_cursor(place)
                return True
        return False

    # --- filter --------------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        """Show only rows containing ``text`` in any column, ignoring case.

        Args:
            text: The filter; empty shows every row.
        """
        folded = clean_line(text).casefold()
        self._filter = text
        if folded == self._folded:
            return
        highlighted = self._view[self._cursor] if self._view else None
        hits = None
        if folded:
            hits = self._matches.pop(folded, None)
            if hits is None:
                # Rows matching a longer filter matched the shorter one too.
                narrower = self._hits is not None and self._folded in folded
                hits = self._search_index().match(folded, self._hits if narrower else None)
            self._matches[folded] = hits
            while len(self._matches) > MATCHES_KEPT:
                del self._matches[next(iter(self._matches))]
        self._hits, self._mask = hits, None
        self._folded = folded
        self._view = self._compute_view()
        cursor = 0
        if highlighted is not None and (hits is None or self._matched()[highlighted]):
            cursor = self._view.index(highlighted)  # the highlighted row is still shown
        self._after_view_change(cursor)

    def _matched(self) -> bytearray:
        """One byte per row, 1 where the row matches the filter."""
        if self._mask is None:
            mask = bytearray(len(self._rows))
            if self._hits is not None:
                deque(map(mask.__setitem__, self._hits, repeat(1)), maxlen=0)
            self._mask = mask
        return self._mask

    def _compute_view(self) -> Sequence[int]:
        """Positions of the shown rows, in display order."""
        order, hits = self._order(), self._hits
        if hits is None:
            return order
        if isinstance(order, range):
            return hits
        mask = self._matched()
        return array("i", compress(order, map(mask.__getitem__, order)))

    # --- sort ----------------------------------------------------------------------

    def sort_by(self, column_key: str | None, reverse: bool = False) -> None:
        """Sort the rows by a column, or restore the server's order.

        Args:
            column_key: Key of the column, or None for no sort.
            reverse: Sort descending.

        Raises:
            KeyError: When no column has ``column_key``.
        """
        if column_key is not None and column_key not in {c.key for c in self._columns}:
            raise KeyError(column_key)
        new = None if column_key is None else (column_key, reverse)
        if new == self._sort:
            return
        highlighted = self._view[self._cursor] if self._view else None
        self._sort = new
        self._header_text = None
        self._view = self._compute_view()
        cursor = 0 if highlighted is None else self._view.index(highlighted)
        self.post_message(self.SortChanged(self, column_key, reverse if new else False))
        self._after_view_change(cursor, counts_changed=False)

    def cycle_sort(self) -> None:
        """Sort by the next column; after the last one, go back to unsorted."""
        keys = [column.key for column in self._columns]
        if not keys:
            return
        if self._sort is None:
            self.sort_by(keys[0])
            return
        place = keys.index(self._sort[0]) + 1
        self.sort_by(keys[place] if place < len(keys) else None)

    def reverse_sort(self) -> None:
        """Flip the direction of the current sort (nothing when unsorted)."""
        if self._sort is not None:
            self.sort_by(self._sort[0], not self._sort[1])

    def _order(self) -> Sequence[int]:
        """All row positions in sort order, computed once per column and direction."""
        if self._sort is None:
            return range(len(self._rows))
        order = self._orders.get(self._sort)
        if order is None:
            order = _sort_order(self._columns, self._rows, self._search_index(), *self._sort)
            # Keep the last few orders only: each costs 4 bytes a row.
            while len(self._orders) >= ORDERS_KEPT:
                del self._orders[next(iter(self._orders))]
            self._orders[self._sort] = order
        return order

    # --- cursor --------------------------------------------------------------------

    def _after_view_change(self, cursor: int, *, counts_changed: bool = True) -> None:
        """Refresh everything after the data, filter or sort changed."""
        self._line_cache.clear()
        self._cursor = max(0, min(cursor, len(self._view) - 1))
        self._layout()  # the row count decides whether a scrollbar takes room
        self.virtual_size = Size(self._total_width, len(self._view) + 1)
        self._scroll_cursor_into_view()
        self.refresh()
        if counts_changed:
            self.post_message(
                self.FilterChanged(self, self._filter, len(self._view), len(self._rows))
            )
        self._post_highlighted()

    def _post_highlighted(self) -> None:
        row = self.highlighted
        if row is not self._posted_row:
            self._posted_row = row
            self.post_message(self.RowHighlighted(self, row, self._cursor))

    def _move_cursor(self, cursor: int) -> None:
        if not self._view:
            return
        cursor = max(0, min(cursor, len(self._view) - 1))
        if cursor == self._cursor:
            return
        old, self._cursor = self._cursor, cursor
        self._click_selected = False
        self._refresh_row(old)
        self._refresh_row(cursor)
        self._scroll_cursor_into_view()
        self._post_highlighted()

    def _refresh_row(self, place: int) -> None:
        if 0 <= place - round(self.scroll_y) < self.size.height:
            self.refresh_line(place + 1)  # the header takes virtual line 0

    @property
    def _body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        """Scroll as little as needed to show the cursor (and no space past the end)."""
        if not self.is_mounted or self.size.height < 2:
            return  # laid out later: _on_resize scrolls then
        body = self._body_height
        top = min(round(self.scroll_y), max(0, len(self._view) - body))
        if self._cursor < top:
            top = self._cursor
        elif self._cursor >= top + body:
            top = self._cursor - body + 1
        if top != round(self.scroll_y):
            self.scroll_to(y=top, animate=False, force=True)

    def action_cursor_up(self) -> None:
        """Highlight the previous row."""
        self._move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        """Highlight the next row."""
        self._move_cursor(self._cursor + 1)

    def action_cursor_page_up(self) -> None:
        """Move the cursor and the view one page up."""
        body = self._body_height
        self.scroll_to(y=max(0, round(self.scroll_y) - body), animate=False, force=True)
        self._move_cursor(self._cursor - body)

    def action_cursor_page_down(self) -> None:
        """Move the cursor and the view one page down."""
        body = self._body_height
        self.scroll_to(y=round(self.scroll_y) + body, animate=False, force=True)
        self._move_cursor(self._cursor + body)

    def action_cursor_first(self) -> None:
        """Highlight the first row."""
        self._move_cursor(0)

    def action_cursor_last(self) -> None:
        """Highlight the last row."""
        self._move_cursor(len(self._view) - 1)

    def action_select_cursor(self) -> None:
        """Post :class:`RowSelected` for the highlighted row."""
        row = self.highlighted
        if row is not None:
            self.post_message(self.RowSelected(self, row))

    def action_cycle_sort(self) -> None:
        """Sort by the next column (see :meth:`cycle_sort`)."""
        self.cycle_sort()

    def action_reverse_sort(self) -> None:
        """Flip the sort direction (see :meth:`reverse_sort`)."""
        self.reverse_sort()

    # --- mouse ---------------------------------------------------------------------

    def column_at(self, x: int) -> Column | None:
        """The column drawn at content x (scroll included), or None."""
        if not self._columns:
            return None
        place = bisect_right(self._starts, x + round(self.scroll_x)) - 1
        return self._columns[max(place, 0)] if x + round(self.scroll_x) >= 1 else None

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        event.stop()
        if offset.y == 0:
            column = self.column_at(offset.x)
            if column is not None:
                same = self._sort is not None and self._sort[0] == column.key
                self.sort_by(column.key, reverse=same and not self.sort_reverse)
            return
        place = round(self.scroll_y) + offset.y - 1
        if not 0 <= place < len(self._view):
            return
        if place != self._cursor:
            self._move_cursor(place)
        elif event.chain == 1 or not self._click_selected:
            self._click_selected = True
            self.action_select_cursor()

    # --- rendering -----------------------------------------------------------------

    def notify_style_update(self) -> None:
        # Called on focus, blur and theme changes: the cached lines hold old styles.
        super().notify_style_update()
        self._palette = None
        self._line_cache.clear()

    def _on_resize(self, event: events.Resize) -> None:
        self._layout()
        self._line_cache.clear()
        self.virtual_size = Size(self._total_width, len(self._view) + 1)
        self._scroll_cursor_into_view()

    def _get_palette(self) -> _Palette:
        palette = self._palette
        if palette is None:
            get = self.get_component_rich_style
            base = self.rich_style
            palette = self._palette = _Palette(
                base=base,
                header=base + get("resource-table--header"),
                even=base + get("resource-table--even"),
                cursor=base + get("resource-table--cursor"),
                empty=base + get("resource-table--empty"),
            )
        return palette

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles may change between passes (focus, theme); read them once per pass.
        self._palette = None
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Draw one line: the header at y=0, then the visible rows."""
        width = self.size.width
        palette = self._get_palette()
        scroll_x = round(self.scroll_x)
        if y == 0:
            return self._render_header(width, scroll_x, palette)
        view = self._view
        if not view:
            return self._render_empty(y, width, palette)
        place = round(self.scroll_y) + y - 1
        if place >= len(view):
            return Strip.blank(width, palette.base)
        is_cursor = place == self._cursor
        cache_key = (place, is_cursor, scroll_x, width)
        strip = self._line_cache.get(cache_key)
        if strip is None:
            style = palette.cursor if is_cursor else palette.even if place % 2 else palette.base
            strip = self._crop(self._row_text(view[place]), style, scroll_x, width)
            self._line_cache.set(cache_key, strip)
        return strip

    def _row_text(self, position: int) -> str:
        row = self._rows[position]
        cells = [display_value(column.get(row), CELL_LIMIT) for column in self._columns]
        return _join_cells(cells, self._widths, self._rights)

    def _crop(self, line: str, style: Style, scroll_x: int, width: int) -> Strip:
        if len(line) == self._total_width and _is_narrow(line):
            # One character per cell: slicing is cropping.
            text = line[scroll_x : scroll_x + width]
            strip = Strip([Segment(text, style)], len(text))
        else:
            strip = Strip([Segment(line, style)], self._total_width).crop(
                scroll_x, scroll_x + width
            )
        return strip.extend_cell_length(width, style) if strip.cell_length < width else strip

    def _render_header(self, width: int, scroll_x: int, palette: _Palette) -> Strip:
        if self._header_text is None:
            labels = [
                clean_line(column.label)
                + (SORT_MARKS[self._sort[1]] if self._sort and self._sort[0] == column.key else "")
                for column in self._columns
            ]
            self._header_text = _join_cells(labels, self._widths, self._rights)
        return self._crop(self._header_text, palette.header, scroll_x, width)

    def _render_empty(self, y: int, width: int, palette: _Palette) -> Strip:
        if y != 1 + (self._body_height - 1) // 2:
            return Strip.blank(width, palette.base)
        message = self.empty_reason or ""
        if cell_len(message) > width:
            message = set_cell_size(message, max(width - 1, 0)) + ELLIPSIS if width else ""
        left = max(0, (width - cell_len(message)) // 2)
        return Strip(
            [Segment(" " * left, palette.base), Segment(message, palette.empty)]
        ).extend_cell_length(width, palette.base)


class _Nothing:
    """Marks "no highlight posted yet" (distinct from a None row)."""


_NOTHING = _Nothing()
