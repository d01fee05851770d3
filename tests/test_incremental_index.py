"""A list indexed a slice at a time, as its rows arrive, gets the index of the whole list."""

from __future__ import annotations

import random
from array import array
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import pytest

from tokensales_tui.ui.resources import format_price, joined
from tokensales_tui.ui.table import index as index_module
from tokensales_tui.ui.table.cells import Column
from tokensales_tui.ui.table.index import MERGE_ROWS, OtherFields, SearchIndex
from tokensales_tui.ui.table.model import (
    PreparedRows,
    RowsIndexer,
    TableView,
    all_steps,
    prepare_rows,
)


def wide(text: str) -> int:
    """A terminal's measure for the tests: CJK ideographs and emoji take two cells."""
    return sum(2 if "\u4e00" <= ch <= "\u9fff" or ch >= "\U0001f300" else 1 for ch in text)


@dataclass
class Thing:
    title: Any
    price: float
    currency: str
    note: str
    group: int


COLUMNS = [
    Column("title", "Title", attrgetter("title"), max_width=30),
    Column("price", "Price", lambda t: format_price(t.price, t.currency), align="decimal"),
    Column("group", "Group", attrgetter("group"), align="right", max_width=6),
]
OTHERS = OtherFields(lambda t: joined((t.note, t.currency)), lambda t: (t.note, t.currency))

PIECES = [
    "gold",
    "Pass",
    "ÅSA",
    "straße",
    "漢字",
    "🎟️ ticket",
    "a\u0903",
    "काम",
    "[@click=app.quit]x[/]",
    "a [/] b",
    "\x1b[31mred",
    "\u202eevil",
    "tab\there",
    "new\nline",
    "x" * 300,
    "",
]


def things(count: int, seed: int) -> list[Thing]:
    rng = random.Random(seed)
    return [
        Thing(
            " ".join(rng.choices(PIECES, k=2)) + f" {n}",
            rng.choice([0.5, 12.25, 1234.5, 3, 0.00000001, 1e9, -7.125]),
            rng.choice(["USD", "EUR", "ETH", "€", ""]),
            rng.choice(["backstage", "front row", "", "ß note", f"note {n % 5}", *PIECES]),
            n % 9,
        )
        for n in range(count)
    ]


def facts(prepared: PreparedRows) -> tuple[Any, ...]:
    index = prepared.index
    return (
        prepared.natural,
        prepared.content,
        prepared.tails,
        index.count,
        index.lines[: index.count],
        index.extras,
        None if index.extra_ids is None else list(index.extra_ids),
        [list(index.rows_with(number)) for number in range(len(index.extras))],
    )


@pytest.mark.parametrize(
    ("count", "cuts"), [(0, []), (1, [1]), (50, [7, 8, 30]), (9000, [1, 4096, 4100, 8999])]
)
def test_indexed_in_slices_as_in_one_go(count: int, cuts: list[int]) -> None:
    rows = things(count, seed=count)
    whole = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    arriving: list[Thing] = []
    for cut in cuts:
        arriving += rows[len(arriving) : cut]
        partial = indexer.add(arriving)
        assert partial.count == len(arriving)
    arriving += rows[len(arriving) :]
    assert facts(indexer.prepared(arriving)) == facts(whole)


def test_an_index_taken_before_more_rows_came_stays_as_it_was() -> None:
    rows = things(300, seed=1)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    early = indexer.add(rows, 100)
    before = facts(PreparedRows(tuple(COLUMNS), rows, [], early))
    indexer.add(rows)
    assert facts(PreparedRows(tuple(COLUMNS), rows, [], early)) == before
    assert early.count == 100


