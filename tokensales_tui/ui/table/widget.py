"""The resource table widget: a virtualised, filterable, sortable table of server objects.

Textual's ``DataTable`` builds renderables per cell and takes seconds to load
100,000 rows. :class:`ResourceTable` draws only the visible lines (a ``ScrollView``
with ``render_line``) from a :class:`~.model.TableView`, which decides which rows are
shown and in which order; the widget keeps the cursor, the column layout and a cache
of drawn lines.

Cells are server data: they go through :func:`~tokensales_tui.clean.display_value`
and are drawn as plain ``Segment`` text, never as markup.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker

from ...clean import visible
from ...mask import mask_text, masking
from ..following import Following
from ..lifetime import let_go_of_ended_work
from ..turns import between_steps
from .cells import Column, column_cells, fit_widths, measure_column, sample_of
from .index import SearchIndex, sort_order
from .lines import Palette, centred, crop, join_cells
from .model import Extension, PreparedRows, RowsIndexer, Scope, TableView

__all__ = ["ResourceTable"]

SORT_ON_LOOP = 20_000
"""Rows sorted on the event loop (20,000 titles take ~40 ms, most of it their natural
sort keys); a longer list sorts in a thread."""

FILTER_SHOWN_EVERY = 0.2
"""Seconds between two showings of a filter's matches growing while it is looked for in
the rest of the rows (:attr:`TableView.filtering`)."""

SORT_MARKS = {False: " ▲", True: " ▼"}
MARK = "✓"
"""Drawn in the margin of a marked row."""
DELETING_MARK = "⌫"
"""Drawn in the margin of a row whose object is being deleted (marked or not)."""


@dataclass(eq=False)
class _TableMessage(Message):
    """Base of the table's messages: they carry the table that sent them."""

    table: ResourceTable

    @property
    def control(self) -> ResourceTable:
        """The table that sent the message."""
        return self.table


