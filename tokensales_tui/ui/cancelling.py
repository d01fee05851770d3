"""A task's own cancellation, told apart from the end of the work it waits for.

Textual's ``Worker.wait()`` loses the cancellation of the task that waits. Awaiting the
worker's task hands that cancellation on to it; Textual's worker catches it, ends as
cancelled without raising, and ``wait()`` then raises ``WorkerCancelled``, as it does
when the worker waited for was cancelled by someone else. The waiter, which takes that
for "the other worker is gone" and goes on, is never cancelled itself: a load cancelled
by escape or by a profile switch while it waited for its index went on to show the old
rows. :func:`wait_for_worker` is the one way this package waits for a worker (a
tripwire test, ``tests/test_cancelling.py``, keeps it so): the waiter's own
cancellation comes out of it as ``asyncio.CancelledError``.

A worker waited for has its error read by its waiter: it is not reported as a failure
nobody saw (:mod:`.work_failures`). One whose waiter comes only later (an index the load
takes up once its body has arrived) is marked so when it starts, by :func:`awaited`.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any, TypeVar

from textual.worker import Worker, WorkerCancelled, WorkerFailed

__all__ = ["awaited", "being_cancelled", "is_awaited", "wait_for_worker"]

R = TypeVar("R")

_AWAITED: weakref.WeakSet[Worker[Any]] = weakref.WeakSet()


def awaited(worker: Worker[R]) -> Worker[R]:
    """``worker``, marked as one that :func:`wait_for_worker` will wait for, whose
    error its waiter reads (a failure of it is no failure of the app's)."""
    _AWAITED.add(worker)
    return worker


def is_awaited(worker: Worker[Any]) -> bool:
    """Whether someone waits, or will, for ``worker`` and reads its error."""
    return worker in _AWAITED


def _cancels_asked() -> int:
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


def being_cancelled() -> bool:
    """Whether the task running now is being cancelled (not merely handed a cancelled
    result by a call it waited on)."""
    return _cancels_asked() > 0


async def wait_for_worker(worker: Worker[R]) -> R:
    """The result of ``worker``, once it has ended.

    Cancelling the caller meanwhile cancels ``worker`` too (as awaiting any task
    does), and the caller's cancellation goes on as ``asyncio.CancelledError``, even
    where the worker had ended by then: what the caller would do next belongs to work
    someone has ended.

    Raises:
        asyncio.CancelledError: The caller was cancelled while it waited.
        WorkerCancelled: ``worker`` was cancelled by another hand.
        WorkerFailed: ``worker`` raised.
    """
    awaited(worker)
    asked = _cancels_asked()
    try:
        result = await worker.wait()
    except (WorkerCancelled, WorkerFailed):
        if _cancels_asked() == asked:
            raise
    else:
        if _cancels_asked() == asked:
            return result
        del result
    # Raised here, out of the handler: the worker's error (its frames, what they hold)
    # is no context of the caller's cancellation.
    raise asyncio.CancelledError
