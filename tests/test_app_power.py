"""Power use of the tables through the whole app: the filter language, marks and bulk
actions, watch, export and drill-down, on the in-process emulator."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tokensales_tui.config import Overrides
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.tabs import ResourceTab

from .apphelpers import delete_held, loaded, rigged_app, screen_text, wait_for, wait_for_screen

SIZE = (120, 40)


def demo(**kwargs: Any) -> TokenSalesApp:
    return TokenSalesApp(Launch(demo=True, **kwargs))


def count_line(tab: ResourceTab) -> str:
    return str(tab.query_one(".count").render())


# --- the filter ------------------------------------------------------------------------


async def test_the_filter_finds_fields_no_column_shows_and_reads_its_syntax() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash", *"backstage")
        table = app.active_tab.table
        assert 0 < table.shown_count < table.total_count
        assert all("backstage" in row.description for row in table.model.shown_rows)
        app.active_tab.filter_input.value = "safemint"
        await pilot.pause()
        shown = table.model.shown_rows
        assert shown and all(
            row.contract_function.function_signature.startswith("safeMint") for row in shown
        )
        app.active_tab.filter_input.value = "safemint !payout:free"
        await pilot.pause()
        assert table.shown_count < len(shown)
        assert all(row.payout.type != "free" for row in table.model.shown_rows)
        assert "!word" in app.active_tab.filter_input.placeholder
        assert "column:word" in app.active_tab.filter_input.placeholder


# --- marks and bulk actions ----------------------------------------------------------------


async def test_marks_count_survive_filter_and_sort_and_copy_as_an_array() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        tab = app.active_tab
        table = tab.table
        first = table.highlighted
        await pilot.press("space")  # marks and moves on
        second = table.highlighted
        await pilot.press("space")
        assert table.marked_count == 2
        assert "2 marked" in count_line(tab)
        assert "✓" in screen_text(app)
        await pilot.press("s", "s", "slash", *"zzzz", "escape")
        assert table.marked_count == 2
        await pilot.press("y")
        copied = json.loads(app.clipboard)
        assert {obj["id"] for obj in copied} == {first.id, second.id}
        await pilot.press("c")
        assert set(app.clipboard.split("\n")) == {first.id, second.id}
        await pilot.press("ctrl+a")
        assert table.marked_count == table.total_count
        await pilot.press("ctrl+a")  # all marked already: clears
        assert table.marked_count == 0


async def test_bulk_delete_asks_once_reports_each_failure_and_keeps_the_successes() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        tab = app.active_tab
        table = tab.table
        rows = table.model.shown_rows[:3]
        await pilot.press("space", "space", "space")
        transport.fail[f"/v1/items/{rows[1].id}"] = 422
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "Delete 3 marked items?" in text
        assert rows[0].title[:20] in text
        assert "esc stops after the current one" in text
        await pilot.press("right", "enter")
        emulator = app.rigged_emulator  # type: ignore[attr-defined]
        await wait_for(lambda: rows[0].id not in emulator.items, pilot)
        await wait_for(lambda: rows[2].id not in emulator.items, pilot)
        await wait_for(lambda: any("not deleted" in n.title for n in app._notifications), pilot)
        failure = next(n for n in app._notifications if "not deleted" in n.title)
        assert rows[1].title[:20] in failure.message
        assert rows[1].id in emulator.items
        ids = lambda: {row.id for row in table.rows}  # noqa: E731
        await wait_for(lambda: rows[0].id not in ids() and rows[2].id not in ids(), pilot)
        assert rows[1].id in ids()
        assert table.marked_count == 1  # the one that failed stays marked


async def test_a_bulk_delete_counts_an_item_its_lost_answer_deleted_as_deleted() -> None:
    from .test_app_browse import lose_the_first_answer

    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        table = app.active_tab.table
        rows = table.model.shown_rows[:2]
        emulator = app.rigged_emulator  # type: ignore[attr-defined]
        path = f"/v1/items/{rows[1].id}"
        transport.hook = lose_the_first_answer(emulator, "item", rows[1].id, path)
        await pilot.press("space", "space", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        said = lambda: [n.message for n in app._notifications if "Deleted" in n.message]  # noqa: E731
        await wait_for(lambda: bool(said()), pilot)
        assert said() == ["Deleted 2 of 2 items (1 already gone when its request was repeated)"]
        assert not any("not deleted" in n.title for n in app._notifications)
        ids = lambda: {row.id for row in table.rows}  # noqa: E731
        await wait_for(lambda: not ids() & {rows[0].id, rows[1].id}, pilot)
        assert table.marked_count == 0


async def test_a_delete_whose_every_answer_was_lost_says_outcome_unknown() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        row = app.active_tab.table.highlighted
        transport.fail[f"/v1/items/{row.id}"] = 504
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        titles = lambda: [n.title for n in app._notifications]  # noqa: E731
        await wait_for(lambda: any(t.endswith(": outcome unknown") for t in titles()), pilot)
        assert "Delete failed" not in titles()


async def test_a_bulk_delete_whose_every_answer_was_lost_says_outcome_unknown() -> None:
    # A gateway answered 504 each time: the server behind it may have deleted the item.
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        rows = app.active_tab.table.model.shown_rows[:2]
        transport.fail[f"/v1/items/{rows[1].id}"] = 504
        await pilot.press("space", "space", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        titles = lambda: [n.title for n in app._notifications if n.title != "Retrying"]  # noqa: E731
        await wait_for(lambda: "1 outcome unknown" in titles(), pilot)
        assert "1 not deleted" not in titles()
        unsure = next(n for n in app._notifications if n.title == "1 outcome unknown")
        assert "refresh to check" in unsure.message and rows[1].id in unsure.message
        assert "Deleted 1 of 2 items" in [n.message for n in app._notifications]


async def test_payouts_follow_the_items_loaded_again_on_the_items_tab() -> None:
    # Payouts group the same list: an item deleted on the Items tab stayed counted in
    # "Used by items" until r was pressed on Payouts.
    app, transport = rigged_app()
    gets: list[str] = []
    transport.hook = lambda r: gets.append(r.url.path) if r.method == "GET" else None
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        payouts = app.browse.tab("payouts")
        await pilot.press("4")
        await wait_for(lambda: payouts.table.total_count > 0, pilot)
        used = sum(row.used_by for row in payouts.table.rows)
        await pilot.press("2")
        assert not payouts.stale
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        await wait_for(lambda: payouts.stale, pilot)
        before = gets.count("/v1/items")
        await pilot.press("4")
        await wait_for(lambda: not payouts.load_running and gets.count("/v1/items") > before, pilot)
        await wait_for(lambda: sum(row.used_by for row in payouts.table.rows) == used - 1, pilot)
        assert not payouts.stale
        await pilot.press("2", "4")  # nothing loaded since: no request
        await pilot.pause(0.2)
        assert gets.count("/v1/items") == before + 1
        # Items loaded again while Payouts is in view: Payouts follows at once.
        app.browse.tab("items").reload()
        await wait_for(lambda: gets.count("/v1/items") > before + 1, pilot)
        await wait_for(lambda: not payouts.stale and not payouts.load_running, pilot)


def list_twice(app: TokenSalesApp, transport: Any) -> tuple[str, list[str]]:
    """The rigged server lists its first webhook twice (first and third) while it exists;
    returns its id and the list that the DELETEs sent will be recorded in."""
    twice = next(iter(app.rigged_emulator.webhooks))  # type: ignore[attr-defined]

    def repeat(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*body[:2], *[row for row in body if row["id"] == twice], *body[2:]]

    deletes: list[str] = []

    def record(request: Any) -> None:
        if request.method == "DELETE":
            deletes.append(request.url.path)

    transport.edit_json["/v1/platform-webhooks"] = repeat
    transport.hook = record
    return twice, deletes


async def test_an_id_listed_twice_is_marked_counted_named_and_deleted_once() -> None:
    app, transport = rigged_app()
    twice, deletes = list_twice(app, transport)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        table = tab.table
        rows = table.model.shown_rows
        assert [row.id for row in rows[:3]] == [twice, rows[1].id, twice]
        await pilot.press("space")  # the mark is the webhook's: both of its rows show it
        assert table.model.is_marked(0) and table.model.is_marked(2)
        await pilot.press("space", "down", "space")  # the second, and the fourth
        assert table.marked_count == 3
        assert "3 marked" in screen_text(app)
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        question = app.screen
        assert question.question == "Delete 3 marked webhooks?"  # type: ignore[attr-defined]
        subject = question.subject  # type: ignore[attr-defined]
        assert subject.count(f"“{tab.resource.label(rows[0])}”") == 1
        assert subject.count("“") == 3
        detail = question.detail  # type: ignore[attr-defined]
        assert detail.startswith("1 more row repeats a marked id: each is deleted once.")
        await pilot.press("right", "enter")
        said = lambda: [n.message for n in app._notifications if "Deleted" in n.message]  # noqa: E731
        await wait_for(lambda: bool(said()), pilot)
        assert said() == ["Deleted 3 of 3 webhooks"]
        assert not any("not deleted" in n.title for n in app._notifications)
        marked = {rows[0].id, rows[1].id, rows[3].id}
        assert sorted(deletes) == sorted(f"/v1/platform-webhooks/{i}" for i in marked)
        await wait_for(lambda: not {row.id for row in table.rows} & marked, pilot)
        assert table.marked_count == 0


async def test_one_row_is_counted_marked_and_deleted_in_the_singular() -> None:
    app, transport = rigged_app()
    transport.edit_json["/v1/platform-webhooks"] = lambda listed: listed[:1]
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        await wait_for(lambda: tab.table.total_count == 1, pilot)
        assert count_line(tab).startswith("1 webhook ") or count_line(tab) == "1 webhook"
        await pilot.press("space", "c")
        assert "Copied the ids of 1 marked webhook" in [n.message for n in app._notifications]
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.question == "Delete 1 marked webhook?"  # type: ignore[attr-defined]
        await pilot.press("right", "enter")
        said = lambda: [n.message for n in app._notifications if "Deleted" in n.message]  # noqa: E731
        await wait_for(lambda: bool(said()), pilot)
        assert said() == ["Deleted 1 of 1 webhook"]


async def test_deleting_a_row_whose_id_is_listed_twice_says_so_and_takes_both() -> None:
    app, transport = rigged_app()
    twice, deletes = list_twice(app, transport)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1", "down", "down")
        tab = app.active_tab
        assert tab.highlighted.id == twice
        label = tab.resource.label(tab.highlighted)
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        detail = app.screen.detail  # type: ignore[attr-defined]
        assert detail == f"id {twice} — listed 2 times: one request deletes it, and both rows go"
        await pilot.press("right", "enter")
        said = lambda: [n.message for n in app._notifications if "Deleted" in n.message]  # noqa: E731
        await wait_for(lambda: bool(said()), pilot)
        assert said() == [f"Deleted webhook {label} (listed 2 times)"]
        assert deletes == [f"/v1/platform-webhooks/{twice}"]
        assert all(row.id != twice for row in tab.table.rows)  # both went at once


async def test_a_bulk_delete_names_the_key_that_stops_it_as_bound() -> None:
    from tokensales_tui import config

    config.save_config(config.ConfigFile(keymap={"clear_filter": "ctrl+g"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "space", "space", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert "^g stops after the current one" in screen_text(app)


async def test_a_read_only_profile_refuses_bulk_delete() -> None:
    app = demo(overrides=Overrides(read_only=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "space", "space", "d")
        await pilot.pause()
        assert type(app.screen).__name__ == "BrowseScreen"
        assert any("read-only" in n.message for n in app._notifications)
        assert app.active_tab.table.total_count == len(app.emulator.items)


# --- watch ---------------------------------------------------------------------------------


async def on_webhooks(app: TokenSalesApp, pilot: Any) -> ResourceTab:
    """The Webhooks tab, loaded, with a short watch interval for the test."""
    await loaded(app, pilot)
    app.watch_interval = 0.2
    await pilot.press("1")
    return app.active_tab


async def test_watch_reloads_keeps_rows_shown_and_sets_changes_apart() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        tab = await on_webhooks(app, pilot)
        table = tab.table
        table.action_cursor_down()
        kept = table.highlighted
        emulator = app.rigged_emulator  # type: ignore[attr-defined]
        gone = next(w for w in table.rows if w is not kept)
        loads: list[bool] = []

        def request(request: Any) -> None:
            if request.url.path == "/v1/platform-webhooks":
                loads.append(table.loading)  # the overlay would hide the rows
                transport.delay[request.url.path] = 0.2

        transport.hook = request
        emulator.add_webhook({"url": "https://new.example.com/hook", "events": ["x"]})
        del emulator.webhooks[gone.id]
        await pilot.press("w")
        assert tab.watching
        await wait_for(lambda: "+1" in count_line(tab), pilot)
        assert "−1" in count_line(tab)
        assert "watching" in count_line(tab)
        assert loads and not any(loads)
        assert table.highlighted.id == kept.id  # the cursor stays on the same object
        assert len(table.model.changed) == 1
        await wait_for(lambda: len(loads) >= 2, pilot)  # again, on its own
        await pilot.press("w")
        assert not tab.watching


async def test_a_watch_whose_reloads_fail_counts_the_age_from_the_last_load() -> None:
    # Each failed reload restarted the count: "updated 0 s ago" cycling to 4 s and back
    # while the rows shown grew minutes old.
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        tab = await on_webhooks(app, pilot)
        path = "/v1/platform-webhooks"
        failed: list[str] = []
        transport.hook = lambda request: failed.append(request.url.path)
        transport.fail[path] = 403
        await pilot.press("w")

        # A reload each tick of the count (1 s), each failing: the rows age all the same.
        # (A tick late under load may skip a second of the count: at least 3 s.)
        def age() -> int:
            found = re.search(r"updated (\d+) s ago", count_line(tab))
            return int(found[1]) if found else -1

        await wait_for(lambda: failed.count(path) >= 3 and age() >= 3, pilot)
        assert "the last update failed" in count_line(tab)
        del transport.fail[path]
        await wait_for(lambda: "updated 0 s ago" in count_line(tab), pilot)
        assert "failed" not in count_line(tab)


async def test_watch_pauses_under_a_dialog_and_waits_as_the_server_asks() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        tab = await on_webhooks(app, pilot)
        sent: list[str] = []
        transport.hook = lambda request: sent.append(request.url.path)
        await pilot.press("w")
        await wait_for(lambda: "/v1/platform-webhooks" in sent, pilot)
        await pilot.press("question_mark")
        await wait_for_screen(app, pilot, "HelpScreen")
        await pilot.pause(0.3)
        sent.clear()
        await pilot.pause(0.6)
        assert "/v1/platform-webhooks" not in sent  # paused while the help is open
        assert tab.watch_paused()
        await pilot.press("escape")
        await wait_for(lambda: "/v1/platform-webhooks" in sent, pilot)
        path = "/v1/platform-webhooks"
        transport.fail[path] = 429
        transport.fail_headers[path] = {"Retry-After": "86400"}
        await wait_for(lambda: "waiting at most 30 s" in screen_text(app), pilot)
        await pilot.press("escape")  # stops the client's wait (capped at 30 s)
        del transport.fail[path]
        sent.clear()
        await pilot.pause(0.8)
        assert path not in sent  # the watch waits as long as the server asked
        assert "the server asked to wait 86,40" in count_line(tab)


# --- export --------------------------------------------------------------------------------


async def test_export_writes_the_rows_as_shown_and_never_replaces_without_asking(
    tmp_path: Path,
) -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash", *"pass", "enter", "s", "s")  # filtered, by title
        table = app.active_tab.table
        shown = table.model.shown_rows
        await pilot.press("x")
        await wait_for_screen(app, pilot, "ExportScreen")
        target = tmp_path / "items.csv"
        app.screen.query_one("#path").value = str(target)
        await pilot.press("enter")
        await wait_for(lambda: target.exists(), pilot)
        await wait_for(lambda: type(app.screen).__name__ == "BrowseScreen", pilot)
        with target.open(newline="", encoding="utf-8") as file:
            lines = list(csv.reader(file))
        assert lines[0] == [column.label for column in table.columns]
        assert [line[0] for line in lines[1:]] == [row.id for row in shown]
        assert target.stat().st_mode & 0o777 == 0o600

        # JSON Lines of the whole objects; the same name is not replaced unless confirmed
        await pilot.press("x")
        await wait_for_screen(app, pilot, "ExportScreen")
        await pilot.click("#format-jsonl")
        path_input = app.screen.query_one("#path")
        path_input.value = str(target)
        await pilot.press("ctrl+s")  # the radio buttons have the focus
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("enter")  # Cancel is the default
        await wait_for_screen(app, pilot, "ExportScreen")
        assert "Not exported" in screen_text(app)
        assert target.read_text(encoding="utf-8").startswith("ID,")
        jsonl = tmp_path / "items.jsonl"
        path_input.value = str(jsonl)
        await pilot.press("ctrl+s")
        await wait_for(lambda: jsonl.exists(), pilot)
        objects = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
        assert objects == [row.raw for row in shown]


# --- drill-down ------------------------------------------------------------------------------


async def test_payouts_lead_to_their_items_and_items_to_their_payout_and_asset() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("4")
        payouts = app.active_tab.table
        setting = payouts.model.shown_rows[0]
        assert setting.used_by > 0
        await pilot.press("enter")
        items = app.active_tab
        assert items.resource.key == "items"
        assert items.table.shown_count == setting.used_by
        assert "paid out by" in count_line(items)
        item = items.table.highlighted
        await pilot.press("escape")  # leaves the scope
        assert items.table.shown_count == items.table.total_count

        await pilot.press("f")  # the item's payout setting
        assert app.active_tab.resource.key == "payouts"
        assert app.active_tab.highlighted.key[0] == item.payout.type

        await pilot.press("2")
        paid_in_asset = next(
            row for row in items.table.model.shown_rows if row.payout and row.payout.asset_id
        )
        items.table.move_cursor_to(lambda row: row is paid_in_asset)
        await pilot.press("a")
        assert app.active_tab.resource.key == "assets"
        assert app.active_tab.highlighted.id == paid_in_asset.payout.asset_id


async def export_to(app: TokenSalesApp, pilot: Any, target: Path) -> None:
    """Once loaded, open the export dialog and give it ``target`` (enter)."""
    await loaded(app, pilot)
    await pilot.press("x")
    await wait_for_screen(app, pilot, "ExportScreen")
    app.screen.query_one("#path").value = str(target)  # type: ignore[attr-defined]
    await pilot.press("enter")


@pytest.mark.parametrize("kind", ["fifo", "loop", "dangling", "long"])
async def test_export_refuses_a_path_that_is_no_file_to_replace(tmp_path: Path, kind: str) -> None:
    # Each was taken for a file: a FIFO asked "Replace?" and was replaced by a file; a
    # loop of links said it "appeared meanwhile"; a name over 255 bytes ended the app.
    target = tmp_path / "out.csv"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "loop":
        (tmp_path / "other").symlink_to(target)
        target.symlink_to(tmp_path / "other")
    elif kind == "dangling":
        target.symlink_to(tmp_path / "nowhere" / "file")
    else:
        target = tmp_path / ("a" * 300 + ".csv")
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await export_to(app, pilot, target)
        await pilot.pause()
        assert type(app.screen).__name__ == "ExportScreen"
        expected = {
            "fifo": "is not a regular file",
            "loop": "symbolic links",
            "dangling": "a link to nothing",
            "long": "File name too long",
        }
        said = str(app.screen.query_one(".status").render())
        assert expected[kind] in said
        if kind == "long":  # the reason shows whole; the path only by its end
            assert said.startswith("…") and "a" * 100 not in said
        # The path is what to mend: the keys go on into its field.
        assert app.focused is app.screen.query_one("#path")
    if kind != "long":
        assert target.is_symlink() or stat.S_ISFIFO(target.lstat().st_mode)


async def test_after_a_failed_export_the_keys_go_to_the_path_again(tmp_path: Path) -> None:
    # The field was disabled while writing and never given the focus back: the path
    # typed next went nowhere, and enter did nothing.
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    blocked.chmod(0o500)  # root writes anyway: the write fails another way for it
    target = (blocked if os.geteuid() else Path("/proc")) / "out.csv"
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await export_to(app, pilot, target)
        await wait_for(lambda: "Not exported" in screen_text(app), pilot)
        assert app.focused is app.screen.query_one("#path")
        await pilot.press("end", "ctrl+u", *str(tmp_path / "ok.csv"), "enter")
        await wait_for(lambda: (tmp_path / "ok.csv").exists(), pilot)


async def test_a_list_with_entries_that_cannot_be_read_shows_the_rest_and_names_them() -> None:
    # One webhook the server got wrong (an events list of numbers, one without a url)
    # had failed the whole tab: "Loading webhooks failed", and no row.
    app, transport = rigged_app()

    def spoil(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        body[3]["events"] = [1, 2]
        del body[5]["url"]
        return body

    transport.edit_json["/v1/platform-webhooks"] = spoil
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        assert tab.table.total_count == 8 and tab.error is None
        text = screen_text(app)
        assert (
            "2 of 10 webhooks could not be read and are left out;"
            " webhooks[3]: Expected `str`, got `int` - at `$.events[0]`"
        ) in text
        transport.edit_json.clear()  # mended: the next load says nothing of it
        await pilot.press("r")
        await wait_for(lambda: tab.table.total_count == 10, pilot)
        assert "could not be read" not in screen_text(app)


async def served_export(
    app: TokenSalesApp, pilot: Any, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[bytes, str | None]]:
    """Open the export dialog of ``app`` (served); what it hands the browser is kept."""
    delivered: list[tuple[bytes, str | None]] = []

    def deliver_binary(handle: Any, *, save_filename: str | None = None, **_: Any) -> None:
        with handle:
            delivered.append((handle.read(), save_filename))

    await loaded(app, pilot)
    monkeypatch.setattr(app, "deliver_binary", deliver_binary)
    await pilot.press("2", "x")
    await wait_for_screen(app, pilot, "ExportScreen")
    return delivered


async def test_export_served_to_a_browser_is_downloaded_and_writes_nothing_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The path field took any path of the serving machine: a browser tab could write
    # files there (over a file of the user's, once it said yes).
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "private"))
    (tmp_path / "private").mkdir()
    app = TokenSalesApp(Launch(demo=True, served=True))
    async with app.run_test(size=SIZE) as pilot:
        delivered = await served_export(app, pilot, monkeypatch)
        path = app.screen.query_one("#path")
        assert "/" not in path.value  # a name, not a path of this machine
        path.value = "/etc/../home/x/authorized_keys"
        await pilot.press("enter")
        await wait_for(lambda: bool(delivered), pilot)
        await wait_for(lambda: type(app.screen).__name__ == "BrowseScreen", pilot)
    data, name = delivered[0]
    assert name == "authorized_keys"
    assert (
        data.startswith(b"ID,")
        and data.count(b"\n") == app.browse.tab("items").table.total_count + 1
    )
    assert not list((tmp_path / "private").iterdir())  # its private copy is gone
    assert not [p for p in tmp_path.rglob("*") if p.name == "authorized_keys" or p.suffix == ".csv"]


async def test_a_served_export_is_named_as_the_browser_saves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The toast said "your browser downloads a"b.csv", and Chromium saved a_b.csv: a
    name a browser changes is refused, saying why; one it keeps (a ; in it) is sent."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    app = TokenSalesApp(Launch(demo=True, served=True))
    async with app.run_test(size=SIZE) as pilot:
        delivered = await served_export(app, pilot, monkeypatch)
        path = app.screen.query_one("#path")
        for name, why in [
            ('Q3 "final".csv', 'A browser puts _ in place of " in a file name'),
            ("a:b?.csv", "A browser puts _ in place of : ? in a file name"),
            (".hidden.csv", "A browser changes a file name that starts or ends with a space"),
            ("notes.csv.", "A browser changes a file name that starts or ends with a space"),
        ]:
            path.value = name
            await pilot.press("enter")
            await pilot.pause()
            assert why in screen_text(app) and "choose another name" in screen_text(app), name
        path.value = "Q3; final, café.csv"
        await pilot.press("enter")
        await wait_for(lambda: bool(delivered), pilot)
        await wait_for(lambda: type(app.screen).__name__ == "BrowseScreen", pilot)
        assert [name for _, name in delivered] == ["Q3; final, café.csv"]
        assert any(
            n.message.endswith(": your browser downloads Q3; final, café.csv")
            for n in app._notifications
        )


async def test_a_bulk_delete_stopped_by_another_profile_says_what_it_did() -> None:
    # The delete stopped with no word: which of the old profile's objects went, and the
    # one whose request was under way, the user could not tell.
    from tokensales_tui.ui.screens.profiles import DEMO_CHOICE

    app, transport = rigged_app()
    ids = list(app.rigged_emulator.webhooks)  # type: ignore[attr-defined]
    sent: list[str] = []
    transport.hook = lambda request: (
        sent.append(request.url.path) if request.method == "DELETE" else None
    )
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        rows = app.active_tab.table.model.shown_rows
        transport.delay[f"/v1/platform-webhooks/{rows[2].id}"] = 30.0
        await pilot.press("ctrl+a", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("tab", "enter")
        await wait_for(lambda: len(sent) == 3, pilot)
        await app.switch_profile(DEMO_CHOICE)
        messages = lambda: [n.message for n in app._notifications]  # noqa: E731
        await wait_for(lambda: any(m.startswith("Profile ") for m in messages()), pilot)
        summary = next(m for m in messages() if m.startswith("Profile "))
        assert summary == (
            f"Profile default: deleted 2 of {len(ids)} webhooks; stopped before the last"
            f" {len(ids) - 3} (another profile was chosen)"
        )
        assert any("the profile changed while it was being deleted" in m for m in messages())


async def test_retries_of_many_requests_show_one_toast_at_a_time() -> None:
    # A bulk delete on a failing server stacked a retry toast per request over the table.
    from tokensales_tui.api import RetryNotice

    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for number in range(5):
            app.api._on_retry(
                RetryNotice("DELETE", f"/v1/platform-webhooks/wh_{number}", 1, 2.0, "HTTP 503")
            )
        await pilot.pause(0.2)
        assert len([n for n in app._notifications if n.title == "Retrying"]) == 1


async def test_the_bulk_question_counts_only_what_can_be_deleted() -> None:
    # "Delete 10 marked webhooks?" named rows whose ids (none, "..") were refused after.
    app, transport = rigged_app()

    def odd_ids(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        body[1]["id"] = ".."
        body[2]["id"] = ""
        return body

    transport.edit_json["/v1/platform-webhooks"] = odd_ids
    deletes: list[str] = []
    transport.hook = lambda r: deletes.append(r.url.path) if r.method == "DELETE" else None
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1", "ctrl+a", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.question == "Delete 8 marked webhooks?"  # type: ignore[attr-defined]
        assert "2 more marked have no id that can be deleted from here" in screen_text(app)
        await pilot.press("tab", "enter")
        await wait_for(
            lambda: any("Deleted 8 of 8" in n.message for n in app._notifications), pilot
        )
    assert len(deletes) == 8 and all(not path.endswith("/..") for path in deletes)


async def test_the_bulk_question_counts_hidden_rows_among_those_sent_only() -> None:
    # With one marked row being deleted already it said "-1 of them hidden by the filter",
    # though no filter was set.
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        await delete_held(app, pilot, transport)
        await pilot.press("space", "space", "space", "d")  # that row and the next two
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "Delete 2 marked webhooks?" in text and "being deleted already" in text
        assert "hidden by the filter" not in text
        await pilot.press("escape")


async def test_a_single_delete_stopped_by_another_profile_says_its_outcome_is_unknown() -> None:
    # Its outcome was never said: no toast at all.
    from tokensales_tui.ui.screens.profiles import DEMO_CHOICE

    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        await delete_held(app, pilot, transport)
        await app.switch_profile(DEMO_CHOICE)
        titles = lambda: [n.title for n in app._notifications]  # noqa: E731
        await wait_for(lambda: "Profile default: outcome unknown" in titles(), pilot)


async def test_a_reload_too_long_to_compare_clears_the_last_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past EMPTY_BEFORE_RELOAD rows nothing is compared, and the "+1" of the reload
    # before stayed on the count line through every later reload.
    from tokensales_tui.ui import tabs

    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        emulator = app.rigged_emulator  # type: ignore[attr-defined]
        emulator.webhooks["wh_new"] = {
            "id": "wh_new",
            "url": "https://a.example/h",
            "events": ["e"],
        }
        tab.reload()
        await wait_for(lambda: "+1" in count_line(tab), pilot)
        monkeypatch.setattr(tabs, "EMPTY_BEFORE_RELOAD", 5)
        tab.reload()
        await wait_for(lambda: not tab.load_running and "+1" not in count_line(tab), pilot)


@pytest.mark.parametrize("before", ["replaced", "failed", "cancelled"])
async def test_a_reload_after_one_that_let_go_of_the_rows_compares_nothing(
    before: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reload past EMPTY_BEFORE_RELOAD rows lets them go first; replaced by another
    # reload (r, then r again), failed or cancelled, it left the table empty, and the
    # next reload compared with that: "300,000 items · +300,000", every row changed.
    from tokensales_tui.ui import tabs

    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        tab = app.active_tab
        path = "/v1/platform-webhooks"
        monkeypatch.setattr(tabs, "EMPTY_BEFORE_RELOAD", 5)
        transport.held[path] = release = asyncio.Event()
        if before == "failed":
            transport.fail[path] = 503
            transport.fail_body[path] = {"message": "down"}
        tab.reload()
        await wait_for(lambda: tab.table.total_count == 0 and tab.requesting, pilot)
        if before == "cancelled":
            await pilot.press("escape")
        elif before == "failed":
            release.set()
            await wait_for(lambda: tab.error is not None and not tab.load_running, pilot)
            del transport.fail[path]
        await wait_for(lambda: before == "replaced" or not tab.load_running, pilot)
        tab.reload()
        release.set()
        await wait_for(lambda: not tab.load_running and tab.table.total_count == 10, pilot)
        assert count_line(tab).strip() == "10 webhooks"
        assert not tab.table.model.changed
