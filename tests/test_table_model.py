"""The table's model without a widget: cells, widths, search index, filter and sort."""

from __future__ import annotations

import threading
import time
from array import array
from dataclasses import dataclass
from decimal import Decimal
from operator import attrgetter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from tokensales_tui.ui.resources import ITEMS, joined
from tokensales_tui.ui.table import index as index_module
from tokensales_tui.ui.table import model
from tokensales_tui.ui.table.cells import (
    NARROWEST,
    Column,
    align_decimals,
    column_cells,
    fit_widths,
    natural_width,
    numeric_sort_key,
)
from tokensales_tui.ui.table.index import OtherFields
from tokensales_tui.ui.table.model import (
    Scope,
    TableView,
    Unnamed,
    diff_rows,
    intersect,
    prepare_rows,
    subtract,
)


def wide(text: str) -> int:
    """A terminal's measure for the tests: CJK ideographs take two cells."""
    return sum(2 if "\u4e00" <= ch <= "\u9fff" else 1 for ch in text)


@dataclass
class Row:
    name: Any
    amount: Any


COLUMNS = [
    Column("name", "Name", attrgetter("name")),
    Column("amount", "Amount", attrgetter("amount"), align="right", sort_key=numeric_sort_key),
]
ROWS = [
    Row("Item 10", 3),
    Row("banana", None),
    Row("Apple", "12.5"),
    Row("cherry", 7),
    Row("Åsa", "junk"),
]


def loaded(rows: list[Row] = ROWS) -> TableView:
    view = TableView(wide)
    view.load(prepare_rows(COLUMNS, rows, width=wide))
    return view


def names(view: TableView) -> list[str]:
    return [view.rows[position].name for position in view.view]


def test_a_filter_matches_any_column_ignoring_case_and_narrows_as_typed() -> None:
    view = loaded()
    assert view.set_filter("A")
    assert names(view) == ["banana", "Apple", "Åsa"]
    assert view.set_filter("an")
    assert names(view) == ["banana"]
    assert not view.set_filter("an")  # the same filter changes nothing
    assert view.set_filter("12.5")
    assert names(view) == ["Apple"]
    assert view.set_filter("åsa")
    assert names(view) == ["Åsa"]
    assert view.matches(4) and not view.matches(0)
    view.set_filter("")
    assert names(view) == [row.name for row in ROWS]


@pytest.mark.parametrize(
    ("shown", "typed"),
    [
        ("café", "cafe\u0301"),  # the accent typed as a mark of its own (macOS input)
        ("cafe\u0301", "café"),  # and the other way round
        ("CAFE\u0301 au lait", "café au"),
        ("Éclair", "e\u0301clair"),
    ],
)
def test_a_filter_finds_an_accent_however_either_side_writes_it(shown: str, typed: str) -> None:
    view = loaded([Row(shown, 1), Row("cafe", 2)])
    view.set_filter(typed)
    assert names(view) == [shown]


def test_a_filter_with_escapes_matches_the_text_as_shown() -> None:
    view = loaded([Row("bell\x07here", 1), Row("plain", 2)])
    view.set_filter("bell\x07")
    assert names(view) == ["bell\x07here"]  # both sides are cleaned the same way


def test_numeric_sort_puts_junk_and_missing_values_first_and_reverses() -> None:
    view = loaded()
    assert view.sort_by("amount")
    assert names(view) == ["banana", "Åsa", "Item 10", "cherry", "Apple"]
    view.sort_by("amount", reverse=True)
    assert names(view) == ["Apple", "cherry", "Item 10", "banana", "Åsa"]
    assert not view.sort_by("amount", reverse=True)


def test_text_sort_is_case_folded_and_stable_and_survives_a_filter() -> None:
    view = loaded()
    view.sort_by("name")
    assert names(view) == ["Apple", "banana", "cherry", "Item 10", "Åsa"]
    view.set_filter("a")
    assert names(view) == ["Apple", "banana", "Åsa"]
    view.sort_by(None)
    assert names(view) == ["banana", "Apple", "Åsa"]


def test_text_sort_is_natural_numbers_in_the_text_by_their_value() -> None:
    rows = [Row(name, 0) for name in ("Item 10", "item 2", "Item 1b", "Item", "10 x", "2 x")]
    view = loaded(rows)
    view.sort_by("name")
    assert names(view) == ["2 x", "10 x", "Item", "Item 1b", "item 2", "Item 10"]
    view.sort_by("name", reverse=True)
    assert names(view) == ["Item 10", "item 2", "Item 1b", "Item", "10 x", "2 x"]


def test_decimal_cells_are_padded_so_their_points_line_up() -> None:
    cells = ["12.5 EUR", "1,234.00 USDC", "0.00012345 ETH", "7 USD"]
    padded = align_decimals(cells, None, cell_len)
    assert [cell.rstrip() for cell in padded] == cells
    widest = max(map(len, padded))
    points = {widest - len(cell) + cell.index(".") for cell in padded if "." in cell}
    assert len(points) == 1  # right-aligned in one width, every point in one place
    assert padded[3] == "7 USD" + " " * 13
    assert align_decimals(["1.00 EUR", "2.00 EUR"], None, cell_len) == ["1.00 EUR", "2.00 EUR"]


