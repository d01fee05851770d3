"""A long list arriving is indexed by a process of its own, to the index the tab would build.

The process reads the spool as it grows (:mod:`tokensales_tui.ui.index_process`); every
way it can fail leaves the tab to index the list itself.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import json
import os
import select
import time
from array import array
from typing import Any

import httpx
import pytest
from rich.cells import cell_len

from tokensales_tui import config
from tokensales_tui.api import Secret, listing, stream
from tokensales_tui.api import spool as spool_module
from tokensales_tui.api.arriving import ArrivingRows, still_arriving
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Item
from tokensales_tui.api.spool import Spool
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.emulator.state import Emulator
from tokensales_tui.session import Launch
from tokensales_tui.ui import index_process, room, running_time, tabs
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.index_process import Done, Failed, IndexProcess, Piece, Setup
from tokensales_tui.ui.resources import ITEMS
from tokensales_tui.ui.table.index import IndexPiece, SearchIndex
from tokensales_tui.ui.table.model import RowsIndexer, TableView, prepare_rows

from .apphelpers import EMULATOR_URL, Rigged, loaded, screen_text, wait_for
from .test_incremental_index import facts
from .test_rows_arrive import SIZE, HeldBody, half_arrived, item

JSON = "application/json"


def setup_of(spool: Spool, rows: list[Any], piece_rows: int = 4096) -> Setup:
    return Setup(
        fd=spool.fileno(),
        what="items",
        model="Item",
        resource="items",
        columns=[column.key for column in ITEMS.columns(rows)],
        status=200,
        content_type=JSON,
        piece_rows=piece_rows,
    )


async def indexed_by_process(
    process: IndexProcess, columns: Any, rows: list[Any]
) -> tuple[RowsIndexer, int, Any]:
    """Every piece the process sends, taken as the tab takes them."""
    indexer = RowsIndexer(columns, width=cell_len, other_fields=ITEMS.other_fields)
    pieces = 0
    while True:
        message = await process.receive(30)
        if not isinstance(message, Piece):
            return indexer, pieces, message
        indexer.take(index_process.as_index_piece(message), message.measures)
        if pieces % 2:
            assert indexer.index.count == message.start + message.count  # handed out: copied
        pieces += 1


async def test_the_process_indexes_a_growing_spool_as_the_tab_would() -> None:
    body = Emulator(seed=3, items=12_000).items_body()
    rows = ListParser(Item, "items", 200, JSON)(body)
    columns = ITEMS.columns(rows)
    spool = Spool()
    spool.append(body[:100_000])
    process = await IndexProcess.start(setup_of(spool, rows))

    async def arrive() -> None:
        # The rest in steps, written while the process reads; then the body's end.
        for start in range(100_000, len(body), 1_000_000):
            await asyncio.sleep(0.05)
            spool.append(body[start : start + 1_000_000])
        process.end(len(body))

    try:
        writing = asyncio.create_task(arrive())
        indexer, pieces, last = await indexed_by_process(process, columns, rows)
        await writing
    finally:
        await process.close()
    assert last == Done(len(rows))
    assert pieces > 1  # 4,096 rows or more a piece, as the spool grows
    whole = prepare_rows(columns, rows, width=cell_len, other_fields=ITEMS.other_fields)
    assert facts(indexer.prepared(rows)) == facts(whole)


async def test_a_second_process_indexes_the_rows_from_a_stretch_on_as_the_tab_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Once the body has ended, a process reads the elements from the first stretch past
    # a cut to the last one's end, as an array, and numbers its rows from there: the
    # tab takes its pieces after the first process's (RowsIndexer.take_apart).
    monkeypatch.setattr(stream, "SPLIT_BYTES", 16_384)
    body = Emulator(seed=5, items=6_000).items_body()

    async def pieces() -> Any:
        for start in range(0, len(body), 65_536):
            yield body[start : start + 65_536]

    # Counted as they arrive: watched, as the Items tab watches.
    arrival = listing.StreamedList(Item, "items", _Response(), lambda what, arrival: None)  # type: ignore[arg-type]
    await arrival.consume(pieces())
    rows = arrival.rows
    assert isinstance(rows, ArrivingRows) and not rows.whole
    cut = rows.cut_at(2_500)
    assert cut is not None
    first, offset, end = cut
    assert 2_500 <= first < 2_700 and body[offset : offset + 1] == b"{"
    assert body[end - 1 : end] == b"}" and body[end:].startswith(b"]")
    columns = ITEMS.columns(rows)
    setup = setup_of(arrival.spool, rows)
    setup.first_row, setup.offset, setup.end = first, offset, end
    process = await IndexProcess.start(setup)
    try:
        taken, last = [], None
        while isinstance(message := await process.receive(30), Piece):
            taken.append(index_process.as_index_piece(message))
            last = message.measures
    finally:
        await process.close()
    assert message == Done(len(rows)) and taken[0].start == first
    mine = RowsIndexer(columns, width=cell_len, other_fields=ITEMS.other_fields)
    mine.add(rows, first)
    mine.take_apart(taken, last)
    assert still_arriving(rows)  # the process read the spool: no row of the tab's decoded
    ours = mine.prepared(rows)
    whole = prepare_rows(columns, rows, width=cell_len, other_fields=ITEMS.other_fields)
    # The same but for the numbering of the other fields' texts (the second process
    # numbers those it sees first from 0, then follow the first's).
    assert facts(ours)[:5] == facts(whole)[:5]
    index, whole_index = ours.index, whole.index
    assert index.extra_ids is not None and whole_index.extra_ids is not None
    assert [index.extras[n] for n in index.extra_ids] == [
        whole_index.extras[n] for n in whole_index.extra_ids
    ]
    for text in ("edition", "polygon", "nothing like it"):
        assert list(index.match(text)) == list(whole_index.match(text)), text


class _Response:
    status_code = 200
    headers = {"content-type": JSON}


@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"data": {"items": [{"id": "a", "title": "b"}]}}).encode(),  # read whole
        b"<html>busy</html>",
        json.dumps([{"id": "a", "title": "b", "price": "cheap"}]).encode(),
    ],
)
async def test_a_body_the_tab_does_not_stream_as_is_fails_the_process(body: bytes) -> None:
    spool = Spool()
    spool.append(body)
    setup = setup_of(spool, [])
    setup.columns = [column.key for column in ITEMS.columns([])]
    process = await IndexProcess.start(setup)
    try:
        process.end(len(body))
        message = await process.receive(30)
    finally:
        await process.close()
    assert isinstance(message, Failed)


async def test_a_process_that_ends_without_a_word_is_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index_process.sys, "executable", "/bin/true")
    spool = Spool()
    process = await IndexProcess.start(setup_of(spool, []))
    try:
        message = await process.receive(30)
    finally:
        await process.close()
    assert isinstance(message, Failed)


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
async def test_the_pipe_from_the_process_holds_a_piece() -> None:
    # Through 64 KB, a piece took the app's event loop two dozen turns to read, and the
    # process waited meanwhile.
    with open("/proc/sys/fs/pipe-max-size") as limit:
        if int(limit.read()) < index_process.PIPE_BYTES:
            pytest.skip("this system keeps pipes smaller")
    process = await IndexProcess.start(setup_of(Spool(), []))  # waits for a body
    try:
        transport = process._process.stdout._transport  # type: ignore[union-attr]
        pipe = transport.get_extra_info("pipe").fileno()
        sizes = []
        for _ in range(100):  # set as the process starts
            sizes.append(fcntl.fcntl(pipe, fcntl.F_GETPIPE_SZ))
            if sizes[-1] >= index_process.PIPE_BYTES:
                break
            await asyncio.sleep(0.05)
    finally:
        await process.close()
    assert sizes[-1] >= index_process.PIPE_BYTES, sizes


async def test_a_process_that_sends_nothing_in_time_is_a_failure() -> None:
    spool = Spool()  # it waits for a body that never comes
    process = await IndexProcess.start(setup_of(spool, []))
    try:
        message = await process.receive(0.5)
    finally:
        await process.close()
    assert message == Failed("nothing in 0.5 s")


async def test_the_process_stops_and_continues_with_the_apps_process_group() -> None:
    # In a session of its own, it went on indexing while the app was stopped (ctrl+z),
    # and gave up after 30 s of a body that did not grow: the tab indexed the list again.
    process = await IndexProcess.start(setup_of(Spool(), []))
    try:
        assert os.getpgid(process._process.pid) == os.getpgrp()
    finally:
        await process.close()


async def test_the_time_the_app_was_stopped_does_not_count_as_the_process_s_silence() -> None:
    # The monotonic clock goes on while a process is stopped: back from a stop longer
    # than the wait, the wait was over at once, though the piece had come meanwhile.
    body = Emulator(seed=3, items=100).items_body()
    rows = ListParser(Item, "items", 200, JSON)(body)
    spool = Spool()
    spool.append(body)
    process = await IndexProcess.start(setup_of(spool, rows))
    process.end(len(body))
    try:
        transport = process._process.stdout._transport  # type: ignore[union-attr]
        pipe = transport.get_extra_info("pipe").fileno()
        receiving = asyncio.ensure_future(process.receive(0.5))
        await asyncio.sleep(0)  # its wait begun
        # The app stopped (its event loop held) until the piece is in the pipe and the
        # wait is over; then it runs again, as the driver says.
        assert select.select([pipe], [], [], 60)[0]
        time.sleep(0.6)
        running_time.continued()
        message = await receiving
    finally:
        await process.close()
    assert isinstance(message, Piece)


def test_a_piece_whose_parts_do_not_add_up_is_refused() -> None:
    # The tab then indexes the list itself (ValueError, see ResourceTab._take_from_process).
    with pytest.raises(ValueError, match="holds 1 lines"):
        index_process.as_index_piece(Piece(start=0, count=2, lines=b"a", measures=NO_MEASURES))
    with pytest.raises(ValueError, match="numbers 0"):
        index_process.as_index_piece(one_row(ids=b""))
    with pytest.raises(ValueError, match="not whole numbers"):
        index_process.as_index_piece(one_row(ends=b"\1\0\0"))
    for odd in ({"rows": ints(4)}, {"ends": ints(2)}, {"numbers": b""}, {"rows": ints(5, 5)}):
        with pytest.raises(ValueError, match="do not add up"):
            index_process.as_index_piece(one_row(**odd))
    fine = index_process.as_index_piece(one_row())
    assert fine.interned is not None and list(fine.interned[2].rows_of(0)) == [5]
    piece = index_process.as_index_piece(Piece(start=3, count=0, lines=b"", measures=NO_MEASURES))
    assert (piece.start, piece.lines) == (3, [])


def test_a_piece_naming_texts_the_index_has_not_is_refused() -> None:
    source = RowsIndexer(ITEMS.columns([]), width=cell_len, other_fields=ITEMS.other_fields)
    taker = RowsIndexer(ITEMS.columns([]), width=cell_len, other_fields=ITEMS.other_fields)
    for parts in ({"numbers": ints(1)}, {"ids": ints(1)}, {"numbers": ints(-1)}, {"ids": ints(-1)}):
        piece = index_process.as_index_piece(one_row(start=0, rows=ints(0), **parts))
        with pytest.raises(ValueError, match="outside the 1 known"):
            taker.take(piece, source.measures)
        assert taker.count == 0


NO_MEASURES: tuple[list[int], list[int], list[int]] = ([], [], [])


def one_row(start: int = 5, **parts: bytes) -> Piece:
    """A piece of one row (row ``start``) with one other-field text; ``parts`` in place
    of its fitting ones."""
    fitting = {"ids": ints(0), "numbers": ints(0), "ends": ints(1), "rows": ints(start)}
    return Piece(
        start=start, count=1, lines=b"a", measures=NO_MEASURES, texts=[b"x"], **{**fitting, **parts}
    )


def ints(*values: int) -> bytes:
    return array("i", values).tobytes()


def test_the_process_gets_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENSALES_API_SECRET", "s3cret")
    monkeypatch.setenv("TOKENSALES_API_KEY", "key")
    environment = index_process.environment()
    assert not [name for name in environment if name.startswith("TOKENSALES_")]
    assert environment["PATH"] == os.environ["PATH"]


def test_an_index_extended_keeps_answering_for_its_own_rows() -> None:
    # The lines list is shared and grows: the older index reads no further than its count.
    first = SearchIndex().extended(IndexPiece(0, [b"gold\x1fa", b"silver\x1fb"]))
    second = first.extended(IndexPiece(2, [b"gold\x1fc"]))
    assert second.lines is first.lines
    assert list(first.match("gold")) == [0] and list(second.match("gold")) == [0, 2]
    assert first.field(1) == [b"a", b"b"] and second.field(1) == [b"a", b"b", b"c"]
    third = first.extended(IndexPiece(2, [b"iron\x1fd"]))  # from the older one: a copy
    assert third.lines is not first.lines
    assert list(third.match("gold")) == [0] and list(second.match("gold")) == [0, 2]


@pytest.fixture
def process_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab starts an index process from 500 rows, which sends 300 rows a piece; the
    spool writes its file 16 KB at a time (so the process reads while it arrives), and
    the tab decodes and sees every row at once (so the process is never ahead of it).
    The reading leaves no room for a process unfiltered, as on a machine that serves
    the list itself (see room.READING_BUSY)."""
    monkeypatch.setattr(listing, "TELL_EVERY", 0)
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(tabs, "INDEX_PROCESS_FROM", 500)
    monkeypatch.setattr(index_process, "processors", lambda: 2)
    monkeypatch.setattr(index_process, "PIECE_ROWS", 300)
    monkeypatch.setattr(spool_module, "WRITE_BYTES", 16 * 1024)
    monkeypatch.setattr(room, "READING_BUSY", -1.0)


