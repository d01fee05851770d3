"""Rows show while the list body still arrives, and every odd body still reads as before.

The body is handed over in pieces; the test holds the rest of it behind a gate, so
"while it arrives" does not depend on timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from rich.cells import cell_len

from tokensales_tui.api import stream
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.errors import UnexpectedResponse
from tokensales_tui.api.listing import StreamedList
from tokensales_tui.api.models import Asset, Collection, Item
from tokensales_tui.api.spool import Spooled
from tokensales_tui.emulator import create_app
from tokensales_tui.session import Launch
from tokensales_tui.ui import tabs
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.boxes import content_box

from .apphelpers import Rigged, burst, emulator_env, loaded, screen_text, wait_for

SIZE = (120, 40)


def item(number: int) -> dict[str, Any]:
    return {
        "id": f"item-{number:05}",
        "title": f"Arriving item {number}",
        "currency": "USD",
        "price": number + 0.5,
        "description": "x" * 200,
        "payout": {"type": "crypto", "blockchainId": "polygon"},
    }


class HeldBody(httpx.AsyncByteStream):
    """A body handed over in pieces: the first ``before`` bytes, then the rest once
    ``gate`` is set (with ``trickle``, a turn of the event loop before each piece, as a
    read of a socket gives)."""

    def __init__(self, body: bytes, before: int, trickle: bool = False) -> None:
        self.body, self.before, self.trickle = body, before, trickle
        self.gate = asyncio.Event()
        self.waiting = False
        self.closed = False  # the client let go of it: its connection closed

    async def aclose(self) -> None:
        self.closed = True

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, self.before, 65536):
            yield self.body[start : min(start + 65536, self.before)]
        self.waiting = True
        await self.gate.wait()
        for start in range(self.before, len(self.body), 65536):
            if self.trickle:
                await asyncio.sleep(0)
            yield self.body[start : start + 65536]


class Arriving(Rigged):
    def __init__(self, app: Any, body: HeldBody) -> None:
        super().__init__(app)
        self.body = body

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/items":
            return httpx.Response(
                200, headers={"content-type": "application/json"}, stream=self.body
            )
        return await super().handle_async_request(request)


@dataclass
class HalfArrived:
    listed: list[dict[str, Any]]
    held: HeldBody
    app: TokenSalesApp
    pilot: Any
    tab: Any


@contextlib.asynccontextmanager
async def half_arrived(
    count: int, trickle: bool = False, misfit: int | None = None, no_id: int | None = None
) -> AsyncIterator[HalfArrived]:
    """An app on its Items tab, showing the first rows of a body of ``count`` items that
    stops halfway until ``held.gate`` is set (at the end, if not before); item ``misfit``
    has a price that is no number, item ``no_id`` an empty id."""
    listed = [item(n) for n in range(count)]
    if misfit is not None:
        listed[misfit]["price"] = "not a number"
    if no_id is not None:
        listed[no_id]["id"] = ""
    body = json.dumps({"items": listed}).encode()
    held = HeldBody(body, len(body) // 2, trickle)
    try:
        async with on_items(Arriving(create_app(seed=0), held)) as (app, pilot, tab):
            await wait_for(lambda: held.waiting and tab.table.total_count > 0, pilot)
            yield HalfArrived(listed, held, app, pilot, tab)
    finally:
        held.gate.set()


@contextlib.asynccontextmanager
async def on_items(transport: httpx.AsyncBaseTransport) -> AsyncIterator[tuple[Any, Any, Any]]:
    """An app on ``transport``, its Items tab loading (``2`` pressed): the app, its pilot
    and the tab."""
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    async with app.run_test(size=SIZE) as pilot:
        tab: Any = app.browse.tab("items")
        await pilot.press("2")
        yield app, pilot, tab


async def test_the_count_line_says_indexing_once_the_body_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "loading…" while the body arrives; once it is read, what keeps filter and sort
    # waiting is the indexing of its rows, and the count line says so.
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        assert "loading…" in screen_text(app)
        count = tab.query_one(".count")
        updates: list[tuple[str, bool, int]] = []
        update = count.update

        def counted(content: Any, *, layout: bool = True) -> None:
            laid_out = content_box(count)[0]  # may be behind, on a busy machine
            update(content, layout=layout)
            updates.append((str(count.render()), layout, laid_out))

        monkeypatch.setattr(count, "update", counted)
        before = str(count.render())
        held, entered = asyncio.Event(), asyncio.Event()
        indexer = tab._arrived_indexer

        async def held_indexer(rows: Any) -> Any:
            entered.set()
            await held.wait()
            return await indexer(rows)

        monkeypatch.setattr(tab, "_arrived_indexer", held_indexer)
        arrived.held.gate.set()
        await wait_for(entered.is_set, pilot)
        await wait_for(lambda: "3,000 items · indexing…" in screen_text(app), pilot)
        assert "loading…" not in screen_text(app)
        # The line kept the room of the longer word: each "loading…" line is as wide as
        # its count with "indexing…" would be, so the switch lays nothing out but for a
        # count grown wider than the line as laid out (the last rows come with it).
        switch = next(i for i, (text, *_) in enumerate(updates) if "indexing…" in text)
        loading = [text for text, *_ in updates[:switch]] or [before]
        assert all("loading…" in text for text in loading)
        assert all(
            len(text) >= len(text.lstrip().replace("loading…", "indexing…")) for text in loading
        )
        text, layout, laid_out = updates[switch]
        assert layout is (not laid_out or len(text) > laid_out)
        held.set()
        await loaded(app, pilot, "items")
        await wait_for(lambda: "indexing…" not in screen_text(app), pilot)
        assert "3,000 items" in screen_text(app)


async def test_a_filtered_reload_of_rows_let_go_first_says_loading_not_a_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Above EMPTY_BEFORE_RELOAD rows a reload lets the old ones go first; with a filter
    # typed, the new ones show only once indexed. Meanwhile there is no count to give:
    # the count line said "0 items" for seconds at 1,000,000.
    monkeypatch.setattr(tabs, "EMPTY_BEFORE_RELOAD", 1000)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        await pilot.press("slash", *'"item 2')
        await wait_for(lambda: tab.table.shown_count == 1111, pilot)
        arrived.held.gate = asyncio.Event()  # the reload's body stops halfway
        tab.reload()
        await wait_for(lambda: tab._loading and arrived.held.waiting, pilot)
        await pilot.pause()
        assert tab.table.total_count == 0
        assert str(tab.query_one(".count").render()).strip() == "loading…"
        assert "0 items" not in screen_text(app)
        arrived.held.gate.set()
        await wait_for(lambda: not tab._loading and tab.table.shown_count == 1111, pilot)
        await pilot.pause()
        assert "1,111 of 3,000" in screen_text(app)


async def test_item_rows_show_while_the_body_still_arrives() -> None:
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        shown = tab.table.total_count
        assert 0 < shown < len(arrived.listed)
        assert not tab.loaded_once
        assert tab.table.model.rows[0].title == "Arriving item 0"
        assert "Arriving item 0" in screen_text(app)
        assert "loading…" in screen_text(app)
        await pilot.press("slash", *"item 2999")  # typed while the rest arrives
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == len(arrived.listed)
        assert tab.table.shown_count == 1  # the filter applied once all were there
        assert tab.table.highlighted.raw == arrived.listed[2999]


@pytest.mark.parametrize("no_id", [10, 2999])
async def test_an_item_with_an_empty_id_does_not_take_the_cursor_from_a_placeholder(
    no_id: int,
) -> None:
    # A stretch that cannot be read shows placeholders, with an empty id, until the list
    # is read whole. The cursor on the first of them moved, once the list was there, to
    # the item whose id is empty: its detail opened on enter, and at the end of the list
    # the table was scrolled to the bottom.
    async with half_arrived(3000, misfit=1, no_id=no_id) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        table = tab.table
        assert table.highlighted.id == ""  # a placeholder
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        await wait_for(lambda: table.total_count == 2999, pilot)  # the misfit left out
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert table.highlighted.raw == arrived.listed[0]
        await pilot.press("down", "up", "r")  # a reload keeps the cursor on its row
        await wait_for(lambda: not tab._loading, pilot)
        assert table.cursor_row == 0 and table.highlighted.raw == arrived.listed[0]


async def test_escape_in_the_filter_clears_it_and_leaves_the_load_running() -> None:
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await pilot.press("slash", *"item 2", "escape")
        assert tab.filter_input.value == ""
        assert app.focused is tab.table
        assert "cancelled" not in screen_text(app)
        await pilot.press("slash", "escape")  # nothing typed: back to the table all the same
        assert app.focused is tab.table
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == tab.table.shown_count == len(arrived.listed)


async def test_escape_in_the_table_cancels_the_load() -> None:
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await pilot.press("slash", *"item 2", "enter", "escape")  # enter: to the table
        await wait_for(lambda: "cancelled" in screen_text(app), pilot)
        assert not tab.loaded_once
        assert tab.filter_input.value == "item 2"  # kept for the next load


@pytest.mark.parametrize("how", ["escape", "a profile switch"])
async def test_a_load_that_goes_on_after_it_was_ended_shows_nothing(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whatever loses a load's cancellation on the way (a wait that swallowed it, as
    # Textual's Worker.wait() did), the load ended shows none of its rows: they may be
    # another profile's.
    entered, go_on = asyncio.Event(), asyncio.Event()
    arrived_indexer = tabs.ResourceTab._arrived_indexer

    async def swallowing(self: Any, rows: Any) -> Any:
        if self.resource.key == "items":
            entered.set()
            with contextlib.suppress(asyncio.CancelledError):
                await go_on.wait()
        return await arrived_indexer(self, rows)

    monkeypatch.setattr(tabs.ResourceTab, "_arrived_indexer", swallowing)
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        arrived.held.gate.set()
        await wait_for(entered.is_set, pilot)
        (load,) = [w for w in tab._loads() if w.is_running]
        if how == "escape":
            await pilot.press("escape")
            await wait_for(lambda: "cancelled" in screen_text(app), pilot)
        else:
            app.browse.session_ending("other")  # as a switch does, first
        go_on.set()
        await wait_for(lambda: not load.is_running, pilot)
        assert tab.table.total_count == 0 and not tab.loaded_once and not tab._loading
        assert "indexing…" not in screen_text(app)
        assert ("cancelled" if how == "escape" else "Switching to other") in screen_text(app)


class EachHeld(Rigged):
    """Each GET of the items its own body, held halfway (:class:`HeldBody`)."""

    def __init__(self, app: Any, body: bytes) -> None:
        super().__init__(app)
        self.body = body
        self.served: list[HeldBody] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/items":
            self.served.append(held := HeldBody(self.body, len(self.body) // 2))
            return httpx.Response(200, headers={"content-type": "application/json"}, stream=held)
        return await super().handle_async_request(request)


@pytest.mark.parametrize("at_once", [False, True], ids=["one by one", "in one read"])
async def test_escape_ends_the_request_shared_with_payouts_and_r_sends_another(
    at_once: bool,
) -> None:
    # The Items and Payouts tabs share one request at start-up. Escape on the Items tab
    # ends it (its connection closed, both tabs' waits cancelled); r then sends a new
    # one, however soon it follows: a request cancelled is never joined again.
    listed = [item(n) for n in range(3000)]
    transport = EachHeld(create_app(seed=0), json.dumps({"items": listed}).encode())
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    async with app.run_test(size=SIZE) as pilot:
        tab: Any = app.browse.tab("items")
        payouts: Any = app.browse.tab("payouts")
        served = transport.served
        await pilot.press("2")
        await wait_for(lambda: served and served[0].waiting and tab.table.total_count > 0, pilot)
        await pilot.press("r")  # a reload joins the request in flight: nothing new sent
        await wait_for(lambda: tab._loading and payouts._loading, pilot)
        assert len(served) == 1 and not served[0].closed
        if at_once:
            burst(app, "escape", "r")
        else:
            await pilot.press("escape")
            await wait_for(lambda: served[0].closed, pilot)
            assert "cancelled" in screen_text(app) and len(served) == 1
            assert tab.table.total_count == 0  # no rows of a load cancelled
            await pilot.press("r")
        await wait_for(lambda: len(served) == 2 and served[1].waiting, pilot)
        assert served[0].closed and not served[1].closed
        # The note of the cancelled load went with the new one's start: it had said
        # "press r" while r was being answered.
        assert "cancelled" not in str(tab.query_one(".problem").render())
        assert not payouts._loading and "cancelled" in str(payouts.query_one(".problem").render())
        # The new body's rows show as they arrive (none of the first's were kept).
        await wait_for(lambda: tab.table.total_count > 0, pilot)
        assert tab.table.rows is tab._arriving
        served[1].gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == len(listed) and tab.error is None
        assert len(served) == 2
        assert "cancelled" not in screen_text(app)


class Trickle(httpx.AsyncByteStream):
    """A list body of one item a piece, ``pause`` seconds apart, as a slow server sends
    it, and no further than ``stop`` items until :meth:`go_on` moves the stop; once
    ``rest`` is set, the rest at once."""

    def __init__(self, count: int, stop: int, pause: float) -> None:
        self.count, self.stop, self.pause = count, stop, pause
        self.sent = 0  # bytes
        self.rest = asyncio.Event()
        self._moved = asyncio.Event()

    def go_on(self, stop: int) -> None:
        """Send on, up to item ``stop``."""
        self.stop = stop
        self._moved.set()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for n in range(self.count):
            while n >= self.stop and not self.rest.is_set():
                self._moved.clear()
                rest = asyncio.ensure_future(self.rest.wait())
                moved = asyncio.ensure_future(self._moved.wait())
                await asyncio.wait({rest, moved}, return_when=asyncio.FIRST_COMPLETED)
                rest.cancel()
                moved.cancel()
            if not self.rest.is_set():
                await asyncio.sleep(self.pause)
            piece = (b"," if n else b'{"items": [') + json.dumps(item(n)).encode()
            self.sent += len(piece)
            yield piece
        yield b"]}"


async def test_rows_of_a_list_arriving_slowly_show_long_before_256_kb_have_come() -> None:
    # Twenty items a second: before, no row showed until 256 KB had come (some 800
    # items here, 40 s); now the splitter cuts what it holds a quarter second on. The
    # body stops well short of 256 KB until rows show, however slow the machine.
    trickle = Trickle(1000, stop=100, pause=0.05)

    class Slow(Rigged):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path == "/v1/items":
                return httpx.Response(
                    200, headers={"content-type": "application/json"}, stream=trickle
                )
            return await super().handle_async_request(request)

    transport = Slow(create_app(seed=0))
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    async with app.run_test(size=SIZE) as pilot:
        tab: Any = app.browse.tab("items")
        await pilot.press("2")
        await wait_for(lambda: tab.table.total_count > 0, pilot, timeout=20)
        assert trickle.sent < stream.SPLIT_BYTES // 4
        # Drawn by the frame after: counted first, the table laid out in the next turn
        # (asserted at once, a loaded machine saw the count line say "3 items" above an
        # empty table). The body is stopped meanwhile: what was sent stays.
        await wait_for(lambda: "Arriving item 0" in screen_text(app), pilot)
        shown = tab.table.total_count
        trickle.go_on(200)
        await wait_for(lambda: tab.table.total_count > shown, pilot, timeout=20)  # and more
        assert trickle.sent < stream.SPLIT_BYTES // 2
        trickle.rest.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == 1000


@pytest.mark.parametrize("sort_on_loop", [20_000, 0])
async def test_a_filter_typed_while_the_body_arrives_applies_to_the_rows_so_far(
    sort_on_loop: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokensales_tui.ui.table import widget as widget_module

    monkeypatch.setattr(widget_module, "SORT_ON_LOOP", sort_on_loop)  # 0: in a thread
    async with half_arrived(3000) as arrived:  # about 1,500 items: "item 2 finds 111
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await pilot.press("slash", *'"item 2')  # a phrase being typed
        await wait_for(lambda: tab.table.filter_text == '"item 2', pilot)
        assert not tab.loaded_once
        assert tab.table.shown_count == 111  # 2, 20-29, 200-299
        assert "Arriving item 2" in screen_text(app)
        await pilot.press("enter", "s")  # a sort waits for the whole index
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        await wait_for(lambda: tab.table.pending_sort is None, pilot)
        assert tab.table.shown_count == 1111  # and 2000-2999
        assert tab.table.filter_text == '"item 2'
        assert tab.table.sort_column == "id"


async def test_a_key_typed_while_the_body_arrives_is_drawn_before_more_of_it_is_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each piece of the body takes a few milliseconds to decode: a key on its way to
    # the filter (a turn of the loop at each widget), then its frame, wait for none.
    from tokensales_tui.ui import app as app_module

    monkeypatch.setattr(app_module, "KEY_FRAME_WAIT", 5.0)  # the frame ends the wait
    seen: list[Any] = []
    take = StreamedList._take
    app: TokenSalesApp | None = None

    def spied(self: StreamedList, piece: bytes) -> None:
        seen.append("piece")
        if seen.count("piece") == 3 and app is not None:
            seen.append("key")  # typed while this piece is decoded
            burst(app, "x")
        take(self, piece)

    async with half_arrived(20_000, trickle=True) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        tab.focus_filter()
        await pilot.pause()
        display = app._display

        def drawn(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None:
                seen.append(("frame", tab.filter_input.value))

        app._display = drawn  # type: ignore[method-assign]
        monkeypatch.setattr(StreamedList, "_take", spied)
        arrived.held.gate.set()
        await wait_for(lambda: ("frame", "x") in seen, pilot)
        await loaded(app, pilot, "items")  # nothing of the load outlives the test
        drawn_at = seen.index(("frame", "x"))
        assert "piece" not in seen[seen.index("key") : drawn_at], seen
        assert "piece" in seen[drawn_at:]  # the body was still arriving


async def test_a_failed_wait_for_a_keys_frame_leaves_the_list_arriving(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab

        async def broken() -> None:
            raise RuntimeError("no frame")

        monkeypatch.setattr(app, "key_drawn", broken)
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.total_count == len(arrived.listed)
        assert "waiting for a key's frame" in caplog.text


async def test_the_count_line_keeps_its_width_while_the_list_arrives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A new width lays the screen out (10-20 ms): not at each count while rows arrive.
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        count = tab.query_one(".count")
        layouts: list[str] = []  # the counts that asked for a layout
        update = count.update

        def counted(content: Any, *, layout: bool = True) -> None:
            update(content, layout=layout)
            if layout:
                layouts.append(str(count.render()))

        monkeypatch.setattr(count, "update", counted)
        await pilot.press("slash", *"item 1")
        await wait_for(lambda: tab.table.filter_text == "item 1", pilot)
        # Escape would stop the load: "… items · loading…", narrower than "… of …".
        await pilot.press(*["backspace"] * len("item 1"))
        await wait_for(lambda: tab.table.filter_text == "", pilot)
        assert not tab.loaded_once
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
    # Only to widen it while the list arrived (with "of", with more digits), then to fit
    # it once loaded (with the room of a filter's count: the cursor is in the filter).
    widths = [len(text) for text in layouts[:-1]]
    assert widths == sorted(widths)
    assert layouts[-1] == "3,000 items".rjust(len("3,000 of 3,000 · filtering…"))


async def test_the_count_line_takes_its_room_once_as_a_filter_is_typed_while_a_list_arrives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "2 of 7,500 · filtering… · loading…" grows to "… of 15,000 …" as rows arrive: from
    # the key that puts the cursor in the filter, the line has the room of the longest
    # list the client reads, and no count laid the screen out again until the load ended.
    async with half_arrived(15_000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await pilot.press("slash")
        await pilot.pause()
        count = tab.query_one(".count")
        seen: list[tuple[bool, int, bool]] = []  # loading, total, laid out
        update = count.update

        def counted(content: Any, *, layout: bool = True) -> None:
            update(content, layout=layout)
            seen.append((tab._loading, tab.table.total_count, layout))

        monkeypatch.setattr(count, "update", counted)
        await pilot.press(*"item 1")
        await wait_for(lambda: tab.table.filter_text == "item 1", pilot)
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
    arriving = [(total, layout) for loading, total, layout in seen if loading]
    assert min(total for total, _ in arriving) < 10_000 <= max(total for total, _ in arriving)
    assert not any(layout for _, layout in arriving)


async def test_at_80_columns_the_count_takes_no_room_the_filter_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sort waiting for the rows makes the count long; the room it would keep for a
    # growing total comes out of the filter line only down to its last 30 columns (the
    # count's own text, the longest while the list arrives, always shows).
    monkeypatch.setattr(sys.modules[__name__], "SIZE", (80, 24))
    async with half_arrived(3000) as arrived:
        pilot, tab = arrived.pilot, arrived.tab
        count = tab.query_one(".count")
        texts: list[str] = []
        update = count.update

        def counted(content: Any, *, layout: bool = True) -> None:
            update(content, layout=layout)
            texts.append(str(count.render()).strip())

        monkeypatch.setattr(count, "update", counted)
        await pilot.press("s", "slash", "x")
        await wait_for(lambda: tab.filter_input.value == "x", pilot)
        await pilot.pause()
        assert "sorting" in texts[-1] and "loading" in texts[-1]
        longest = max(map(cell_len, texts)) + count.styles.gutter.width
        assert count.size.width <= max(longest, 80 - tabs.FILTER_ROOM)


async def test_a_filter_typed_while_the_body_arrives_shows_a_small_slice_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The key's frame waits for the first slice indexed: a small one, then the frame is
    # drawn, and each next one doubles, with no wait between them, up to a full slice.
    monkeypatch.setattr(tabs, "INDEX_FIRST", 50)
    monkeypatch.setattr(tabs, "INDEX_STEP", 1600)
    async with half_arrived(6000) as arrived:
        pilot, tab = arrived.pilot, arrived.tab
        arrived_rows = 0
        while arrived_rows != len(tab.table.rows):  # all that arrives before the halt
            arrived_rows = len(tab.table.rows)
            await pilot.pause(0.1)
        assert 750 < arrived_rows < 1550
        shown: list[int] = []
        show_indexed = tab.table.show_indexed

        def spied(index: Any, text: str) -> None:
            shown.append(index.count)
            show_indexed(index, text)

        drawn: list[tuple[Any, ...]] = []  # called once the screen is drawn
        monkeypatch.setattr(tab.table, "show_indexed", spied)
        monkeypatch.setattr(tab, "call_after_refresh", lambda *call: drawn.append(call))
        monkeypatch.setattr(tabs, "FIRST_FRAME_WAIT", 30.0)
        await pilot.press("slash", "i")
        await wait_for(lambda: bool(drawn), pilot)
        await pilot.pause(0.2)
        assert shown == [50]  # the next slices wait for the first one's frame
        count = tab.query_one(".count")
        # Not "… of 1,234": the rows not indexed yet have not been looked at.
        assert f"of {arrived_rows:,} · filtering…" in str(count.render())
        for function, *arguments in drawn:
            function(*arguments)
        await wait_for(lambda: bool(shown) and shown[-1] == arrived_rows, pilot)
        assert shown == [50, 150, 350, 750, arrived_rows]
        assert tab.table.filter_text == "i"
        await pilot.pause()
        assert "filtering…" not in str(count.render())


async def test_the_first_key_typed_while_the_body_arrives_filters_in_its_own_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No turn of the event loop between the key and the rows it filters: a frame drawn
    # in between would show the text typed over the rows unfiltered, and the key's own
    # frame would wait for the next tick.
    monkeypatch.setattr(tabs, "INDEX_FIRST", 50)
    async with half_arrived(6000) as arrived:
        pilot, tab = arrived.pilot, arrived.tab
        await wait_for(lambda: len(tab.table.rows) > 500, pilot)
        monkeypatch.setattr(tab, "_index_ahead", lambda: None)  # the key comes first
        tab.focus_filter()
        await pilot.pause()
        tab.filter_input.insert_text_at_cursor("1")  # as a key in the filter does
        assert tab.table.filter_text == "1"
        assert 0 < tab.table.shown_count < 50  # found among the first slice
        arrived.held.gate.set()
        await loaded(arrived.app, pilot, "items")  # nothing of the load outlives the test


async def test_the_filter_focused_while_the_body_arrives_has_the_first_slice_indexed_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Indexed after the frame that shows the filter focused: the first key then only
    # filters the rows indexed, in its own turn.
    monkeypatch.setattr(tabs, "INDEX_FIRST", 50)
    async with half_arrived(6000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        await wait_for(lambda: len(tab.table.rows) > 500, pilot)
        indexer = tab._indexer
        assert indexer.count == 0
        starts: list[int] = []
        piece = type(indexer).piece

        def counted(self: Any, added: Any, start: int) -> Any:
            starts.append(start)
            return piece(self, added, start)

        monkeypatch.setattr(type(indexer), "piece", counted)
        after_frame: list[tuple[Any, ...]] = []
        monkeypatch.setattr(tab, "call_after_refresh", lambda *call: after_frame.append(call))
        tab.focus_filter()
        await wait_for(lambda: bool(after_frame), pilot)
        assert starts == [] and indexer.count == 0  # not in the focus's own turn
        for function, *arguments in after_frame:
            function(*arguments)  # as the frame is drawn
        assert starts == [0] and indexer.count == 50
        assert "Arriving item 0" in screen_text(app)  # still every row: no filter yet
        tab.filter_input.insert_text_at_cursor("1")  # as a key in the filter does
        assert starts == [0]  # nothing more indexed in the key's turn
        assert tab.table.filter_text == "1"
        assert tab.table.shown_count == 14  # 1, 10-19, 21, 31, 41: among the first 50
        arrived.held.gate.set()
        await loaded(app, pilot, "items")
        assert tab.table.shown_count == sum("1" in str(n) for n in range(6000))


class HeldAnswer(Arriving):
    """:class:`Arriving`, its answer to the list held until ``opened`` is set."""

    def __init__(self, app: Any, body: HeldBody) -> None:
        super().__init__(app, body)
        self.opened = asyncio.Event()
        self.asked = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/items":
            self.asked = True
            await self.opened.wait()
        return await super().handle_async_request(request)


async def test_the_filter_focused_before_the_rows_come_has_the_first_slice_indexed_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tabs, "INDEX_FIRST", 50)
    body = json.dumps({"items": [item(n) for n in range(3000)]}).encode()
    held = HeldBody(body, len(body) // 2)
    transport = HeldAnswer(create_app(seed=0), held)
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    try:
        async with app.run_test(size=SIZE) as pilot:
            tab: Any = app.browse.tab("items")
            await pilot.press("2", "slash")
            await wait_for(lambda: transport.asked and tab.filter_input.has_focus, pilot)
            assert tab._indexer is None  # no rows yet
            transport.opened.set()  # the first half of the body, then it waits
            await wait_for(lambda: held.waiting and tab._indexer is not None, pilot)
            await wait_for(lambda: tab._indexer.count == 50, pilot)
            assert tab.filter_input.value == ""
            held.gate.set()
            await loaded(app, pilot, "items")
    finally:
        transport.opened.set()
        held.gate.set()


class FakeResponse:
    def __init__(self, status: int = 200) -> None:
        self.status_code = status
        self.headers = {"content-type": "application/json"}


async def read_streamed(body: bytes, model: type, piece: int = 997) -> list[Any]:
    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start : start + piece]

    listing = StreamedList(model, "items", FakeResponse(), None)  # type: ignore[arg-type]
    await listing.consume(pieces())
    return await listing.result()


async def test_a_streamed_list_reads_the_next_piece_once_its_wait_between_reads_is_over() -> None:
    body = json.dumps({"items": [item(n) for n in range(300)]}).encode()
    seen: list[str] = []

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 4096):
            seen.append("read")
            yield body[start : start + 4096]

    async def between_reads() -> None:
        seen.append("wait")
        await asyncio.sleep(0)
        seen.append("over")

    listing = StreamedList(Item, "items", FakeResponse(), None, between_reads)  # type: ignore[arg-type]
    await listing.consume(pieces())
    assert seen == ["read", "wait", "over"] * len(range(0, len(body), 4096))
    assert [row.id for row in await listing.result()] == [f"item-{n:05}" for n in range(300)]


def outcome(read: Any) -> Any:
    try:
        rows = read()
    except UnexpectedResponse as error:
        return ("error", str(error))
    return (
        "rows",
        [row.raw for row in rows],
        [getattr(row, "id", None) for row in rows],
        getattr(rows, "problems", None),  # what was left out, and why
    )


BODIES = {
    "bare": json.dumps([item(n) for n in range(300)]).encode(),
    "wrapped, spaced": json.dumps({"items": [item(n) for n in range(300)]}, indent=2).encode(),
    "list not first": json.dumps({"count": 2, "items": [item(1), item(2)]}).encode(),
    "under data": json.dumps({"data": {"items": [item(1)]}}).encode(),
    "entry not an object": json.dumps([item(n) for n in range(200)] + [5]).encode(),
    "wrong type mid-list": json.dumps(
        [item(n) for n in range(200)] + [{**item(1), "price": "cheap"}]
    ).encode(),
    "cut short": json.dumps([item(n) for n in range(300)]).encode()[:-500],
    "lone surrogate": json.dumps([{**item(1), "title": "a\\ud800b"}])
    .encode()
    .replace(b"\\\\ud800", b"\\ud800"),
    "not json": b"<html>busy</html>",
    "empty list": b"[]",
}


@pytest.mark.parametrize("name", list(BODIES))
async def test_a_streamed_list_reads_every_body_as_the_whole_read_does(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)  # many batches even for small bodies
    body = BODIES[name]
    whole = ListParser(Item, "items", 200, "application/json")
    try:
        streamed: Any = await asyncio.wait_for(read_streamed(body, Item), 10)
    except UnexpectedResponse as error:
        streamed = error
    assert outcome(lambda: _raise(streamed)) == outcome(lambda: whole(body))


def _raise(result: Any) -> Any:
    if isinstance(result, Exception):
        raise result
    return result


@pytest.mark.parametrize("name", ["cut short", "not json"])
async def test_a_streamed_list_names_a_bad_body_as_the_whole_read_does(name: str) -> None:
    body = BODIES[name]
    with pytest.raises(UnexpectedResponse) as streamed:
        await read_streamed(body, Item)
    with pytest.raises(UnexpectedResponse) as whole:
        ListParser(Item, "items", 200, "application/json")(body)
    assert str(streamed.value) == str(whole.value)


async def test_streamed_rows_point_into_the_spooled_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    listed = [item(n) for n in range(100)]
    rows = await read_streamed(json.dumps({"items": listed}, indent=1).encode(), Item)
    assert all(isinstance(row._source, Spooled) for row in rows)
    assert rows[0]._source.spool is rows[-1]._source.spool  # one file: the body
    assert [row.raw for row in rows] == listed
    assert rows[3].payout is rows[4].payout  # shared across batches


async def test_streamed_assets_and_collections_keep_their_ids() -> None:
    assets = await read_streamed(json.dumps([{"assetId": "a1", "name": "A"}]).encode(), Asset)
    assert assets[0].id == "a1" and assets[0].raw == {"assetId": "a1", "name": "A"}
    collections = await read_streamed(json.dumps([{"tokenId": "7", "x": 1}]).encode(), Collection)
    assert (
        collections[0].id
        == ListParser(Collection, "c", 200, "")(json.dumps([{"tokenId": "7", "x": 1}]).encode())[
            0
        ].id
    )


async def test_rows_arriving_are_decoded_where_drawn_and_what_reads_them_all_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.api import stream
    from tokensales_tui.api.arriving import ArrivingRows
    from tokensales_tui.ui.table import cells

    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)  # stretches of a dozen rows
    monkeypatch.setattr(cells, "SAMPLE", 20)  # the widths read a few rows only
    decode_rest = ArrivingRows._decode_rest
    held = asyncio.Event()

    async def held_back(self: ArrivingRows, between: Any) -> None:
        await held.wait()  # the body has ended: every row is counted, few decoded
        await decode_rest(self, between)

    monkeypatch.setattr(ArrivingRows, "_decode_rest", held_back)
    copied: list[str] = []
    async with half_arrived(3000) as arrived:
        app, pilot, tab = arrived.app, arrived.pilot, arrived.tab
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        arrived.held.gate.set()
        await wait_for(lambda: tab.table.total_count == len(arrived.listed), pilot)
        rows = tab.table.model.rows
        assert isinstance(rows, ArrivingRows) and not rows.whole
        assert tab.table.model.rows[0].title == "Arriving item 0"
        await wait_for(lambda: "3,000 items · indexing…" in screen_text(app), pilot)
        await pilot.press("end")  # the last rows are drawn: decoded
        await wait_for(lambda: "item-02999" in screen_text(app), pilot)
        assert not rows.whole
        await pilot.press("ctrl+a")
        await wait_for(
            lambda: any("mark all once it is in" in n.message for n in app._notifications), pilot
        )
        assert not tab.table.model.marks
        await pilot.press("x")  # an export reads every row too
        await wait_for(
            lambda: any("export once it is in" in n.message for n in app._notifications), pilot
        )
        assert app.screen is app.browse
        # A row marked is a row drawn: the marked rows are found among those decoded.
        await pilot.press("space", "c")
        await wait_for(lambda: "item-02999" in copied, pilot)
        assert tab.table.model.marked_in_view() == 1
        assert not rows.whole  # nothing decoded them all
        held.set()
        await loaded(app, pilot, "items")
        assert rows.whole and tab.table.model.rows is rows
        await pilot.press("ctrl+a")
        await wait_for(lambda: len(tab.table.model.marks) == len(arrived.listed), pilot)


class BrokenBody(httpx.AsyncByteStream):
    """A body whose connection breaks after its first ``before`` bytes."""

    def __init__(self, body: bytes, before: int) -> None:
        self.body, self.before = body, before

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, self.before, 65536):
            yield self.body[start : min(start + 65536, self.before)]
        raise httpx.ReadError("the connection broke")


async def test_a_retried_list_shows_the_rows_of_the_try_that_goes_on() -> None:
    # The rows of a try whose connection broke stayed on screen while the retry arrived,
    # read from that try's spool, closed once it failed: enter on one raised (the file
    # is closed), and the rows not decoded yet showed blank.
    listed = [item(n) for n in range(3000)]
    body = json.dumps({"items": listed}).encode()
    held = HeldBody(body, len(body) // 2)
    answers = [BrokenBody(body, len(body) // 3), held]

    class Retried(Rigged):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path == "/v1/items":
                stream = answers.pop(0) if len(answers) > 1 else answers[0]
                return httpx.Response(
                    200, headers={"content-type": "application/json"}, stream=stream
                )
            return await super().handle_async_request(request)

    try:
        async with on_items(Retried(create_app(seed=0))) as (app, pilot, tab):
            await wait_for(lambda: held.waiting and tab.table.total_count > 0, pilot)
            rows = tab.table.model.rows
            assert all(row.raw == listed[n] for n, row in enumerate(rows[:50]))
            await pilot.press("enter")  # the detail of the first row
            await wait_for(lambda: "item-00000" in screen_text(app), pilot)
            await pilot.press("escape")
            held.gate.set()
            await loaded(app, pilot, "items")
            assert tab.table.total_count == len(listed)
    finally:
        held.gate.set()