class ResourceTable(Following, ScrollView, can_focus=True):
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
        & > .resource-table--marked {
            background: $accent 30%;
            text-style: bold;
        }
        & > .resource-table--changed {
            background: $success 30%;
        }
        /* NO_COLOR: the greys of the cursor and of a mark are almost one; the cursor
           is drawn reversed instead. */
        &:nocolor > .resource-table--cursor, &:nocolor:focus > .resource-table--cursor {
            text-style: reverse bold;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "resource-table--header",
        "resource-table--cursor",
        "resource-table--even",
        "resource-table--empty",
        "resource-table--marked",
        "resource-table--changed",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Previous row", show=False, id="resource_table.up"),
        Binding("down,j", "cursor_down", "Next row", show=False, id="resource_table.down"),
        Binding("pageup", "cursor_page_up", "Page up", show=False, id="resource_table.pageup"),
        Binding(
            "pagedown", "cursor_page_down", "Page down", show=False, id="resource_table.pagedown"
        ),
        Binding(
            "ctrl+u",
            "cursor_half_page(-1)",
            "Half page up",
            show=False,
            id="resource_table.half_up",
        ),
        Binding(
            "ctrl+d",
            "cursor_half_page(1)",
            "Half page down",
            show=False,
            id="resource_table.half_down",
        ),
        Binding("home,g", "cursor_first", "First row", show=False, id="resource_table.home"),
        Binding("end,G", "cursor_last", "Last row", show=False, id="resource_table.end"),
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
        """A row was chosen: enter, a click on the highlighted row, or a double click.

        ``column_key`` is the column clicked (None: chosen with the keyboard).
        """

        row: Any
        column_key: str | None = None

    @dataclass(eq=False)
    class SortChanged(_TableMessage):
        """The sort column or direction changed (``column_key`` None: unsorted)."""

        column_key: str | None
        reverse: bool

    @dataclass(eq=False)
    class MarksChanged(_TableMessage):
        """Rows were marked or unmarked (``marked``: how many are marked now)."""

        marked: int

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
        self._data = TableView(cell_len)
        self._widths: list[int] = []
        self._starts: list[int] = []
        self._rights: list[bool] = []
        self._total_width = 0
        self._fitted_to = 0  # the width the columns were last fitted into
        self._cursor = 0
        self._posted_row: object = _NOTHING
        self._click_selected = False
        self._palette: Palette | None = None
        self._header_text: str | None = None
        self._masked_cache: tuple[tuple[int, int, int], list[int], list[int]] | None = None
        self._line_cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(1024)
        self._pending_sort: tuple[str, bool] | None = None
        self._sorting = False  # a sort runs in a thread
        self._filtering = False  # the filter is looked for in the rest of the rows
        # The row for the cursor once the filter finds it: (of these rows, position).
        self._cursor_awaits: tuple[Sequence[Any], int] | None = None
        self._data.set_columns(columns)
        self._layout()

    @property
    def model(self) -> TableView:
        """The rows, filter and sort this table draws."""
        return self._data

    @property
    def focusable(self) -> bool:
        """Whether the table can take the focus now: also while it loads.

        Textual refuses the focus to a widget under its loading indicator, so a tab
        chosen while its list loads would leave nothing focused, and the keys typed
        next (page-down) would reach nothing once the rows came.
        """
        return self.allow_focus() and self.visible and not self.disabled

    # --- state ---------------------------------------------------------------------

    @property
    def columns(self) -> tuple[Column, ...]:
        """The columns, in display order."""
        return self._data.columns

    @property
    def rows(self) -> Sequence[Any]:
        """Every row object, in the order given to :meth:`set_data` (filter and sort aside)."""
        return self._data.rows

    @property
    def total_count(self) -> int:
        """Number of rows in the data."""
        return len(self._data.rows)

    @property
    def shown_count(self) -> int:
        """Number of rows matching the filter."""
        return len(self._data.view)

    @property
    def filter_text(self) -> str:
        """The current filter, as typed."""
        return self._data.filter

    @property
    def sort_column(self) -> str | None:
        """Key of the sort column, or None when unsorted."""
        return self._data.sort[0] if self._data.sort else None

    @property
    def sort_reverse(self) -> bool:
        """Whether the sort is descending."""
        return self._data.sort[1] if self._data.sort else False

    @property
    def cursor_row(self) -> int:
        """Position of the cursor among the shown rows."""
        return self._cursor

    @property
    def highlighted(self) -> Any:
        """The row object under the cursor, or None when no row is shown."""
        if not self._data.view:
            return None
        return self._data.rows[self._data.view[self._cursor]]

    # --- data ----------------------------------------------------------------------

    def set_data(self, columns: Sequence[Column], rows: Sequence[Any]) -> None:
        """Replace the columns and rows, keeping the filter and the sort.

        ``rows`` is kept, not copied: do not change it (or its objects) afterwards,
        hand the table a new sequence instead. The cursor stays on the row of the same
        identity (:attr:`TableView.identity`) if it is still shown, else at its place.

        Args:
            columns: Columns to show.
            rows: Row objects; each column's ``get`` reads its value from one.
        """
        self.set_prepared(self.prepare(columns, rows))

    def prepare(
        self, columns: Sequence[Column], rows: Sequence[Any], indexer: RowsIndexer | None = None
    ) -> PreparedRows:
        """Measure and index ``rows`` for :meth:`set_prepared`; safe to run in a thread.

        With ``indexer``, whose first rows are indexed already, only the rest are.
        """
        return self._data.prepare(columns, rows, indexer)

    def set_prepared(self, prepared: PreparedRows) -> None:
        """Show rows prepared by :meth:`prepare`, keeping the filter and the sort.

        This is :meth:`set_data` without the work that grows with the rows, which a
        caller can do beforehand in a thread.

        Args:
            prepared: The rows, columns, widths and index.
        """
        kept, place = self._kept_row(), self._cursor
        self._posted_row = _NOTHING  # holding an old row would keep all its body
        if self._data.load(prepared):
            self.post_message(self.SortChanged(self, None, False))
        self._after_view_change(self._cursor_after(kept, place))
        pending = self._pending_sort
        if pending is not None:  # asked for while the rows were indexed
            if pending[0] not in {c.key for c in self._data.columns}:
                self._pending_sort = None
                self.post_message(self.SortChanged(self, *(self._data.sort or (None, False))))
            elif len(self._data.rows) <= SORT_ON_LOOP:
                self.sort_by(*pending)
            else:
                self._sort_when_ready()

    def show_rows(self, columns: Sequence[Column], rows: Sequence[Any]) -> bool:
        """Show new rows at once, before :meth:`prepare` has measured and indexed them.

        Column widths come from a sample of the rows, and the search index is missing
        until :meth:`set_prepared` brings it (a filter or sort asked for meanwhile
        builds it on the spot). Only without a filter or sort in effect: those need the
        index to show anything right.

        Args:
            columns: Columns to show.
            rows: Row objects; give the same sequence to :meth:`prepare`.

        Returns:
            Whether the rows are shown (False: a filter or a sort is in effect).
        """
        if not self._data.can_show():
            return False
        kept, place = self._kept_row(), self._cursor
        self._posted_row = _NOTHING  # holding an old row would keep all its body
        self._data.show(columns, rows)
        self._after_view_change(self._cursor_after(kept, place))
        return True

    def grow_rows(self) -> None:
        """The rows given to :meth:`show_rows` grew (the same list, longer): show them."""
        if self._data.grow():
            self._after_view_change(self._cursor)

    def show_indexed(
        self, index: SearchIndex, filter_text: str, found: Extension | None = None
    ) -> None:
        """Take the index of the first rows of a list still arriving (see :meth:`show_rows`),
        and filter those rows for ``filter_text`` (typed meanwhile; ``found``: see
        :meth:`TableView.show_indexed`)."""
        view = self._data.view
        highlighted = view[self._cursor] if view else None
        changed = self._data.show_indexed(index, found)
        if self._data.filter != filter_text:
            changed = self._data.set_filter(filter_text) or changed
        if changed:
            self._after_filter(highlighted)

    def _kept_row(self) -> object:
        """The identity of the row under the cursor, to keep it there when the rows
        change; :data:`_NOTHING` (which no row's identity equals) when no row is."""
        row = self.highlighted
        return _NOTHING if row is None else self._data.identity(row)

    def _cursor_after(self, kept: object, place: int) -> int:
        """Where the cursor goes once the rows changed: on the row it was on (``kept``:
        see :meth:`_kept_row`) if it is still shown, else at the same place."""
        self._cursor_awaits = None
        view = self._data.view
        if kept is not _NOTHING and view:
            found = self._data.find(kept, place)
            if found >= 0:
                return found
        return min(place, len(view) - 1)

    def _layout(self) -> None:
        """Fit the measured widths into the width on screen.

        When the columns are wider than the table, labels wider than their column's
        cells shorten first, then the widest columns give up cells, down to their
        ``min_width``; only then does the table scroll sideways.
        """
        columns = self._data.columns
        self._rights = [column.align != "left" for column in columns]
        available = self.size.width if self.is_mounted else 0
        self._fitted_to = available
        if available and len(self._data.view) + 1 > self.size.height:
            available -= self.styles.scrollbar_size_vertical  # room for the scrollbar
        natural, content = self._data.natural, self._data.content
        if masking() and natural:
            natural, content = self._masked_widths()
        widths = fit_widths(natural, [c.min_width for c in columns], available, content)
        self._widths = widths
        self._starts = []
        x = 1
        for width in widths:
            self._starts.append(x)
            x += width + 1
        self._total_width = x if widths else 0
        self._header_text = None

    def _masked_widths(self) -> tuple[list[int], list[int]]:
        """The widths the columns need as mask mode shows them, over a sample of the rows.

        A masked address or key is far shorter than the value, and the table's own widths
        are measured on the real values (which the filter and sort keep).
        """
        data = self._data
        key = (id(data.rows), len(data.rows), id(data.columns))
        if self._masked_cache is None or self._masked_cache[0] != key:
            sample = sample_of(data.rows)
            natural: list[int] = []
            content: list[int] = []
            for column in data.columns:
                cells = [
                    mask_text(cell) for cell in column_cells(column, sample, width=data.width)[0]
                ]
                is_ascii = all(map(str.isascii, cells))
                longest = max(map(len, cells), default=0)
                both = measure_column(column, cells, is_ascii, longest, data.width)
                natural.append(both[0])
                content.append(both[1])
            self._masked_cache = (key, natural, content)
        return self._masked_cache[1], self._masked_cache[2]

    def move_cursor_to(self, predicate: Callable[[Any], bool]) -> bool:
        """Highlight the first shown row for which ``predicate`` is true.

        Args:
            predicate: Test applied to row objects.

        Returns:
            True if a row was found (and highlighted).
        """
        place = self._data.first(predicate)
        if place >= 0:
            self._move_cursor(place)
        return place >= 0

    # --- marks ---------------------------------------------------------------------

    @property
    def marked_count(self) -> int:
        """Number of rows marked (shown or not)."""
        return len(self._data.marks)

    def toggle_mark(self) -> None:
        """Mark the highlighted row, or unmark it, and move to the next row."""
        if not self._data.view:
            return
        self._data.toggle_mark(self._cursor)
        self._marks_changed()
        self._move_cursor(self._cursor + 1)

    def mark_all(self) -> None:
        """Mark every shown row; when they all are already, clear every mark."""
        if not self._data.mark_shown():
            self._data.marks.clear()
        self._marks_changed()

    def clear_marks(self) -> None:
        """Unmark every row."""
        if self._data.marks:
            self._data.marks.clear()
            self._marks_changed()

    def _marks_changed(self) -> None:
        self._line_cache.clear()
        self.refresh()
        self.post_message(self.MarksChanged(self, len(self._data.marks)))

    def show_deleting(self, keys: set[Any]) -> None:
        """Draw the rows of these identities as being deleted (none: as they were)."""
        if keys != self._data.deleting:
            self._data.deleting = set(keys)
            self._line_cache.clear()
            self.refresh()

    def show_changed(self, changed: set[Any]) -> None:
        """Set apart the rows with these identities (a reload added or changed them)."""
        if changed or self._data.changed:
            self._data.changed = changed
            self._line_cache.clear()
            self.refresh()

    # --- filter --------------------------------------------------------------------

    def set_scope(self, scope: Scope | None) -> None:
        """Show only the rows in ``scope`` (None: every row), on top of the filter."""
        view = self._data.view
        highlighted = view[self._cursor] if view else None
        self._data.set_scope(scope)
        self._after_filter(highlighted)

    def set_filter(self, text: str) -> None:
        """Show only rows containing ``text`` in any column, ignoring case.

        Args:
            text: The filter; empty shows every row.
        """
        view = self._data.view
        highlighted = view[self._cursor] if view else None
        if self._data.set_filter(text):
            self._after_filter(highlighted)

    def _after_filter(self, highlighted: int | None) -> None:
        # On the row highlighted before, if it is still shown; if the filter is still
        # looked for, once it is found there (and the cursor has not moved meanwhile).
        place = -1 if highlighted is None else self._data.place_of(highlighted)
        self._after_view_change(max(place, 0))
        self._cursor_awaits = None
        if place < 0 and highlighted is not None and self._data.filtering:
            self._cursor_awaits = (self._data.rows, highlighted)

    # --- sort ----------------------------------------------------------------------

    @property
    def pending_sort(self) -> tuple[str, bool] | None:
        """The sort asked for and still being computed in a thread, if any."""
        return self._pending_sort

    def sort_by(self, column_key: str | None, reverse: bool = False) -> None:
        """Sort the rows by a column, or restore the server's order.

        A sort that would keep the event loop busy (more than :data:`SORT_ON_LOOP` rows,
        or rows still being indexed) is computed in a thread: the rows stay as they
        are, :attr:`pending_sort` says which sort is coming, and it is shown when
        ready, unless another sort was asked for meanwhile.

        Args:
            column_key: Key of the column, or None for no sort.
            reverse: Sort descending.

        Raises:
            KeyError: When no column has ``column_key``.
        """
        if column_key is not None and column_key not in {c.key for c in self._data.columns}:
            raise KeyError(column_key)
        wanted = None if column_key is None else (column_key, reverse)
        data = self._data
        on_loop = data.index_ready and len(data.rows) <= SORT_ON_LOOP
        if wanted is None or on_loop or (data.index_ready and data.has_order(wanted)):
            changed = self._pending_sort is not None
            self._pending_sort = None
            self._apply_sort(wanted, changed)
            return
        self._pending_sort = wanted
        self.post_message(self.SortChanged(self, *wanted))
        self._sort_when_ready()

    def _sort_when_ready(self) -> None:
        """Sort in a thread for :attr:`pending_sort`, once the index is there; one at a time."""
        if self._pending_sort is None or self._sorting or not self._data.index_ready:
            return  # set_prepared or the running sort calls again
        self._sorting = True
        self.run_worker(self._sort_in_thread(self._pending_sort), group="sort", exit_on_error=False)

    async def _sort_in_thread(self, wanted: tuple[str, bool]) -> None:
        data = self._data
        rows, columns = data.rows, data.columns
        try:
            if not data.has_order(wanted):
                order = await asyncio.to_thread(
                    sort_order, columns, rows, data.search_index(), *wanted, in_runs=True
                )
                if data.rows is not rows or data.columns != columns:
                    return  # new rows came meanwhile: set_prepared asks again
                data.keep_order(wanted, order)
        finally:
            self._sorting = False
        pending = self._pending_sort
        if pending is None:
            return
        if data.has_order(pending):
            self._pending_sort = None
            self._apply_sort(pending, True)
        else:
            self._sort_when_ready()  # another sort was asked for meanwhile

    def _apply_sort(self, wanted: tuple[str, bool] | None, announce: bool) -> None:
        view = self._data.view
        highlighted = view[self._cursor] if view else None
        self._cursor_awaits = None  # a sort finds every match first
        if not self._data.sort_by(*(wanted or (None, False))):
            if announce:  # back to the sort shown, after a pending one was announced
                self.post_message(self.SortChanged(self, *(wanted or (None, False))))
            return
        self._header_text = None
        cursor = 0 if highlighted is None else self._data.view.index(highlighted)
        self.post_message(self.SortChanged(self, *(wanted or (None, False))))
        self._after_view_change(cursor, counts_changed=False)

    @property
    def _sort_in_effect(self) -> tuple[str, bool] | None:
        """The sort shown, or the one being computed."""
        return self._pending_sort or self._data.sort

    def cycle_sort(self) -> None:
        """Sort by the next column; after the last one, go back to unsorted."""
        if self._data.columns:
            self.sort_by(*self._data.next_sort(self._sort_in_effect))

    def reverse_sort(self) -> None:
        """Flip the direction of the current sort; unsorted, sort by the first column, reversed."""
        current = self._sort_in_effect
        if current is not None:
            self.sort_by(current[0], not current[1])
        else:
            self.sort_by(self._data.next_sort()[0], reverse=True)

    # --- cursor --------------------------------------------------------------------

    def _after_view_change(self, cursor: int, *, counts_changed: bool = True) -> None:
        """Refresh everything after the data, filter or sort changed."""
        self._line_cache.clear()
        self._cursor = max(0, min(cursor, len(self._data.view) - 1))
        self._layout()  # the row count decides whether a scrollbar takes room
        self._set_virtual_size(Size(self._total_width, len(self._data.view) + 1))
        self._scroll_cursor_into_view()
        self.refresh()
        if counts_changed:
            self.post_message(
                self.FilterChanged(
                    self, self._data.filter, len(self._data.view), len(self._data.rows)
                )
            )
        self._post_highlighted()
        if self._data.filtering and not self._filtering:
            self._filtering = True
            self.run_worker(self._finish_filter(), group="filter-rest", exit_on_error=False)

    async def _finish_filter(self) -> None:
        """Look for the filter in the rest of the rows, a step at a time between frames
        and keys (a new filter typed meanwhile is looked for from then on). The rows
        found show as the screen needs them, and every :data:`FILTER_SHOWN_EVERY`."""
        shown_at = time.monotonic()
        try:
            while self._data.filtering:
                if self.screen_complete:
                    await between_steps(self)  # the rest, off screen: keys and frames first
                else:
                    await asyncio.sleep(0)  # the key's frame waits for the screen to fill
                before = len(self._data.view)
                done = self._data.step_filter()
                screen = round(self.scroll_y) + self._body_height
                now = time.monotonic()
                if (
                    done
                    or before < min(screen, len(self._data.view))  # the screen fills in
                    or now - shown_at >= FILTER_SHOWN_EVERY
                ):
                    shown_at = now
                    cursor, awaited = self._cursor, self._cursor_awaits
                    if awaited is not None and awaited[0] is self._data.rows:
                        found = self._data.place_of(awaited[1])
                        if found >= 0:
                            cursor, awaited = found, None
                    self._cursor_awaits = None if done else awaited
                    self._after_view_change(cursor)
        finally:
            self._filtering = False

    @property
    def screen_complete(self) -> bool:
        """Whether the rows on screen are those of the filter in effect: it has been
        looked for in every row, or the rows found so far fill the screen."""
        if not self._data.filtering:
            return True
        return len(self._data.view) >= round(self.scroll_y) + self._body_height

    def _set_virtual_size(self, size: Size) -> None:
        """Take the size of the rows and header, without a layout of the screen if none is due.

        Setting ``virtual_size`` lays the whole screen out again (~10 ms here), which a list
        growing while its body arrives would do ten times a second, and a filter at each
        key. When only the number of rows changes and the rows overflow the table before
        and after, or fit in it before and after, the scrollbars stay as they are: only
        the vertical one is told the new size.
        """
        old, height = self.virtual_size, self.size.height
        if self.is_mounted and size.width == old.width:
            overflow = min(size.height, old.height) > height and self.show_vertical_scrollbar
            fit = (
                max(size.height, old.height) <= self.scrollable_content_region.height
                and not self.show_vertical_scrollbar
            )
            if overflow or fit:
                self.set_reactive(ResourceTable.virtual_size, size)
                self._scroll_update(size)  # Textual's own update of the scrollbars to a size
                return
        self.virtual_size = size

    def _post_highlighted(self) -> None:
        row = self.highlighted
        if row is not self._posted_row:
            self._posted_row = row
            self.post_message(self.RowHighlighted(self, row, self._cursor))

    def _move_cursor(self, cursor: int) -> None:
        if not self._data.view:
            return
        cursor = max(0, min(cursor, len(self._data.view) - 1))
        if cursor == self._cursor:
            return
        old, self._cursor = self._cursor, cursor
        self._click_selected = False
        self._cursor_awaits = None
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
        top = min(round(self.scroll_y), max(0, len(self._data.view) - body))
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

    def action_cursor_half_page(self, direction: int) -> None:
        """Move the cursor and the view half a page down (1) or up (-1), as less does."""
        step = max(1, self._body_height // 2) * (1 if direction > 0 else -1)
        self.scroll_to(y=max(0, round(self.scroll_y) + step), animate=False, force=True)
        self._move_cursor(self._cursor + step)

    def action_cursor_first(self) -> None:
        """Highlight the first row."""
        self._move_cursor(0)

    def action_cursor_last(self) -> None:
        """Highlight the last row."""
        self._move_cursor(len(self._data.view) - 1)

    def action_select_cursor(self, column_key: str | None = None) -> None:
        """Post :class:`RowSelected` for the highlighted row."""
        row = self.highlighted
        if row is not None:
            self.post_message(self.RowSelected(self, row, column_key))

    # --- mouse ---------------------------------------------------------------------

    def column_at(self, x: int) -> Column | None:
        """The column drawn at content x (scroll included), or None."""
        if not self._data.columns:
            return None
        place = bisect_right(self._starts, x + round(self.scroll_x)) - 1
        return self._data.columns[max(place, 0)] if x + round(self.scroll_x) >= 1 else None

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        event.stop()
        if offset.y == 0:
            column = self.column_at(offset.x)
            if column is not None:
                current = self._sort_in_effect
                same = current is not None and current[0] == column.key
                self.sort_by(column.key, reverse=same and not (current and current[1]))
            return
        place = round(self.scroll_y) + offset.y - 1
        if not 0 <= place < len(self._data.view):
            return
        if place != self._cursor:
            self._move_cursor(place)
        elif event.chain == 1 or not self._click_selected:
            self._click_selected = True
            column = self.column_at(offset.x)
            self.action_select_cursor(column.key if column is not None else None)

    # --- rendering -----------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        let_go_of_ended_work(event)  # a sort of rows replaced meanwhile: those rows

    def on_mount(self) -> None:
        signal = getattr(self.app, "mask_changed_signal", None)
        if signal is not None:
            self.follow(signal, self._masking_changed)

    def _masking_changed(self, _on: bool) -> None:
        self._layout()  # masked values need narrower columns
        self._line_cache.clear()
        self.virtual_size = Size(self._total_width, len(self._data.view) + 1)
        self.refresh()

    def notify_style_update(self) -> None:
        # Called on focus, blur and theme changes: the cached lines hold old styles.
        super().notify_style_update()
        self._palette = None
        self._line_cache.clear()

    def _on_resize(self, event: events.Resize) -> None:
        self._fit()
        self._scroll_cursor_into_view()

    def _fit(self) -> None:
        self._layout()
        self._line_cache.clear()
        self.virtual_size = Size(self._total_width, len(self._data.view) + 1)

    def _get_palette(self) -> Palette:
        palette = self._palette
        if palette is None:
            get = self.get_component_rich_style
            base = self.rich_style
            palette = self._palette = Palette(
                base=base,
                header=base + get("resource-table--header"),
                even=base + get("resource-table--even"),
                cursor=base + get("resource-table--cursor"),
                empty=base + get("resource-table--empty"),
                marked=base + get("resource-table--marked"),
                changed=base + get("resource-table--changed"),
            )
        return palette

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles may change between passes (focus, theme); read them once per pass.
        self._palette = None
        if self.size.width != self._fitted_to:
            # Rows set while a loading indicator covered the table were fitted to no
            # width (a covered widget has none), and its return need not resize it.
            self._fit()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Draw one line: the header at y=0, then the visible rows."""
        width = self.size.width
        palette = self._get_palette()
        scroll_x = round(self.scroll_x)
        if y == 0:
            return self._render_header(width, scroll_x, palette)
        view = self._data.view
        if not view:
            return self._render_empty(y, width, palette)
        place = round(self.scroll_y) + y - 1
        if place >= len(view):
            return Strip.blank(width, palette.base)
        is_cursor = place == self._cursor
        cache_key = (place, is_cursor, scroll_x, width)
        strip = self._line_cache.get(cache_key)
        if strip is None:
            position = view[place]
            marked = self._data.is_marked(position)
            if is_cursor:
                style = palette.cursor
            elif marked:
                style = palette.marked
            elif self._data.is_changed(position):
                style = palette.changed
            else:
                style = palette.even if place % 2 else palette.base
            text = self._row_text(position)
            if text and self._data.is_deleting(position):
                text = DELETING_MARK + text[1:]  # in the margin: the columns stay in place
            elif marked and text:
                text = MARK + text[1:]
            strip = crop(text, style, scroll_x, width, self._total_width)
            self._line_cache.set(cache_key, strip)
        return strip

    def _row_text(self, position: int) -> str:
        cells = self._data.cells_of(self._data.rows[position])
        if masking():  # shown masked; the model (filter, sort) keeps the real values
            cells = [mask_text(cell) for cell in cells]
        return join_cells(cells, self._widths, self._rights)

    def _render_header(self, width: int, scroll_x: int, palette: Palette) -> Strip:
        if self._header_text is None:
            sort = self._data.sort
            labels = [
                visible(column.label, line=True)
                + (SORT_MARKS[sort[1]] if sort and sort[0] == column.key else "")
                for column in self._data.columns
            ]
            self._header_text = join_cells(labels, self._widths, self._rights)
        return crop(self._header_text, palette.header, scroll_x, width, self._total_width)

    def _render_empty(self, y: int, width: int, palette: Palette) -> Strip:
        if y != 1 + (self._body_height - 1) // 2:
            return Strip.blank(width, palette.base)
        return centred(self._data.empty_reason or "", width, palette.base, palette.empty)


class _Nothing:
    """Marks "no highlight posted yet" (distinct from a None row), and "no row under the
    cursor" (distinct from any row's identity, whatever its id)."""


_NOTHING = _Nothing()
