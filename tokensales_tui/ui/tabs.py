"""One tab of the main screen: a filter line, the resource table and a problem line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from ..api import ApiError
from .resources import PAYOUTS, Resource, payout_rows
from .safe import clean_line
from .widgets.resource_table import ResourceTable

if TYPE_CHECKING:
    from .worker import ApiWorker


class ResourceTab(Vertical):
    """Lists one resource and keeps its filter, sort and loading state.

    The tab asks the API worker for its rows; a failure shows in the tab's own
    problem line, so one failing endpoint never disturbs the other tabs.
    """

    class Loaded(Message):
        """The tab finished loading (``error`` is None on success)."""

        def __init__(self, tab: ResourceTab, error: ApiError | None) -> None:
            super().__init__()
            self.tab = tab
            self.error = error

    def __init__(
        self,
        resource: Resource,
        api: Callable[[], ApiWorker],
        *,
        extra_rows: Callable[[], Sequence[dict[str, Any]]] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, classes="resource-tab")
        self.resource = resource
        self._api = api
        self._extra_rows = extra_rows
        self.loaded_once = False
        self.error: ApiError | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="tab-bar"):
            yield Input(
                placeholder="Filter (/) — type to narrow, escape to clear",
                id=f"{self.resource.key}-filter",
                classes="filter",
                select_on_focus=False,
            )
            yield Static("", classes="count")
        yield Static("", classes="problem")
        yield ResourceTable(id=f"{self.resource.key}-table")

    @property
    def table(self) -> ResourceTable:
        """The tab's table."""
        return self.query_one(ResourceTable)

    @property
    def filter_input(self) -> Input:
        """The tab's filter input."""
        return self.query_one(Input)

    @property
    def highlighted(self) -> Any:
        """The row object under the cursor, or None."""
        return self.table.highlighted

    def reload(self) -> None:
        """Load (again) in the background; a load in progress is replaced."""
        self.run_worker(self._load(), group="load", exclusive=True, exit_on_error=False)

    def cancel_load(self) -> bool:
        """Stop waiting for a load in progress; True when there was one."""
        running = [w for w in self.workers if w.group == "load" and w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self.table.loading = False
            self._show_problem("Loading cancelled — press r to try again")
        return bool(running)

    async def _load(self) -> None:
        table = self.table
        table.loading = True
        self._show_problem(None)
        try:
            rows = await self._api().call(self.resource.load, shared=True)
            if self.resource is PAYOUTS:
                rows = payout_rows(rows, self._extra_rows() if self._extra_rows else ())
        except ApiError as error:
            self.error = error
            self._show_problem(f"Loading {self.resource.title.lower()} failed: {error.one_line}")
            self.post_message(self.Loaded(self, error))
            return
        finally:
            table.loading = False
        self.error = None
        self.loaded_once = True
        table.set_data(self.resource.columns(rows), rows, keep_cursor_key=self.resource.row_id)
        self._update_count()
        self.post_message(self.Loaded(self, None))

    def _show_problem(self, text: str | None) -> None:
        problem = self.query_one(".problem", Static)
        problem.update(Content(clean_line(text)) if text else "")
        problem.set_class(bool(text), "-shown")

    def show_problem(self, text: str | None) -> None:
        """Show (or clear, with None) a one-line problem above the table."""
        self._show_problem(text)

    def _update_count(self) -> None:
        table = self.table
        shown, total = table.shown_count, table.total_count
        text = (
            f"{shown:,} of {total:,}"
            if shown != total
            else f"{total:,} {self.resource.title.lower()}"
        )
        if table.sort_column:
            label = next(
                (c.label for c in table.columns if c.key == table.sort_column), table.sort_column
            )
            text += f" · by {label} {'▼' if table.sort_reverse else '▲'}"
        self.query_one(".count", Static).update(Content(text))

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.table.set_filter(event.value)

    @on(Input.Submitted)
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.table.focus()

    @on(ResourceTable.FilterChanged)
    @on(ResourceTable.SortChanged)
    def _view_changed(self) -> None:
        self._update_count()

    def focus_filter(self) -> None:
        """Put the cursor in the filter."""
        self.filter_input.focus()

    def clear_filter(self) -> None:
        """Empty the filter and return to the table."""
        self.filter_input.value = ""
        self.table.set_filter("")
        self.table.focus()

    def remove_row(self, row: Any) -> None:
        """Drop ``row`` from the table after a delete, without reloading."""
        table = self.table
        rows = [r for r in table.rows if r is not row]
        table.set_data(table.columns, rows, keep_cursor_key=self.resource.row_id)
        self._update_count()
