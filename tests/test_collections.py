"""The collector: rarer while lists load, settled after; the rows never walked; what
was set aside walked again, when no one types."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from tokensales_tui.api import models
from tokensales_tui.api.listing import StreamedList
from tokensales_tui.ui import tabs
from tokensales_tui.ui.app import TokenSalesApp

from .apifakes import FakeServer, json_response
from .apphelpers import loaded, resident_bytes, rigged_app, wait_for


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[tuple[int, int, int]]:
    models.restore_collections()  # as an app ending leaves them
    before = gc.get_threshold()
    yield before
    models.settle_collections()
    gc.set_threshold(*before)


def test_full_collections_wait_for_the_settle_after_the_last_load(
    thresholds: tuple[int, int, int],
) -> None:
    _, middle, _ = thresholds
    deferred = (models.YOUNG_COLLECTION_AFTER, middle, models.FULL_COLLECTION_AFTER)
    with models.collections_deferred():
        assert gc.get_threshold() == deferred
        with models.collections_deferred():  # a second tab loads meanwhile
            pass
        models.settle_collections()  # one load settled, the other still runs
        assert gc.get_threshold() == deferred
    # The load has ended: the collection it leaves due waits for the settle.
    assert gc.get_threshold() == deferred
    models.settle_collections()
    assert gc.get_threshold() == thresholds


async def test_an_app_that_ends_right_after_a_load_leaves_the_collector_as_it_was(
    thresholds: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The app ends before the settle: on a busy machine, a second between the loads
    # and the end may pass, so the settle is put off for good here.
    monkeypatch.setattr(tabs, "SETTLE_DELAY", 3600.0)
    app, _ = rigged_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        assert gc.get_threshold()[2] == models.FULL_COLLECTION_AFTER  # before the settle
    assert gc.get_threshold() == thresholds


def test_a_list_never_walked_still_frees_what_it_holds() -> None:
    class Node:
        me: Node

    node = Node()
    node.me = node  # a cycle among the elements is still found through them
    gone = weakref.ref(node)
    rows = models.never_walked([node])
    rows += [Node()]  # grows untracked
    del node
    gc.collect()
    assert gone() is not None  # the list keeps it
    assert not gc.is_tracked(rows)
    del rows
    gc.collect()
    assert gone() is None


async def test_the_rows_of_a_list_and_their_index_are_never_walked() -> None:
    app, _ = rigged_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash", *"id:1")  # a column filtered on keeps its cells
        await pilot.pause()
        model = app.browse.tab("items").table.model
        index = model._index
        assert index is not None and index.count > 0
        lists = [model.rows, index.lines, *index._fields.values()]
        assert len(lists) == 3
        assert not any(map(gc.is_tracked, lists))


def test_the_rows_of_a_list_arriving_are_never_walked() -> None:
    response = SimpleNamespace(status_code=200, headers={"content-type": "application/json"})
    arrival = StreamedList(models.Item, "items", response)  # type: ignore[arg-type]
    assert not gc.is_tracked(arrival.rows)


def test_a_settle_counts_nothing_it_set_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    # Python counts what is frozen by following its list of it: 16-21 ms with
    # 1,000,000 items loaded, on top of the settle's collection.
    counts: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counts.append(1) or count())
    monkeypatch.setattr(models, "_walked", None)
    models.settle_collections()
    assert not counts
    assert not models.everything_due()  # the first count only sets the measure
    assert len(counts) == 1
    assert models._walked is not None
    assert not models.everything_due()  # asked again (another tab): nothing new to count
    assert len(counts) == 1
    models.settle_collections()
    models.everything_due()
    assert len(counts) == 2


def test_a_cycle_set_aside_alive_is_collected_once_everything_is_walked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Node:
        me: Node

    node = Node()
    node.me = node  # a screen, a line drawn: it refers to itself
    gone = weakref.ref(node)
    models.settle_collections()  # alive: set aside
    monkeypatch.setattr(models, "_walked", gc.get_freeze_count())
    del node
    gc.collect()
    assert gone() is not None  # no collection walks what was set aside
    assert not models.everything_due()
    grown = [[] for _ in range(gc.get_freeze_count() // 4 + 1)]  # a quarter more, alive
    models.settle_collections()
    assert models.everything_due()
    models.walk_everything()
    assert gone() is None
    assert not models.everything_due()
    assert all(map(gc.is_tracked, grown[:3]))  # what is alive is set aside again
    assert gc.get_freeze_count() > len(grown)


async def test_everything_is_walked_again_only_once_no_key_came_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tabs, "SETTLE_DELAY", 0.01)
    settles: list[float] = []
    walks: list[float] = []
    monkeypatch.setattr(tabs, "settle_collections", lambda: settles.append(time.monotonic()))
    counted: list[float] = []  # what was set aside, counted: a pause too
    monkeypatch.setattr(
        tabs, "everything_due", lambda: counted.append(time.monotonic()) or not walks
    )
    monkeypatch.setattr(tabs, "walk_everything", lambda: walks.append(time.monotonic()))
    app, _ = rigged_app()
    quiet = [0.0]  # seconds since the last key, as the app tells
    monkeypatch.setattr(app, "quiet_for", lambda: quiet[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        app._last_input -= 100
        await pilot.press("2")
        assert TokenSalesApp.quiet_for(app) < 50  # a key counts
        await wait_for(lambda: bool(settles), pilot)
        tab = app.browse.tab("items")
        timer = tab.set_timer
        asked: list[object] = []

        def set_timer(delay: float, callback: Any = None, **options: Any) -> Any:
            asked.append(callback)
            return timer(delay, callback, **options)

        monkeypatch.setattr(tab, "set_timer", set_timer)
        for _ in range(3):  # more loads settle while the walk waits
            tab._settle()
        assert asked.count(tab._walk_everything) <= 1  # one question at a time
        await pilot.pause(0.2)  # the walk is asked for every SETTLE_DELAY
        assert not walks  # someone types
        assert not counted
        quiet[0] = tabs.QUIET_BEFORE_WALK
        await wait_for(lambda: bool(walks), pilot)
        assert walks[0] > settles[0]
        assert counted[0] <= walks[0]


def _alive_unfrozen(thing: object) -> bool:
    return any(tracked is thing for tracked in gc.get_objects())


async def test_the_first_answer_sets_aside_what_lives_and_collects_young_garbage_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the HTTP stack imports on first use lives as long as the app: the first
    # answer sets aside what lives, so that the settle after a load need not walk it.
    monkeypatch.setattr(models, "_libraries_set_aside", False)
    server = FakeServer({("GET", "/v1/platform-webhooks"): json_response(200, [])})

    class Node:
        me: Node

    lives: list[object] = []
    garbage = Node()
    garbage.me = garbage  # a cycle: only a collection frees it
    gone = weakref.ref(garbage)
    del garbage
    gc.disable()  # no collection but the one the first answer makes
    try:
        async with server.client() as client:
            assert _alive_unfrozen(lives)
            await client.list_webhooks()
            assert not _alive_unfrozen(lives)  # set aside
            assert gone() is None  # collected, not set aside
            later: list[object] = []
            await client.list_webhooks()
            assert _alive_unfrozen(later)  # once only
    finally:
        gc.enable()


@pytest.mark.skipif(models._trimmer() is None, reason="no malloc_trim here (not glibc)")
@pytest.mark.parametrize("settle", ["settle_collections", "walk_everything"])
def test_a_settle_hands_the_memory_a_load_freed_back_to_the_system(settle: str) -> None:
    # Pieces of a body, each a few kilobytes (the C allocator's, not Python's small
    # objects), freed among rows that stay: resident until given back.
    kept: list[bytearray] = []
    pieces = [bytearray(4096) for _ in range(12_000)]
    kept += pieces[::8]
    del pieces
    before = resident_bytes()
    getattr(models, settle)()
    assert before - resident_bytes() > 20 * 1024 * 1024
    assert len(kept) == 1_500
