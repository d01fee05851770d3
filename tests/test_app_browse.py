"""Pilot tests of the main screen on the in-process emulator."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.cells import cell_len
from textual.widgets import TabbedContent, TabPane

from tokensales_tui.emulator import create_app
from tokensales_tui.session import Launch
from tokensales_tui.ui import app as app_module
from tokensales_tui.ui import safe_app
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.resources import RESOURCES
from tokensales_tui.ui.tabs import ResourceTab
from tokensales_tui.ui.widgets.footer import KeysFooter

from .apphelpers import (
    Rigged,
    burst,
    calls_held,
    delete_held,
    emulator_env,
    loaded,
    rigged_app,
    screen_text,
    wait_for,
    wait_for_screen,
)
from .tripwire import Tripwire

SIZE = (120, 40)


def demo(**kwargs: object) -> TokenSalesApp:
    return TokenSalesApp(Launch(demo=True, **kwargs))  # type: ignore[arg-type]


async def test_all_tabs_load_and_number_keys_switch() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        expected = {
            "1": "webhooks",
            "2": "items",
            "3": "assets",
            "4": "payouts",
            "5": "collections",
        }
        for key, name in expected.items():
            await pilot.press(key)
            assert app.active_tab.resource.key == name
            assert app.active_tab.table.total_count > 0
            assert app.focused is app.active_tab.table
        assert "DEMO" in screen_text(app)


async def test_the_api_client_is_built_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process's first httpx client imports its transports and reads the system's
    certificates (0.1-0.3 s): built on the event loop, it held a frame at start-up."""
    from tokensales_tui.ui import worker

    threads: list[threading.Thread] = []

    class Noted(worker.ApiClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            threads.append(threading.current_thread())
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(worker, "ApiClient", Noted)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
    assert threads and threading.main_thread() not in threads


async def test_the_tabs_out_of_view_are_mounted_after_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first frame comes before the widgets of four tabs out of five (a third of
    the time to it); keys typed meanwhile wait for them, and every tab loads."""
    mounted_at_frames: list[int] = []
    display = TokenSalesApp._display

    def noted(self: TokenSalesApp, screen: Any, renderable: Any) -> None:
        if renderable is not None and isinstance(self.screen, type(self.browse)):
            mounted_at_frames.append(len(self.browse.query(ResourceTab)))
        display(self, screen, renderable)

    monkeypatch.setattr(TokenSalesApp, "_display", noted)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "3", "slash", "e", "t")
        await loaded(app, pilot)
        tab = app.browse.tab("assets")
        await wait_for(lambda: tab.filter_input.value == "et", pilot)
        assert app.focused is tab.filter_input
    assert mounted_at_frames[0] == 1
    assert mounted_at_frames[-1] == 5


async def test_quitting_while_the_tabs_out_of_view_are_mounted_starts_no_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A quit as the app starts, while the tabs out of view are mounted: the panes after
    are being taken down; nothing more is mounted, no error, and no session starts."""
    app = demo()
    mount = TabPane.mount

    def mount_then_quit(self: TabPane, *widgets: Any, **kwargs: Any) -> Any:
        mounted = mount(self, *widgets, **kwargs)
        if self.id != "webhooks" and any(isinstance(w, ResourceTab) for w in widgets):
            app.exit()  # the first tab is composed; the others come after the first frame
        return mounted

    monkeypatch.setattr(TabPane, "mount", mount_then_quit)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    assert app.return_code == 0
    assert app.session is None


async def test_tabs_switch_by_mouse() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.click("#--content-tab-items")
        assert app.active_tab.resource.key == "items"
        await pilot.click("#--content-tab-collections")
        assert app.active_tab.resource.key == "collections"
        assert app.focused is app.active_tab.table


async def test_a_click_beside_the_tabs_or_beyond_the_screen_leaves_the_table_focused() -> None:
    # The tab bar took the focus from a click on its empty part or its underline (and a
    # click beyond the screen left no focus): no visible focus, enter and j did nothing.
    from textual import events

    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        table = app.active_tab.table
        await wait_for(lambda: app.focused is table, pilot)
        for x, y in ((118, 1), (60, 2), (5, 2)):
            await pilot.click(offset=(x, y))
            await pilot.pause()
            assert app.focused is table, (x, y)
        for kind in (events.MouseDown, events.MouseUp, events.Click):
            # A report beyond the screen, from a terminal that has not said its new size.
            app.post_message(kind(None, 200, 60, 0, 0, 1, False, False, False))
        await pilot.pause(0.2)
        assert app.focused is table
        await pilot.press("j", "enter")
        await wait_for_screen(app, pilot, "DetailScreen")


async def test_filter_narrows_and_escape_clears() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        assert app.focused is app.active_tab.filter_input
        total = app.active_tab.table.total_count
        await pilot.press(*"usdc")
        table = app.active_tab.table
        assert 0 < table.shown_count < total
        assert all(
            "usdc" in "|".join(table.model.cells_at(i)).lower() for i in range(table.shown_count)
        )
        assert f"{table.shown_count} of {total}" in screen_text(app)
        await pilot.press("escape")
        assert table.shown_count == total
        assert app.focused is table


async def test_typing_a_filter_lays_the_screen_out_no_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A layout of the whole screen costs 15-20 ms a key on a slow machine. Neither the
    # filter line (Input sizes itself to its text) nor the count line (as wide as the
    # count, with the room a filter's count takes from the key that puts the cursor in
    # the filter) asks for one while a filter is typed, from its first key, and neither
    # does the table while its rows fit in it.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        await pilot.pause()
        tab = app.active_tab
        layouts: list[str] = []

        def count_layouts(widget: Any) -> None:
            original = widget.refresh

            def counted(*args: Any, **kwargs: Any) -> Any:
                if kwargs.get("layout"):
                    layouts.append(str(widget))
                return original(*args, **kwargs)

            monkeypatch.setattr(widget, "refresh", counted)

        count_layouts(tab.filter_input)
        count_layouts(tab.query_one(".count"))
        await pilot.press("g", "o")  # the table's scroll bar goes: the rows fit now
        await pilot.pause()
        count_layouts(tab.table)
        for key in ["l", "d", "backspace"]:
            await pilot.press(key)
            await pilot.pause()
        assert tab.table.filter_text == "gol"
        assert 0 < tab.table.shown_count < tab.table.size.height - 1  # the rows fit
        assert layouts == []


async def test_the_count_line_has_the_room_of_a_filters_count_before_the_first_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "1,000 items" becomes "232 of 1,000", a cell wider (and "filtering…" may follow):
    # the line takes that room when the cursor goes into the filter, not at the key.
    emulator = create_app(seed=0, items=1000)
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: Rigged(emulator)))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        await loaded(app, pilot, "items")
        tab = app.active_tab
        count = tab.query_one(".count")
        width = count.size.width
        await pilot.press("slash")
        await pilot.pause()
        assert count.size.width >= width + cell_len(" of 1,000 · filtering…") - len(" items")
        layouts: list[bool] = []
        original = count.refresh

        def counted(*args: Any, **kwargs: Any) -> Any:
            layouts.append(bool(kwargs.get("layout")))
            return original(*args, **kwargs)

        monkeypatch.setattr(count, "refresh", counted)
        await pilot.press("w")
        await pilot.pause()
        shown = tab.table.shown_count
        assert 100 <= shown < 1000
        assert str(count.render()).strip().startswith(f"{shown:,} of 1,000")
        assert layouts and not any(layouts)
        await pilot.press("enter")  # to the table, the filter kept: no room left over
        await pilot.pause()
        assert str(count.render()) == f"{shown:,} of 1,000"
        await pilot.press("slash", "escape")  # the filter emptied: as wide as before
        await pilot.pause()
        assert count.size.width == width


