"""A worker cancelled or failed keeps nothing its work held (``ui/lifetime.py``).

Textual keeps such a worker's error, whose frames hold the work's variables, and the
worker's own frame among them: a cycle that only a collection breaks, freeing a tab's
rows (a million items) all at once on the event loop. Each test runs with the collector
off, so that what is freed is freed by its last reference going.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from tokensales_tui.ui import lifetime
from tokensales_tui.ui.lifetime import let_go_of_ended_work
from tokensales_tui.ui.table import widget as widget_module
from tokensales_tui.ui.tabs import ResourceTab

from .apphelpers import loaded, rigged_app, wait_for
from .test_resource_table import ROWS, TableApp


class Held:
    """What a work holds: a tab's rows, say."""


class Working(Widget):
    def __init__(self, lets_go: bool) -> None:
        super().__init__()
        self.lets_go = lets_go

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if self.lets_go:
            let_go_of_ended_work(event)


class WorkApp(App[None]):
    def __init__(self, lets_go: bool) -> None:
        super().__init__()
        self.lets_go = lets_go

    def compose(self) -> ComposeResult:
        yield Working(self.lets_go)


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def holding(held: Held) -> None:
    """A frame of its own, which the first error's traceback holds, with ``held``."""
    raise KeyError("the first failure")


async def work(held: Held, started: asyncio.Event, go_on: asyncio.Event, fails: bool | str) -> None:
    started.set()  # a worker cancelled before its work starts ends no differently
    await go_on.wait()
    if fails == "while handling":
        try:
            holding(held)
        except KeyError:
            raise ValueError("the work failed handling another failure") from None
    if fails:
        raise ValueError("the work failed")


@pytest.mark.parametrize("lets_go", [True, False])
@pytest.mark.parametrize("ends", ["cancelled", "failed", "failed while handling"])
async def test_a_worker_that_ended_badly_keeps_nothing_its_work_held(
    ends: str, lets_go: bool, no_collector: None
) -> None:
    app = WorkApp(lets_go)
    async with app.run_test() as pilot:
        node = app.query_one(Working)
        held = Held()
        alive = weakref.ref(held)
        started, go_on = asyncio.Event(), asyncio.Event()
        fails = {"cancelled": False, "failed": True}.get(ends, "while handling")
        worker = node.run_worker(work(held, started, go_on, fails), exit_on_error=False)
        del held
        await wait_for(started.is_set, pilot)
        if ends == "cancelled":
            worker.cancel()
        else:
            go_on.set()
        ended = WorkerState.CANCELLED if ends == "cancelled" else WorkerState.ERROR
        await wait_for(lambda: worker.state is ended and worker.error is not None, pilot)
        await pilot.pause()  # the node's StateChanged
        # Without the node letting go, the error's frames still hold it: the test can fail.
        assert (alive() is None) is lets_go
        assert worker.error is not None and worker.error.__traceback__ is not None


async def test_the_table_lets_go_of_a_sort_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[WorkerState] = []
    real = lifetime.let_go_of_ended_work

    def spy(event: Worker.StateChanged) -> None:
        seen.append(event.state)
        real(event)

    monkeypatch.setattr(widget_module, "let_go_of_ended_work", spy)
    app = TableApp(list(ROWS))
    async with app.run_test() as pilot:
        table = app.query_one(widget_module.ResourceTable)
        started = asyncio.Event()
        worker = table.run_worker(work(Held(), started, asyncio.Event(), False))
        await wait_for(started.is_set, pilot)
        worker.cancel()
        await wait_for(lambda: WorkerState.CANCELLED in seen, pilot)


async def test_the_tab_lets_go_of_a_work_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    from tokensales_tui.ui import tabs as tabs_module

    seen: list[WorkerState] = []

    def spy(event: Worker.StateChanged) -> None:
        seen.append(event.state)
        lifetime.let_go_of_ended_work(event)

    monkeypatch.setattr(tabs_module, "let_go_of_ended_work", spy)
    app, _ = rigged_app()
    async with app.run_test() as pilot:
        await loaded(app, pilot, "items")
        tab: Any = app.browse.tab("items")
        assert isinstance(tab, ResourceTab)
        started = asyncio.Event()
        worker = tab.run_worker(work(Held(), started, asyncio.Event(), False))
        await wait_for(started.is_set, pilot)
        worker.cancel()
        await wait_for(lambda: WorkerState.CANCELLED in seen, pilot)


async def test_a_load_that_fails_once_ended_is_cancelled_carrying_none_of_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its cancellation was raised while the load's error was handled: it carried that
    # error (the server's words, and the frames of the request, past what lets go).
    from tokensales_tui.api import ApiError

    app, _ = rigged_app()
    async with app.run_test() as pilot:
        await loaded(app, pilot)
        tab: Any = app.browse.tab("items")
        assert isinstance(tab, ResourceTab)

        async def ended_then_failed(*args: object, **kwargs: object) -> object:
            tab._load_number += 1  # ended by another hand, its cancellation lost
            raise ApiError("server text")

        monkeypatch.setattr(tab._api(), "call", ended_then_failed)
        tab.reload()
        (worker,) = tab._loads()
        await wait_for(lambda: worker.state is WorkerState.CANCELLED, pilot)
        assert worker.error is not None
        assert worker.error.__context__ is None and worker.error.__cause__ is None
        assert tab.error is None  # the error of a load ended is shown nowhere
