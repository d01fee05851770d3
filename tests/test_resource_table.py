"""The virtualised resource table, driven through a real app."""

from __future__ import annotations

from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

import pytest
from rich.cells import cell_len
from textual import events, on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.widgets import LoadingIndicator

from tokensales_tui.clean import unsettled
from tokensales_tui.ui.resources import ITEMS
from tokensales_tui.ui.table.cells import Column, numeric_sort_key
from tokensales_tui.ui.table.model import TableView
from tokensales_tui.ui.table.widget import ResourceTable

from .apphelpers import wait_for


@dataclass(frozen=True)
class Row:
    id: str
    name: str
    amount: float | None
    status: str = "active"


COLUMNS = [
    Column("id", "ID", attrgetter("id"), max_width=8),
    Column("name", "Name", attrgetter("name"), max_width=12),
    Column("amount", "Amount", attrgetter("amount"), align="right", sort_key=numeric_sort_key),
    Column("status", "Status", attrgetter("status")),
]

ROWS = [
    Row("r1", "cherry", 30.0, "paused"),
    Row("r2", "apple", None),
    Row("r3", "Banana", 2.5),
    Row("r4", "banana split", 100.0, "paused"),
    Row("r5", "date", -1.0),
]


class TableApp(App[None]):
    def __init__(self, rows: list[Any], columns: list[Column] = COLUMNS) -> None:
        super().__init__()
        self.rows = rows
        self.columns = columns
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield ResourceTable(id="table")

    def on_mount(self) -> None:
        table = self.query_one(ResourceTable)
        table.set_data(self.columns, self.rows)
        table.focus()

    @on(ResourceTable.RowHighlighted)
    @on(ResourceTable.RowSelected)
    @on(ResourceTable.SortChanged)
    @on(ResourceTable.FilterChanged)
    def record(self, message: Message) -> None:
        self.messages.append(message)

    def of(self, kind: type[Message]) -> list[Any]:
        return [message for message in self.messages if isinstance(message, kind)]