async def test_the_footer_is_repainted_only_when_its_keys_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Textual asks the footer to show the keys again at each refresh of the bindings
    # (twice per focus change, and more), whatever changed; a new set of keys is
    # repainted on its line, never laid out.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        await pilot.pause()
        footer = app.screen.query_one(KeysFooter)
        repaints: list[bool] = []
        original = footer.refresh

        def counted(*args: Any, **kwargs: Any) -> Any:
            repaints.append(bool(kwargs.get("layout") or kwargs.get("recompose")))
            return original(*args, **kwargs)

        monkeypatch.setattr(footer, "refresh", counted)
        for _ in range(3):
            app.screen.refresh_bindings()
            await pilot.pause()
        assert repaints == []
        shown = [key.key for key in footer.keys]
        assert "slash" in shown
        await pilot.press("slash")  # the filter line takes the keys: "/" is text there
        for _ in range(3):
            app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert repaints == [False]
        assert "slash" not in [key.key for key in footer.keys]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert repaints == [False, False]
        assert [key.key for key in footer.keys] == shown


async def test_filter_matching_nothing_says_so() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1", "slash", *"zzzzqqq")
        assert app.active_tab.table.shown_count == 0
        assert "No rows match" in screen_text(app)


async def test_the_row_actions_stay_in_the_footer_with_no_row_and_say_so() -> None:
    # A filter matching nothing kept "⏎ Open" and "d Delete" in the footer and took
    # "e Edit" away, while all three answered "Nothing is highlighted".
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        footer = app.screen.query_one(KeysFooter)
        row_actions = {"enter", "e", "d"}
        assert row_actions <= {key.key for key in footer.keys}
        await pilot.press("1", "slash", *"title:xx", "enter")
        await pilot.pause()
        assert app.active_tab.table.shown_count == 0
        assert row_actions <= {key.key for key in footer.keys if key.enabled}
        app.clear_notifications()
        await pilot.press("e")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["Nothing is highlighted"]
        assert not app.screen.is_modal