def test_sorting_by_an_unknown_column_is_refused_and_changes_nothing() -> None:
    view = loaded()
    with pytest.raises(KeyError):
        view.sort_by("nope")
    assert view.sort is None and names(view) == [row.name for row in ROWS]


def test_next_sort_walks_the_columns_then_unsorts() -> None:
    view = loaded()
    assert view.next_sort() == ("name", False)
    view.sort_by("name")
    assert view.next_sort() == ("amount", False)
    view.sort_by("amount", reverse=True)
    assert view.next_sort() == (None, False)


def test_new_rows_keep_the_filter_and_drop_a_sort_whose_column_is_gone() -> None:
    view = loaded()
    view.set_filter("an")
    view.sort_by("amount")
    other = [Column("name", "Name", attrgetter("name"))]
    assert view.load(prepare_rows(other, [Row("mango", 1), Row("kiwi", 2)], width=wide))
    assert view.sort is None
    assert names(view) == ["mango"]


@dataclass
class Freed(Row):
    """A row that notes the thread it is freed in."""

    where: list[str] | None = None

    def __del__(self) -> None:
        if self.where is not None:
            self.where.append(threading.current_thread().name)


def freed_rows(count: int, where: list[str]) -> list[Row]:
    return [Freed(f"row {n}", n, where) for n in range(count)]


@pytest.fixture
def released(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """Sequences of more than 3 entries are released in a thread, 2 at a time; the
    threads started."""
    monkeypatch.setattr(model, "RELEASE_IN_THREAD", 3)
    monkeypatch.setattr(model, "RELEASE_STEP", 2)
    threads: list[threading.Thread] = []
    real = model.release

    def release(*parts: Any) -> threading.Thread | None:
        thread = real(*parts)
        if thread is not None:
            threads.append(thread)
        return thread

    monkeypatch.setattr(model, "release", release)
    return threads


def joined_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(10)
        assert not thread.is_alive()


def test_rows_let_go_are_freed_in_a_thread_once_no_one_else_holds_them(
    released: list[threading.Thread],
) -> None:
    # Whoever lets go of a list last frees its entries, in one call that holds the
    # interpreter (1,000,000 rows: 0.6 s): here a thread waits for the others, a sort or
    # a comparison with the new rows, and frees them a few at a time.
    where: list[str] = []
    rows, lines = freed_rows(9, where), freed_rows(4, where)
    also = rows  # a comparison in a thread, still reading them
    model.release(rows, lines)
    del rows, lines
    waited_until = time.monotonic() + 10
    while len(where) < 4 and time.monotonic() < waited_until:
        time.sleep(0.01)
    assert len(where) == 4  # what no one else holds is freed...
    time.sleep(0.2)  # ... while the comparison goes on reading the rows for a while
    assert len(also) == 9 and len(where) == 4  # left as they were for it
    del also
    joined_all(released)
    assert len(where) == 13 and threading.main_thread().name not in where


def test_rows_held_elsewhere_for_long_are_left_to_their_last_holder(
    released: list[threading.Thread], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model, "RELEASE_WAIT", 0.0)
    where: list[str] = []
    rows = freed_rows(9, where)
    model.release(rows, tuple(freed_rows(5, where)))
    joined_all(released)
    assert len(rows) == 9 and len(where) == 5  # the tuple, held by the thread alone
    del rows
    assert len(where) == 14


@pytest.mark.parametrize("replace", ["load", "show"])
def test_rows_replaced_are_freed_in_a_thread_with_the_lists_of_their_index(
    replace: str, released: list[threading.Thread], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Freeing 1,000,000 rows and their index lines held the event loop 30-70 ms at a
    # reload: the table hands both to a thread.
    handed: list[set[int]] = []  # not the parts: holding them would keep them
    threaded = model.release

    def release(*parts: Any) -> threading.Thread | None:
        handed.append({id(part) for part in parts})
        return threaded(*parts)

    monkeypatch.setattr(model, "release", release)
    where: list[str] = []
    view = loaded(freed_rows(10, where))
    view.set_filter("name:row")  # keeps the cells of a column apart: long to free too
    old = {id(part) for part in view.search_index().per_row() if len(part) == 10}
    assert len(old) == 2
    handed.clear()
    new = [Row("new", 1)]
    if replace == "load":
        view.load(prepare_rows(COLUMNS, new, width=wide))
    else:
        view.set_filter("")
        view.show(COLUMNS, new)
    assert handed == [handed[0]] and old <= handed[0]
    joined_all(released)
    assert len(where) == 10 and threading.main_thread().name not in where


def test_rows_shown_before_indexing_filter_once_the_index_is_built() -> None:
    view = TableView(wide)
    assert view.can_show()
    view.show(COLUMNS, ROWS)
    assert names(view) == [row.name for row in ROWS]
    view.set_filter("cherry")  # builds the index on the spot
    assert names(view) == ["cherry"]
    assert not view.can_show()


def test_find_prefers_the_hint_then_the_nearest_row_of_that_identity() -> None:
    view = loaded([*ROWS, Row("Apple", 1), Row("Apple", 2)])  # Apple at 2, 5 and 6
    view.row_id = attrgetter("name")
    assert view.find("Apple", 2) == 2
    assert view.find("Apple", 0) == 2
    assert view.find("Apple", 4) == 5
    assert view.find("Apple", 6) == 6
    assert view.find("Apple", 99) == 6
    assert view.find("missing", 0) == -1


def test_a_row_without_an_identity_of_its_own_is_no_other_row() -> None:
    # By default a row is the object itself: another row, even equal, is not it, and
    # the identity holds the row, so that no later row can take its address.
    first, twin = Row("same", 1), Row("same", 1)
    view = loaded([first, twin])
    assert view.identity(first) == view.identity(first)
    assert view.identity(first) != view.identity(twin)
    assert view.identity(first).row is first
    assert view.find(Unnamed(twin), 0) == 1
    assert view.find(Unnamed(Row("same", 1)), 0) == -1


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.sampled_from(["", "a", "b", "c"]), max_size=40),
    order=st.randoms(use_true_random=False),
    sorted_view=st.booleans(),
    hint=st.integers(-2, 45),
    pick=st.integers(0, 50),
)
def test_find_is_the_nearest_row_of_that_identity_the_upper_on_a_tie(
    names: list[str], order: Any, sorted_view: bool, hint: int, pick: int
) -> None:
    # The search looks a stretch at a time on each side of the hint: with stretches of
    # one and two rows here, it must still answer as a walk outward from the hint does.
    rows = [Row(name, 0) for name in names]  # equal rows: only an Unnamed one's own is it
    view = TableView(wide)
    view.row_id = attrgetter("name")
    view.show(COLUMNS, rows)
    if sorted_view:
        places = list(range(len(rows)))
        order.shuffle(places)
        view.view = array("i", places)
    wanted: Any = view.identity(rows[pick % len(rows)]) if rows else "a"
    for key in (wanted, "a", "", Unnamed(Row("", 0))):
        count = len(view.view)
        start = max(0, min(hint, count - 1))
        walk = sorted(range(count), key=lambda place: (abs(place - start), place))
        expected = next((p for p in walk if view.identity(rows[view.view[p]]) == key), -1)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(model, "FIND_FIRST", 1)
            patch.setattr(model, "FIND_GROWTH", 2)
            assert view.find(key, hint) == expected