def lines(table: ResourceTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


def names(table: ResourceTable) -> list[str]:
    return [row.name for row in table.model.shown_rows]


async def test_rows_render_under_a_header() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        shown = lines(table)
        assert shown[0].split() == ["ID", "Name", "Amount", "Status"]
        assert shown[1].split() == ["r1", "cherry", "30", "paused"]
        assert shown[2].split() == ["r2", "apple", "active"]  # None shows as nothing
        assert shown[3].split() == ["r3", "Banana", "2.5", "active"]
        assert shown[6].strip() == ""
        assert (table.shown_count, table.total_count) == (5, 5)
        assert table.highlighted == ROWS[0]
        assert table.model.cells_at(1) == ("r2", "apple", "", "active")
        # Numbers are right-aligned: their last digits line up.
        assert shown[1].index("30") + 2 == shown[3].index("2.5") + 3
        counts = app.of(ResourceTable.FilterChanged)[-1]
        assert (counts.shown, counts.total) == (5, 5)


async def test_filter_narrows_and_widens() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        table.set_filter("an")
        assert names(table) == ["Banana", "banana split"]
        table.set_filter("ANA S")  # case-insensitive, narrowing the previous result
        assert names(table) == ["banana split"]
        table.set_filter("p")  # not an extension: scans everything again
        assert names(table) == ["cherry", "apple", "banana split"]
        table.set_filter("paused")  # any column matches
        assert names(table) == ["cherry", "banana split"]
        table.set_filter("")
        assert table.shown_count == table.total_count == 5
        await pilot.pause()
        counts = [(m.filter_text, m.shown, m.total) for m in app.of(ResourceTable.FilterChanged)]
        assert counts[-5:] == [
            ("an", 2, 5),
            ("ANA S", 1, 5),
            ("p", 3, 5),
            ("paused", 2, 5),
            ("", 5, 5),
        ]
        assert table.filter_text == ""


async def test_filter_matches_cells_not_separators() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(ResourceTable)
        table.set_filter("r1cherry")
        assert table.shown_count == 0
        table.set_filter("\n")  # cleaned like the cells: never matches a row boundary
        assert table.shown_count == 0


async def test_filter_keeps_the_highlighted_row_when_still_shown() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        await pilot.press("down", "down", "down")
        assert table.highlighted.id == "r4"
        table.set_filter("banana")
        assert table.highlighted.id == "r4" and table.cursor_row == 1
        table.set_filter("cherry")
        assert table.highlighted.id == "r1" and table.cursor_row == 0


async def test_no_match_and_no_rows_explain_themselves() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        assert table.model.empty_reason is None
        table.set_filter("zzz")
        await pilot.pause()
        # This app binds no key that clears the filter: the reason names none.
        assert table.model.empty_reason == "No rows match “zzz”"
        assert table.highlighted is None
        assert any(table.model.empty_reason in line for line in lines(table))
        table.set_filter("\x1b[2J[b]")
        reason = table.model.empty_reason
        assert reason is not None and "\x1b" not in reason and "␛[2J[b]" in reason
        assert not any("\x1b" in line for line in lines(table))
        table.set_data(COLUMNS, [])
        table.set_filter("")
        assert table.model.empty_reason == "Nothing here yet."
        assert any(line.strip() == "Nothing here yet." for line in lines(table))
        assert app.of(ResourceTable.RowHighlighted)[-1].row is None


async def test_sort_numeric_column_both_directions() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        table.sort_by("amount")
        assert [row.amount for row in table.model.shown_rows] == [None, -1.0, 2.5, 30.0, 100.0]
        assert "Amount ▲" in table.render_line(0).text
        table.sort_by("amount", reverse=True)
        assert [row.amount for row in table.model.shown_rows] == [100.0, 30.0, 2.5, -1.0, None]
        assert "Amount ▼" in table.render_line(0).text
        table.sort_by(None)
        assert table.model.shown_rows == ROWS
        assert "▲" not in table.render_line(0).text and "▼" not in table.render_line(0).text
        await pilot.pause()
        changes = [(m.column_key, m.reverse) for m in app.of(ResourceTable.SortChanged)]
        assert changes == [("amount", False), ("amount", True), (None, False)]


async def test_sort_text_column_ignores_case_and_composes_with_filter() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(ResourceTable)
        table.sort_by("name")
        assert names(table) == ["apple", "Banana", "banana split", "cherry", "date"]
        table.sort_by("name", reverse=True)
        assert names(table) == ["date", "cherry", "banana split", "Banana", "apple"]
        table.set_filter("an")
        assert names(table) == ["banana split", "Banana"]
        table.sort_by("name")
        assert names(table) == ["Banana", "banana split"]
        # The sort is kept across new data.
        table.set_data(COLUMNS, [*ROWS, Row("r6", "Avocado", 1.0)])
        table.set_filter("")
        assert names(table)[:2] == ["apple", "Avocado"]


async def test_sort_is_stable_and_falls_back_on_bad_keys() -> None:
    def broken(value: object) -> object:
        raise ValueError(value)

    columns = [*COLUMNS, Column("odd", "Odd", attrgetter("status"), sort_key=broken)]
    app = TableApp(ROWS, columns)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(ResourceTable)
        table.sort_by("status")
        assert [row.id for row in table.model.shown_rows] == ["r2", "r3", "r5", "r1", "r4"]
        table.sort_by("status", reverse=True)
        assert [row.id for row in table.model.shown_rows] == ["r1", "r4", "r2", "r3", "r5"]
        table.sort_by("odd")  # the key raises: sorted by the text instead
        assert [row.id for row in table.model.shown_rows] == ["r2", "r3", "r5", "r1", "r4"]


async def test_cycle_and_reverse_sort() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(ResourceTable)
        seen = []
        for _ in range(5):
            table.cycle_sort()
            seen.append(table.sort_column)
        assert seen == ["id", "name", "amount", "status", None]
        table.reverse_sort()  # unsorted: the first column, reversed
        assert (table.sort_column, table.sort_reverse) == ("id", True)
        assert [row.id for row in table.model.shown_rows] == ["r5", "r4", "r3", "r2", "r1"]
        table.reverse_sort()
        assert (table.sort_column, table.sort_reverse) == ("id", False)
        assert [row.id for row in table.model.shown_rows] == ["r1", "r2", "r3", "r4", "r5"]


async def test_header_click_sorts_then_reverses() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        name_x = table.render_line(0).text.index("Na")
        await pilot.click(ResourceTable, offset=(name_x + 1, 0))
        assert (table.sort_column, table.sort_reverse) == ("name", False)
        await pilot.click(ResourceTable, offset=(name_x + 1, 0))
        assert (table.sort_column, table.sort_reverse) == ("name", True)
        amount_x = table.render_line(0).text.index("Amount")
        await pilot.click(ResourceTable, offset=(amount_x, 0))
        assert (table.sort_column, table.sort_reverse) == ("amount", False)
        assert table.cursor_row == table.model.shown_rows.index(ROWS[0])  # cursor stays on its row


async def test_click_highlights_then_selects_and_enter_selects() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        await pilot.click(ResourceTable, offset=(3, 3))
        assert table.cursor_row == 2 and table.highlighted == ROWS[2]
        await pilot.pause()
        assert app.of(ResourceTable.RowHighlighted)[-1].row == ROWS[2]
        assert app.of(ResourceTable.RowSelected) == []
        await pilot.press("enter")
        await pilot.click(ResourceTable, offset=(3, 3))  # the highlighted row again
        await pilot.click(ResourceTable, offset=(3, 5), times=2)  # a double click
        await pilot.pause()
        selected = app.of(ResourceTable.RowSelected)
        assert [message.row for message in selected] == [ROWS[2], ROWS[2], ROWS[4]]
        assert all(message.table is table for message in selected)
        await pilot.click(ResourceTable, offset=(3, 20))  # below the last row: nothing
        assert table.cursor_row == 4


async def test_keys_move_the_cursor_and_the_view() -> None:
    rows = [Row(f"r{i}", f"name {i}", float(i)) for i in range(200)]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        body = table.scrollable_content_region.height - 1
        await pilot.press("down", "down", "up")
        assert table.cursor_row == 1
        await pilot.press("pagedown")
        assert table.cursor_row == 1 + body
        assert table.scroll_y <= table.cursor_row < table.scroll_y + body
        await pilot.press("end")
        assert table.cursor_row == 199
        await pilot.pause()
        assert lines(table)[-1].split()[0] == "r199"  # the last row shows at the bottom
        await pilot.press("pageup")
        assert table.cursor_row == 199 - body
        await pilot.press("home")
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert lines(table)[1].split()[0] == "r0"
        await pilot.pause()
        assert app.of(ResourceTable.RowHighlighted)[-1].row == rows[0]


async def test_less_keys_move_the_cursor_as_the_arrows_do() -> None:
    rows = [Row(f"r{i}", f"name {i}", float(i)) for i in range(200)]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        half = (table.scrollable_content_region.height - 1) // 2
        await pilot.press("j", "j", "k")
        assert table.cursor_row == 1
        await pilot.press("ctrl+d")
        assert table.cursor_row == 1 + half
        await pilot.press("ctrl+d", "ctrl+u")
        assert table.cursor_row == 1 + half
        await pilot.press("G")
        assert table.cursor_row == 199
        await pilot.pause()
        assert lines(table)[-1].split()[0] == "r199"
        await pilot.press("ctrl+u")
        assert table.cursor_row == 199 - half
        await pilot.press("g")
        assert table.cursor_row == 0 and table.scroll_y == 0


async def test_mouse_wheel_scrolls_the_body_under_a_fixed_header() -> None:
    rows = [Row(f"r{i}", f"name {i}", float(i)) for i in range(200)]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        for _ in range(3):
            table.post_message(events.MouseScrollDown(table, 5, 5, 0, 0, 0, False, False, False))
        await pilot.pause()
        top = round(table.scroll_y)
        assert top > 0
        shown = lines(table)
        assert shown[0].split()[:2] == ["ID", "Name"]
        assert shown[1].split()[0] == f"r{top}"
        await pilot.click(ResourceTable, offset=(2, 2))  # clicks land on what is drawn
        assert table.highlighted is rows[top + 1]


async def test_cursor_keeps_row_identity_across_set_data() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        await pilot.press("down", "down", "down")
        assert table.highlighted.id == "r4"
        table.model.row_id = attrgetter("id")
        fresh = [replace(row, amount=7.0) for row in reversed(ROWS)]
        table.set_data(COLUMNS, [Row("r0", "new", 1.0), *fresh])
        assert table.highlighted.id == "r4" and table.highlighted.amount == 7.0
        assert table.cursor_row == 2
        # The row went away: the cursor stays at the same place.
        table.set_data(COLUMNS, [row for row in ROWS if row.id != "r4"])
        assert table.cursor_row == 2 and table.highlighted.id == "r3"
        assert table.move_cursor_to(lambda row: row.name == "date")
        assert table.highlighted.id == "r5"
        assert not table.move_cursor_to(lambda row: False)


async def test_a_row_gone_in_a_reload_is_looked_for_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long list is shown before it is indexed, then shown again indexed: the row the
    # cursor was on is looked for in every row the first time only. The second time the
    # cursor is on the row that took its place, found where it is.
    rows = [Row(f"r{n}", f"n{n}", 1.0) for n in range(3_000)]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)):
        table = app.query_one(ResourceTable)
        table.model.row_id = attrgetter("id")
        assert table.move_cursor_to(lambda row: row.id == "r1500")
        searched: list[object] = []
        first_in = TableView._first_in
        monkeypatch.setattr(
            TableView, "_first_in", lambda view, key: searched.append(key) or first_in(view, key)
        )
        fresh = [row for row in rows if row.id != "r1500"]
        assert table.show_rows(COLUMNS, fresh)
        table.set_prepared(table.prepare(COLUMNS, fresh))
        assert searched == ["r1500"]
        assert table.cursor_row == 1500 and table.highlighted.id == "r1501"