@pytest.mark.usefixtures("process_early")
@pytest.mark.parametrize("how", ["by a process", "the process fails", "one processor"])
async def test_a_long_list_is_indexed_by_a_process_while_it_arrives(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces: list[Piece] = []
    as_index_piece = index_process.as_index_piece

    def counted(piece: Piece) -> IndexPiece:
        pieces.append(piece)
        return as_index_piece(piece)

    monkeypatch.setattr(index_process, "as_index_piece", counted)
    # Otherwise the tab indexes the list itself.
    if how == "the process fails":
        monkeypatch.setattr(index_process.sys, "executable", "/bin/true")
    elif how == "one processor":
        monkeypatch.setattr(index_process, "processors", lambda: 1)
    fails = how != "by a process"
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, RowsIndexer)}  # not this test's
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await pilot.press("slash", *'"item 2')
        if not fails:  # the rows so far, from the process's pieces
            await wait_for(lambda: pieces and tab.table.model.partial_count > 0, pilot)
            assert not tab.loaded_once
            so_far = tab.table.model.partial_count
            assert tab.table.shown_count == sum(str(n).startswith("2") for n in range(so_far))
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == len(arrived.listed)
        assert tab.table.shown_count == 1111  # 2, 20-29, 200-299, 2000-2999
        assert bool(pieces) is not fails
        assert sum(piece.count for piece in pieces) == (0 if fails else len(arrived.listed))
        rows = tab.table.model.rows
        whole = prepare_rows(
            tab.table.columns, rows, width=cell_len, other_fields=ITEMS.other_fields
        )
        assert facts_of(tab.table.model.search_index()) == facts_of(whole.index)
        assert tab._process is None
        # Nothing holds the indexer, nor the index as it was, once the load took it: a
        # worker's result lives as long as any timer started while it ran.
        gc.collect()
        assert not [
            o for o in gc.get_objects() if isinstance(o, RowsIndexer) and id(o) not in before
        ]


