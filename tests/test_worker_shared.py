"""Calls shared by several callers (ui/worker.py): one request while it is wanted."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from textual.app import App

from tokensales_tui.api.transport import noting_attempts, noting_changes
from tokensales_tui.emulator import create_app
from tokensales_tui.session import demo_connection
from tokensales_tui.ui.worker import ApiWorker


class Requests:
    """An operation that stands for a slow request: each run is counted, held until
    released, and says whether it was cancelled."""

    def __init__(self) -> None:
        self.started = 0
        self.cancelled = 0
        self.release = asyncio.Event()

    async def __call__(self, _client: Any) -> int:
        self.started += 1
        number = self.started
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return number


@pytest.fixture
async def worker() -> AsyncIterator[ApiWorker]:
    app: App[None] = App()
    async with app.run_test():
        api = ApiWorker(app, demo_connection(), httpx.ASGITransport(app=create_app(seed=0)))
        yield api
        await api.stop()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def until(condition: Any) -> None:
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.01)


async def test_callers_share_one_request_until_the_last_cancels(worker: ApiWorker) -> None:
    request = Requests()
    first = asyncio.ensure_future(worker.call(request, shared=True))
    second = asyncio.ensure_future(worker.call(request, shared=True))
    await until(lambda: request.started == 1)
    first.cancel()
    await settle()
    assert request.cancelled == 0  # the second still waits for it
    third = asyncio.ensure_future(worker.call(request, shared=True))  # joins it
    await settle()
    second.cancel()
    third.cancel()
    await until(lambda: request.cancelled == 1)
    assert request.started == 1
    for task in (first, second, third):
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_caller_after_the_last_cancelled_sends_a_new_request(worker: ApiWorker) -> None:
    request = Requests()
    first = asyncio.ensure_future(worker.call(request, shared=True))
    await until(lambda: request.started == 1)
    first.cancel()
    # Asked before the cancellation has reached the first caller: not joined all the same.
    again = asyncio.ensure_future(worker.call(request, shared=True))
    await until(lambda: request.started == 2)
    assert request.cancelled == 1
    request.release.set()
    assert await again == 2
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_a_shared_result_reaches_every_caller(worker: ApiWorker) -> None:
    request = Requests()
    calls = [asyncio.ensure_future(worker.call(request, shared=True)) for _ in range(3)]
    await until(lambda: request.started == 1)
    calls[0].cancel()
    request.release.set()
    assert [await call for call in calls[1:]] == [1, 1]
    assert request.started == 1 and request.cancelled == 0
    assert await worker.call(request, shared=True) == 2  # the next asks anew


@pytest.mark.parametrize("shared", [False, True])
async def test_a_call_queued_when_the_session_ends_is_answered_not_left_waiting(
    worker: ApiWorker, shared: bool
) -> None:
    # The session ends (a profile switch, a quit) while the worker still builds its
    # client: the calls queued meanwhile were never taken, and waited for good.
    from tokensales_tui.ui.worker import SessionEndedError

    request = Requests()
    call = asyncio.ensure_future(worker.call(request, shared=shared))
    await asyncio.sleep(0)
    await worker.stop()
    async with asyncio.timeout(5):
        with pytest.raises(SessionEndedError):
            await call
    assert request.started == 0


@pytest.mark.parametrize("shared", [False, True])
async def test_a_request_given_up_is_cancelled_once(worker: ApiWorker, shared: bool) -> None:
    # A second cancellation would land in what the request does to stop (closing its
    # response, which once left its connection in the pool for good).
    started = asyncio.Event()
    cancels: list[str] = []

    async def request(_client: Any) -> None:
        started.set()
        try:
            while True:  # reading: each piece a turn of the loop
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            cancels.append("while reading")
            try:
                for _ in range(10):  # stopping, as a response's close does
                    await asyncio.sleep(0)
            except asyncio.CancelledError:
                cancels.append("while stopping")
            raise

    call = asyncio.ensure_future(worker.call(request, shared=shared))
    async with asyncio.timeout(10):
        await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await settle()
    await settle()
    assert cancels == ["while reading"]


class Rows(list[int]):
    """A result whose end can be watched (a plain list has no weak references)."""


async def test_a_call_s_result_is_let_go_of_though_a_task_it_started_outlives_it(
    worker: ApiWorker,
) -> None:
    # A list load starts tasks that outlive it, each with a copy of the call's context:
    # the hook set there held the call's future, and so the rows it returned, as long as
    # the last of them. A reload held two lists of a million rows at its peak.
    lingering: list[asyncio.Task[None]] = []

    async def operation(_client: Any) -> Rows:
        lingering.append(asyncio.create_task(asyncio.sleep(3600)))  # the context copied
        return Rows(range(3))

    rows = await worker.call(operation)
    gone = weakref.ref(rows)
    del rows
    await settle()
    gc.collect()
    try:
        assert gone() is None
    finally:
        lingering[0].cancel()


@pytest.mark.parametrize("noting", [noting_attempts, noting_changes])
async def test_what_a_noting_block_s_hook_holds_is_let_go_of_at_its_end(
    noting: Callable[[Callable[..., None]], contextlib.AbstractContextManager[None]],
) -> None:
    held = Rows(range(3))
    gone = weakref.ref(held)
    with noting(lambda *_, held=held: held.append(0)):
        lingering = asyncio.create_task(asyncio.sleep(3600))  # outlives the block
    del held
    gc.collect()
    try:
        assert gone() is None
    finally:
        lingering.cancel()