async def test_sort_keys_and_header_click() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        table = app.active_tab.table
        await pilot.press("s")
        assert table.sort_column == table.columns[0].key
        await pilot.press("s", "s")  # id → title → price
        assert table.sort_column == "price"
        prices = [(row.currency, row.price) for row in table.model.shown_rows]
        assert prices == sorted(prices)  # by currency, then amount
        assert len({currency for currency, _ in prices}) > 1
        await pilot.press("S")
        prices = [(row.currency, row.price) for row in table.model.shown_rows]
        assert prices == sorted(prices, reverse=True)
        # the decimal points of the prices shown line up, counted in terminal cells
        lines = [table.render_line(y).text for y in range(1, 12)]
        found = [re.search(r"\d(\.)\d+ [A-Z]", text) for text in lines]
        points = {cell_len(text[: m.start(1)]) for text, m in zip(lines, found, strict=True) if m}
        assert len(points) == 1 and all(found), lines
        # clicking the "Title" header sorts by title
        title_x = sum(table._widths[:1]) + 2
        await pilot.click("#items-table", offset=(title_x, 0))
        assert table.sort_column == "title"


TINY_PRICES = {0: 0.000000001, 1: 1e-18, 2: "0.000000001", 3: 5e-324}
"""Prices too small for eight decimals (1 gwei in ETH, 1 wei, the smallest float)."""


async def test_a_tiny_price_is_never_shown_as_zero_and_sorts_by_its_value() -> None:
    app, _ = rigged_app()
    items = app.rigged_emulator.items  # type: ignore[attr-defined]
    for place, item_id in enumerate(list(items)[: len(TINY_PRICES)]):
        price = TINY_PRICES[place]
        items[item_id] = dict(items[item_id], price=price, currency="ETH", title=f"tiny {place}")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        table = app.active_tab.table
        shown = {row.title: row for row in table.model.shown_rows if row.title.startswith("tiny")}
        assert len(shown) == 4
        cells = "\n".join(table.render_line(y).text for y in range(1, 6))
        assert "0.000000001 ETH" in cells and "0.000000000000000001 ETH" in cells
        assert "5e-324 ETH" in cells and "0.00 ETH" not in cells
        table.move_cursor_to(lambda row: row.title == "tiny 2")  # sent as a string
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        assert "0.000000001 ETH" in screen_text(app)
        await pilot.press("escape", "s", "s", "s")  # id → title → price
        assert table.sort_column == "price"
        eth = [row.price for row in table.model.shown_rows if row.currency == "ETH"]
        assert eth[:4] == [5e-324, 1e-18, 1e-9, 1e-9] and eth == sorted(eth)
        table.set_filter("0.000000000000000001")  # the filter reads the price as shown
        await pilot.pause()
        assert [row.title for row in table.model.shown_rows] == ["tiny 1"]