def test_finding_a_row_compares_the_rows_in_c_not_one_by_one_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It runs on the event loop whenever rows change, and a row that is gone (deleted,
    # or gone in a reload) is looked for in every row: calling Python code for each of
    # a million rows held the frame for most of a second.
    rows = [Row(f"r{n}", n) for n in range(5_000)]
    rows[10] = Row("", 10)
    view = loaded(rows)
    view.row_id = attrgetter("name")
    called = []

    def identity(row: Any) -> Any:
        called.append(row)
        return row.name or Unnamed(row)

    compared = []

    def equal(self: Unnamed, other: object) -> bool:
        compared.append(other)
        return isinstance(other, Unnamed) and other.row is self.row

    view.identity = identity  # type: ignore[method-assign]
    monkeypatch.setattr(Unnamed, "__eq__", equal)
    assert view.find("gone", 2_500) == -1
    assert view.find("r4999", 0) == 4_999
    assert view.find(Unnamed(Row("", 10)), 2_500) == -1  # an equal row is not it
    assert view.find(Unnamed(rows[10]), 4_999) == 10
    assert len(called) <= 4  # the row at the hint, each time
    assert len(compared) <= 4


def test_cells_are_cleaned_capped_and_one_line() -> None:
    rows = [Row("a\x1b]52;c;x\x07b", 1), Row("x" * 500, 2), Row({"k": [1, 2]}, 3), Row(True, 4)]
    cells, is_ascii, longest = column_cells(COLUMNS[0], rows)
    assert "\x1b" not in cells[0] and "\x07" not in cells[0]
    assert len(cells[1]) == 200 and cells[1].endswith("…")
    assert cells[2] == '{"k":[1,2]}' and cells[3] == "yes"
    assert not is_ascii and longest == 200


def test_widths_count_terminal_cells_and_stay_within_the_column_limits() -> None:
    column = Column("name", "Name", attrgetter("name"), min_width=4, max_width=10)
    cells, is_ascii, longest = column_cells(column, [Row("漢字漢字", 1)])
    assert natural_width(column, cells, is_ascii, longest, wide) == 8  # 4 wide characters
    cells, is_ascii, longest = column_cells(column, [Row("漢字" * 20, 1)])
    assert natural_width(column, cells, is_ascii, longest, wide) == 10
    cells, is_ascii, longest = column_cells(column, [Row("a", 1)])
    assert natural_width(column, cells, is_ascii, longest, wide) == 6  # label and sort mark


def test_numeric_sort_key_orders_numbers_and_tolerates_junk() -> None:
    keys = [numeric_sort_key(v) for v in (None, "junk", float("nan"), 2, "10", 2.5, True)]
    assert keys[:3] == [float("-inf")] * 3
    assert keys[3:] == [2, 10, Decimal("2.5"), 1]


def test_the_widest_columns_give_way_first_down_to_their_minimum() -> None:
    assert fit_widths([10, 4, 20], [4, 4, 4], 0) == [10, 4, 20]  # no limit
    assert fit_widths([10, 4, 20], [4, 4, 4], 30) == [10, 4, 12]
    assert fit_widths([10, 4, 20], [4, 4, 8], 20) == [4, 4, 8]


def test_too_narrow_for_every_minimum_all_columns_give_way_before_it_scrolls() -> None:
    # The Webhooks tab: ID, URL, Status, Events, Created, Updated at their minimums need
    # 72 cells; at 60 columns the table scrolled and Updated was out of view.
    natural, floors = [18, 30, 6, 20, 10, 10], [15, 20, 6, 4, 10, 10]
    assert fit_widths(natural, floors, 72) == floors
    fitted = fit_widths(natural, floors, 58)
    assert sum(fitted) + len(fitted) + 1 == 58
    assert fitted == [10, 11, 6, 4, 10, 10]  # the widest gave way first, again
    assert fit_widths(natural, floors, 10) == [NARROWEST] * 6  # only then does it scroll


def test_columns_wider_than_their_cells_give_way_before_any_value_is_cut() -> None:
    # id 16, name 20, and two counts of one digit under "Wallets"/"Emails" (8 and 7 wide).
    natural, content, floors = [16, 20, 8, 7], [16, 20, 1, 1], [4, 4, 4, 4]
    # 56 cells needed, 49 there: the counts' labels shorten (to 4 each), nothing else.
    assert fit_widths(natural, floors, 49, content) == [16, 20, 4, 4]
    # Less room: then the widest columns give up cells, as before.
    assert fit_widths(natural, floors, 40, content) == [13, 14, 4, 4]
    # Without the cells' widths, the id and the name are cut while the counts stay wide.
    assert fit_widths(natural, floors, 49) == [14, 15, 8, 7]


def test_the_view_answers_for_the_empty_table_and_the_shown_cells() -> None:
    view = loaded()
    assert view.empty_reason is None
    assert view.cells_at(2) == ("Apple", "12.5")
    assert view.first(lambda row: row.amount == 7) == 3
    view.set_filter("zzz")
    assert view.empty_reason == "No rows match “zzz”"  # no key clears it where it is shown
    view.clear_key = "esc"  # the key of the screen showing it (see ResourceTab)
    assert view.empty_reason == "No rows match “zzz” — press esc to clear"
    assert view.shown_rows == [] and view.first(lambda row: True) == -1
    assert TableView(wide).empty_reason == "Nothing here yet."


# --- the filter language, fields no column shows, marks, scope, changes -----------------


@dataclass
class Thing:
    name: str
    amount: int
    note: str = ""


THINGS = [
    Thing("Gold pass", 1, "backstage access"),
    Thing("Silver pass", 2, "front row"),
    Thing("Gold coin", 3, "safeMint(address)"),
    Thing("Bronze", 4, ""),
]
THING_COLUMNS = [
    Column("name", "Item name", attrgetter("name")),
    Column("amount", "Amount", attrgetter("amount"), align="right", sort_key=numeric_sort_key),
]


def things(rows: list[Thing] = THINGS) -> TableView:
    view = TableView(wide)
    view.other_fields = OtherFields(lambda row: joined(row.note.split("|")))
    view.row_id = attrgetter("name")
    view.load(view.prepare(THING_COLUMNS, rows))
    return view


def shown(view: TableView) -> list[str]:
    return [view.rows[position].name for position in view.view]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("backstage", ["Gold pass"]),  # a field no column shows
        ("SAFEMINT", ["Gold coin"]),
        ("gold pass", ["Gold pass"]),  # every word must match
        ("pass !gold", ["Silver pass"]),  # ! excludes
        ("!pass", ["Gold coin", "Bronze"]),
        ("itemname:gold", ["Gold pass", "Gold coin"]),  # a column by its label
        ("name:o !name:pass", ["Gold coin", "Bronze"]),  # or its key
        ("amount:3", ["Gold coin"]),
        ("name:access", []),  # a column term looks in that column only
        ('"front row"', ["Silver pass"]),  # quotes keep a phrase
        ('"row front"', []),
        ("nosuch:gold", []),  # not a column: the whole word is looked for
        ("!", ["Gold pass", "Silver pass", "Gold coin", "Bronze"]),  # half typed: no term
        ("name:", ["Gold pass", "Silver pass", "Gold coin", "Bronze"]),
    ],
)
def test_the_filter_language(text: str, expected: list[str]) -> None:
    view = things()
    view.set_filter(text)
    assert shown(view) == expected