@pytest.mark.usefixtures("process_early")
async def test_the_rows_a_process_indexed_are_looked_at_for_the_filter_a_step_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows the process indexed since the filter last looked are looked at a step at a
    time, a turn of the event loop between two steps (at once, 200,000 rows held the
    loop for 50 ms); the rows shown then are those the filter finds among them."""
    monkeypatch.setattr(tabs, "SCAN_STEP", 100)  # a piece of 300 rows: three steps
    monkeypatch.setattr(tabs, "SHOW_AT_ONCE", 100)
    monkeypatch.setattr(tabs, "INDEX_EVERY", 0.0)
    steps: list[int] = []
    shown: list[tuple[int, int, str]] = []
    extension = TableView.extension

    def counted(self: TableView, index: SearchIndex, more_than: int = 0, step: int = 0) -> Any:
        found = extension(self, index, more_than, step) if step else extension(self, index)
        if found is None or step != 100:
            return found

        def each() -> Any:
            for one in found:
                steps.append(index.count)
                yield one

        return each()

    show_index = tabs.ResourceTab._show_index

    def noted(self: tabs.ResourceTab, index: SearchIndex, found: Any = None) -> None:
        show_index(self, index, found)
        if found is not None:
            shown.append((index.count, self.table.shown_count, self.filter_input.value))

    # The process's pieces are taken once the filter is typed, each once the look for
    # the filter in the one before is done: every showing here has its steps.
    typed, tabs_seen = asyncio.Event(), []
    receive = IndexProcess.receive

    async def in_turn(self: IndexProcess, within: float) -> Any:
        await typed.wait()
        while any(t._extending is not None and t._extending.is_running for t in tabs_seen):
            await asyncio.sleep(0.005)
        return await receive(self, within)

    monkeypatch.setattr(TableView, "extension", counted)
    monkeypatch.setattr(tabs.ResourceTab, "_show_index", noted)
    monkeypatch.setattr(IndexProcess, "receive", in_turn)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        tabs_seen.append(tab)
        await pilot.press("slash", *'"item 2')
        typed.set()
        arrived.held.gate.set()  # the rest: pieces the filter typed is looked for in
        await wait_for(lambda: any(text == '"item 2' for *_, text in shown), pilot)
        count, shown_count, _ = next(one for one in shown if one[2] == '"item 2')
        assert shown_count == sum(str(n).startswith("2") for n in range(count))
        assert steps.count(count) >= 3
        await loaded(app, pilot, "items")
        assert tab.table.shown_count == 1111  # 2, 20-29, 200-299, 2000-2999


@pytest.mark.usefixtures("process_early")
@pytest.mark.parametrize(
    ("typed", "fails"), [(False, ""), (True, ""), (False, "both"), (False, "tail")]
)
async def test_once_the_body_has_ended_a_second_process_indexes_the_last_rows(
    typed: bool, fails: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unfiltered (two processors), a process is started once the body has ended, for the
    # first rows; typed, the one indexing the rows as they arrive goes on, if it is far
    # enough behind. Either stops where a second process, reading the spool from the
    # first stretch past the cut, begins. The load waits for neither to decode the rows
    # counted as they arrived: the processes decoded each, and the rest is decoded
    # once the rows are shown whole. Where a process fails, the load decodes and
    # indexes every row itself.
    monkeypatch.setattr(tabs, "TAIL_FROM", 1000)
    starts: list[int] = []  # where the second process began
    done: list[int] = []  # rows the first process had indexed then
    checked: list[bool] = []  # at the load's end: whether the processes decoded every row
    tail_from, index_tail = tabs._tail_from_process, tabs.ResourceTab._index_tail
    tabs_seen: list[Any] = []

    async def recorded(setup: Setup, count: int) -> Any:
        starts.append(setup.first_row)
        if fails == "tail":
            raise ValueError("no second process")
        return await tail_from(setup, count)

    def tail_of(tab: Any, rows: Any) -> Any:
        done.append(tab._process_indexer.count if tab._process_indexer is not None else 0)
        return index_tail(tab, rows)

    monkeypatch.setattr(tabs, "_tail_from_process", recorded)
    monkeypatch.setattr(tabs.ResourceTab, "_index_tail", tail_of)
    handed: list[int | None] = []  # how many rows the load had left to index: none
    prepare = tabs.ResourceTab._prepare

    def counted(tab: Any, columns: Any, rows: Any, before: Any, indexer: Any = None) -> Any:
        if tab.resource is ITEMS:
            handed.append(None if indexer is None else len(rows) - indexer.count)
            checked.append(tab._rows_checked)
        return prepare(tab, columns, rows, before, indexer)

    monkeypatch.setattr(tabs.ResourceTab, "_prepare", counted)
    if fails == "both":  # the load then indexes every row itself
        monkeypatch.setattr(index_process.sys, "executable", "/bin/true")
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        tabs_seen.append(tab)
        if typed:
            await pilot.press("slash", *'"item 2')
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        rows = tab.table.model.rows
        assert len(rows) == 3000
        left = 3000 - done[0]  # the process may be far ahead on a busy machine
        if not typed and fails != "both":
            # At the first stretch from the cut on (stretches of a few dozen rows here).
            cut = 3000 - int(left * tabs.TAIL_SHARE)
            assert len(starts) == 1 and cut <= starts[0] < cut + 100
        assert handed == [None if fails else 0]
        assert checked == [not fails]
        await wait_for(lambda: not still_arriving(rows) and not tab._decoding, pilot)
        assert tab.table.shown_count == (1111 if typed else 3000)
        whole = prepare_rows(
            tab.table.columns, rows, width=cell_len, other_fields=ITEMS.other_fields
        ).index
        index = tab.table.model.search_index()
        assert index.lines[: index.count] == whole.lines[: whole.count]
        assert index.extra_ids is not None and whole.extra_ids is not None
        assert [index.extras[n] for n in index.extra_ids] == [
            whole.extras[n] for n in whole.extra_ids
        ]
        for text in ("item 2", "free", "polygon", "nothing like it"):
            assert list(index.match(text)) == list(whole.match(text)), text
        assert tab._process is None and tab._stop_at is None and tab._tail is None


@pytest.mark.usefixtures("process_early")
async def test_the_payouts_tab_decodes_the_shared_list_once_the_items_tab_has_indexed_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Both tabs load the items (one request, shared). The Payouts tab needs every row
    # decoded; it waits while the Items tab's index processes have both processors.
    monkeypatch.setattr(tabs, "TAIL_FROM", 1000)
    asked: list[tuple[bool, bool]] = []  # when a load asked for every row: items loading, checked
    whole = tabs.whole
    items_tab: list[Any] = []

    async def spied(rows: Any, between: Any = None) -> Any:
        tab = items_tab[0]
        asked.append((tab._loading, tab._rows_checked))
        return await whole(rows, between)

    monkeypatch.setattr(tabs, "whole", spied)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        items_tab.append(tab)
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        payouts = app.browse.tab("payouts")
        await wait_for(lambda: payouts.loaded_once and not payouts._loading, pilot)
        assert asked and set(asked) == {(False, True)}
        rows = tab.table.model.rows
        assert not still_arriving(rows) and not rows._regions  # let go once decoded
        assert payouts.table.total_count > 0


@pytest.mark.usefixtures("process_early")
async def test_once_usable_the_rest_is_decoded_and_the_count_line_says_loading_until_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Index processes decoded every row: the tab is usable at once, and decodes the rest
    # after. Until then the count line says the list is loading, and what reads every
    # row waits, as while the body arrives.
    monkeypatch.setattr(tabs, "TAIL_FROM", 1000)
    held = asyncio.Event()
    decode_rest = tabs.ResourceTab._decode_rest

    async def held_back(self: Any, rows: Any) -> None:
        await held.wait()
        await decode_rest(self, rows)

    whole = tabs.whole

    async def whole_later(rows: Any, between: Any = None) -> Any:  # the Payouts tab's
        await held.wait()
        return await whole(rows, between)

    monkeypatch.setattr(tabs.ResourceTab, "_decode_rest", held_back)
    monkeypatch.setattr(tabs, "whole", whole_later)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        rows = tab.table.model.rows
        assert tab.table.model.index_ready and still_arriving(rows)
        await wait_for(lambda: "3,000 items · loading…" in screen_text(app), pilot)
        await pilot.press("slash", *'"item 29', "enter")
        await wait_for(lambda: tab.table.shown_count == 111, pilot)  # 29, 290s, 2900s
        await pilot.press("ctrl+a")  # in the table, which has the focus now
        await wait_for(
            lambda: any("mark all once it is in" in n.message for n in app._notifications), pilot
        )
        held.set()
        await wait_for(lambda: "loading…" not in screen_text(app), pilot)
        assert not still_arriving(rows) and not rows._regions
        await pilot.press("ctrl+a")
        await wait_for(lambda: tab.table.model.marked_in_view() == 111, pilot)


@pytest.mark.usefixtures("process_early")
async def test_rows_the_processes_read_that_fail_here_after_the_load_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Decoded by the index processes, a stretch failed when decoded here afterwards (the
    # disk, memory): its rows stand blank, and the tab says so rather than keep quiet.
    monkeypatch.setattr(tabs, "TAIL_FROM", 1000)
    decoded = ArrivingRows.decoded

    async def elsewhere(self: ArrivingRows, between: Any = None) -> Any:
        await decoded(self, between)
        return list(self)  # as the whole read gives, once a stretch failed here

    monkeypatch.setattr(ArrivingRows, "decoded", elsewhere)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab._rows_checked
        problem = "Loading items failed: some rows are blank — press r to load again"
        await wait_for(lambda: problem in screen_text(app), pilot)
        assert tab.table.total_count == 3000 and not tab._decoding


@pytest.mark.usefixtures("process_early")
@pytest.mark.parametrize("misfit", [100, 2600])
async def test_an_element_that_does_not_fit_is_left_out_though_processes_index_it(
    misfit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The load takes the rows undecoded only where the index processes decoded them all:
    # an element either cannot decode fails its process, and the load then decodes the
    # rows itself, which leaves it out and names it (in the first process's rows, or
    # the second's). The whole list had failed for it.
    monkeypatch.setattr(tabs, "TAIL_FROM", 1000)
    async with half_arrived(3000, misfit=misfit) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        arrived.held.gate.set()
        problem = (
            "1 of 3,000 items could not be read and is left out;"
            f" items[{misfit}]: Expected `int | float`, got `str` - at `$.price`"
        )
        await wait_for(lambda: problem in screen_text(app), pilot)
        await wait_for(lambda: not tab._loading, pilot)
        assert tab.table.total_count == 2999 and not tab._rows_checked
        assert tab._process is None and tab._tail is None
        await pilot.press("slash", *"item", "enter")  # filter and sort answer
        await pilot.press("s")
        await wait_for(lambda: tab.table.shown_count == 2999, pilot)


class FirstHeldThenLater(Rigged):
    """The first GET of the items ``first`` (a body held halfway: :class:`HeldBody`),
    each later one the emulator's own once ``later`` is set."""

    def __init__(self, app: Any, first: HeldBody) -> None:
        super().__init__(app)
        self.first = first
        self.later = asyncio.Event()
        self.asked = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/items":
            self.asked += 1
            if self.asked == 1:
                return httpx.Response(200, headers={"content-type": JSON}, stream=self.first)
            await self.later.wait()
        return await super().handle_async_request(request)