async def test_a_webhook_listed_without_is_active_is_not_shown_as_active() -> None:
    # The interface says isActive is in every response; one left out is not known,
    # and may be off: "● yes" claimed more than the server said.
    app, transport = rigged_app()

    def unsaid(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        listed[0].pop("isActive")
        listed[1]["isActive"] = None
        return listed

    transport.edit_json["/v1/platform-webhooks"] = unsaid
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        table = app.active_tab.table
        cells = [table.render_line(y).text for y in (1, 2, 3)]
        first, second = table.model.shown_rows[:2]
        assert first.is_active is None and second.is_active is None
        assert "yes" not in cells[0] and "no " not in cells[0] and "–" in cells[0]
        assert "yes" not in cells[1] and "–" in cells[1]
        assert "● yes" in cells[2] or "○ no" in cells[2]
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        assert "not sent" in screen_text(app)


async def test_copy_id_and_json() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        row = app.active_tab.highlighted
        await pilot.press("c")
        assert app.clipboard == row.id
        await pilot.press("y")
        assert json.loads(app.clipboard) == row.raw


async def test_delete_asks_and_cancel_keeps_the_row() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        before = tab.table.total_count
        row = tab.highlighted
        await pilot.press("d")
        assert type(app.screen).__name__ == "ConfirmScreen"
        assert row.url in screen_text(app)
        footer = screen_text(app).splitlines()[-1]
        assert "Cancel" in footer  # the dialog's own keys, not the main screen's
        assert "Open" not in footer and "Help" not in footer and "Quit" not in footer
        await pilot.press("enter")  # the default button is Cancel
        assert type(app.screen).__name__ != "ConfirmScreen"
        assert tab.table.total_count == before
        assert row.id in app.emulator.webhooks
        for key in ("escape", "q"):  # as in less and k9s, q goes back, never quits from here
            await pilot.press("d")
            assert type(app.screen).__name__ == "ConfirmScreen"
            await pilot.press(key)
            assert type(app.screen).__name__ == "BrowseScreen" and app.is_running
        assert row.id in app.emulator.webhooks


async def test_delete_confirmed_removes_it_on_the_server_and_in_the_table() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        tab = app.active_tab
        before = tab.table.total_count
        row = tab.highlighted
        await pilot.press("d", "right", "enter")
        await wait_for(lambda: row.id not in app.emulator.collections, pilot)
        await wait_for(lambda: tab.table.total_count == before - 1, pilot)
        assert all(r.id != row.id for r in tab.table.model.shown_rows)


async def test_failed_delete_leaves_the_row_and_says_why() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        tab = app.active_tab
        row = tab.highlighted
        transport.fail[f"/v1/items/{row.id}"] = 422
        await pilot.press("d", "right", "enter")
        await wait_for(lambda: any("not deleted" in n.message for n in app._notifications), pilot)
        assert any(r is row for r in tab.table.model.shown_rows)


async def test_an_object_being_deleted_is_not_deleted_again_and_shows_it() -> None:
    # A second `d` on a row whose delete has not been answered sent a second DELETE,
    # which found the object gone (the first had deleted it) and said "not deleted".
    app, transport = rigged_app()
    deletes: list[str] = []
    transport.hook = lambda r: deletes.append(r.url.path) if r.method == "DELETE" else None
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        path = f"/v1/platform-webhooks/{tab.highlighted.id}"
        release = await delete_held(app, pilot, transport)
        await wait_for(lambda: deletes == [path], pilot)
        assert "deleting 1 webhook…" in str(tab.query_one(".count").render())
        assert "⌫" in tab.table.render_line(1).text  # in the margin of its row
        await pilot.press("d")  # again, on the same row: nothing asked, nothing sent
        assert type(app.screen).__name__ == "BrowseScreen"
        assert any("being deleted already" in n.message for n in app._notifications)
        await pilot.press("space", "d")  # marked, then a bulk delete of the marks
        assert type(app.screen).__name__ == "BrowseScreen"
        assert any("marked is being deleted already" in n.message for n in app._notifications)
        said = lambda: [n.message for n in app._notifications if "eleted" in n.message]  # noqa: E731
        release.set()
        await wait_for(lambda: any(m.startswith("Deleted webhook") for m in said()), pilot)
        assert deletes == [path]
        assert not any("not deleted" in m for m in said())
        assert not tab.deleting
        assert "deleting" not in str(tab.query_one(".count").render())


LONG_URL = "https://hooks.example.com/" + "x" * 1975
"""2,000 characters: the emulator takes addresses of up to 2,048."""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_question_before_a_delete_stays_on_screen_whatever_the_name(
    size: tuple[int, int],
) -> None:
    app = demo()
    async with app.run_test(size=size) as pilot:
        await loaded(app, pilot)
        ids = list(app.emulator.webhooks)[:2]
        for webhook_id in ids:
            app.emulator.webhooks[webhook_id]["url"] = LONG_URL
        await pilot.press("1", "r")
        tab = app.active_tab
        await wait_for(lambda: tab.table.rows[0].url == LONG_URL, pilot)
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "Delete this webhook?" in text and "Cancel" in text and "Delete" in text
        assert f"id {ids[0]}" in text
        assert "https://hooks.example.com/xxx" in text and "x…" in text
        await pilot.press("escape", "space", "space", "d")  # both marked: a bulk delete
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "Delete 2 marked webhooks?" in text and "Cancel" in text and "Delete" in text
        await pilot.press("right", "enter")
        await wait_for(lambda: not set(ids) & set(app.emulator.webhooks), pilot)
        await wait_for(lambda: any("Deleted 2" in n.message for n in app._notifications), pilot)
        assert all(len(n.message) < 400 for n in app._notifications)


def lose_the_first_answer(emulator: Any, kind: str, object_id: str, path: str) -> Any:
    """A hook for a rigged transport: the first DELETE of ``path`` deletes the object on
    the emulator, then its answer is lost (the read times out)."""

    def hook(request: httpx.Request) -> None:
        objects = getattr(emulator, f"{kind}s")
        if request.method == "DELETE" and request.url.path == path and object_id in objects:
            emulator.delete(objects, object_id, kind)
            raise httpx.ReadTimeout("timed out", request=request)

    return hook


async def test_a_delete_whose_answer_was_lost_says_deleted_when_the_repeat_finds_it_gone() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        tab = app.active_tab
        row = tab.highlighted
        emulator = app.rigged_emulator  # type: ignore[attr-defined]
        path = f"/collection/{row.id}"
        transport.hook = lose_the_first_answer(emulator, "collection", row.id, path)
        await pilot.press("d", "right", "enter")
        said = lambda: [  # noqa: E731
            n
            for n in app._notifications
            if n.message.startswith("Deleted") or "not del" in n.message
        ]
        await wait_for(lambda: bool(said()), pilot)
        assert [n.message for n in said()] == [
            f"Deleted collection {row.name} (it was already gone when the request was repeated)"
        ]
        assert said()[0].severity == "information"
        await wait_for(lambda: all(r.id != row.id for r in tab.table.rows), pilot)
        assert row.id not in emulator.collections


async def test_delete_is_not_offered_where_the_service_has_none() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("3")
        assert "Delete" not in screen_text(app).splitlines()[-1]
        await pilot.press("d")
        assert any("no way to delete" in n.message for n in app._notifications)


async def test_error_in_one_tab_shows_there_and_r_retries() -> None:
    app, transport = rigged_app()
    transport.fail["/v1/assets"] = 500
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assets = app.browse.tab("assets")
        assert assets.error is not None
        assert app.browse.tab("items").error is None
        await pilot.press("3")
        text = screen_text(app)
        assert "Loading assets failed" in text and "127.0.0.1:9" in text
        del transport.fail["/v1/assets"]
        await pilot.press("r")
        await wait_for(lambda: assets.error is None and assets.table.total_count == 12, pilot)
        assert "Loading assets failed" not in screen_text(app)


async def test_a_slow_tab_does_not_block_another() -> None:
    app, transport = rigged_app()
    transport.delay["/v1/items"] = 30
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks", "collections")
        items = app.browse.tab("items")
        assert not items.loaded_once and items.table.loading
        await pilot.press("5")
        assert app.active_tab.resource.key == "collections"
        await pilot.press("2", "escape")  # escape cancels the wait
        await wait_for(lambda: not items.table.loading, pilot)
        assert "cancelled" in screen_text(app)


async def test_header_shows_profile_host_and_token() -> None:
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.pause(1.1)
        first = screen_text(app).splitlines()[0]
        assert "profile default" in first
        assert "127.0.0.1:9" in first
        assert "token: valid" in first


async def test_read_only_hides_mutations_and_says_so() -> None:
    from tokensales_tui.config import Overrides

    app = demo(overrides=Overrides(read_only=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        text = screen_text(app)
        assert "READ-ONLY" in text.splitlines()[0]
        assert "Delete" not in text.splitlines()[-1]
        count = app.active_tab.table.total_count
        await pilot.press("d")
        assert type(app.screen).__name__ != "ConfirmScreen"
        assert any("read-only profile" in n.message for n in app._notifications)
        assert app.active_tab.table.total_count == count
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Delete" not in titles and "Refresh" in titles


async def test_enter_opens_the_detail_with_the_current_version() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        row = app.active_tab.highlighted
        stored = dict(app.emulator.items[row.id], title="Renamed on the server")
        app.emulator.items[row.id] = stored
        await pilot.press("enter")
        assert type(app.screen).__name__ == "DetailScreen"
        await wait_for(lambda: "Renamed on the server" in screen_text(app), pilot)
        text = screen_text(app)
        assert row.id in text and '"contractFunction"' in text
        await pilot.press("y")
        assert json.loads(app.clipboard)["title"] == "Renamed on the server"
        await pilot.press("escape")
        assert type(app.screen).__name__ != "DetailScreen"


async def test_the_detail_view_says_when_the_server_answers_with_another_object() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        row = app.active_tab.highlighted
        path = f"/v1/items/{row.id}"
        transport.fail[path] = 200  # answered, with another item
        transport.fail_body[path] = {
            "id": "itm_999",
            "title": "IMPOSTOR",
            "currency": "USD",
            "price": 1.0,
        }
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        await wait_for(lambda: "IMPOSTOR" in screen_text(app), pilot)
        text = screen_text(app)
        assert "another object" in text and "itm_999" in text and row.id in text
        status = app.screen.query_one("#detail-status")
        assert status.display and status.has_class("-warning")


async def test_help_lists_the_keys() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await wait_for_screen(app, pilot, "HelpScreen")
        text = screen_text(app)
        for words in ("Refresh", "Copy JSON", "Profile", "Filter", "Quit"):
            assert words in text
        await pilot.press("escape")
        assert type(app.screen).__name__ != "HelpScreen"


async def test_keymap_from_the_config_file_rebinds_keys() -> None:
    from tokensales_tui import config

    config.save_config(config.ConfigFile(keymap={"refresh": "f5", "help": "f1"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("f1")
        # The help is on top at once, but drawn in its own time: wait for it.
        await wait_for_screen(app, pilot, "HelpScreen")
        assert "f5" in screen_text(app).lower()


async def test_rate_limit_counts_down_in_the_tab_then_loads() -> None:
    app, transport = rigged_app()
    transport.fail["/v1/assets"] = 429
    transport.fail_headers["/v1/assets"] = {"Retry-After": "3"}
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        await pilot.press("3")
        await wait_for(lambda: "trying again in 3 s" in screen_text(app), pilot)
        del transport.fail["/v1/assets"]
        await wait_for(lambda: "trying again in 2 s" in screen_text(app), pilot)
        assets = app.browse.tab("assets")
        await wait_for(lambda: assets.loaded_once, pilot, timeout=10)
        assert "trying again" not in screen_text(app)
        assert assets.table.total_count == 12


async def test_the_countdown_goes_once_the_request_is_tried_again() -> None:
    # "trying again in 1 s (escape stops waiting)" stayed up through the next attempt,
    # until the load ended (30 s against a server stopped mid-body).
    app, transport = rigged_app()
    path = "/v1/assets"
    transport.fail[path] = 429
    transport.fail_headers[path] = {"Retry-After": "1"}
    tried: list[str] = []
    transport.hook = lambda request: tried.append(request.url.path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        await pilot.press("3")
        await wait_for(lambda: "trying again in 1 s" in screen_text(app), pilot)
        del transport.fail[path]
        transport.held[path] = answered = asyncio.Event()  # the next attempt hangs
        await wait_for(lambda: tried.count(path) == 2, pilot)
        await wait_for(lambda: "trying again" not in screen_text(app), pilot)
        answered.set()
        assets = app.browse.tab("assets")
        await wait_for(lambda: assets.loaded_once, pilot)
        assert assets.table.total_count == 12


async def test_a_new_load_clears_the_last_ones_failure_as_it_starts() -> None:
    # The failure stayed on the problem line while the new load's rows came, until it
    # ended; "press r" has been answered once r is pressed.
    app, transport = rigged_app()
    path = "/v1/platform-webhooks"
    transport.fail[path] = 403
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        tab = app.browse.tab("webhooks")
        problem = lambda: str(tab.query_one(".problem").render())  # noqa: E731
        assert "Loading webhooks failed" in problem()
        del transport.fail[path]
        transport.held[path] = answered = asyncio.Event()
        await pilot.press("r")
        await wait_for(lambda: tab.requesting, pilot)
        assert "failed" not in problem()
        answered.set()
        await wait_for(lambda: tab.loaded_once, pilot)
        assert tab.table.total_count == 10 and "failed" not in problem()


async def test_a_far_retry_after_is_capped_and_the_user_is_told() -> None:
    app, transport = rigged_app()
    transport.fail["/v1/assets"] = 429
    transport.fail_headers["/v1/assets"] = {"Retry-After": "86400"}
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        await pilot.press("3")
        await wait_for(lambda: "waiting at most 30 s" in screen_text(app), pilot)
        assert "the server asked for more than a day" in screen_text(app)
        await pilot.press("escape")  # stops waiting
        await wait_for(lambda: "cancelled" in screen_text(app), pilot)


async def test_q_in_the_detail_view_goes_back_and_quits_only_from_the_main_screen() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "enter")
        assert type(app.screen).__name__ == "DetailScreen"
        await pilot.press("q")
        assert type(app.screen).__name__ == "BrowseScreen"
        assert app.is_running
        await pilot.press("q")
        await wait_for(lambda: not app.is_running, pilot)


async def test_the_session_starts_only_once_the_main_screen_is_composed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui.widgets.header import StatusHeader

    seen: list[int] = []
    original = TokenSalesApp.begin

    async def begin(self: TokenSalesApp) -> None:
        seen.append(len(self.browse.query(StatusHeader)) + len(self.browse.query(ResourceTab)))
        await original(self)

    monkeypatch.setattr(TokenSalesApp, "begin", begin)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
    assert seen == [1 + 5]


async def test_the_clock_and_tab_timers_survive_children_removed_first_at_shutdown() -> None:
    # At exit Textual removes a widget's children before the widget: the app's clock
    # and a tab's countdown could then query for a child that was gone (NoMatches).
    from tokensales_tui.api.auth import TokenState
    from tokensales_tui.ui.widgets.header import StatusHeader

    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        header = app.query_one(StatusHeader)
        tab = app.active_tab
        await header.remove_children()
        await tab.remove_children()
        header.token = TokenState("failed")
        tab.show_wait("HTTP 429", 5.0)
        tab.cancel_load()
        await pilot.pause()
        assert app.is_running


@pytest.mark.parametrize("downloads", [False, True])
async def test_screenshot_goes_to_a_folder_that_exists_and_says_where(downloads: bool) -> None:
    folder = Path.home() / "Downloads"
    if downloads:
        folder.mkdir()
    else:
        assert not folder.exists()  # a fresh account, a server: the working folder then
        folder = Path.cwd()
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        (command,) = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        command.callback()
        await wait_for(lambda: bool(app._notifications), pilot)  # once written
        (saved,) = folder.glob("tokensales-tui_*.svg")
        assert "<svg" in saved.read_text()
        assert [n.message for n in app._notifications] == [f"Saved in {saved}"]


async def test_a_screenshot_written_to_a_slow_disk_holds_no_frame(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The file was written on the event loop: a slow or hung disk held every key and
    # frame as long as each step of the write waited (5 s at most each). Its folder's
    # name is data, never markup, in the toast.
    folder = tmp_path / "[bold]shots[red]"
    folder.mkdir()
    monkeypatch.setattr(app_module, "screenshot_folder", lambda: folder)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        (command,) = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        with calls_held(monkeypatch, app_module, "atomic_write") as (held, release):
            command.callback()
            await wait_for(held.is_set, pilot)
            tab = app.active_tab
            await pilot.press("2")  # taken while the file is written
            await wait_for(lambda: app.active_tab is not tab, pilot)
            assert not release.is_set() and not app._notifications
            release.set()
        await wait_for(lambda: bool(app._notifications), pilot)
        (saved,) = folder.glob("tokensales-tui_*.svg")
        [note] = app._notifications
        assert note.message == f"Saved in {saved}" and not note.markup


async def test_at_80_by_24_ids_are_whole_and_the_footer_keeps_the_way_out() -> None:
    app = demo()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        for tab in "12345":
            await pilot.press(tab)
            await pilot.pause()
            table = app.active_tab.table
            if table.columns[0].key != "id":
                continue  # Payouts: no id column
            row = app.active_tab.highlighted
            assert row.id in table.render_line(1).text, tab  # not cut: wh_9019a85bc…
            if tab == "5":  # the counts' long labels gave way to the names first
                assert "東京 Metro Pass" in table.render_line(2).text
                assert "Wal…" in table.render_line(0).text
        footer = screen_text(app).splitlines()[-1]
        assert "p Profile" in footer and "q Quit" in footer
        assert "palette" not in footer  # it would be drawn over the last keys


async def test_at_40_columns_nothing_stray_in_the_footer() -> None:
    app = demo()
    async with app.run_test(size=(40, 24)) as pilot:
        await loaded(app, pilot)
        await wait_for(lambda: "⏎ Open" in screen_text(app), pilot)
        (footer,) = [text for text in screen_text(app).splitlines() if "⏎ Open" in text]
        assert footer.startswith("⏎ Open ? Help") and "palett" not in footer
    wide = demo()
    async with wide.run_test(size=(120, 40)) as pilot:
        await loaded(wide, pilot)
        await wait_for(lambda: "^p palette" in screen_text(wide).splitlines()[-1], pilot)


async def test_the_tabs_and_the_detail_view_use_one_name_for_each_field() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        headers = app.active_tab.table.render_line(0).text
        assert "Chain" in headers and "Contract address" in headers
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        labels = [c.render().plain for c in app.screen.query(".detail--label")]  # type: ignore[attr-defined]
        assert "Chain" in labels and "Contract address" in labels
        assert "Blockchain" not in labels and "Contract" not in labels


def test_a_text_area_takes_typing_once_its_module_is_loaded() -> None:
    from textual.widgets import Input, Static, TextArea

    from tokensales_tui.ui.screens.browse import _takes_text
    from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

    assert _takes_text(Input()) and _takes_text(TextArea()) and _takes_text(SafeTextArea())
    assert not _takes_text(Static()) and not _takes_text(None)


async def test_the_footer_shows_the_ways_out_of_the_filter() -> None:
    # Letters typed in the filter are text, so the screen's keys leave the footer; the
    # two keys that leave the filter take their place, and do what they say.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        await pilot.pause()
        footer = app.screen.query_one(KeysFooter)
        assert [(key.key, key.description) for key in footer.keys] == [
            ("enter", "Go to rows"),
            ("escape", "Clear filter"),
        ]
        tab = app.browse.tab("items")
        await pilot.press("g", "e", "m", "enter")
        await pilot.pause()
        assert app.focused is tab.table
        assert tab.table.filter_text == "gem"
        assert "slash" in [key.key for key in footer.keys]
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert app.focused is tab.table
        assert (tab.filter_input.value, tab.table.filter_text) == ("", "")
        sections = dict(app.browse.help_sections())
        assert sections["In the filter"] == [("⏎", "Go to rows"), ("esc", "Clear filter")]


async def test_views_jump_to_their_end_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual scrolls a view to its end (or a page down) for up to a second, drawing it
    # anew each frame; the app jumps. The animations' clock stands still here: an
    # animated scroll would never move, a jump lands at the animator's next tick.
    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    app = demo()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await wait_for_screen(app, pilot, "HelpScreen")
        panel = app.screen.query_one("#help-panel")
        assert panel.max_scroll_y > 10
        now = app.animator._get_time()
        monkeypatch.setattr(app.animator, "_get_time", lambda: now)
        panel.action_scroll_end()
        await wait_for(lambda: panel.scroll_y == panel.max_scroll_y, pilot, timeout=5)
        panel.action_page_up()
        await wait_for(lambda: panel.scroll_y < panel.max_scroll_y, pilot, timeout=5)
        panel.action_scroll_home()
        await wait_for(lambda: panel.scroll_y == 0, pilot, timeout=5)


def test_textual_animations_come_back_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual import constants

    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    assert demo().animation_level == "none"
    # Textual reads the variable once, as it is imported.
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "full")
    monkeypatch.setattr(constants, "TEXTUAL_ANIMATIONS", "full")
    assert demo().animation_level == "full"


async def test_a_keymap_moves_the_filter_keys_too() -> None:
    from tokensales_tui import config

    config.save_config(config.ConfigFile(keymap={"clear_filter": "ctrl+g"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash", "g", "e", "m")
        await pilot.pause()
        footer = app.screen.query_one(KeysFooter)
        assert ("ctrl+g", "Clear filter") in [(key.key, key.description) for key in footer.keys]
        tab = app.browse.tab("items")
        assert tab.table.filter_text == "gem"
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.focused is tab.table
        assert (tab.filter_input.value, tab.table.filter_text) == ("", "")


async def test_typing_in_the_filter_restyles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A key typed in the filter changes its text and the rows, not the look of a widget:
    # applying the stylesheet again would take a few milliseconds of that key's turn.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        await pilot.pause()
        restyled: list[Any] = []
        update_nodes = app.stylesheet.update_nodes

        def counted(nodes: Any, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            update_nodes(nodes, animate=animate)

        monkeypatch.setattr(app.stylesheet, "update_nodes", counted)
        await pilot.press("g", "e")
        await pilot.pause()
        assert app.browse.tab("items").table.filter_text == "ge"
        assert restyled == []


@pytest.mark.parametrize("keys", [("4", "5"), ("1", "2", "3"), ("2", "1", "2")])
async def test_tab_keys_in_one_read_leave_the_last_tab_shown_for_good(
    keys: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each key shows its tab and focuses its table at once; the panes' focus messages
    # come after all of them, and must not show their (earlier) panes again.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tabs = app.browse.query_one(TabbedContent)
        shown: list[str] = []
        show_tab = app.browse.action_show_tab
        monkeypatch.setattr(
            app.browse, "action_show_tab", lambda key: (shown.append(key), show_tab(key))
        )
        burst(app, *keys)
        last = RESOURCES[int(keys[-1]) - 1].key
        table = app.browse.tab(last).table
        # Every key handled (with "212" the last tab is shown after the first key too).
        await wait_for(lambda: len(shown) == len(keys), pilot)
        await wait_for(lambda: tabs.active == last and app.focused is table, pilot)
        # Once there, it stays: the tabs took turns without end, at every turn.
        seen: set[str] = set()
        for _ in range(20):
            await pilot.pause(0.02)
            seen.add(tabs.active)
        assert seen == {last}
        assert app.focused is table


@pytest.mark.parametrize("keys", [("y",), ("enter", "y"), ("n", "ctrl+y")])
async def test_a_copy_past_the_clipboards_limit_copies_nothing_and_says_so(
    keys: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, terminal_tripwire: Tripwire
) -> None:
    # The row's JSON, the detail view's and a form's curl command: one limit for all (a
    # 47 MB whitelist's curl once wrote 66 MB to the terminal, holding the app).
    monkeypatch.setattr(safe_app, "COPY_LIMIT", 40)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await wait_for(
            lambda: any("nothing was copied" in n.message for n in app._notifications), pilot
        )
        assert terminal_tripwire.clipboard == []
        assert not any(n.message.startswith("Copied") for n in app._notifications)


async def test_a_price_past_a_float_s_precision_shows_the_digits_the_server_sent() -> None:
    # 12345678901234567891 read as a float is 12345678901234567168: the table and the
    # detail showed that, while get -o csv printed the server's digits.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        item_id = next(iter(app.emulator.items))
        big = 12345678901234567891
        app.emulator.items[item_id] = dict(app.emulator.items[item_id], price=big, currency="ETH")
        await pilot.press("2", "r")
        table = app.active_tab.table
        await wait_for(lambda: any(r.price == big for r in table.rows), pilot)
        table.move_cursor_to(lambda r: r.id == item_id)
        await pilot.pause()
        # too wide for the column: its magnitude kept, rounded and said to be
        assert "≈1.23456789012346e19 ETH" in screen_text(app)
        await pilot.press("enter")
        await wait_for(lambda: "12,345,678,901,234,567,891.00 ETH" in screen_text(app), pilot)


async def test_neutral_dialogs_are_not_drawn_red_in_16_colours() -> None:
    # With TERM=xterm the accent's orange is drawn as bright red (SGR 91): Export, the
    # help and the profile picker looked like errors. Only a question before something
    # is thrown away has the error's colour.
    from rich.color import Color, ColorSystem

    red = {1, 9}

    def drawn(widget: Any) -> int | None:
        color = widget.styles.border_top[1].rich_color
        return Color.parse(color.name).downgrade(ColorSystem.STANDARD).number

    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for key, screen, frame in (
            ("question_mark", "HelpScreen", "#help-panel"),
            ("x", "ExportScreen", "ExportScreen > VerticalScroll"),
            ("p", "ProfileScreen", "ProfileScreen > Vertical"),
        ):
            await pilot.press(key)
            await wait_for_screen(app, pilot, screen)
            assert drawn(app.screen.query_one(frame)) not in red, screen
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert drawn(app.screen.query_one("ConfirmScreen > VerticalScroll")) in red


async def test_without_colour_the_cursor_row_is_reversed_and_a_marked_row_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NO_COLOR: the cursor's grey (241) and a mark's (239) were all that told them apart.
    monkeypatch.setenv("NO_COLOR", "1")
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.no_color
        palette = app.active_tab.table._get_palette()
        assert palette.cursor.reverse and not palette.marked.reverse