@pytest.mark.parametrize("mark", [False, True])
async def test_an_empty_id_is_no_row_s_identity_and_of_equal_ids_the_nearest_keeps_the_cursor(
    mark: bool,
) -> None:
    # Reloads (and watch mode) keep the cursor and the marks by the tab's identity. Two
    # rows without an id are not the same row: the cursor on the second stayed on it
    # only by chance, and moved to the first one as soon as that came first. Of two
    # rows with one id, the one kept is the nearest to where the cursor was.
    rows = [Row("d", "dup one", 1.0), Row("", "first", 2.0), Row("", "second", 3.0)]
    rows += [Row("r1", "x", 4.0), Row("d", "dup two", 5.0)]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        table.model.row_id = ITEMS.row_id
        table.set_data(COLUMNS, rows)
        await pilot.press("down", "down")
        if mark:
            table.toggle_mark()  # and down
            await pilot.press("up")
        assert table.highlighted is rows[2] and table.marked_count == mark
        fresh = [replace(row) for row in rows]
        table.set_data(COLUMNS, [fresh[2], fresh[1], fresh[3], fresh[0], fresh[4]])
        assert table.cursor_row == 2 and table.highlighted is fresh[3]  # at its place
        assert table.marked_count == 0  # a mark of a row without an id goes with it
        await pilot.press("end")
        table.set_data(COLUMNS, [Row("r0", "new", 0.0), *fresh])
        assert table.cursor_row == 5 and table.highlighted is fresh[4]