@pytest.mark.usefixtures("process_early")
@pytest.mark.parametrize("how", ["escape", "a profile switch"])
async def test_a_load_ended_while_it_waits_for_its_index_process_shows_nothing(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The load waits for the worker of the index process ("indexing…"). Ended then,
    # by escape or by a switch to another profile, the cancellation went to that
    # worker: Textual's Worker.wait() gave the load WorkerCancelled, taken as "the
    # process is gone", and the load went on to show the old profile's rows, under
    # the new one too. The process's worker is slow to end here (its close is held
    # until the new session has begun), as a process of 300,000 rows is: the
    # cancellations of the switch and of the new session's load both went to it.
    listed = [item(n) for n in range(3000)]
    body = json.dumps({"items": listed}).encode()
    held = HeldBody(body, len(body) // 2)
    transport = FirstHeldThenLater(create_app(seed=0), held)
    profile = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    config.save_config(
        config.ConfigFile(default_profile="one", profiles={"one": profile, "two": profile})
    )
    receiving, closing, indexing = asyncio.Event(), asyncio.Event(), asyncio.Event()
    receive, close, arrived_indexer = (
        IndexProcess.receive,
        IndexProcess.close,
        tabs.ResourceTab._arrived_indexer,
    )

    async def held_receive(self: IndexProcess, within: float) -> Any:
        receiving.set()
        await asyncio.Event().wait()  # never: the load waits for the process until ended
        return await receive(self, within)

    async def slow_close(self: IndexProcess) -> None:
        try:
            await closing.wait()
        finally:
            await close(self)  # ends the process (its kill comes first, at once)

    async def noted(self: Any, rows: Any) -> Any:
        if self.resource is ITEMS:
            indexing.set()
        return await arrived_indexer(self, rows)

    monkeypatch.setattr(IndexProcess, "receive", held_receive)
    monkeypatch.setattr(IndexProcess, "close", slow_close)
    monkeypatch.setattr(tabs.ResourceTab, "_arrived_indexer", noted)
    app = TokenSalesApp(Launch(env={}, transport_factory=lambda: transport))
    try:
        async with app.run_test(size=SIZE) as pilot:
            tab: Any = app.browse.tab("items")
            await pilot.press("2")
            await wait_for(lambda: held.waiting and tab.table.total_count > 0, pilot)
            await pilot.press("slash", *'"item 2', "enter")  # a filter: a process indexes
            await wait_for(receiving.is_set, pilot)
            held.gate.set()
            await wait_for(indexing.is_set, pilot)
            await wait_for(lambda: "indexing…" in screen_text(app), pilot)
            old_loads = [w for w in tab._loads() if w.is_running]
            assert old_loads
            if how == "escape":
                await pilot.press("escape")
            else:
                await pilot.press("p")
                await wait_for(lambda: type(app.screen).__name__ == "ProfileScreen", pilot)
                await pilot.press("down", "enter")
                await wait_for(lambda: app.session is not None and app.session.name == "two", pilot)
            closing.set()  # the process's worker ends now, cancelled
            await wait_for(lambda: not any(w.is_running for w in old_loads), pilot)
            assert tab.table.total_count == 0 and not tab.loaded_once
            if how == "escape":
                assert "cancelled" in screen_text(app) and "indexing…" not in screen_text(app)
                return
            transport.later.set()  # the new profile's items
            await loaded(app, pilot, "items")
            await pilot.press("escape")  # the filter's rows: none of the new profile's
            await wait_for(lambda: tab.table.total_count == 40, pilot)
            assert not any(row.id.startswith("item-") for row in tab.table.rows)
    finally:
        closing.set()
        transport.later.set()


def facts_of(index: SearchIndex) -> tuple[Any, ...]:
    return (
        index.lines[: index.count],
        index.extras,
        None if index.extra_ids is None else list(index.extra_ids),
        [list(index.rows_with(number)) for number in range(len(index.extras))],
    )


@pytest.mark.usefixtures("process_early")
@pytest.mark.parametrize(
    ("processors", "has_room", "by_process"),
    [(2, False, False), (2, True, True), (4, False, True)],
)
async def test_unfiltered_rows_are_indexed_by_a_process_when_it_has_a_processor_of_its_own(
    processors: int, has_room: bool, by_process: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With two, the process would slow the reading down: the list is indexed once it
    # has arrived, unless a filter typed needs the rows indexed meanwhile, or the
    # reading leaves the app's process idle much of the time (a body that comes as
    # slowly as the network brings it), which the app measures.
    monkeypatch.setattr(index_process, "processors", lambda: processors)
    if has_room:
        # As measured: the app's process idle while the body is held, as one the network
        # paces (the machine's other processors are another test's: not asked here).
        monkeypatch.setattr(room, "READING_BUSY", 0.8)
        monkeypatch.setattr(room, "IDLE_NEEDED", 0.0)
    started: list[Setup] = []
    start = IndexProcess.start

    async def counted(setup: Setup) -> IndexProcess:
        started.append(setup)
        return await start(setup)

    monkeypatch.setattr(IndexProcess, "start", counted)
    async with half_arrived(3000) as arrived:
        await asyncio.sleep(2 * room.ROOM_AFTER)  # the body held: the app waits for it
        arrived.held.gate.set()
        await loaded(arrived.app, arrived.pilot, "items")
        assert arrived.tab.table.total_count == len(arrived.listed)
        assert bool(started) is by_process


@pytest.mark.parametrize(
    ("wall", "used", "idle", "has_room"),
    [
        (1.0, 0.5, 1.5, True),
        (1.0, 0.79, None, True),  # where the system does not say how idle it is
        (1.0, 0.9, 1.5, False),  # the app read as fast as it could
        (1.0, 1.4, None, False),  # ... with its threads, more than one processor
        (1.0, 0.3, 0.5, False),  # waiting for a server that is busy on this machine
        (0.1, 0.0, 0.2, False),  # too soon to tell
    ],
)
@pytest.mark.parametrize("group_idle", [None, 100.0])  # no quota, or one left unused
def test_the_reading_has_room_for_a_process_when_it_leaves_a_processor_idle(
    wall: float, used: float, idle: float | None, has_room: bool, group_idle: float | None
) -> None:
    # The processor time the app's process used since the rows began to arrive, and the
    # machine's idle time, against the time since: a body read as fast as it comes from
    # this machine keeps the app busy; one the network paces leaves a processor idle.
    then = room.Clock(100.0, 50.0, None if idle is None else 300.0, group_idle)
    now = room.Clock(
        100.0 + wall,
        50.0 + used,
        None if idle is None else 300.0 + idle,
        None if group_idle is None else group_idle + 2 * wall,
    )
    assert room.reading_has_room(then, now) is has_room


@pytest.mark.parametrize(
    ("machine_idle", "group_idle", "has_room"),
    [
        (6.0, 1.0, True),
        (6.0, 0.5, False),  # other work in the app's group uses its quota
        (0.5, 1.5, False),  # ... or other work on the machine its processors
        (None, 0.5, False),
        (6.0, None, True),  # where the group's use is not shown
    ],
)
def test_the_reading_has_no_room_where_the_quota_of_the_apps_group_is_in_use(
    machine_idle: float | None, group_idle: float | None, has_room: bool
) -> None:
    # A container given two processors of a machine of eight: the machine idle, the
    # group's quota used by a server in the same container.
    then = room.Clock(100.0, 50.0, None if machine_idle is None else 300.0, 40.0)
    now = room.Clock(
        101.0,
        50.5,
        None if machine_idle is None else 300.0 + machine_idle,
        None if group_idle is None else 40.0 + group_idle,
    )
    assert room.reading_has_room(then, now) is has_room


def test_the_clock_reads_the_machine_idle_time_where_the_system_says() -> None:
    clock = room.Clock.now()
    assert clock.used >= 0 and (clock.idle is not None) is os.path.exists("/proc/stat")


@pytest.mark.parametrize(
    ("name", "text", "used"),
    [
        ("cpu.stat", "usage_usec 2500000\nuser_usec 2000000\n", 2.5),  # version 2
        ("cpuacct.usage", "1500000000\n", 1.5),  # version 1, nanoseconds
        ("cpu.stat", "user_usec 2000000\n", None),
        ("cpu.stat", "usage_usec lots\n", None),
        ("cpuacct.usage", "\xff\n", None),
        ("cpuacct.usage", None, None),  # not there
    ],
)
def test_the_clock_reads_the_quota_left_unused_by_the_apps_group(
    name: str, text: str | None, used: float | None, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = tmp_path / name
    if text is not None:
        usage.write_text(text, encoding="latin-1")
    monkeypatch.setattr(room, "_group_quota", lambda: room.Quota(2.0, usage))
    monkeypatch.setattr(room.time, "monotonic", lambda: 10.0)
    assert room.Clock.now().group_idle == (None if used is None else 2.0 * 10.0 - used)
    monkeypatch.setattr(room, "_group_quota", lambda: None)  # no quota
    assert room.Clock.now().group_idle is None


def _cgroups(tmp_path: Any, membership: str, files: dict[str, str]) -> float | None:
    """The quota :func:`room._quota` reads from a made-up ``/sys/fs/cgroup`` and
    ``/proc/self/cgroup``."""
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "membership").write_text(membership)
    quota = room._quota(root, tmp_path / "membership")
    return None if quota is None else quota.processors


@pytest.mark.parametrize(
    ("membership", "files", "usage"),
    [
        ("0::/app\n", {"app/cpu.max": "100000 100000\n"}, "app/cpu.stat"),
        ("0::/app\n", {"cpu.max": "100000 100000\n"}, "cpu.stat"),  # above the group
        (  # version 1, the two controllers mounted together
            "3:cpu,cpuacct:/app\n",
            {
                "cpu,cpuacct/app/cpu.cfs_quota_us": "100000\n",
                "cpu,cpuacct/app/cpu.cfs_period_us": "100000\n",
                "cpu,cpuacct/app/cpuacct.usage": "0\n",
            },
            "cpu,cpuacct/app/cpuacct.usage",
        ),
        (  # ... mounted apart, the group on the same path in each
            "3:cpuacct:/app\n2:cpu:/app\n",
            {
                "cpu/app/cpu.cfs_quota_us": "100000\n",
                "cpu/app/cpu.cfs_period_us": "100000\n",
                "cpuacct/app/cpuacct.usage": "0\n",
            },
            "cpuacct/app/cpuacct.usage",
        ),
        (  # ... on paths that differ: which processes it counts is not known
            "3:cpuacct:/other\n2:cpu:/app\n",
            {
                "cpu/app/cpu.cfs_quota_us": "100000\n",
                "cpu/app/cpu.cfs_period_us": "100000\n",
                "cpuacct/app/cpuacct.usage": "0\n",
                "cpuacct/other/cpuacct.usage": "0\n",
            },
            None,
        ),
    ],
)
def test_what_the_apps_group_used_is_read_beside_its_quota(
    tmp_path: Any, membership: str, files: dict[str, str], usage: str | None
) -> None:
    _cgroups(tmp_path, membership, files)
    quota = room._quota(tmp_path / "cgroup", tmp_path / "membership")
    assert quota is not None
    assert quota.usage == (None if usage is None else tmp_path / "cgroup" / usage)


@pytest.mark.parametrize(
    ("membership", "files", "quota"),
    [
        # Version 2: the least along the group's path.
        (
            "0::/user/app\n",
            {
                "cpu.max": "max 100000\n",
                "user/cpu.max": "300000 100000\n",
                "user/app/cpu.max": "150000 100000\n",
            },
            1.5,
        ),
        ("0::/user/app\n", {"user/cpu.max": "50000 100000\n"}, 0.5),  # above the group
        ("0::/\n", {"cpu.max": "100000 100000\n"}, 1.0),  # a container's own namespace
        ("0::/app\n", {"app/cpu.max": "max 100000\n"}, None),  # no quota
        # Version 1: a container sees its group's folder at the base, not its path.
        (
            "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n",
            {
                "cpu,cpuacct/cpu.cfs_quota_us": "200000\n",
                "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
            },
            2.0,
        ),
        (
            "3:cpu:/a\n",
            {"cpu/a/cpu.cfs_quota_us": "-1\n", "cpu/a/cpu.cfs_period_us": "100000\n"},
            None,
        ),
        # What the system does not say, or says in a way not understood.
        ("0::/app\n", {}, None),
        ("0::/app\n", {"app/cpu.max": "lots\n"}, None),
        ("0::/app\n", {"app/cpu.max": "100000 0\n"}, None),
        ("garbage\n3:cpu\n", {"cpu.max": "100000 100000\n"}, None),
        ("0::/../outside\n", {"cpu.max": "100000 100000\n"}, None),  # not the root's
        # Both versions mounted, version 2 under "unified"; version 1 controllers in
        # either order, the folder also reached as "cpu".
        ("0::/app\n", {"unified/app/cpu.max": "200000 100000\n"}, 2.0),
        (
            "3:cpuacct,cpu:/app\n",
            {"cpu/app/cpu.cfs_quota_us": "50000\n", "cpu/app/cpu.cfs_period_us": "100000\n"},
            0.5,
        ),
    ],
)
def test_the_cpu_quota_of_the_control_group_is_read_where_the_system_shows_it(
    tmp_path: Any, membership: str, files: dict[str, str], quota: float | None
) -> None:
    assert _cgroups(tmp_path, membership, files) == quota


@pytest.mark.parametrize(
    ("affinity", "quota", "expected"),
    [(4, None, 4), (4, 1.0, 1), (4, 1.5, 1), (4, 2.5, 2), (2, 8.0, 2), (2, 0.5, 1)],
)
def test_processors_are_the_fewer_of_those_to_run_on_and_those_the_quota_gives(
    affinity: int, quota: float | None, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A container limited to one processor on a larger machine: an index process would
    # take turns with the app, and the group's quota would run out within each period.
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(affinity)), raising=False)
    monkeypatch.setattr(index_process, "quota_processors", lambda: quota)
    assert index_process.processors() == expected
