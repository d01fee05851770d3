"""A sort that would hold up the event loop is computed in a thread, and a sort asked for
while the rows are still being indexed waits for the index instead of building it.

Nothing here depends on timing: the thread that sorts is recorded, and the indexing is
held by a gate the test opens.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from tokensales_tui.ui import tabs as tabs_module
from tokensales_tui.ui.table import cells as cells_module
from tokensales_tui.ui.table import index as index_module
from tokensales_tui.ui.table import model as model_module
from tokensales_tui.ui.table import widget as widget_module
from tokensales_tui.ui.table.cells import natural_keys
from tokensales_tui.ui.table.index import sorted_positions
from tokensales_tui.ui.tabs import ResourceTab

from .apphelpers import loaded, rigged_app, wait_for
from .test_resource_table import ROWS, Row, TableApp

SIZE = (120, 40)


@pytest.mark.parametrize("reverse", [False, True])
def test_sorting_in_runs_orders_as_one_sort_does(
    reverse: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "RUN", 7)
    rng = random.Random(17)
    for count in (0, 1, 7, 8, 50, 333):
        keys = [rng.choice("abcde") for _ in range(count)]  # many ties: stability shows
        assert sorted_positions(keys, reverse, in_runs=True) == sorted(
            range(count), key=keys.__getitem__, reverse=reverse
        )


def test_digits_in_a_later_block_still_sort_naturally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cells_module, "KEYS_BLOCK", 2)
    cells = [b"b", b"a", b"c", b"d", b"item 10", b"item 2"]
    keys = natural_keys(cells)
    assert sorted(cells, key=lambda c: keys[cells.index(c)])[-2:] == [b"item 2", b"item 10"]


def threads_sorting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, bool]]:
    """Record, for each sort computed, (on the main thread, in runs)."""
    seen: list[tuple[bool, bool]] = []
    real = index_module.sort_order

    def recording(*args: Any, in_runs: bool = False) -> Any:
        seen.append((threading.current_thread() is threading.main_thread(), in_runs))
        return real(*args, in_runs=in_runs)

    monkeypatch.setattr(widget_module, "sort_order", recording)
    monkeypatch.setattr(model_module, "sort_order", recording)
    return seen


async def test_a_long_list_sorts_in_a_thread_and_the_last_sort_asked_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(widget_module, "SORT_ON_LOOP", 0)
    seen = threads_sorting(monkeypatch)
    rows = [Row(f"r{n}", rng_name, float(n)) for n, rng_name in enumerate("qwertyuiop")]
    app = TableApp(rows)
    async with app.run_test() as pilot:
        table = app.query_one(widget_module.ResourceTable)
        table.sort_by("name")
        assert table.pending_sort == ("name", False)
        table.sort_by("name", reverse=True)  # asked for before the first is ready
        await wait_for(lambda: table.pending_sort is None, pilot)
        assert table.sort_column == "name" and table.sort_reverse
        shown = [table.model.rows[p].name for p in table.model.view]
        assert shown == sorted((r.name for r in rows), reverse=True)
        assert seen and all(not main and in_runs for main, in_runs in seen)
        table.sort_by(None)  # back to the server's order at once
        assert table.sort_column is None and table.pending_sort is None
        assert [r.name for r in table.model.shown_rows] == [r.name for r in rows]


async def test_a_short_list_sorts_on_the_spot() -> None:
    app = TableApp(list(ROWS))
    async with app.run_test():
        table = app.query_one(widget_module.ResourceTable)
        table.sort_by("name")
        assert table.pending_sort is None and table.sort_column == "name"


async def test_a_sort_pressed_while_rows_are_indexed_waits_for_the_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tabs_module, "OFF_LOOP_ROWS", 3)  # the demo's lists count as long
    monkeypatch.setattr(widget_module, "SORT_ON_LOOP", 0)
    seen = threads_sorting(monkeypatch)
    gate = threading.Event()
    real_prepare = ResourceTab._prepare

    def held_prepare(self: ResourceTab, *args: Any) -> Any:
        if self.resource.key == "items":
            assert gate.wait(30), "the test never opened the gate"
        return real_prepare(self, *args)

    monkeypatch.setattr(ResourceTab, "_prepare", held_prepare)
    built_on_loop: list[bool] = []
    real_index = model_module.TableView.search_index

    def watched_index(self: model_module.TableView) -> Any:
        if not self.index_ready:
            built_on_loop.append(threading.current_thread() is threading.main_thread())
        return real_index(self)

    monkeypatch.setattr(model_module.TableView, "search_index", watched_index)
    app, _ = rigged_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            tab: Any = app.browse.tab("items")
            await wait_for(lambda: tab.table.total_count > 0, pilot)  # shown, not indexed
            await pilot.press("2", "s")
            assert tab.table.pending_sort == ("id", False)
            assert tab.table.sort_column is None
            assert "sorting by ID" in str(tab._count.render())
            gate.set()
            await loaded(app, pilot, "items")
            await wait_for(lambda: tab.table.pending_sort is None, pilot)
            assert tab.table.sort_column == "id"
            ids = [row.id for row in tab.table.model.shown_rows]
            keys = natural_keys([t.casefold().encode() for t in ids])
            assert keys == sorted(keys)
            assert built_on_loop == []
            assert seen and all(not main for main, _ in seen)
    finally:
        gate.set()


def test_natural_keys_order_as_numbers_within_text_by_value() -> None:
    import re

    def reference(cell: bytes) -> tuple[Any, ...]:  # text and numbers alternating
        parts: list[Any] = re.split(rb"([0-9]+)", cell)
        parts[1::2] = map(int, parts[1::2])
        return tuple(parts)

    rng = random.Random(5)
    pieces = [
        b"item ",
        b"a",
        b"b",
        b"#",
        b" ",
        b"0",
        b"00",
        b"07",
        b"2",
        b"10",
        b"9" * 40,
        b"1" * 33,
        b"3" * 31,
        b"4" * 30,
        b"5" * 10,  # the length of ten digits is not the newline that parts cells
        b"6" * 20,
        b"7" * 21,
        b"12345678901",
        "é".encode(),
    ]
    cells = [b"".join(rng.choices(pieces, k=rng.randint(0, 5))) for _ in range(3000)]
    keys = natural_keys(cells)
    assert len(keys) == len(cells)
    ours = sorted(range(len(cells)), key=keys.__getitem__)
    expected = sorted(range(len(cells)), key=lambda i: reference(cells[i]))
    assert [reference(cells[i]) for i in ours] == [reference(cells[i]) for i in expected]


def test_natural_keys_of_bytes_that_are_not_text_still_order_numbers_by_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 0xff is never in UTF-8, and the keys mark digits with it: a cell holding one (the
    # index's cells are UTF-8, but nothing else says so) must not shift the keys.
    monkeypatch.setattr(cells_module, "KEYS_BLOCK", 3)
    cells = [b"1\xff2", b"x\xffy", b"item 10", b"\xff 2", b"item 9", b"plain", b"\xff 10"]
    keys = natural_keys(cells)
    assert len(keys) == len(cells)
    order = [cells[i] for i in sorted(range(len(cells)), key=keys.__getitem__)]
    assert order == [b"1\xff2", b"item 9", b"item 10", b"plain", b"x\xffy", b"\xff 2", b"\xff 10"]