def test_a_term_given_twice_is_looked_for_once() -> None:
    from tokensales_tui.ui.table.query import Term, parse_filter

    terms = parse_filter("gold gold !pass gold !pass name:gold", [])
    assert terms == (Term("gold"), Term("pass", exclude=True), Term("name:gold"))
    view = things()
    view.set_filter("gold " * 1500)
    assert shown(view) == ["Gold pass", "Gold coin"]


def test_typing_and_deleting_gives_what_a_fresh_filter_gives() -> None:
    words = ["gold !coin", "name:s", "pass !silver name:pass", "!o", '"gold p"']
    for word in words:
        typed = things()
        for end in [*range(1, len(word) + 1), *range(len(word) - 1, 0, -1)]:
            typed.set_filter(word[:end])
            fresh = things()
            fresh.set_filter(word[:end])
            assert shown(typed) == shown(fresh), word[:end]


def test_fields_no_column_shows_are_cleaned_and_kept_apart() -> None:
    rows = [Thing("a", 1, "x\x1b[31m|y"), Thing("b", 2, "line\nbreak")]
    view = things(rows)
    view.set_filter("\x1b[31m")  # cleaned like the query: it matches the escape as shown
    assert shown(view) == ["a"]
    view.set_filter("31my")  # no match spans two fields
    assert shown(view) == []
    view.set_filter("line break")
    assert shown(view) == ["b"]