MARKUP_ROWS = [
    Row("m1", "[@click=app.quit]x[/]", 1.0),
    Row("m2", "a [/] b", 2.0),
    Row("m3", "[b]bold[/b]", 3.0),
    Row("m4", "\x1b]52;c;AAAA\x07", 4.0),
    Row("m5", "\x9b31m\u202e", 5.0),
]


async def test_markup_and_escapes_in_cells_are_literal_and_inert() -> None:
    app = TableApp(MARKUP_ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        shown = lines(table)
        assert "[@click=app…" in shown[1]  # truncated to the column, but literal
        assert "a [/] b" in shown[2]
        assert "[b]bold[/b]" in shown[3]
        assert "␛]52;c;AAAA␇" in shown[4]
        for y in range(table.size.height):
            for segment in table.render_line(y):
                assert not any(char in segment.text for char in "\x1b\x07\x9b\u202e")
                assert not (segment.style and segment.style.meta)
        name_x = shown[0].index("Name")
        for y in (2, 1, 1):  # highlight, highlight, select
            await pilot.click(ResourceTable, offset=(name_x + 1, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert [message.row.id for message in app.of(ResourceTable.RowSelected)] == ["m1"]


async def test_wide_characters_are_truncated_without_breaking_alignment() -> None:
    rows = [
        Row("w1", "中文名字很长很长很长", 1.0),
        Row("w2", "😀😀😀😀😀😀😀😀", 2.0),
        Row("w3", "abc", 3.0),
        Row("w4", "ab中", 4.0),
        Row("w5", "x" * 30, 5.0),
    ]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        body = [table.render_line(y) for y in range(1, 6)]
        assert {strip.cell_length for strip in body} == {table.size.width}
        status_at = {cell_len(s.text[: s.text.index("active")]) for s in body}
        assert len(status_at) == 1  # the next column starts at the same cell everywhere
        name_column = {
            cell_len(s.text[: s.text.index(r.name[:2])]) for s, r in zip(body, rows, strict=True)
        }
        assert len(name_column) == 1
        assert "…" in body[0].text and "…" in body[1].text and "…" in body[4].text
        assert "abc" in body[2].text and "ab中" in body[3].text


async def test_horizontal_scroll_moves_header_and_rows_together() -> None:
    rows = [Row(f"r{i}", "n" * 12, float(i), "s" * 30) for i in range(3)]
    wide = [
        Column(f"{c.key}{n}", c.label, c.get, min_width=12, max_width=40, align=c.align)
        for n in range(3)
        for c in COLUMNS
    ]
    app = TableApp(rows, wide)  # too wide to fit even with every column 3 cells wide
    async with app.run_test(size=(30, 10)) as pilot:
        table = app.query_one(ResourceTable)
        header, first = table.render_line(0).text, table.render_line(1).text
        table.scroll_to(x=10, animate=False)
        await pilot.pause()
        assert table.scroll_x == 10
        assert table.render_line(0).text[:20] == (header + " " * 20)[10:30]
        assert table.render_line(1).text[:20] == (first + " " * 20)[10:30]
        assert table.virtual_size.width > table.size.width
        name_x = table.render_line(0).text.index("Na")
        assert table.render_line(1).text[name_x] == "n"


async def test_columns_shrink_to_fit_the_width() -> None:
    rows = [Row(f"r{i}", "n" * 12, float(i), "s" * 30) for i in range(3)]
    app = TableApp(rows)
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(ResourceTable)
        assert table.virtual_size.width <= 40
        assert "Status" in table.render_line(0).text and "…" in table.render_line(1).text
        await pilot.resize_terminal(120, 10)
        await pilot.pause()
        assert "s" * 30 in table.render_line(1).text


async def test_loading_covers_the_table() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        table.loading = True
        await pilot.pause()
        widget, _ = app.screen.get_widget_at(table.region.x + 5, table.region.y + 5)
        assert isinstance(widget, LoadingIndicator)
        table.loading = False
        await pilot.pause()
        widget, _ = app.screen.get_widget_at(table.region.x + 5, table.region.y + 5)
        assert widget is table


async def test_cursor_style_follows_focus() -> None:
    app = TableApp(ROWS)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResourceTable)
        await pilot.pause()
        focused = table.render_line(1)
        table.blur()
        await pilot.pause()
        blurred = table.render_line(1)
        assert focused.text == blurred.text
        assert next(iter(focused)).style != next(iter(blurred)).style
        header = next(iter(table.render_line(0))).style
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        assert next(iter(table.render_line(0))).style != header
        assert next(iter(table.render_line(1))).style != next(iter(blurred)).style


async def test_columns_before_mount_and_no_columns() -> None:
    class EarlyApp(App[None]):
        def compose(self) -> ComposeResult:
            table = ResourceTable(COLUMNS)
            table.set_data(COLUMNS, ROWS[:2])
            yield table

    app = EarlyApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        assert table.render_line(1).text.split()[:2] == ["r1", "cherry"]
        table.set_data([], ROWS)
        table.set_filter("x")
        table.cycle_sort()
        assert table.total_count == 5 and table.shown_count == 0
        table.set_filter("")
        assert table.shown_count == 5
        await pilot.pause()


async def test_tiny_terminal_does_not_crash() -> None:
    rows = [Row(f"r{i}", f"name {i} 中文", float(i)) for i in range(50)]
    app = TableApp(rows)
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(ResourceTable)
        await pilot.press("pagedown", "end", "right", "right", "home", "enter")
        await pilot.click(ResourceTable, offset=(2, 0))
        await pilot.click(ResourceTable, offset=(39, 9))
        table.set_filter("no such row at all")
        await pilot.pause()
        assert all(table.render_line(y).cell_length == table.size.width for y in range(10))
        table.set_filter('"name 4"')  # a phrase: quoted
        await pilot.resize_terminal(12, 3)
        await pilot.press("down", "pagedown")
        await pilot.pause()
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert app.is_running and table.shown_count == 11


async def test_hundred_thousand_rows() -> None:
    rows = [
        Row(f"r{i}", f"item {i % 997}", float(i % 1000), "ok" if i % 3 else "held")
        for i in range(100_000)
    ]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        assert (table.shown_count, table.total_count) == (100_000, 100_000)
        table.set_filter("r9999")
        assert [row.id for row in table.model.shown_rows] == [
            "r9999",
            *(f"r9999{d}" for d in range(10)),
        ]
        table.set_filter("r99999")
        assert table.shown_count == 1
        table.set_filter("held")
        # The first screen of matches at once, the rest a step at a time between frames.
        assert table.model.filtering and table.screen_complete
        assert table.shown_count < len(range(0, 100_000, 3))
        await wait_for(lambda: not table.model.filtering, pilot)
        assert table.shown_count == len(range(0, 100_000, 3))
        table.sort_by("amount", reverse=True)
        assert table.highlighted.amount == 999.0
        await pilot.press("pagedown", "pagedown")
        assert table.highlighted.status == "held"
        held = table.highlighted
        table.set_filter("")
        assert table.shown_count == 100_000
        assert table.highlighted is held  # still on the same row, now among all rows
        assert held.id in table.render_line(1 + table.cursor_row - round(table.scroll_y)).text
        await pilot.press("home")
        assert lines(table)[1].split() == ["r999", "item", "2", "999", "held"]


async def test_scripts_of_disputed_width_keep_the_following_columns_in_line() -> None:
    # Rich counts Devanagari vowel signs (ा ि ी) as no cell, wcwidth-based terminals as
    # one; zero-width characters are counted differently again. Cells show none of them,
    # so each column starts at the same cell on every row, whoever measures.
    rows = [
        Row("r1", "किताब का", 1.0, "paused"),
        Row("r2", "zero\u200bwidth\ufeffx", 2.0),
        Row("r3", "plain", 3.0),
        Row("r4", "👨\u200d👩\u200d👧", 4.0),
    ]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        shown = lines(table)[1:5]
        starts = set()
        for text in shown:
            assert not unsettled(text), text
            status = text.index("paused") if "paused" in text else text.index("active")
            starts.add(cell_len(text[:status]))
        assert len(starts) == 1, shown
        assert "कइतआब कआ" in shown[0] and "zero⸱width⸱x" in shown[1]
        table.set_filter("किताब")  # the filter still finds the text as it is
        await pilot.pause()
        assert names(table) == ["किताब का"]


async def test_emoji_with_skin_tones_keep_the_following_columns_in_line() -> None:
    # Counted as a terminal counts them (wcwidth: a tone modifier is two cells), not
    # as Rich does (none).
    from .terminal_width import terminal_width

    rows = [
        Row("r1", "👍🏽 thumbs tone", 1.0, "paused"),
        Row("r2", "👋🏿👋🏻 wave", 2.0),
        Row("r3", "plain", 3.0),
    ]
    app = TableApp(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        shown = lines(table)[1:4]
        starts = set()
        for text in shown:
            status = text.index("paused") if "paused" in text else text.index("active")
            starts.add(terminal_width(text[:status]))
            assert terminal_width(text) == cell_len(text) == table.size.width, text
        assert len(starts) == 1, shown
        table.set_filter("👍🏽")  # the filter still finds the text as it is
        await pilot.pause()
        assert names(table) == ["👍🏽 thumbs tone"]


async def test_an_input_puts_its_cursor_after_an_emoji_with_a_skin_tone() -> None:
    from textual.widgets import Input

    from tokensales_tui.ui.widgets.safe_input import SafeInput

    from .terminal_width import terminal_width

    class InputApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SafeInput(value="👋🏿👋🏻 wave")

    app = InputApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        field = app.query_one(Input)
        drawn = field._value.plain
        assert drawn == "👋⸱👋⸱ wave"
        # The cursor at the end is where the terminal draws the end of the text.
        assert field._position_to_cell(len(field.value)) == terminal_width(drawn)
        assert field.value == "👋🏿👋🏻 wave"  # the value itself as typed


async def test_the_steps_that_fill_the_screen_do_not_wait_for_a_keys_frame() -> None:
    # The rest of a scan, off screen, lets keys and their frames go first; the steps
    # that fill the screen are what a key's frame waits for, so they wait for nothing.
    class Waiting(TableApp):
        asked: list[bool] = []  # whether the screen was complete, at each wait

        async def key_drawn(self) -> None:
            self.asked.append(self.query_one(ResourceTable).screen_complete)

    rows = [Row(f"r{i}", f"item {i}", float(i), "held" if i % 3 else "ok") for i in range(100_000)]
    app = Waiting(rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResourceTable)
        table.set_filter("r99999")  # one match, at the end: never a full screen before
        await wait_for(lambda: not table.model.filtering, pilot)
        assert table.shown_count == 1
        assert app.asked == []
        table.set_filter("held")  # a full screen at once, the rest between keys
        await wait_for(lambda: not table.model.filtering, pilot)
        assert app.asked and all(app.asked)


async def test_rows_set_while_a_loading_indicator_covers_the_table_fit_its_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A covered table has no width: rows set then are fitted to none. Its return from
    under the indicator resizes it only if Textual sees a change of its sizes (in the
    app, it sometimes did not: the Webhooks columns stayed wider than the screen). The
    columns fit once the table is drawn, whatever the events."""
    wide = [Row(f"r{n}", "x" * 40, 1.0, "y" * 200) for n in range(3)]
    app = TableApp([])
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(ResourceTable)
        table.loading = True
        await wait_for(lambda: table.size.width == 0, pilot)
        table.set_data(COLUMNS, wide)
        assert table._total_width > 60  # fitted to no width
        monkeypatch.setattr(ResourceTable, "_on_resize", lambda *_: None)  # no Resize
        table.loading = False
        await pilot.pause()
        await pilot.pause()
        assert table.size.width == 60
        assert table._total_width <= 60
        header = table.render_line(0).text
        assert header.rstrip().endswith("Status")


@pytest.mark.parametrize(
    ("price", "shown"),
    [
        (12.5, "12.50 ETH"),
        (1234.56789, "1,234.56789 ETH"),
        (0.00000001, "0.00000001 ETH"),
        (0.0, "0.00 ETH"),
        (0.000000001, "0.000000001 ETH"),  # 1 gwei
        (4.9e-9, "0.0000000049 ETH"),
        (1e-18, "0.000000000000000001 ETH"),  # 1 wei
        (-1e-9, "-0.000000001 ETH"),
        (1.5e-20, "1.5e-20 ETH"),
        (5e-324, "5e-324 ETH"),
        (-0.0, "0.00 ETH"),
        (12345678901234567891, "12,345,678,901,234,567,891.00 ETH"),  # past 2**53: exact
        (-(10**30), "-1,000,000,000,000,000,000,000,000,000,000.00 ETH"),
        (25, "25.00 ETH"),
        # More digits than a float holds, the text unknown: the float's first 15, marked.
        (1.2345678901234567e19, "≈1.23456789012346e19 ETH"),
        (123456789.1, "123,456,789.10 ETH"),  # no binary noise past eight digits
        (98765432.1234567, "98,765,432.1234567 ETH"),
        (98765432.12345678, "≈98,765,432.1234568 ETH"),
        (1.7e308, "1.7e308 ETH"),  # past 40 digits before the point: scientific
    ],
)
def test_a_price_too_small_for_eight_decimals_is_never_shown_as_zero(
    price: float, shown: str
) -> None:
    from tokensales_tui.ui.resources import format_price

    assert format_price(price, "ETH") == shown


@pytest.mark.parametrize(
    ("price", "shown"),
    [
        (10000000.299999999, "10,000,000.30 USD"),  # it was 10,000,000.30000000
        (10000000.000000002, "10,000,000.00 USD"),  # it was 10,000,000.00000000
        (-10000000.299999999, "-10,000,000.30 USD"),
        (12345678.120000001, "12,345,678.12 USD"),
        (12345678.123000001, "12,345,678.123 USD"),
        (1000000.2999999999, "1,000,000.30 USD"),  # the short path, as before
        (1e16, "10,000,000,000,000,000.00 USD"),
        (2.0**53 + 2, "≈9.00719925474099e15 USD"),  # 16 digits: not all a float's
        (float("inf"), ">1.7e308 USD"),  # beyond a float, its text unknown
        (float("-inf"), "<-1.7e308 USD"),
    ],
)
def test_a_large_price_has_two_decimals_or_up_to_eight_as_a_short_one_has(
    price: float, shown: str
) -> None:
    # Past 9,999,999.99999999 a price with float noise kept eight decimals, trailing
    # zeros and all, where a shorter one was cut back to two.
    from tokensales_tui.ui.resources import format_price

    assert format_price(price, "USD") == shown