def test_pieces_taken_one_at_a_time_and_read_between_index_as_in_one_go() -> None:
    # As from an index process: each piece makes a new index (the one before was read),
    # and each piece's rows of each other-field text are gathered when a query asks.
    rows = things(2000, seed=5)
    whole = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS)
    source = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    taker = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    seen: list[tuple[SearchIndex, list[list[int]]]] = []
    for start in range(0, len(rows), 100):
        taker.take(source.piece(rows[start : start + 100], start), source.measures)
        index = taker.index
        if start % 300 == 0:  # some texts' rows put together halfway, the others not
            numbers = range(0, len(index.extras), 1 + start // 300)
            seen.append((index, [list(index.rows_with(number)) for number in numbers]))
    prepared = taker.prepared(rows)
    assert prepared.index._pending == []  # each text's rows put together: nothing to gather
    assert facts(prepared) == facts(whole)
    for index, rows_of in seen:
        numbers = range(0, len(index.extras), 1 + (index.count - 100) // 300)
        assert [list(index.rows_with(number)) for number in numbers] == rows_of
        assert all(max(found, default=-1) < index.count for found in rows_of)


def test_many_small_slices_merge_so_that_a_text_has_few_to_gather_from() -> None:
    # As on the event loop: a few rows at a time, then read. Unmerged, each text's rows
    # would be gathered from every slice at the first query.
    rows = things(3000, seed=7)
    whole = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    for stop in range(7, len(rows) + 7, 7):
        for _ in indexer.steps(rows, stop, 7):
            pass
    index = indexer.index
    assert len(index._pending) <= 2 * (len(rows) // MERGE_ROWS + 1) * (len(rows) // 7).bit_length()
    assert len(index._pending) < 40
    assert [list(index.rows_with(n)) for n in range(len(index.extras))] == [
        list(whole.index.rows_with(n)) for n in range(len(whole.index.extras))
    ]


def test_slices_read_before_are_not_merged_with_those_after() -> None:
    # A text's rows gathered up to some row: merging the slices around that row would
    # gather the rows before it a second time.
    rows = things(400, seed=9)
    whole = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    for stop in range(10, len(rows) + 10, 10):
        indexer.add(rows, stop)
        index = indexer.index
        for number in range(0, len(index.extras), 3 + stop % 4):
            index.rows_with(number)
    index = indexer.index
    assert [list(index.rows_with(n)) for n in range(len(index.extras))] == [
        list(whole.index.rows_with(n)) for n in range(len(whole.index.extras))
    ]


def test_filters_answer_the_same_from_an_index_built_in_slices() -> None:
    rows = things(3000, seed=3)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    for stop in (5, 999, 2000):
        indexer.add(rows, stop)
    sliced, whole = TableView(wide), TableView(wide)
    sliced.load(indexer.prepared(rows))
    whole.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    for text in ["gold", "漢", "straße", "!note 3", "title:pass", "backstage", "€", '"a b"']:
        sliced.set_filter(text)
        whole.set_filter(text)
        assert list(sliced.view) == list(whole.view), text


def test_a_head_cut_short_and_a_tail_indexed_apart_answer_as_the_whole() -> None:
    # As once a long list's body has ended: an index process's last piece is cut where
    # the tab's own indexing of the last rows begins, and the tab's pieces, their texts
    # numbered from 0, follow.
    rows = things(3000, seed=12)
    head, source, tail = (RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS) for _ in "abc")
    for start, stop in ((0, 1000), (1000, 2100)):
        head.take(source.piece(rows[start:stop], start).cut(1700), source.measures)
    assert head.count == 1700
    tail_pieces = [tail.piece(rows[start : start + 500], start) for start in (1700, 2200, 2700)]
    head.take_apart(tail_pieces, tail.measures)
    apart, whole = TableView(wide), TableView(wide)
    apart.load(head.prepared(rows))
    whole.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    assert apart.natural == whole.natural
    mine, theirs = apart.search_index(), whole.search_index()
    assert mine.lines[: mine.count] == theirs.lines[: theirs.count]
    assert mine.extra_ids is not None and theirs.extra_ids is not None
    assert [mine.extras[n] for n in mine.extra_ids] == [theirs.extras[n] for n in theirs.extra_ids]
    for text in ["gold", "漢", "straße", "!note 3", "backstage", "€", "note 4", '"a b"']:
        apart.set_filter(text)
        whole.set_filter(text)
        assert list(apart.view) == list(whole.view), text


def test_a_filter_found_in_a_thread_shows_what_set_filter_alone_shows() -> None:
    rows = things(3000, seed=4)
    ahead, plain = TableView(wide), TableView(wide)
    ahead.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    plain.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    for text in ["g", "go", "gold", "gold !note", "title:pa", "title:pass", '"a b"', ""]:
        job = ahead.filter_job(text)
        assert job is not None
        ahead.take_matches(job, job.run())
        ahead.set_filter(text)
        plain.set_filter(text)
        assert list(ahead.view) == list(plain.view), text


def test_matches_found_for_an_index_since_replaced_are_not_kept() -> None:
    rows = things(300, seed=6)
    view = TableView(wide)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    view.show(COLUMNS, rows)
    view.show_indexed(indexer.add(rows, 100))
    job = view.filter_job("gold")
    assert job is not None
    found = job.run()
    view.show_indexed(indexer.add(rows))  # more rows indexed meanwhile
    view.take_matches(job, found)
    view.set_filter("gold")
    fresh = TableView(wide)
    fresh.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    fresh.set_filter("gold")
    assert list(view.view) == list(fresh.view)


def typed_while_arriving(rows: list[Any], first: int, text: str) -> tuple[TableView, RowsIndexer]:
    """A view of ``rows`` arriving, its first ``first`` indexed, then ``text`` typed; and
    the indexer of the rows arriving."""
    view = TableView(wide)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    view.show(COLUMNS, rows)
    view.show_indexed(indexer.add(rows, first))
    view.set_filter(text)
    return view, indexer


@pytest.mark.parametrize("typed_meanwhile", [False, True])
def test_matches_for_the_last_rows_found_in_a_thread_are_taken_without_a_scan(
    typed_meanwhile: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter typed while rows arrived: the rows indexed after its last slice are
    looked at in a thread, and loading the whole index scans nothing on the event loop
    (unless the filter changed meanwhile: then it looks again, and shows the same)."""
    rows = things(3000, seed=8)
    view, indexer = typed_while_arriving(rows, 200, "gold")
    prepared = indexer.prepared(rows)
    extension = view.extension(prepared.index)
    assert extension is not None
    prepared.matches = all_steps(extension)  # what the thread does
    if typed_meanwhile:
        view.set_filter("gol")
    else:
        import tokensales_tui.ui.table.model as model

        def no_scan(*_: object) -> None:
            raise AssertionError("scanned while loading the index")

        monkeypatch.setattr(model, "term_matches", no_scan)
    view.load(prepared)
    monkeypatch.undo()
    fresh = TableView(wide)
    fresh.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    fresh.set_filter(view.filter)
    assert list(view.view) == list(fresh.view)
    assert len(view.view) > 0


@pytest.mark.parametrize("text", ["gold", "backstage", "!note 3", "title:pass", "€ ß"])
def test_a_filter_typed_while_rows_arrive_is_looked_for_in_each_new_slice(text: str) -> None:
    rows = things(5000, seed=10)
    view, indexer = typed_while_arriving(rows, 300, text)
    for stop in (301, 1000, 1001, 4000, 5000):
        view.show_indexed(indexer.add(rows, stop))
        fresh = TableView(wide)
        fresh.load(prepare_rows(COLUMNS, rows[:stop], width=wide, other_fields=OTHERS))
        fresh.set_filter(text)
        assert list(view.view) == list(fresh.view), stop


@pytest.mark.parametrize("text", ["gold", "backstage", "!note 3", "title:pass"])
def test_new_rows_shown_a_step_at_a_time_find_what_one_look_finds(text: str) -> None:
    """The rows a partial index gained are looked at ``step`` rows a step (a turn of the
    event loop between two), and what the steps found is shown as one look shows it;
    the steps are not taken once the filter changed, nor for a few rows."""
    rows = things(5000, seed=12)
    view, indexer = typed_while_arriving(rows, 300, text)
    index = indexer.add(rows, 4000)
    assert view.extension(index, more_than=3700) is None  # as few as that: at once
    steps = view.extension(index, more_than=100, step=500)
    assert steps is not None
    found = list(steps)
    assert found[-1] is not None and not any(found[:-1])
    assert len(found) - 1 == len(found[-1].matches) * 8  # 3,700 rows, 500 a step each
    assert view.takes(found[-1], index)
    assert not view.takes(found[-1], indexer.add(rows, 4100))  # of fewer rows than that
    view.show_indexed(index, found[-1])
    one_look, first = typed_while_arriving(rows, 300, text)
    one_look.show_indexed(first.add(rows, 4000))
    assert list(view.view) == list(one_look.view)
    view.set_filter(text + "x")
    assert not view.takes(found[-1], index)


def test_steps_stop_once_the_filter_or_the_partial_index_changed() -> None:
    rows = things(5000, seed=12)
    view, indexer = typed_while_arriving(rows, 300, "gold")
    steps = view.extension(indexer.add(rows, 4000), step=500)
    assert steps is not None
    assert next(steps) is None
    view.set_filter("gol")
    assert list(steps) == []
    steps = view.extension(indexer.add(rows, 4000), step=500)
    assert steps is not None
    assert next(steps) is None
    view.show_indexed(indexer.add(rows, 4500))  # another partial index in use
    assert list(steps) == []
    assert all_steps(view.extension(indexer.add(rows, 5000)) or []) is not None


def test_no_extension_without_a_filter_or_a_partial_index() -> None:
    rows = things(300, seed=9)
    view = TableView(wide)
    view.load(prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS))
    view.set_filter("gold")
    assert view.extension(view.search_index()) is None  # a whole index: nothing to extend
    partial = TableView(wide)
    indexer = RowsIndexer(COLUMNS, width=wide, other_fields=OTHERS)
    partial.show(COLUMNS, rows)
    partial.show_indexed(indexer.add(rows, 100))
    assert partial.extension(indexer.prepared(rows).index) is None  # no filter


def test_a_column_term_among_a_few_rows_reads_their_cells_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = things(3000, seed=7)
    index = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS).index
    every = {query: index.match_field(0, query) for query in ("a", "gold", "ß", "漢")}
    fresh = prepare_rows(COLUMNS, rows, width=wide, other_fields=OTHERS).index

    def whole_column(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the whole column was split out for a few rows")

    monkeypatch.setattr(index_module, "split_fields", whole_column)
    for query, found in every.items():
        few = array("i", range(0, 3000, 20))  # a shorter text's matches, say
        assert list(fresh.match_field(0, query, few)) == [n for n in found if n % 20 == 0]


def test_a_text_asked_for_while_every_text_is_gathered_has_its_rows_once() -> None:
    # A filter in a thread asks for a text's rows just as the thread that prepares the
    # index gathers every text's rows: the filter then finds them gathered.
    interner = index_module.ExtrasInterner(OtherFields(text=lambda row: f"text {row}"))
    values = [0, 1] * 10
    index = SearchIndex()
    for start in range(0, 20, 5):
        piece = index_module.IndexPiece(
            start, [b"x"] * 5, interner.intern(values[start : start + 5], start)
        )
        index = index.extended(piece)
    lock = index._lock

    class GatheredFirst:
        """The lock, taken first by a thread gathering every text."""

        def __enter__(self) -> bool:
            index._lock = lock
            index.gather_pending()
            return lock.__enter__()

        def __exit__(self, *exc: object) -> None:
            lock.__exit__(*exc)

    index._lock = GatheredFirst()  # type: ignore[assignment]
    assert list(index.rows_with(0)) == list(range(0, 20, 2))
    assert list(index.rows_with(0)) == list(range(0, 20, 2))