@pytest.mark.parametrize("piece", [1, 3, 1000])
def test_rows_are_indexed_in_pieces_each_grouped_apart(
    piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Grouping rows by text is one sort in C, which holds the interpreter to its end:
    # 1,000,000 rows in one piece, prepared in a thread, held the event loop 250 ms.
    monkeypatch.setattr(model, "PIECE_ROWS", piece)
    monkeypatch.setattr(index_module, "MERGE_ROWS", piece)  # pieces merged up to this
    grouped: list[int] = []
    real = index_module.grouped

    def recording(ids: Any, first: int) -> Any:
        grouped.append(len(ids))
        return real(ids, first)

    monkeypatch.setattr(index_module, "grouped", recording)
    rows = [Thing(f"{t.name} {n}", n, t.note) for n in range(3) for t in THINGS]
    view = things(rows)
    assert grouped and max(grouped) <= piece and sum(grouped) >= len(rows)
    for text, expected in [("backstage", 3), ("safemint", 3), ("gold", 6), ("row", 3)]:
        view.set_filter(text)
        assert len(shown(view)) == expected, text


def test_a_sort_prepared_with_the_rows_is_sorted_in_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Prepared rows come from a thread for a long list: one sort of them all there would
    # hold the interpreter, and the event loop, for half a second at 1,000,000 rows.
    runs: list[bool] = []
    real = model.sort_order

    def recording(*args: Any, in_runs: bool = False) -> Any:
        runs.append(in_runs)
        return real(*args, in_runs=in_runs)

    monkeypatch.setattr(model, "sort_order", recording)
    prepared = prepare_rows(COLUMNS, ROWS, ("name", False), width=wide)
    assert runs == [True]
    assert prepared.orders[("name", False)] == real(COLUMNS, ROWS, prepared.index, "name", False)


def test_marks_survive_filter_sort_and_reload_and_go_with_their_rows() -> None:
    view = things()
    view.toggle_mark(0)
    view.toggle_mark(2)
    assert view.marks == {"Gold pass", "Gold coin"}
    view.set_filter("silver")
    assert view.marks == {"Gold pass", "Gold coin"}  # hidden, still marked
    assert [row.name for row in view.marked_rows()] == ["Gold pass", "Gold coin"]
    view.set_filter("")
    view.sort_by("amount", reverse=True)
    assert [row.name for row in view.marked_rows()] == ["Gold coin", "Gold pass"]
    assert view.is_marked(0) and not view.is_marked(1)
    assert not view.toggle_mark(1)  # sorted: Bronze, then Gold coin, which is unmarked again
    assert view.marks == {"Gold pass"}
    view.load(view.prepare(THING_COLUMNS, [Thing("Gold pass", 9), Thing("New", 1)]))
    assert view.marks == {"Gold pass"}
    view.load(view.prepare(THING_COLUMNS, [Thing("New", 1)]))
    assert view.marks == set()  # the marked row is gone: so is its mark


def test_mark_shown_marks_only_the_rows_in_view() -> None:
    view = things()
    view.set_filter("gold")
    assert view.mark_shown() == 2
    assert view.mark_shown() == 0
    assert view.marks == {"Gold pass", "Gold coin"}


@dataclass(frozen=True, eq=False)
class Listed:
    id: str
    name: str
    amount: int


def test_marks_by_a_resource_s_ids_at_once_are_its_ids_one_by_one() -> None:
    # A server may send an empty id: that row is known by the object itself.
    rows = [
        Listed("a", "Gold pass", 1),
        Listed("", "Silver pass", 2),
        Listed("c", "Gold coin", 3),
        Listed("", "Bronze", 4),
    ]
    assert ITEMS.identities(rows) == [ITEMS.identity(row) for row in rows]
    view = TableView(wide)
    view.row_id = ITEMS.row_id
    view.load(view.prepare(THING_COLUMNS, rows))
    view.set_filter("pass")
    assert view.mark_shown() == 2
    assert view.marks == {"a", Unnamed(rows[1])}
    view.set_filter("")
    view.sort_by("amount", reverse=True)
    assert view.marked_in_view() == 2
    assert [row.name for row in view.marked_rows()] == ["Silver pass", "Gold pass"]
    assert view.mark_shown() == 2
    view.load(view.prepare(THING_COLUMNS, [*rows[:2], Listed("c", "Gold coin", 3)]))
    assert view.marks == {"a", Unnamed(rows[1]), "c"}  # the row without an id is gone


def test_an_id_listed_twice_is_one_marked_object() -> None:
    # A mark is the id's: both rows of an id show it, but it is one object, counted,
    # named and acted on once. Ids that differ by case or Unicode form are others.
    rows = [
        Listed("a", "Gold pass", 1),
        Listed("b", "Silver pass", 2),
        Listed("a", "Gold pass (again)", 3),
        Listed("A", "Gold coin", 4),
        Listed("caf\u00e9", "Café NFC", 5),
        Listed("cafe\u0301", "Café NFD", 6),
    ]
    view = TableView(wide)
    view.row_id = ITEMS.row_id
    view.load(view.prepare(THING_COLUMNS, rows))
    assert view.toggle_mark(0)
    assert view.is_marked(0) and view.is_marked(2) and not view.is_marked(3)
    assert view.marks == {"a"}
    assert view.marked_rows() == [rows[0]]
    assert view.marked_in_view() == 1
    assert view.rows_sharing([rows[2]]) == [rows[0], rows[2]]
    assert view.rows_sharing([rows[4]]) == [rows[4]]
    assert view.mark_shown() == 4
    assert len(view.marks) == 5
    assert [row.name for row in view.marked_rows()] == [
        "Gold pass",
        "Silver pass",
        "Gold coin",
        "Café NFC",
        "Café NFD",
    ]
    assert view.marked_in_view() == 5
    view.sort_by("amount", reverse=True)  # the first row of the id in the sort stands for it
    assert [row.amount for row in view.marked_rows()] == [6, 5, 4, 3, 2]
    view.set_filter("again")
    assert view.marked_in_view() == 1 and len(view.marked_rows()) == 5
    assert view.rows_sharing(view.marked_rows()) == rows


def test_marks_of_every_row_in_order_are_of_the_rows_shown_of_a_growing_list() -> None:
    rows = [Listed("a", "Gold pass", 1), Listed("b", "Silver pass", 2)]
    view = TableView(wide)
    view.row_id = ITEMS.row_id
    view.show(THING_COLUMNS, rows)
    rows.append(Listed("c", "Gold coin", 3))  # arrived, not shown yet
    assert view.mark_shown() == 2
    assert view.marks == {"a", "b"}
    assert view.marked_in_view() == 2
    assert view.grow()
    assert view.marked_in_view() == 2
    assert [row.id for row in view.marked_rows()] == ["a", "b"]
    assert view.mark_shown() == 1
    assert [row.id for row in view.marked_rows()] == ["a", "b", "c"]


def test_a_scope_narrows_with_the_filter_and_survives_a_reload() -> None:
    view = things()
    view.set_scope(Scope("cheap", lambda row: row.amount <= 2))
    assert shown(view) == ["Gold pass", "Silver pass"]
    view.set_filter("gold")
    assert shown(view) == ["Gold pass"]
    view.set_filter("coin")
    assert shown(view) == [] and view.empty_reason is not None
    view.set_filter("")
    view.load(view.prepare(THING_COLUMNS, [*THINGS, Thing("Tin", 0)]))
    assert shown(view) == ["Gold pass", "Silver pass", "Tin"]
    view.set_scope(Scope("none", lambda row: False))
    view.clear_key = "esc"
    assert view.empty_reason == "No none — press esc to see every row"
    view.set_scope(None)
    assert len(shown(view)) == 5


def test_diff_rows_names_what_a_reload_added_changed_and_removed() -> None:
    old = [Thing("a", 1), Thing("b", 2), Thing("c", 3)]
    new = [Thing("a", 1), Thing("b", 5), Thing("d", 4)]
    changes = diff_rows(old, new, attrgetter("name"), attrgetter("amount"))
    assert changes == ({"b", "d"}, 1, 1, 1)
    assert diff_rows(old, old, attrgetter("name"), attrgetter("amount")) == (set(), 0, 0, 0)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # Nothing changed: a list that names one id three times, reloaded as it was.
        ([("d", 1), ("d", 1), ("d", 1), ("o", 1)], None, (set(), 0, 0, 0)),
        # The rows of an id are paired in their order.
        ([("d", 1), ("d", 2)], [("d", 1), ("d", 3)], ({"d"}, 0, 0, 1)),
        ([("d", 1), ("d", 2)], [("d", 1)], (set(), 0, 1, 0)),
        ([("d", 1)], [("d", 1), ("d", 1)], ({"d"}, 1, 0, 0)),
    ],
)
def test_diff_rows_pairs_the_rows_of_an_id_listed_more_than_once(
    old: list[tuple[str, int]], new: list[tuple[str, int]] | None, expected: tuple[Any, ...]
) -> None:
    before = [Thing(*pair) for pair in old]
    now = [Thing(*pair) for pair in (old if new is None else new)]
    assert diff_rows(before, now, attrgetter("name"), attrgetter("amount")) == expected


