"""One tab of the main screen: a filter line, the resource table and a problem line.

A tab may *watch* its list (:meth:`ResourceTab.toggle_watch`): it reloads on its own,
never sooner than the interval after the last load ends nor than the server's
``Retry-After``, and only while it is in view with no dialog or form over it. Every
reload compares the new rows with those shown (:func:`~.table.model.diff_rows`) and
sets apart, for a moment, the rows it added or changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Literal, ParamSpec, TypeVar

from rich.cells import cell_len
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from ..api import ApiError
from ..api.arriving import ArrivingRows, still_arriving, whole
from ..api.decode import MAX_ROWS, left_out
from ..api.errors import RateLimitedError
from ..api.models import (
    collections_deferred,
    everything_due,
    settle_collections,
    walk_everything,
)
from ..api.paging import Paging, paging_of
from ..clean import clean_line
from ..payouts import payout_rows
from .cancelling import awaited, wait_for_worker
from .following import Following
from .key_hints import error_said, follow_keys, hint, key_for, key_in, press
from .lifetime import let_go_of_ended_work
from .resources import ITEMS, PAYOUTS, Resource, row_content
from .room import Clock, reading_has_room
from .safe import line, show
from .table.model import (
    EMPTY_MESSAGE,
    SCAN_STEP,
    Changes,
    Extension,
    PreparedRows,
    RowsIndexer,
    Scope,
    all_steps,
    diff_rows,
)
from .table.query import SYNTAX
from .table.widget import ResourceTable
from .turns import between_steps
from .widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from ..api.listing import StreamedList
    from .index_process import IndexProcess, Setup
    from .table.cells import Column
    from .table.index import IndexPiece, SearchIndex
    from .worker import ApiWorker

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

OFF_LOOP_ROWS = 2_000
"""Lists longer than this are grouped and indexed in a thread, so the UI keeps drawing."""

LOADING, INDEXING = "loading…", "indexing…"
"""What the count line says while a load reads its body, then while it indexes its rows."""
CANCELLED = "Loading cancelled"
"""The problem line after a load is cancelled (and the key that loads again), until the
next load starts."""

NOT_LOADED, WHY = "not loaded", " — the line above says why"
"""What the count line and the table say while the count is unknown (see
:attr:`ResourceTab.count_unknown`): not "0 items", nor "Nothing here yet"."""

SETTLE_DELAY = 1.0
"""Seconds after a load before what it left is set aside from garbage collection
(:func:`~tokensales_tui.api.models.settle_collections`)."""

QUIET_BEFORE_WALK = 2.0
"""Seconds without a key or a click before everything set aside is walked again
(:func:`~tokensales_tui.api.models.walk_everything`): a pause of 100 ms or more with a
long list on a slow machine, which should not fall in someone's typing."""


EMPTY_BEFORE_RELOAD = 250_000
"""A reload of a longer list empties the table first (1,000,000 items take ~1.5 GB)."""

FILTER_ROOM = 30
"""The fewest columns the filter line keeps beside the room the count line takes."""

FILTER_MAX_LENGTH = 10_000
"""Characters the filter holds at most (a few words are what a filter is for)."""

FILTER_BURST_STEP = 0.25
"""While a burst of keys goes on in the filter, the table follows the text this often."""

FILTER_AT_ONCE = 200_000
"""Rows filtered on each key at once; a longer list is filtered for the latest text only."""

GROW_EVERY = 0.25
"""Seconds between two showings of a list's rows growing while its body arrives. Each
showing is a frame, and the loop's work: ten a second took 1.5 s of the 12 s the event
loop spends on a body of 1,000,000 items (keys are drawn at once all the same)."""

INDEX_EVERY = 0.5
"""Seconds between two slices of a list indexed while its body arrives."""

INDEX_STEP = 32_768
"""Most rows indexed in one slice while the body arrives: what is left once it has all
arrived is indexed at once."""

INDEX_FIRST = 256
"""Rows indexed in the first slice for a filter typed while the body arrives (5-12 ms):
once the filter has the focus, after its frame, or else in the first key's own turn
(its frame waits for it)."""

FIRST_FRAME_WAIT = 0.05
"""Longest wait for the frame of a filter's first slice before indexing on."""

INDEX_ON_LOOP = 64
"""Rows indexed in one step on the event loop while the body arrives (1-3 ms: a key
that comes meanwhile waits for the step; 256 rows took 5-12 ms)."""

INDEX_PROCESS_FROM = 50_000
"""Rows arrived from which the rest of a list is indexed by a process of its own (see
:mod:`.index_process`): below, the list has all arrived by the time it would start."""

TAIL_FROM = 200_000
"""Rows left to index once a list's body has ended from which a second index process
indexes the last of them, while the first indexes the others (see
:meth:`ResourceTab._index_tail`). With fewer, a process is done soon after the body's
end anyway, and the second's pieces beside it only cost memory: a first load of
100,000 items with a filter typed stayed 10 MB larger (with a thread in its place)."""

SHOW_AT_ONCE = 32_768
"""Most rows an index process indexed since the filter last looked that it looks at in
one call as their index is shown (some 8 ms): beyond, a step at a time (see
:meth:`ResourceTab._show_from_process`). In the key's own turn, the key's frame shows
them; a showing after steps is a frame of its own, which keys typed at 100,000 items
met more often (in alternated sessions, four each: p95 44 against 35 ms)."""

TAIL_SHARE = 0.5
"""The share of the rows left to index once a list's body has ended that a second
index process takes (see :meth:`ResourceTab._index_tail`)."""

INDEXED_ELSEWHERE_WAIT = 0.1
"""Seconds between two looks at whether another tab still indexes a list this one
needs whole (see :meth:`ResourceTab._while_indexed_elsewhere`)."""

INDEX_PROCESS_QUIET = 30.0
"""Seconds the index process may send nothing before the tab indexes the list itself."""

WATCH_INTERVAL = 5.0
"""Seconds between the end of a load and the next, while watching (config: watch_interval)."""

FLASH_SECONDS = 3.0
"""How long the rows a reload added or changed stay set apart."""


