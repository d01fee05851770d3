"""A long list arriving is counted first; its rows are decoded when read (api/arriving.py)."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import threading
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tokensales_tui.api import stream
from tokensales_tui.api.arriving import ArrivingRows, whole
from tokensales_tui.api.decode import ListParser, left_out
from tokensales_tui.api.listing import StreamedList
from tokensales_tui.api.models import Item, Webhook

from .test_regions import LISTED
from .test_rows_arrive import FakeResponse


def pieces_of(body: bytes, piece: int = 997) -> AsyncIterator[bytes]:
    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start : start + piece]
            await asyncio.sleep(0)

    return pieces()


class Watched:
    """What a watcher of a list arriving saw, reading some rows as a table would."""

    def __init__(self, read: list[int]) -> None:
        self.read = read
        self.lengths: list[int] = []
        self.decoded_when_told: list[int] = []  # rows decoded each time it was told
        self.seen: dict[int, Any] = {}

    def __call__(self, what: str, arrival: StreamedList) -> None:
        rows = arrival.rows
        assert isinstance(rows, ArrivingRows)
        self.lengths.append(len(rows))
        self.decoded_when_told.append(sum(1 for row in list.__iter__(rows) if row is not None))
        for at in self.read:
            if at < len(rows):
                self.seen.setdefault(at, rows[at])


async def test_rows_arriving_are_counted_and_decoded_only_where_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)  # many stretches
    body = json.dumps({"items": LISTED}).encode()
    watched = Watched(read=[0, 5, 390])
    listing = StreamedList(Item, "items", FakeResponse(), watched)  # type: ignore[arg-type]
    await listing.consume(pieces_of(body))
    rows = listing.rows
    assert isinstance(rows, ArrivingRows)
    assert watched.lengths[-1] == len(rows) == len(LISTED)
    # Only the stretches of the rows read were decoded: a few out of many.
    assert not rows.whole
    decoded = sum(1 for row in list.__iter__(rows) if row is not None)
    assert 0 < decoded < len(LISTED) // 4
    assert max(watched.decoded_when_told) < len(LISTED) // 4
    # Each row read is the row of the whole list, the same object, decoded as any.
    for at, row in watched.seen.items():
        assert rows[at] is row
        assert row.id == LISTED[at]["id"] and row.raw == LISTED[at]
    assert rows[5].payout is rows[9].payout  # shared across stretches decoded apart


async def test_the_rest_is_decoded_once_the_body_has_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    body = json.dumps({"items": LISTED}).encode()
    watched = Watched(read=[7])
    listing = StreamedList(Item, "items", FakeResponse(), watched)  # type: ignore[arg-type]
    await listing.consume(pieces_of(body))
    # Not while the response is read (its time is bounded, its connection held open).
    assert not listing.rows.whole  # type: ignore[attr-defined]
    rows = await listing.result()
    # Nor when the rows are handed over: whoever holds them has the rest decoded.
    assert rows is listing.rows and isinstance(rows, ArrivingRows) and not rows.whole
    assert await whole(rows) is rows and rows.whole
    assert not rows._regions and not rows._starts  # let go: the rows keep their own
    assert None not in list.__iter__(rows)
    assert rows[7] is watched.seen[7]
    assert [row.id for row in list.__iter__(rows)] == [entry["id"] for entry in LISTED]
    assert [row.raw for row in rows] == LISTED
    # Shared as one decoding of the whole list shares them.
    assert len({id(row.payout) for row in rows}) == 4
    assert len({id(row.description) for row in rows}) == 3


async def _arrived(entries: list[dict[str, Any]], watched: Watched) -> StreamedList:
    """``entries`` as a body read whole, watched (so counted) by ``watched``."""
    body = json.dumps({"items": entries}).encode()
    listing = StreamedList(Item, "items", FakeResponse(), watched)  # type: ignore[arg-type]
    await listing.consume(pieces_of(body))
    return listing


def _misfit(at: int) -> list[dict[str, Any]]:
    entries = [dict(entry) for entry in LISTED]
    entries[at]["price"] = "not a number"
    return entries


@pytest.mark.parametrize("read_early", [True, False])
async def test_an_element_that_does_not_fit_is_left_out_named_by_the_whole_read(
    read_early: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counting checks that each element is an object, not its fields: the element is
    # found when its stretch is decoded (read while the body arrives, or after), and
    # the whole body is then read, which leaves it out and names it.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    watched = Watched(read=[200] if read_early else [])
    listing = await _arrived(_misfit(200), watched)
    if read_early:  # a reader meanwhile got a blank row, not an error
        assert watched.seen[200].id == "" and watched.seen[200].title == ""
    rows = left_out(await whole(await listing.result()))
    assert rows is not None and rows.missing == 1
    assert rows.problems == ["items[200]: Expected `int | float`, got `str` - at `$.price`"]
    assert [row.id for row in rows] == [e["id"] for i, e in enumerate(LISTED) if i != 200]


async def test_a_thread_and_the_loop_reading_rows_at_once_get_the_same_objects() -> None:
    decoded: list[int] = []
    rows = _counted(decoded)
    assert len(rows) == len(LISTED) and not rows.whole
    results: list[list[Any]] = []
    threads = [threading.Thread(target=lambda: results.append(list(rows))) for _ in range(4)]
    for thread in threads:
        thread.start()
    mine = [rows[at] for at in range(len(rows) - 1, -1, -1)][::-1]
    for thread in threads:
        thread.join()
    assert sum(decoded) == len(LISTED)  # each stretch decoded once
    for result in results:
        assert all(a is b for a, b in zip(result, mine, strict=True))


async def test_a_list_nobody_watches_is_decoded_as_it_arrives() -> None:
    # A reload that keeps the old rows shown until the new are in: counting first would
    # only add to the decoding.
    body = json.dumps({"items": LISTED}).encode()
    listing = StreamedList(Item, "items", FakeResponse(), None)  # type: ignore[arg-type]
    await listing.consume(pieces_of(body))
    assert type(listing.rows) is list and len(listing.rows) == len(LISTED)
    rows = await listing.result()
    assert [row.raw for row in rows] == LISTED


async def test_lists_of_other_models_are_decoded_as_they_arrive() -> None:
    body = json.dumps([{"id": f"w{n}", "url": "https://h", "events": []} for n in range(50)])
    listing = StreamedList(Webhook, "webhooks", FakeResponse(), None)  # type: ignore[arg-type]
    await listing.consume(pieces_of(body.encode()))
    rows = await listing.result()
    assert type(rows) is list and [row.id for row in rows] == [f"w{n}" for n in range(50)]


def _counted(decode_spy: list[int]) -> ArrivingRows:
    """The rows of LISTED counted in many stretches, none decoded; ``decode_spy`` gets
    the rows of each decoding call."""
    from tokensales_tui.api.spool import Region, Spool

    body = json.dumps({"items": LISTED}).encode()
    parser = ListParser(Item, "items", 200, "application/json")
    spool = Spool()
    spool.append(body)

    def decode(regions: Any, counts: Any) -> list[Any]:
        decode_spy.append(sum(counts))
        return parser.decode_regions(regions, counts)

    rows = ArrivingRows(decode, parser.blank)
    splitter = stream.ListSplitter(("items",), decode=parser.count_region)
    for start in range(0, len(body), 3000):
        if counted := splitter.feed(body[start : start + 3000]):
            rows.add(Region(spool, *splitter.region), len(counted))
    last = splitter.close()
    rows.add(Region(spool, *splitter.region), len(last))
    return rows


def test_many_stretches_are_decoded_a_few_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # A reader of every row (an export, in a thread) holds the lock one call at a time,
    # so the event loop may decode the rows it draws in between.
    from tokensales_tui.api import arriving

    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(arriving, "FILL_BYTES", 16384)
    calls: list[int] = []
    rows = _counted(calls)
    assert [row.id for row in rows] == [entry["id"] for entry in LISTED]
    assert len(calls) > 4 and sum(calls) == len(LISTED)


def test_rows_still_arriving_are_let_go_without_being_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui.table import model

    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(model, "RELEASE_IN_THREAD", 0)
    monkeypatch.setattr(model, "RELEASE_STEP", 3)  # slices end inside stretches
    calls: list[int] = []
    rows = _counted(calls)
    rows[3]
    thread = model.release(rows)
    assert thread is not None
    del rows
    thread.join(10)
    assert not thread.is_alive()
    assert calls == [calls[0]] and calls[0] < len(LISTED)


@pytest.mark.parametrize("odd", [7, "text", None, [1, 2]])
async def test_an_element_that_is_no_object_stops_the_counting_at_once(
    odd: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not taken for a wrong cut: the splitter would hold the rest of the body, however
    # long, looking for a right one.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    entries: list[Any] = [dict(entry) for entry in LISTED]
    entries[20] = odd
    body = json.dumps({"items": entries}).encode()
    listing = StreamedList(Item, "items", FakeResponse(), Watched([]))  # type: ignore[arg-type]
    held: list[int] = []
    feed = listing.splitter.feed

    def watched(chunk: bytes) -> Any:
        try:
            return feed(chunk)
        finally:
            held.append(len(listing.splitter._buffer))

    monkeypatch.setattr(listing.splitter, "feed", watched)
    await listing.consume(pieces_of(body))
    assert max(held) < 3 * 4096 + 997
    rows = left_out(await whole(await listing.result()))
    assert rows is not None and rows.missing == 1 and len(rows) == len(LISTED) - 1
    assert rows.problems[0].startswith("items: entry 20 is not an object (HTTP 200")


def test_widths_are_measured_over_rows_decoded_already(monkeypatch: pytest.MonkeyPatch) -> None:
    # Spread over a list still arriving, the sample would decode most of its stretches,
    # at each showing (mask mode measures again as the list grows).
    from tokensales_tui.ui.table import cells

    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(cells, "SAMPLE", 10)
    calls: list[int] = []
    rows = _counted(calls)
    drawn = rows[290]  # one of the spread sample's (every 40th from the 10th)
    sample = cells.sample_of(rows)
    assert len(calls) == 2  # its stretch and the first rows', nothing more
    assert sample[:10] == rows[:10] and drawn in sample and len(sample) == 11
    while rows.fill_some():
        pass
    assert len(cells.sample_of(rows)) == 10 + len(range(10, len(LISTED), 40))


async def test_whoever_asks_for_the_rest_first_has_it_decoded_and_others_wait_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two tabs holding the same list (one request shared) both need every row: one
    # decoding, the other waits for it; cancelling one waiter leaves the other's.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    listing = await _arrived(LISTED, Watched(read=[]))
    rows = await listing.result()
    assert isinstance(rows, ArrivingRows) and not rows.whole
    runs: list[int] = []
    decode_rest = ArrivingRows._decode_rest

    async def counted(self: ArrivingRows, between: Any) -> None:
        runs.append(1)
        await decode_rest(self, between)

    monkeypatch.setattr(ArrivingRows, "_decode_rest", counted)
    first = asyncio.ensure_future(whole(rows))
    second = asyncio.ensure_future(whole(rows))
    third = asyncio.ensure_future(whole(rows))
    await asyncio.sleep(0)
    first.cancel()
    assert await second is rows and await third is rows
    assert runs == [1] and rows.whole and await whole(rows) is rows


def test_a_cut_lies_at_the_first_stretch_from_a_row_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    rows = _counted([])
    starts, spans = rows._starts, rows._spans
    assert len(starts) > 3
    assert rows.cut_at(0) == (0, spans[0][0], spans[-1][1])
    assert rows.cut_at(starts[2]) == (starts[2], spans[2][0], spans[-1][1])
    assert rows.cut_at(starts[2] - 1) == (starts[2], spans[2][0], spans[-1][1])
    assert rows.cut_at(starts[-1] + 1) is None
    # Between the two: elements and their separators, read as one array.
    first, offset, end = rows.cut_at(starts[1])  # type: ignore[misc]
    text = b"[" + rows._regions[0].spool.read_array(offset, end - offset)[1:-1] + b"]"  # type: ignore[union-attr]
    assert [entry["id"] for entry in json.loads(text)] == [e["id"] for e in LISTED[first:]]


def _refers_back(rows: ArrivingRows) -> bool:
    """Whether anything ``rows`` refers to, but its rows, refers back to it: the
    collector never walks the list, so it would never free such a cycle."""
    # Not through modules' globals: a running coroutine holding the rows is reachable
    # from them, and is no cycle of the rows' own.
    modules = {id(module.__dict__) for module in list(sys.modules.values())}
    seen, frontier = {id(rows)}, [r for r in gc.get_referents(rows) if not isinstance(r, Item)]
    while frontier:
        obj = frontier.pop()
        if obj is rows:
            return True
        if id(obj) in seen or id(obj) in modules or isinstance(obj, (type, types.ModuleType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):
            frontier += [*(obj.__closure__ or ()), *(obj.__defaults__ or ())]
        else:
            frontier += gc.get_referents(obj)
    return False


@pytest.mark.parametrize("misfit", [False, True])
async def test_nothing_the_rows_refer_to_refers_back_to_them(
    misfit: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rows let go before they were all decoded (a reload meanwhile) must be freed by
    # reference counting alone, and so must rows a whole read replaced.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    listing = await _arrived(_misfit(200) if misfit else LISTED, Watched(read=[200]))
    rows = await listing.result()
    assert isinstance(rows, ArrivingRows) and not _refers_back(rows)

    class Shown:  # what the app is to the rows: it shows them, and waits for its keys
        def __init__(self, rows: list[Any]) -> None:
            self.rows = rows

        async def between(self) -> None:
            await asyncio.sleep(0)

    between = Shown(rows).between
    if misfit:
        assert rows.failed is not None
        for _ in range(2):  # each reading of the outcome leaves nothing behind
            assert left_out(await whole(rows, between)) is not None
    else:
        assert await whole(rows, between) is rows and rows.whole
    assert not _refers_back(rows)


def test_a_reader_after_the_list_is_closed_finds_nothing_left_to_decode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A thread works out which stretches to decode before it takes the lock; the event
    # loop may decode the last of them and close the list meanwhile.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    rows = _counted([])
    regions = len(rows._regions)
    assert regions > 3
    rows.fill(0, len(rows))
    rows.close()
    assert rows._fill_run(0, regions) == regions
    assert [row.id for row in rows] == [entry["id"] for entry in LISTED]


async def test_the_decoding_stops_once_no_one_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every load that asked for the rows was cancelled (a reload, escape): decoding a
    # list no one will show would hold the event loop and the rows for seconds.
    from tokensales_tui.api import arriving

    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(arriving, "FILL_BYTES", 4096)  # a stretch a step
    decoded: list[int] = []
    rows = _counted(decoded)
    go_on = asyncio.Event()

    async def between() -> None:
        await go_on.wait()

    waiters = [asyncio.ensure_future(whole(rows, between)) for _ in range(2)]
    while not decoded:
        await asyncio.sleep(0)
    waiters[0].cancel()
    await asyncio.sleep(0)
    assert rows._decoding is not None  # the other still waits
    waiters[1].cancel()
    for _ in range(3):
        await asyncio.sleep(0)
    assert rows._decoding is None
    calls = len(decoded)
    go_on.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert len(decoded) == calls and not rows.whole
    assert await whole(rows) is rows and rows.whole  # asked again: decoded from there