def random_things(seed: int) -> list[Thing]:
    """400 rows of a few words, many sharing their other fields."""
    import random

    rng = random.Random(seed)
    words = ["gold", "pass", "golden", "past", "go", "pa", "x"]
    return [
        Thing(
            " ".join(rng.choices(words, k=2)) + f" {n}",
            n,
            rng.choice(["backstage gold", "front row", "", "pass only", f"note {n % 7}"]),
        )
        for n in range(400)
    ]


@pytest.mark.parametrize("slice_rows", [None, 7])
def test_typed_filters_match_fresh_ones_on_many_rows(
    slice_rows: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Enough rows, and rows sharing their other fields, for every path of the index:
    # positions and bytes, few and many candidates, shared and distinct other fields;
    # and each pass over the index cut in slices of a few rows, as a thread's passes
    # over a long list are.
    if slice_rows is not None:
        monkeypatch.setattr(index_module, "SLICE", slice_rows)

    rows = random_things(7)
    typed = things(rows)
    for query in ["golden", "pass", "backstage", "note 3", "!gold pa", "itemname:go", "o"]:
        for end in range(1, len(query) + 1):
            typed.set_filter(query[:end])
            fresh = things(rows)
            fresh.set_filter(query[:end])
            assert shown(typed) == shown(fresh), query[:end]
            if query.isalpha():  # one plain word: every field but never across two
                fields = lambda row: (row.name, str(row.amount), row.note)  # noqa: E731
                expected = [r.name for r in rows if any(query[:end] in f for f in fields(r))]
                assert shown(typed) == expected, query[:end]


def test_cells_of_disputed_width_are_settled_and_others_left_as_they_are() -> None:
    from tokensales_tui.ui.table.cells import column_cells

    column = Column("name", "Name", lambda row: row)
    # U+11003 lies among the spacing marks beyond the BMP but is a letter: untouched.
    cells, _, longest = column_cells(column, ["काम", "\U00011003x", "plain", "a\u0903"])
    assert cells == ["कआम", "\U00011003x", "plain", "a\\u0903"]
    assert longest == len("a\\u0903")


def test_a_filter_of_many_rows_shows_its_first_matches_then_finds_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Steps of a few rows stand for steps of thousands: every filter of the language,
    # typed key by key (some keys while the one before is still looked for), with and
    # without a scope, gives what the filter found at once gives.
    from tokensales_tui.ui.table import model as model_module

    rows = random_things(11)
    queries = ["golden", "backstage", "!gold pa", "itemname:go", "o", "zzz", "pass !name:past"]

    def at_once(text: str, scope: Scope | None) -> list[str]:
        view = things(rows)
        view.set_scope(scope)
        view.set_filter(text)
        assert not view.filtering
        return shown(view)

    expected = {
        (query[:end], scope): at_once(query[:end], scope)
        for query in queries
        for end in range(1, len(query) + 1)
        for scope in (None, EVEN)
    }
    monkeypatch.setattr(model_module, "SCAN_STEP", 16)
    monkeypatch.setattr(model_module, "SCAN_FIRST", 32)
    monkeypatch.setattr(model_module, "SCAN_FIRST_STEP", 8)
    for scope in (None, EVEN):
        typed = things(rows)
        typed.first_rows = 3
        typed.set_scope(scope)
        scanned = 0
        for query in queries:
            for end in range(1, len(query) + 1):
                typed.set_filter(query[:end])
                whole = expected[(query[:end], scope)]
                first = shown(typed)
                assert first == whole[: len(first)], query[:end]  # the first of them, in order
                assert len(first) >= min(3, len(whole)) or typed.filtering
                scanned += typed.filtering
                if end % 2:  # the next key before this one is found everywhere
                    continue
                while not typed.step_filter():
                    pass
                assert shown(typed) == whole, query[:end]
            typed.finish_filter()
            assert shown(typed) == expected[(query, scope)]
        assert scanned > 10  # most keys were looked for a step at a time


EVEN = Scope("even", lambda row: row.amount % 2 == 0)


def test_what_needs_every_match_finds_them_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from tokensales_tui.ui.table import model as model_module

    monkeypatch.setattr(model_module, "SCAN_STEP", 4)
    monkeypatch.setattr(model_module, "SCAN_FIRST", 8)
    monkeypatch.setattr(model_module, "SCAN_FIRST_STEP", 2)
    rows = [Thing(f"gold {n}" if n % 3 else f"silver {n}", n) for n in range(100)]
    view = things(rows)
    view.first_rows = 2
    view.set_filter("gold")
    assert view.filtering and len(view.view) < 66
    assert view.sort_by("amount", reverse=True)  # a sorted view is made of every match
    assert not view.filtering
    assert shown(view)[:2] == ["gold 98", "gold 97"] and len(view.view) == 66
    view.set_filter("silver")  # sorted: found at once
    assert not view.filtering and len(view.view) == 34
    view.sort_by(None)
    view.set_filter("gold 9")
    assert view.filtering
    assert view.mark_shown() == 12 and not view.filtering  # "gold" and "9"
    view.set_filter("gold")
    assert view.matches(98) and not view.filtering
    view.set_filter("old")
    assert view.empty_reason is None and view.filtering
    view.set_filter("nothing")
    assert view.empty_reason is not None and view.empty_reason.startswith("Looking for")
    view.set_filter("sil sil")  # a text twice is looked for once
    assert view.filtering
    view.finish_filter()
    view.set_filter("sil")
    assert len(view.view) == 34 and list(view.view) == sorted(set(view.view))
    view.set_filter("nothing")
    view.finish_filter()
    assert view.empty_reason is not None and view.empty_reason.startswith("No rows match")


def test_a_filter_looked_for_goes_on_into_rows_indexed_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A list still arriving: the index of more rows comes while the filter is still
    # looked for in the first ones. The scan goes on into them: each row is looked at
    # once, and a term whose matches were known (of the first rows) is looked for in
    # the new rows too.
    from tokensales_tui.ui.table import index as index_module
    from tokensales_tui.ui.table import model as model_module

    monkeypatch.setattr(model_module, "SCAN_STEP", 16)
    monkeypatch.setattr(model_module, "SCAN_FIRST", 32)
    monkeypatch.setattr(model_module, "SCAN_FIRST_STEP", 8)
    looked: list[int] = []
    matcher = index_module.SearchIndex.matcher

    def counted(index: Any, query: str, place: int | None = None) -> Any:
        rows = matcher(index, query, place)
        return lambda positions: looked.append(len(positions)) or rows(positions)

    monkeypatch.setattr(index_module.SearchIndex, "matcher", counted)
    rows = random_things(5)
    # (found first, then typed): a known term; a text narrowed from a shorter one.
    for before, text in [("pa", "go"), ("pa", "pa go"), ("g", "go")]:
        view = TableView(wide)
        view.other_fields = OtherFields(lambda row: joined(row.note.split("|")))
        view.show(THING_COLUMNS, rows)
        indexer = view.indexer(THING_COLUMNS)
        indexer.add(rows, 200)
        view.first_rows = 3
        view.show_indexed(indexer.index)
        view.set_filter(before)
        view.finish_filter()  # known for the first 200 rows
        looked.clear()
        view.set_filter(text)
        assert view.filtering and view.indexed_count == 200
        for more in (300, 400):  # twice before the filter is found
            indexer.add(rows, more)
            assert not view.show_indexed(indexer.index)  # the scan goes on into them
            assert view.filtering and view.indexed_count == more
        view.finish_filter()
        if (before, text) == ("pa", "go"):
            assert sum(looked) == 400  # each row once
        whole = things(rows)
        whole.set_filter(text)
        whole.finish_filter()
        assert shown(view) == shown(whole), text
        view.set_filter(before)  # the matches the scan kept are of every row
        view.finish_filter()
        whole.set_filter(before)
        whole.finish_filter()
        assert shown(view) == shown(whole)


def _positions(size: int) -> st.SearchStrategy[array[int]]:
    """Ascending positions among ``size`` rows, each once: any, every one, or a run."""
    some = st.sets(st.integers(0, size - 1), max_size=size).map(sorted)
    run = st.tuples(st.integers(0, size), st.integers(0, size)).map(
        lambda ends: list(range(min(ends), max(ends)))
    )
    return st.one_of(some, run, st.just(list(range(size)))).map(lambda p: array("i", p))


@given(st.data(), st.sampled_from([1, 7, 60, 700]))
@settings(max_examples=300, deadline=None)
def test_the_positions_in_both_or_in_one_only_are_those_of_sets(data: Any, size: int) -> None:
    # Dense lists (every row, a run), sparse ones and lists far longer than the other
    # take different ways: all give what sets give.
    first, second = data.draw(_positions(size)), data.draw(_positions(size))
    assert list(intersect(first, second)) == sorted(set(first) & set(second))
    assert list(subtract(first, second)) == sorted(set(first) - set(second))
    start = data.draw(st.integers(0, size))
    span = range(start, data.draw(st.integers(start, size)))
    assert list(subtract(span, second)) == sorted(set(span) - set(second))


def test_a_few_positions_are_looked_up_in_a_long_list() -> None:
    many = array("i", [p for p in range(1000) if p % 7])  # far longer: searched, not masked
    few = array("i", [0, 3, 7, 500, 994, 998, 999])
    assert list(intersect(few, many)) == list(intersect(many, few)) == [3, 500, 998, 999]
    assert list(subtract(few, many)) == [0, 7, 994]
    assert list(subtract(range(990, 1000), many)) == [994]