async def _tail_from_process(setup: Setup, count: int) -> tuple[list[IndexPiece], Any]:
    """The pieces an index process makes of a list's rows from ``setup.first_row`` to
    ``count``, and their measures.

    Raises:
        OSError: When the process cannot be started.
        ValueError: When it fails, or its pieces do not add up.
    """
    from . import index_process

    process = await index_process.IndexProcess.start(setup)
    try:
        pieces: list[IndexPiece] = []
        measures: Any = None
        while isinstance(
            message := await process.receive(INDEX_PROCESS_QUIET), index_process.Piece
        ):
            piece = index_process.as_index_piece(message)
            if piece.start != (
                pieces[-1].start + len(pieces[-1].lines) if pieces else setup.first_row
            ):
                raise ValueError("the pieces of the last rows do not follow")
            pieces.append(piece)
            measures = message.measures
        if not isinstance(message, index_process.Done) or message.count != count or not pieces:
            # Its reason may quote the body: text from the server, kept to one clean line.
            raise ValueError(clean_line(f"the last rows' index process: {message!r}"))
        return pieces, measures
    finally:
        await process.close()


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _off_loop(rows: int, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``function(*args)``, in a thread when it works through more than OFF_LOOP_ROWS rows."""
    if rows <= OFF_LOOP_ROWS:
        return function(*args, **kwargs)
    return await asyncio.to_thread(function, *args, **kwargs)


class FilterInput(SafeInput):
    """The filter line; the table follows each change before the next frame is drawn.

    Through ``Input.Changed`` the table would change a message later, after Textual has
    already drawn the new text, and the frame with the filtered rows would wait for the
    next tick of the screen's 60 Hz timer: up to 30 ms more per key.

    A change made while more keys are still to come (a burst typed or pasted as keys,
    as tmux sends a buffer) waits for them: the table follows the text once the last
    key of the burst has come, and every :data:`FILTER_BURST_STEP` while it goes on.
    Each change looked for the whole text again, so N keys cost N filters of up to N
    characters: 2,500 characters froze the app 10 s, 10,000 more than a minute.

    It holds :data:`FILTER_MAX_LENGTH` characters at most: Textual's ``Input`` measures
    its whole text at each key and each frame, and a megabyte pasted made each frame
    take 0.6 s, long enough for the keys typed after it to be passed over (see
    :mod:`.key_order`) and land in the filter.

    Its letters are typed, so the footer shows the screen's keys no more: it shows the
    two ways out of the filter instead.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Input's own action: the table takes the focus, the filter stays.
        Binding("enter", "submit", "Go to rows", id="filter.rows"),
        # The screen's escape (a keymap moves both): it also stops a bulk delete.
        Binding("escape", "screen.escape", "Clear filter", id="clear_filter"),
    ]

    def __init__(self, on_change: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(max_length=FILTER_MAX_LENGTH, **kwargs)
        self._on_change = on_change
        self._told_full = False
        self._due: Timer | None = None
        """Applies a change made with more keys to come, unless the last key does first."""

    def restricted(self) -> None:
        """Said once each time the filter is full (not a bell per key typed past it)."""
        if not self._told_full:
            self._told_full = True
            self.notify(
                f"The filter holds {FILTER_MAX_LENGTH:,} characters at most: the rest was left out",
                severity="warning",
                markup=False,
            )

    def watch_value(self, value: str) -> None:
        if len(value) < FILTER_MAX_LENGTH:
            self._told_full = False
        keys_to_come: Callable[[], bool] | None = getattr(self.app, "keys_to_come", None)
        if keys_to_come is not None and keys_to_come():
            # A timer, not a callback after the frame: that would sit in this widget's
            # queue, where the keys behind wait for it (see key_order).
            if self._due is None:
                self._due = self.set_timer(FILTER_BURST_STEP, self.apply_change)
            return
        self._stop_due()
        self._on_change(value)

    def _stop_due(self) -> None:
        if self._due is not None:
            self._due.stop()
            self._due = None

    def apply_change(self) -> None:
        """Have the table follow the text now, if a change of it still waits (keys that
        never come back here, such as a screen's binding, leave it to the timer)."""
        if self._due is not None:
            self._stop_due()
            self._on_change(self.value)

    def _on_blur(self, event: events.Blur) -> None:
        # Input's own handler follows. What the keys after the text do sees its rows.
        self.apply_change()


class ResourceTab(Following, Vertical):
    """Lists one resource and keeps its filter, sort and loading state.

    The tab asks the API worker for its rows; a failure shows in the tab's own
    problem line, so one failing endpoint never disturbs the other tabs.
    """

    class Reloading(Message):
        """A tab that has shown its rows loads them again: the tabs that follow its
        list (Payouts follow Items) are behind it from now on."""

        def __init__(self, tab: ResourceTab) -> None:
            super().__init__()
            self.tab = tab

    def __init__(
        self,
        resource: Resource,
        api: Callable[[], ApiWorker],
        *,
        extra_rows: Callable[[], Awaitable[Sequence[dict[str, Any]]]] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, classes="resource-tab")
        self.resource = resource
        self._api = api
        self._extra_rows = extra_rows
        self.loaded_once = False
        self.stale = False
        """Another tab has loaded this one's list again since: reload when shown."""
        self.error: ApiError | None = None
        self.deleting: set[str] = set()
        """The ids of this tab's objects whose delete is under way (sent and not answered
        yet, or waiting its turn in a bulk delete): every way to delete skips them, so
        that no second request for one goes out, to be told it is not found because the
        first deleted it. Changed only with :meth:`begin_deleting` and
        :meth:`end_deleting`, which show it."""
        self._wait_until = 0.0
        self._wait_reason = ""
        self._wait_timer: Timer | None = None
        self._indexing = False
        self.watching = False
        self.watch_interval = WATCH_INTERVAL
        self._loaded_at: float | None = None
        """When the rows shown were last loaded (monotonic): "updated 3 s ago"."""
        self._tried_at: float | None = None
        """When the last load ended, loaded or not: the next watched one is due from it."""
        self._not_before = 0.0  # no watched reload before this (monotonic): Retry-After
        self._watch_timer: Timer | None = None
        self._flash_timer: Timer | None = None
        self._walk_timer: Timer | None = None  # asks for the walk of everything set aside
        self._changes = ""  # what the last reload changed, for the count line
        self._paging: Paging | None = None
        """What the last load's answer said of more on the server than it held."""
        self._whole: Sequence[Any] | None = None
        """The rows a load showed whole (less the rows deleted since): what the next load
        compares with, while the table shows them. Rows let go of before a reload, or
        shown while they arrived (by a load that failed, was cancelled or replaced),
        are no list to compare with: every row would count as added."""
        self._loading = False
        self._load_number = 0
        """Counts the loads begun, and the loads ended by another hand (escape, a profile
        switch): a load whose number is no longer this one's shows nothing and resets
        nothing, however it got there (see :meth:`_still_current`)."""
        self._requesting = 0  # loads waiting for their list (one replaced may not be done)
        self._unwatch: Callable[[], None] | None = None  # stops showing its rows arriving
        self._body_done = False  # the load's body is read, its rows are being indexed
        self._filter_due = False  # a filter of a long list waits for the keys queued
        self._arriving: list[Any] | None = None  # the rows shown while their body arrives
        self._arrival: StreamedList | None = None  # ... and the list they come from
        self._indexer: RowsIndexer | None = None  # indexes them, a slice at a time
        self._index_worker: Worker[None] | None = None
        # Indexes them in another process once they are many (see _index_in_process).
        self._process: IndexProcess | None = None
        self._process_worker: Worker[list[RowsIndexer]] | None = None
        self._by_process = False  # while the process indexes them
        self._stop_at: int | None = None  # the row before which the process stops
        self._process_indexer: RowsIndexer | None = None  # what the process's pieces go to
        self._tail: asyncio.Future[tuple[list[IndexPiece], Any]] | None = None  # last rows
        self._rows_checked = False  # the index processes decoded every row of the load
        self._decoding = False  # ... and the rest is decoded here after it (_decode_rest)
        self._decode_worker: Worker[None] | None = None  # decodes the rest after the load
        self._shown_at = 0.0  # when its index was last shown
        self._extending: Worker[None] | None = None  # looks for the filter in it, in steps
        self._body_read = asyncio.Event()  # the indexing of arriving rows stops waiting
        self._grown_at = 0.0
        self._arrival_clock: Clock | None = None  # when the rows arriving first showed
        # Built here, not found by a query: a timer or a worker of the tab may still
        # touch them while the app shuts down and its children are already gone.
        self._filter = FilterInput(
            self._apply_filter,
            placeholder=f"Filter: {SYNTAX}",  # with its key once mounted
            id=f"{resource.key}-filter",
            classes="filter",
            select_on_focus=False,
            # Nothing to check: Textual's check of each change would set the class
            # "-valid" at the first key, and restyle the filter in that key's turn.
            validate_on=(),
        )
        self._count = Static("", classes="count")
        self._count_width = 0
        self._count_of = 0  # the total the count line's width was kept for
        self._problem = Static("", classes="problem")
        self._problem_of: Literal["", "load", "wait"] = ""
        """Whose the problem line's text is, for who clears it: a load's (its failure,
        its cancellation, the entries it left out), until the next load starts; the
        countdown to a retry, until the retry starts."""
        self._table = ResourceTable(id=f"{resource.key}-table")
        self._table.model.row_id = resource.row_id
        self._table.model.other_fields = resource.other_fields

    def on_mount(self) -> None:
        follow_keys(self, self._name_keys)

    def _name_keys(self) -> None:
        """Name the keys the tab's texts say, as bound now (see :func:`follow_keys`)."""
        self.table.model.clear_key = key_for(self.screen, "escape")
        # The screen's key, named in the filter too, where typed it is text.
        opens = key_in(self.screen.BINDINGS, "focus_filter", self.screen)
        self._filter.placeholder = f"Filter ({opens}): {SYNTAX}" if opens else f"Filter: {SYNTAX}"

    def compose(self) -> ComposeResult:
        with Horizontal(classes="tab-bar"):
            yield self._filter
            yield self._count
        yield self._problem
        yield self._table

    @property
    def table(self) -> ResourceTable:
        """The tab's table."""
        return self._table

    @property
    def filter_input(self) -> FilterInput:
        """The tab's filter input."""
        return self._filter

    @property
    def highlighted(self) -> Any:
        """The row object under the cursor, or None."""
        return self.table.highlighted

    def reload(self, *, then_highlight: Callable[[Any], bool] | None = None) -> None:
        """Load (again) in the background; a load in progress is replaced.

        Args:
            then_highlight: once loaded, highlight the first shown row it picks (a new or
                changed object), if the server lists it.
        """
        if self.load_running:
            # The rows the load replaced showed as they arrived go with it: kept, they
            # would stay as they were while this load's own arrive unseen.
            self._drop_arrived()
        self.stale = False
        if self.loaded_once:
            self.post_message(self.Reloading(self))
        self.run_worker(
            self._load_deferring(then_highlight),
            group="load",
            exclusive=True,
            exit_on_error=False,
        )

    @property
    def load_running(self) -> bool:
        """Whether a load of this tab runs (from its request to its index)."""
        return any(w.is_running for w in self._loads())

    @property
    def requesting(self) -> bool:
        """Whether a load waits for its list from the server (the Items and Payouts tabs
        wait for the same request: see :meth:`ApiWorker.call`)."""
        return self._requesting > 0

    def cancel_load(self) -> bool:
        """Stop waiting for a load in progress; True when there was one."""
        self._stop_wait()
        running = [w for w in self._loads() if w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self._load_number += 1  # the load cancelled shows nothing, even if it goes on
            self._drop_arrived()
            # Said before the load's end counts the rows: none loaded is no "0 items".
            self._show_problem(self._with_key(CANCELLED, "to try again"), of="load")
            self._end_load()
        return bool(running)

    def _loads(self) -> list[Worker[Any]]:
        """This tab's load workers (``self.workers`` holds every worker of the app)."""
        return [w for w in self.workers if w.group == "load" and w.node is self]

    def forget(self, note: str = "") -> None:
        """Drop the rows, the error and any load: they belong to a session that has ended.

        Nothing of the old session may stay on screen to be acted on (a ``d`` on an old
        row must never delete on the new server).
        """
        self._stop_wait()
        for worker in self._loads():
            worker.cancel()
        self._load_number += 1  # nor does a load of the old session, even if it goes on
        self._drop_arrived()  # and no more of its rows arrive to show
        self._end_load()
        self._stop_decoding()
        self.error = None
        self.loaded_once = False
        self._changes = ""  # the old session's last reload
        self.end_deleting(list(self.deleting))  # the new session's objects are others
        self._loaded_at = None  # ... and the age of its rows
        self._whole = None
        self._paging = None
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        self.table.set_data([], [])
        show(self._count, "")
        self._show_problem(note or None)

    async def _load_deferring(self, highlight: Callable[[Any], bool] | None) -> None:
        """:meth:`_load`, with the collector's collections deferred until the tabs have
        settled after it, whatever its outcome (see
        :func:`~tokensales_tui.api.models.collections_deferred`)."""
        try:
            with collections_deferred():
                await self._load(highlight)
        finally:
            if self.is_attached:
                self.set_timer(SETTLE_DELAY, self._settle)

    async def _load(self, highlight: Callable[[Any], bool] | None = None) -> None:
        table = self.table
        self._load_number += 1
        number = self._load_number
        # What a load replaced but did not end, having ended otherwise (see _end_load).
        self._end_tail()
        self._stop_process()
        # A reload keeps the rows in view (the count line says it is loading): only a
        # tab with nothing to show yet shows the loading overlay.
        table.loading = not table.total_count
        self._loading, self._body_done = True, False
        if self._problem_of == "load":  # "press r" has been answered; its rows are going
            self._show_problem(None)
        self._update_count()
        self._stop_decoding()
        before: list[Sequence[Any]] = [table.rows] if table.rows is self._whole else []
        if table.total_count > EMPTY_BEFORE_RELOAD:
            # Two copies of a list this long may not fit in memory: let the old one go.
            before.clear()
            self._whole = None
            table.set_data(table.columns, [])
            table.loading = True
        stop_watching = None
        if self.resource.arrives is not None and not table.total_count:
            # Nothing shown: show the rows as they arrive (a reload keeps the old ones).
            stop_watching = self._api().watch_rows(self.resource.arrives, self._rows_arriving)
            self._unwatch = stop_watching
        try:
            self._requesting += 1
            try:
                rows = await self._api().call(self.resource.load, shared=True)
                short = left_out(rows)  # entries of the list that could not be read
                paging = paging_of(rows)  # more on the server than the answer held
            finally:
                self._requesting -= 1
                if stop_watching is not None:
                    stop_watching()
                    if self._unwatch is stop_watching:
                        self._unwatch = None
            self._body_done = True  # the count line says "indexing…" from now on
            if len(rows) > OFF_LOOP_ROWS:  # long enough to be seen
                self._update_count()
            if self.resource is PAYOUTS:
                await self._while_indexed_elsewhere(rows)
                rows = await whole(rows, partial(between_steps, self))
                short = short or left_out(rows)
                extra = await self._extra_rows() if self._extra_rows else ()
                rows = await _off_loop(len(rows), payout_rows, rows, extra)
            indexer = await self._arrived_indexer(rows)
            if not self._rows_checked:
                # Nothing else decoded them all: here, before they are indexed or shown
                # whole; a row that does not fit fails the load, named.
                decoded = await whole(rows, partial(between_steps, self))
                if decoded is not rows:  # read whole from the spool after all
                    indexer, rows = None, decoded
                    short = short or left_out(rows)
            self._still_current(number)
            columns = self.resource.columns(rows)
            if indexer is not None:
                columns = list(indexer.columns)  # the columns shown while they arrived
                table.grow_rows()
            elif len(rows) > OFF_LOOP_ROWS and table.show_rows(columns, rows):
                # Shown already; measuring and indexing every row follows in a thread,
                # and a filter typed meanwhile waits for it (see _apply_filter).
                table.loading = False
                self._update_count()
                self._indexing = True
            try:
                prepared, changes = await _off_loop(
                    len(rows), self._prepare, columns, rows, before, indexer
                )
                extension = table.model.extension(prepared.index)
                if extension is not None:  # a filter typed while the rows arrived
                    prepared.matches = await _off_loop(len(rows), all_steps, extension)
            finally:
                self._indexing = False
            self._still_current(number)
        except ApiError as error:
            # A load ended by another hand is cancelled below, outside this handler: raised
            # in it, the cancellation would carry this error of a load that no longer
            # counts, and its frames past what lets go of ended work.
            if number == self._load_number:
                self.error = error
                self._stop_wait()
                self._drop_arrived()
                if isinstance(error, RateLimitedError) and error.retry_after:
                    self._hold_watch(error.retry_after)
                self._show_problem(
                    f"Loading {self.resource.title.lower()} failed:"
                    f" {error_said(error, self.screen)}",
                    of="load",
                )
                return
        finally:
            if number == self._load_number:  # else another load's state, or none's
                self._end_load()
        self._still_current(number)  # a load that failed after it was ended ends here
        self._loaded_at = self._tried_at  # loaded: the rows shown are as of now
        self._stop_wait()
        # The rest of a list some entries of which could not be read is shown, and the
        # line above it says which entries are left out and why, until the next load.
        listed = ITEMS if self.resource is PAYOUTS else self.resource  # payouts group items
        self._show_problem(short.summary(listed.nouns(2)) if short else None, of="load")
        self._paging = paging
        self.error = None
        self.loaded_once = True
        table.set_prepared(prepared)
        self._whole = table.rows
        table.set_filter(self.filter_input.value)  # typed while the rows were indexed
        if highlight is not None:
            table.move_cursor_to(highlight)
        if changes is not None:
            self._show_changes(changes)
        else:  # nothing compared (a first load, or a list too long to keep twice)
            self._changes = ""
        if self._rows_checked and isinstance(rows, ArrivingRows):
            if rows.whole and rows.failed is None:
                rows.close()  # every row drawn or read already
            else:
                self._decoding = True  # the count line says so from this frame on
                self._decode_worker = self.run_worker(
                    self._decode_rest(rows), group="decode", exit_on_error=False
                )
        self._update_count()

    def _still_current(self, number: int) -> None:
        """Go on only if the load numbered ``number`` is still the tab's: one ended by
        another hand (escape, a profile switch, a load that replaced it) ends here as
        cancelled, should its cancellation have been lost on the way (a wait that
        swallowed it: see :mod:`.cancelling`). Its rows, from another session maybe,
        are never shown.

        Raises:
            asyncio.CancelledError: The load was ended by another hand.
        """
        if number != self._load_number:
            log.warning("a load of %s went on after it was ended", self.resource.key)
            raise asyncio.CancelledError

    def _end_load(self) -> None:
        """Reset what a load in progress holds: it has ended (or was ended by another
        hand, which resets it then, a load ended so never touching the tab again)."""
        self.table.loading = False
        self._loading = self._body_done = False
        self._arriving, self._arrival, self._indexer = None, None, None
        self._stop_at = None
        self._end_tail()  # done by now, unless the load failed or was cancelled
        self._stop_process()
        self._indexing = False
        self._tried_at = time.monotonic()
        self._update_count()

    async def _while_indexed_elsewhere(self, rows: Sequence[Any]) -> None:
        """Wait while another tab's load indexes ``rows`` (the Items tab's, of the same
        list, still arriving): its index processes are then busy on both processors, and
        decoding every row here meanwhile (5 s of the event loop at 1,000,000 items)
        would take one from them. Once that load ends, it decodes the rest anyway."""
        while (
            still_arriving(rows)
            and self.is_attached
            and any(
                tab is not self and tab._loading and tab.table.rows is rows
                for tab in self.screen.query(ResourceTab)
            )
        ):
            await asyncio.sleep(INDEXED_ELSEWHERE_WAIT)

    async def _decode_rest(self, rows: ArrivingRows) -> None:
        """Decode the rows of the load just shown that no one has read yet, a few
        stretches a step, keys and frames taking their turns between two: the index
        processes have decoded each of them already, so the load did not wait for it
        (filter and sort answer from the index). Until it is done, the count line
        says the list is loading, and what reads every row waits for it, and says so
        (:meth:`BrowseScreen._waits_for_rows`)."""
        self._decoding = True
        try:
            with collections_deferred():
                # Where a stretch does not fit, the whole body is read, which names the
                # misfit (or, where a stretch failed here alone, reads it after all).
                read = await rows.decoded(partial(between_steps, self))
            if read is not rows:
                raise ValueError("a stretch the index processes read failed here")
        except Exception as error:  # each row decoded in a process: a bug, or the disk
            log.error("decoding the rows of %s", self.resource.key, exc_info=error)
            problem = error.message if isinstance(error, ApiError) else "some rows are blank"
            failed = f"Loading {self.resource.title.lower()} failed: {problem}"
            self._show_problem(self._with_key(failed, "to load again"), of="load")
        finally:
            self._decoding = False
            if self.is_attached:
                self._update_count()

    def _stop_decoding(self) -> None:
        """Stop decoding the rows of the last load (a new one replaces them)."""
        worker, self._decode_worker = self._decode_worker, None
        self._decoding = False  # a worker cancelled before it began ends no wait
        if worker is not None and worker.is_running:
            worker.cancel()

    def _settle(self) -> None:
        """Set aside what the load left (:func:`settle_collections`) once no tab loads or
        indexes: the collection holds the event loop for a while (80-110 ms with
        1,000,000 items on a slow machine), which a list arriving meanwhile would show as
        a frozen frame. Until then, asked again every :data:`SETTLE_DELAY` seconds."""
        if not self.is_attached:
            return
        if self._any_tab_busy():
            self.set_timer(SETTLE_DELAY, self._settle)
            return
        settle_collections()
        if self._walk_timer is None:
            self._walk_timer = self.set_timer(SETTLE_DELAY, self._walk_everything)

    def _walk_everything(self) -> None:
        """Once no tab loads or indexes and no key or click came for
        :data:`QUIET_BEFORE_WALK` seconds, count what the settles set aside and walk it
        all if it has grown enough (:func:`everything_due`, :func:`walk_everything`):
        the count is a pause too. Until then, asked again every :data:`SETTLE_DELAY`
        seconds (one such question at a time per tab)."""
        self._walk_timer = None
        if not self.is_attached:
            return
        quiet = getattr(self.app, "quiet_for", None)
        if self._any_tab_busy() or (quiet is not None and quiet() < QUIET_BEFORE_WALK):
            self._walk_timer = self.set_timer(SETTLE_DELAY, self._walk_everything)
            return
        if everything_due():
            walk_everything()

    def _any_tab_busy(self) -> bool:
        return any(
            tab._loading or tab._indexing or tab._decoding for tab in self.screen.query(ResourceTab)
        )

    def _rows_arriving(self, arrival: StreamedList) -> None:
        """Show the rows of a list whose body still arrives (``arrival.rows`` grows in place).

        They show unindexed; a filter typed meanwhile has them indexed a slice at a time
        on the event loop (:meth:`_index_arrived`) and applies to the rows indexed so
        far; a sort is computed once the whole index is there. Once there are many, a
        process of their own may index them all (:meth:`_index_in_process`).
        """
        table = self.table
        rows = arrival.rows
        if not self.is_mounted or not rows:
            return
        if arrival.ended:
            self._body_done = True  # what is left (decoding, indexing) is "indexing…"
        now = time.monotonic()
        if rows is self._arriving:
            if now - self._grown_at >= GROW_EVERY or arrival.ended:
                self._grown_at = now
                table.grow_rows()
                self._update_count()
        else:
            shown = self._arrival
            if shown is not None and shown.spool.closed:
                # A retry's rows: the try whose rows are shown failed, and its spool is
                # closed. They go, and these take their place (the watch goes on).
                self._let_arrived_go()
            columns = self.resource.columns(rows)
            if table.total_count or not table.show_rows(columns, rows):
                return  # rows already shown, or a filter or sort that needs the index
            self._arriving, self._arrival = rows, arrival
            self._grown_at, self._shown_at = now, 0.0
            self._arrival_clock = Clock.now()
            self._indexer = table.model.indexer(columns)
            self._body_read = asyncio.Event()
            # No filter may build an index of a partial list: the first slice indexed is
            # awaited, then a filter applies to the rows indexed so far.
            self._indexing = True
            table.loading = False
            self._update_count()
            if self.filter_input.has_focus:
                self._index_ahead()  # "/" came before the rows
        if self._process is not None and arrival.ended:
            self._process.end(arrival.length)
        self._index_arrived()

    def _index_arrived(self) -> None:
        """Index the rows that arrived since the last slice, once a filter is typed (it
        applies to the rows indexed so far): on the event loop, a few dozen rows a
        step, like the decoding of the body. A thread would take the interpreter from
        the reading at every read of the socket (each read waits for the thread's turn
        to end); on the loop the indexing costs its own time only.

        Not before a filter is typed (but for the first slice, once the filter has the
        focus: :meth:`_index_ahead`): the reading and decoding share this interpreter,
        and unfiltered, the rows are indexed once they have all arrived. Past
        :data:`INDEX_PROCESS_FROM` rows, a process of their own may index them instead
        (:meth:`_process_due`).
        """
        worker, arrival = self._index_worker, self._arrival
        if self._indexer is not None and self._by_process:
            self._show_from_process(self._indexer)  # the index process indexes them
            return
        if self._indexer is None or arrival is None:
            return
        if self._process_worker is None and self._process_due(arrival):
            self._start_index_process(arrival)
            return
        if worker is not None and worker.is_running:
            return
        if not self.filter_input.value:
            return
        indexer, rows = self._indexer, self._arriving
        if rows is None or indexer.count >= len(rows):
            return  # every row arrived is indexed
        # The first slice in the key's own turn (unless indexed once the filter had the
        # focus): the frame after it shows the rows the filter finds among them
        # (started in a worker, a frame could come between, and the key's wait for the next).
        first = self._index_first(indexer) is True
        self._index_worker = awaited(  # by the load, which reads its failure
            self.run_worker(
                self._index_arriving(indexer, drawn_first=first), group="index", exit_on_error=False
            )
        )

    def _index_ahead(self) -> None:
        """The filter has the focus while a list arrives: index the first slice after the
        next frame, so that the first key typed only filters it (the first slice, a few
        milliseconds, would otherwise be indexed in the key's own turn)."""
        indexer = self._indexer
        if indexer is not None and self._indexing and not indexer.count and not self._by_process:
            self.call_after_refresh(self._index_first, indexer)

    def _index_first(self, indexer: RowsIndexer) -> bool | None:
        """Index the first :data:`INDEX_FIRST` rows arrived with ``indexer`` (if none yet)
        and show them filtered for the text typed; what :meth:`_show_slice` returns, or
        None when there was nothing to do."""
        rows = self._arriving
        if rows is None or indexer is not self._indexer or indexer.count:
            return None
        if not self.is_mounted or self.table.rows is not rows:
            return None
        worker = self._index_worker
        if self._by_process or (worker is not None and worker.is_running):
            return None
        indexer.add(rows, INDEX_FIRST)
        return self._show_slice(indexer, rows)

    async def _index_arriving(self, indexer: RowsIndexer, drawn_first: bool = False) -> None:
        rows = self._arriving
        if drawn_first:
            await self._drawn()  # the key's frame first, then the next slices
        else:
            await between_steps(self)  # a key that started this one: its frame first
        # After the first slice, small for the filter's first frame, the next ones
        # double, with no wait between them, up to INDEX_STEP.
        step = 2 * INDEX_FIRST if indexer.count <= INDEX_FIRST else INDEX_STEP
        while rows is not None and self._indexer is indexer and indexer.count < len(rows):
            stop = min(len(rows), indexer.count + step)
            growing, step = step < INDEX_STEP, min(2 * step, INDEX_STEP)
            # Every step of a slice is taken (one left halfway would leave the indexer's
            # numbering ahead of its index); a cancelled worker's indexer is let go.
            for _ in indexer.steps(rows, stop, INDEX_ON_LOOP):
                await between_steps(self)
            shown = self._show_slice(indexer, rows)
            if shown is None:
                return
            # Each slice copies the references of those before (a new index, so that
            # one handed out stays whole): slices of a few rows would add up.
            if shown and not growing:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._body_read.wait(), INDEX_EVERY)

    def _show_slice(self, indexer: RowsIndexer, rows: Sequence[Any]) -> bool | None:
        """Filter the rows ``indexer`` has indexed so far for the text typed; whether it
        did (not behind the rows a failed index process had indexed), or None when the
        rows or the indexer are no longer the tab's."""
        index = indexer.index
        if self._indexer is not indexer or self.table.rows is not rows:
            return None
        if index.count < self.table.model.partial_count:
            return False
        self._indexing = False
        self.table.show_indexed(index, self.filter_input.value)
        self._update_count()
        return True

    async def _drawn(self) -> None:
        """Wait (at most :data:`FIRST_FRAME_WAIT`) for the screen to be drawn as it is."""
        drawn = asyncio.Event()
        self.call_after_refresh(drawn.set)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(drawn.wait(), FIRST_FRAME_WAIT)

    def _process_due(self, arrival: StreamedList) -> bool:
        """Whether the rows arriving are to be indexed by a process of their own.

        Past :data:`INDEX_PROCESS_FROM` rows, when the processors leave it one of its own
        (with two, once a filter is typed: it shares them with the reading, which then
        slows down, but indexing for the filter on the event loop would slow it more; or
        when the reading leaves a processor idle: :func:`.room.reading_has_room`;
        otherwise the list is indexed once it has arrived).
        """
        if len(arrival.rows) < INDEX_PROCESS_FROM:
            return False
        from . import index_process  # not at start-up: a few milliseconds

        processors = index_process.processors()
        if arrival.ended:
            # Items counted as they arrived are left undecoded: a long list is indexed
            # from the spool by two processes (see _index_tail), which decode every row.
            return (
                processors >= 2 and len(arrival.rows) >= TAIL_FROM and still_arriving(arrival.rows)
            )
        return processors > 2 or (
            processors == 2
            and (
                bool(self.filter_input.value)
                or (
                    self._arrival_clock is not None
                    and reading_has_room(self._arrival_clock, Clock.now())
                )
            )
        )

    async def _index_in_process(
        self, arrival: StreamedList, columns: Sequence[Column] | None = None
    ) -> list[RowsIndexer]:
        """Index the rows arriving in a process of their own (:mod:`.index_process`);
        the indexer of them all once the body has ended (or of those before
        ``_stop_at``, the rest being a second process's: see :meth:`_index_tail`), in a list for the load to
        take it out of, or an empty list when the process failed: the load then indexes
        the list itself, and until then a filter typed has the rows indexed on the
        event loop again, from the first. (A worker's result lives as long as the
        worker, which every timer and task started while it ran keeps alive.)

        The indexer is a new one: the process numbers the other fields' texts from the
        first row. Its index takes the place of one built on the event loop for a filter
        typed earlier once it holds as many rows. Given ``columns`` (the body has ended:
        see :meth:`_index_tail`), it is the load's alone, and a failure is the load's.
        """
        if columns is None:
            indexer = self._indexer
            if indexer is None or arrival.rows is not self._arriving:
                return []
            indexer = self._indexer = self.table.model.indexer(indexer.columns)
        else:
            indexer = self.table.model.indexer(columns)
        self._by_process, self._process_indexer = True, indexer
        try:
            indexed = await self._take_from_process(arrival, indexer)
        finally:
            self._by_process, self._process_indexer = False, None
        if (
            indexed is None
            and columns is None
            and self._indexer is indexer
            and arrival.rows is self._arriving
        ):
            self._indexer = self.table.model.indexer(indexer.columns)
            self._index_arrived()
        return [] if indexed is None else [indexed]

    async def _take_from_process(
        self, arrival: StreamedList, indexer: RowsIndexer
    ) -> RowsIndexer | None:
        from . import index_process

        try:
            process = await index_process.IndexProcess.start(
                index_process.setup_for(arrival, self.resource.key, indexer.columns)
            )
        except OSError as error:
            log.info("no index process (%s): the tab indexes the list", error)
            return None
        self._process = process
        try:
            if arrival.ended:
                process.end(arrival.length)
            while isinstance(
                message := await process.receive(INDEX_PROCESS_QUIET), index_process.Piece
            ):
                # A piece of 16,384 rows or more takes some 10 ms to split and 10 ms to
                # add, a look at its rows for the filter up to 30 ms, and a young
                # collection may come in any of them: each is a step of its own, keys
                # and frames have their turns between them.
                piece = index_process.as_index_piece(message)
                await between_steps(self)
                stop = self._stop_at
                if stop is not None:  # the second process indexes the rows from there on
                    if piece.start >= stop:
                        break
                    piece = piece.cut(stop)
                indexer.take(piece, message.measures)
                del piece
                await between_steps(self)
                if self.table.rows is not arrival.rows:  # other rows shown since
                    return None
                self._show_from_process(indexer)
                await between_steps(self)
                if stop is not None and indexer.count >= stop:
                    break
        except Exception as error:  # a piece that does not fit (ValueError), or a bug
            log.info("index process: %s", clean_line(f"{type(error).__name__}: {error}"))
            return None
        finally:
            self._process = None
            await process.close()
        stop = self._stop_at
        if stop is not None and indexer.count == stop < len(arrival.rows):
            return indexer  # the rest is the second process's
        if isinstance(message, index_process.Done) and message.count == indexer.count == len(
            arrival.rows
        ):
            return indexer
        # Its reason may quote the body: text from the server, kept to one clean line.
        log.info("index process: %s", clean_line(repr(message)))
        return None

    def _show_from_process(self, indexer: RowsIndexer) -> None:
        """Filter the rows the index process has indexed so far for the text typed.

        Each showing hands the index out, and the next piece makes a new one (a copy of
        the references to its texts): at most one every :data:`INDEX_EVERY`. Past
        :data:`SHOW_AT_ONCE` rows indexed since the last, the filter is looked for in
        them :data:`SCAN_STEP` rows a step, and the index shown after: once the body
        has ended, the process sends pieces faster than they were shown, and looking at
        200,000 rows at once held the event loop for 50 ms. (In a thread, the thread's
        start alone waited as long, for the thread indexing the last rows to hand the
        interpreter over.) The steps stop once the filter or the rows changed.
        """
        now = time.monotonic()
        if not self.filter_input.value or now - self._shown_at < INDEX_EVERY:
            return
        model = self.table.model
        if not indexer.count or indexer.count < model.partial_count:
            return  # behind the rows indexed on the event loop before it started
        if self._extending is not None and self._extending.is_running:
            return
        self._shown_at = now
        index = indexer.index
        steps = model.extension(index, more_than=SHOW_AT_ONCE, step=SCAN_STEP)
        if steps is None:
            self._show_index(index)
            return
        self._extending = self.run_worker(
            self._show_extended(index, steps), group="index", exit_on_error=False
        )

    async def _show_extended(self, index: SearchIndex, steps: Iterator[Extension | None]) -> None:
        """Show ``index`` once ``steps`` have looked for the filter in its new rows, a
        turn of the event loop between two; nothing if the steps stopped (the filter or
        the rows changed meanwhile: the next piece shows them)."""
        found = None
        for found in steps:
            if found is None:
                await between_steps(self)
        if found is None or self.table.rows is not self._arriving:
            self._shown_at = 0.0
            return
        self._show_index(index, found)

    def _show_index(self, index: SearchIndex, found: Extension | None = None) -> None:
        self._indexing = False
        self.table.show_indexed(index, self.filter_input.value, found)
        self._update_count()

    async def _arrived_indexer(self, rows: Sequence[Any]) -> RowsIndexer | None:
        """The indexer of ``rows`` if they are the rows shown while they arrived, once it
        is idle (the rest is for the load to index). Where index processes indexed them
        all, each decoded every row it indexed, with the same decoder, and
        :attr:`_rows_checked` says so: the rows need not be decoded here before they are
        shown whole (see :meth:`_decode_rest`)."""
        self._rows_checked = False
        tail = self._index_tail(rows)
        indexer, self._indexer = self._indexer, None
        self._body_read.set()  # no more waiting between slices: the load indexes the rest
        worker = self._index_worker
        if worker is not None:
            try:
                await wait_for_worker(worker)
            except (WorkerCancelled, WorkerFailed):
                indexer = None
        process_worker = self._process_worker
        if process_worker is not None:
            try:
                indexed = await wait_for_worker(process_worker)
                indexer = indexed.pop() if indexed else None
            except (WorkerCancelled, WorkerFailed):
                indexer = None
        self._stop_extending()  # the load looks for the filter in the whole index itself
        if indexer is None or rows is not self._arriving or self.table.rows is not rows:
            if tail is not None:
                self._end_tail()
            return None
        if process_worker is None:
            return indexer
        if tail is not None:
            indexer = await self._with_tail(indexer, tail, rows)
        self._rows_checked = indexer is not None
        return indexer

    def _index_tail(
        self, rows: Sequence[Any]
    ) -> asyncio.Future[tuple[list[IndexPiece], Any]] | None:
        """Once the body of a long list has ended, have a second index process index its
        last rows, and the first (the one running, or a new one) the others, so that
        both processors work until the index is whole: a process alone indexed
        1,000,000 items for 10 s after their body had ended, with the other processor
        idle. (A thread of this process did it before: it decoded its rows again in
        this interpreter, at half a process's pace, and took its turns from the event
        loop.) The second reads the rows from the first stretch past the cut in the
        spool (:meth:`~.arriving.ArrivingRows.cut_at`). The pieces it makes, for
        :meth:`_with_tail`; None where the list is indexed as before (a short list,
        rows not counted as they arrived, one processor, a process that failed).
        """
        arrival, indexer, worker = self._arrival, self._indexer, self._process_worker
        if (
            arrival is None
            or indexer is None
            or not arrival.ended
            or rows is not self._arriving
            or self.table.rows is not rows
            or not isinstance(rows, ArrivingRows)
            or (worker is not None and not worker.is_running)  # done, or failed
        ):
            return None
        from . import index_process

        if index_process.processors() < 2:
            return None
        # The process's pieces go on from there (none yet: from the first row).
        taken = self._process_indexer
        done = taken.count if worker is not None and taken is not None else 0
        left = len(rows) - done
        cut = rows.cut_at(len(rows) - int(left * TAIL_SHARE)) if left >= TAIL_FROM else None
        if cut is None:
            return None
        self._stop_at = cut[0]
        columns = indexer.columns
        if worker is None:
            self._start_index_process(arrival, columns)
        setup = index_process.setup_for(arrival, self.resource.key, columns, cut)
        self._tail = tail = asyncio.ensure_future(_tail_from_process(setup, len(rows)))
        tail.add_done_callback(_retrieved)  # one let go may have failed: no warning
        return tail

    def _start_index_process(
        self, arrival: StreamedList, columns: Sequence[Column] | None = None
    ) -> None:
        """Index the rows arriving in a process (see :meth:`_index_in_process`)."""
        self._process_worker = awaited(  # by the load, which reads its failure
            self.run_worker(
                self._index_in_process(arrival, columns), group="index", exit_on_error=False
            )
        )

    def _end_tail(self) -> None:
        """Stop the process indexing the last rows, if it runs (its pieces are let go)."""
        tail, self._tail = self._tail, None
        if tail is not None:
            tail.cancel()

    async def _with_tail(
        self,
        indexer: RowsIndexer,
        tail: asyncio.Future[tuple[list[IndexPiece], Any]],
        rows: Sequence[Any],
    ) -> RowsIndexer | None:
        """``indexer`` (the process's, up to the tail) with the tail's pieces taken, in a
        thread; None when either failed (the load then indexes the list itself)."""
        if indexer.count != self._stop_at:
            self._end_tail()
            return None
        await asyncio.wait([tail])  # stopped by _end_tail: no error of the load's own
        if tail.cancelled():
            return None
        try:
            pieces, measures = tail.result()
        except (OSError, ValueError) as error:  # the load indexes the list itself
            log.info("indexing the last rows of %s: %s", self.resource.key, error)
            return None
        except Exception:  # a bug in indexing: the load indexes the list, and says so
            log.exception("indexing the last rows of %s", self.resource.key)
            return None
        try:
            await asyncio.to_thread(indexer.take_apart, pieces, measures)
        except ValueError:  # pieces that do not follow: the load indexes the list
            log.exception("adding the last rows of %s", self.resource.key)
            return None
        if indexer.count != len(rows) or self.table.rows is not rows:
            return None  # ended early (the load is over), or other rows shown since
        return indexer

    def _drop_arrived(self) -> None:
        """A load that ends without its list: the rows shown as they arrived go too."""
        unwatch, self._unwatch = self._unwatch, None
        if unwatch is not None:
            unwatch()  # nor do more of them show before its cancellation reaches it
        self._let_arrived_go()

    def _let_arrived_go(self) -> None:
        """The rows shown as they arrived go, with what indexes them."""
        if self._arriving is not None and self.table.rows is self._arriving:
            self.table.set_data(self.table.columns, [])
        worker, self._index_worker = self._index_worker, None
        if worker is not None and worker.is_running:
            worker.cancel()
        self._arriving, self._arrival, self._indexer = None, None, None
        self._stop_process()

    def _stop_process(self) -> None:
        """Stop indexing the rows that arrived in another process, if it runs."""
        worker, self._process_worker = self._process_worker, None
        if worker is not None and worker.is_running:
            worker.cancel()  # which ends the process
        self._stop_extending()

    def _stop_extending(self) -> None:
        """Stop looking for the filter in the rows the process indexed (see
        :meth:`_show_from_process`)."""
        worker, self._extending = self._extending, None
        if worker is not None and worker.is_running:
            worker.cancel()

    def _prepare(
        self,
        columns: Any,
        rows: Sequence[Any],
        before: list[Sequence[Any]],
        indexer: RowsIndexer | None = None,
    ) -> tuple[PreparedRows, Changes | None]:
        """The rows measured and indexed, and what changed since ``before`` (may run in a thread).

        The old rows are let go of here, so a thread frees them, not the event loop.
        """
        prepared = self.table.prepare(columns, rows, indexer)
        if not before:
            return prepared, None
        old = before.pop()
        changes = diff_rows(old, rows, self.resource.identity, row_content)
        del old
        return prepared, changes

    def _show_changes(self, changes: Changes) -> None:
        added, removed, modified = changes.added, changes.removed, changes.modified
        parts = [f"+{added:,}" if added else "", f"−{removed:,}" if removed else ""]
        if modified:
            parts.append(f"{modified:,} changed")
        self._changes = " ".join(part for part in parts if part)
        self.table.show_changed(changes.changed)
        if self._flash_timer is not None:
            self._flash_timer.stop()
        self._flash_timer = self.set_timer(FLASH_SECONDS, self._end_flash)

    def _end_flash(self) -> None:
        self._flash_timer = None
        self.table.show_changed(set())

    # --- watching ------------------------------------------------------------------

    def toggle_watch(self, interval: float | None = None) -> bool:
        """Start or stop reloading on a timer; True when watching now."""
        if interval is not None:
            self.watch_interval = interval
        self.watching = not self.watching
        if self.watching:
            self._watch_timer = self.set_interval(1.0, self._watch_tick)
            self._watch_tick()
        elif self._watch_timer is not None:
            self._watch_timer.stop()
            self._watch_timer = None
        self._update_count()
        return self.watching

    def watch_paused(self) -> bool:
        """Whether watching waits: the tab is out of view, or a dialog or form is over it."""
        pane = self.parent
        in_view = pane is not None and pane.display
        return not in_view or not self.is_attached or self.app.screen is not self.screen

    def _hold_watch(self, seconds: float) -> None:
        """No watched reload for ``seconds`` (the server asked us to wait)."""
        self._not_before = max(self._not_before, time.monotonic() + seconds)

    def _watch_tick(self) -> None:
        self._update_count()  # "updated 3 s ago"
        if not self.watching or self._loading or self.watch_paused():
            return
        now = time.monotonic()
        due = (self._tried_at or 0.0) + self.watch_interval
        if now >= max(due, self._not_before):
            self.reload()

    def show_wait(
        self, reason: str, seconds: float, asked: str = "", capped_from: float | None = None
    ) -> None:
        """Count down, in the problem line, the wait before the client tries again.

        A watched tab waits as long as the server asked (``capped_from``), not the cap.
        """
        self._wait_until = time.monotonic() + seconds
        self._hold_watch(capped_from if capped_from is not None else seconds)
        note = f" (the server asked for {asked}; waiting at most {seconds:.0f} s)" if asked else ""
        self._wait_reason = f"{reason}{note}"
        if self._wait_timer is None:
            self._wait_timer = self.set_interval(0.25, self._tick_wait)
        self._tick_wait()

    def _tick_wait(self) -> None:
        left = self._wait_until - time.monotonic()
        if left <= 0:
            self._stop_wait()
            return
        stops = hint(self.screen, "escape", "stops waiting")
        self._show_problem(
            f"{self._wait_reason} — trying again in {math.ceil(left)} s"
            + (f" ({stops})" if stops else ""),
            of="wait",
        )

    def _stop_wait(self) -> None:
        """End the countdown, and its line: the request is tried again (or not at all)."""
        if self._wait_timer is not None:
            self._wait_timer.stop()
            self._wait_timer = None
        if self._problem_of == "wait":
            self._show_problem(None)

    def _with_key(self, text: str, what: str) -> str:
        """``text`` — press KEY ``what``, with the key that reloads here, if one does."""
        again = press(self.screen, "refresh", what)
        return f"{text} — {again}" if again else text

    def _show_problem(self, text: str | None, of: Literal["", "load", "wait"] = "") -> None:
        """Say ``text`` on the problem line (None: nothing); ``of`` says whose it is (see
        :attr:`_problem_of`)."""
        self._problem_of = of if text else ""
        problem = self._problem
        show(problem, line(text) if text else "")
        problem.set_class(bool(text), "-shown")

    @property
    def count_unknown(self) -> bool:
        """Whether the tab cannot say how many objects there are: its load failed or was
        cancelled, and it has no rows loaded before (those it keeps, and their count)."""
        return (
            not self.loaded_once
            and not self._loading
            and not self.table.total_count
            and (self.error is not None or self._problem_of == "load")
        )

    def _update_count(self) -> None:
        table = self.table
        shown, total = table.shown_count, table.total_count
        unknown = self.count_unknown
        message = f"{self.resource.title} {NOT_LOADED}" + WHY if unknown else EMPTY_MESSAGE
        if table.model.empty_message != message:
            table.model.empty_message = message
            table.refresh()
        if self._loading and not total:
            # Nothing shown yet, or a long list's rows let go before its reload (see
            # EMPTY_BEFORE_RELOAD): no count to give ("0 items"), only that it comes.
            text = INDEXING if self._body_done else LOADING
        elif unknown:
            text = NOT_LOADED
        elif shown != total:
            text = f"{shown:,} of {total:,}"
        else:
            text = self.resource.counted(total)
        if self._paging is not None and not unknown:
            text += f" · {self._paging.counted}"  # the list is one answer, not all there is
        scope = table.model.scope
        if scope is not None:
            text += f" · {scope.label}"
        if table.marked_count:
            text += f" · {table.marked_count:,} marked"
        if self.deleting:
            text += f" · deleting {self.resource.counted(len(self.deleting))}…"
        if table.sort_column:
            label = next(
                (c.label for c in table.columns if c.key == table.sort_column), table.sort_column
            )
            text += f" · by {label} {'▼' if table.sort_reverse else '▲'}"
        if table.pending_sort is not None:
            key, reverse = table.pending_sort
            label = next((c.label for c in table.columns if c.key == key), key)
            text += f" · sorting by {label} {'▼' if reverse else '▲'}…"
        if (
            table.model.filtering
            or self.filter_input.value != table.filter_text
            or (table.filter_text and table.model.indexed_count < total)
        ):
            # Looked for still; or to be once the index is there; or in the rows indexed
            # so far of a list arriving, the others not yet.
            text += " · filtering…"
        if self._changes and self._loaded_at is not None:
            text += f" · {self._changes}"
        if self._loading and total:
            # Once the body is read, what is left is measuring and indexing its rows.
            text += f" · {INDEXING if self._body_done else LOADING}"
        elif self._decoding:  # indexed; some rows not decoded yet (what reads all waits)
            text += f" · {LOADING}"
        elif self.watching:
            held = self._not_before - time.monotonic()
            if self.watch_paused():
                text += " · watch paused"
            elif held > self.watch_interval:
                text += f" · watching, the server asked to wait {math.ceil(held):,} s"
            else:
                # The age of the rows shown: a reload that failed updated nothing.
                text += " · watching"
                if self._loaded_at is not None:
                    text += f", updated {int(time.monotonic() - self._loaded_at):,} s ago"
                if self.error is not None:
                    text += ", the last update failed"
        # The count line is as wide as its text, and a new width needs a layout of the
        # whole screen (10-20 ms on a slow machine). A filter's count changes at each key,
        # and the counts of a list arriving several times a second: while a filter is
        # typed (for the same total) or a list arrives, the line keeps the widest it has
        # been (right-aligned, the text only gains spaces before it).
        # While the body is read, the room of "indexing…", which comes next.
        more = (
            cell_len(INDEXING) - cell_len(LOADING) if self._loading and not self._body_done else 0
        )
        width = cell_len(text) + more
        if (total == self._count_of and table.filter_text) or self._loading:
            width = max(width, self._count_width)
        self._count_width, self._count_of = width, total
        room = width
        if self.filter_input.has_focus:
            # From the key that puts the cursor in the filter, the line has the room the
            # filter's count takes ("N of total", "filtering…"; while a list arrives, a
            # total as large as the client reads): the keys typed then lay nothing out,
            # as the total grows, and the key that gave the focus lays the screen out
            # once. Kept while the focus is there.
            most = f"{MAX_ROWS if self._loading else total:,}"
            room = cell_len(text) + more + cell_len(f"{most} of {most}")
            room -= cell_len(text.split(" · ")[0])
            if " · filtering…" not in text:
                room += cell_len(" · filtering…")
            # Not at the cost of the filter itself (at 80 columns, with a sort and marks
            # shown, that room left it none); the count's own text always shows.
            bar = self._count.parent.size.width if isinstance(self._count.parent, Widget) else 0
            if bar:
                room = min(room, bar - FILTER_ROOM - self._count.styles.gutter.width)
            room = max(room, width)
        show(self._count, line(" " * (room - cell_len(text)) + text))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        let_go_of_ended_work(event)  # a load or a decoding cancelled: its rows

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def _filter_focus(self, event: events.DescendantFocus | events.DescendantBlur) -> None:
        if event.widget is self.filter_input:
            self._update_count()
            if isinstance(event, events.DescendantFocus):
                self._index_ahead()

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()  # FilterInput has the table follow each change (or the last of a burst)

    def _apply_filter(self, text: str) -> None:
        # While a large list is being indexed in a thread, filtering would build the
        # index again on the event loop (a freeze of up to a second): the load applies
        # the filter when the index arrives.
        if not self.is_mounted:
            return
        if self._indexing:
            self._index_arrived()  # rows arriving: index them for the filter
        elif self.table.model.indexed_count <= FILTER_AT_ONCE:
            self.table.set_filter(text)
            if self._indexer is not None:
                self._index_arrived()  # the rows arrived since the first slice (_index_ahead)
        elif not self._filter_due:
            # A scan of this many rows takes longer than a frame: it runs in a thread,
            # keys typed meanwhile are taken, and only the text as it is then is looked for.
            self._filter_due = True
            self.run_worker(self._filter_in_thread(), group="filter", exit_on_error=False)
        if self.table.filter_text != text:
            self._update_count()  # says the filter is still to apply

    async def _filter_in_thread(self) -> None:
        try:
            while self.is_mounted and not self._indexing:
                text = self.filter_input.value
                job = self.table.model.filter_job(text)
                if job is not None:
                    found = await asyncio.to_thread(job.run)
                    self.table.model.take_matches(job, found)
                if text == self.filter_input.value:
                    self.table.set_filter(text)  # from the matches found, for these rows
                    return
        finally:
            self._filter_due = False

    @on(Input.Submitted)
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.filter_input.apply_change()
        self.table.focus()

    @on(ResourceTable.FilterChanged)
    @on(ResourceTable.SortChanged)
    @on(ResourceTable.MarksChanged)
    def _view_changed(self) -> None:
        self._update_count()

    def focus_filter(self) -> None:
        """Put the cursor in the filter."""
        self.filter_input.focus()

    def clear_filter(self) -> None:
        """Empty the filter, leave the scope, and return to the table."""
        self.filter_input.value = ""
        self.table.set_filter("")
        if self.table.model.scope is not None:
            self.table.set_scope(None)
        self.table.focus()

    def narrow_to(self, scope: Scope | None) -> None:
        """Show only the rows in ``scope`` (None: every row), the filter cleared."""
        self.filter_input.value = ""
        self.table.set_filter("")
        self.table.set_scope(scope)
        self._update_count()

    def show_progress(self, text: str | None) -> None:
        """Say in the problem line how a long action goes (None: it is over)."""
        self._show_problem(text)
        self._problem.set_class(bool(text), "-progress")

    def begin_deleting(self, ids: Sequence[str]) -> None:
        """Note that the objects of ``ids`` are being deleted, and show it: their rows
        get a mark in the margin, the count line says how many."""
        self.deleting |= set(ids)
        self._deleting_changed()

    def end_deleting(self, ids: Sequence[str]) -> None:
        """Note that the deletes of ``ids`` are over, whatever came of them."""
        self.deleting.difference_update(ids)
        self._deleting_changed()

    def _deleting_changed(self) -> None:
        self.table.show_deleting(self.deleting)
        if self.is_mounted:
            self._update_count()

    def remove_row(self, row: Any) -> None:
        """Drop ``row`` from the table after a delete, without reloading."""
        self.remove_rows([row])

    def remove_rows(self, removed: Sequence[Any]) -> None:
        """Drop rows from the table after deletes, without reloading."""
        if not removed:
            return
        table = self.table
        if still_arriving(table.rows):
            return  # the next load gives the list (each row read here would be decoded)
        gone = {id(row) for row in removed}
        whole = table.rows is self._whole
        rows = [r for r in table.rows if id(r) not in gone]
        if len(rows) <= OFF_LOOP_ROWS:
            table.set_data(table.columns, rows)
        elif not table.show_rows(table.columns, rows):
            return  # indexing a long list here would freeze the UI: the next load shows it
        self._whole = rows if whole else None
        self._update_count()
