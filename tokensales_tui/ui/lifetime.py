"""Background work of a screen never touches a screen that is gone, nor keeps what it
held once it has ended.

A screen's worker may resume after the person pressed escape: the answer from a slow
server arrives while the screen is being taken apart, its children already removed.
:func:`while_shown` wraps such a worker: whatever it raises once its screen has left
the stack (or started closing) is dropped, since nobody can see the screen any more;
while the screen is shown, errors still surface as bugs.

A worker cancelled or failed keeps its error (Textual's ``Worker.error``), whose
traceback holds the frames the error went through, with their variables: what the
work held (a tab's rows, a million items) stays as long as the worker, and the worker's
own frame is among them, a cycle only a collection of the garbage breaks, freeing all
of it at once on the event loop. :func:`let_go_of_ended_work` clears those frames'
variables once the worker has ended, and those of every error it was raised from or
while handling (each node that runs such work calls it on its
``Worker.StateChanged``, which does not bubble).
"""

from __future__ import annotations

import functools
import logging
import traceback
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

__all__ = ["is_gone", "let_go_of_ended_work", "while_shown"]

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


def is_gone(node: DOMNode) -> bool:
    """Whether ``node`` no longer belongs to a screen on the app's stack, or is closing."""
    if not node.is_attached or node._closing or node._closed or node._pruning:
        return True
    try:
        screen = node.screen
    except Exception:  # no screen any more: detached while we looked
        return True
    if screen._closing or screen._closed or screen._pruning:
        return True
    return screen not in node.app.screen_stack


def while_shown(
    method: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R | None]]:
    """Wrap a coroutine method of a widget or screen run as background work (see above)."""

    @functools.wraps(method)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R | None:
        node: Any = args[0]
        try:
            return await method(*args, **kwargs)
        except Exception as error:
            if not is_gone(node):
                raise
            log.debug("dropped %s of a closed %s: %r", method.__name__, type(node).__name__, error)
            return None

    return run


def let_go_of_ended_work(event: Worker.StateChanged) -> None:
    """Clear the variables of the frames the error of a worker cancelled or failed holds
    (see above); what they held is then let go of as anything else is. The traceback
    still names each line."""
    error = event.worker.error
    if event.state not in (WorkerState.CANCELLED, WorkerState.ERROR) or error is None:
        return
    for link in _chain(error):
        traceback.clear_frames(link.__traceback__)
        step = link.__traceback__
        while step is not None:
            # A copy of a frame's variables, made when someone read them (Rich's
            # traceback of a failed worker does), is brought in line with the variables
            # now cleared.
            _ = step.tb_frame.f_locals
            step = step.tb_next


def _chain(error: BaseException) -> list[BaseException]:
    """``error`` and each error it was raised from or while handling: each one's frames
    hold what the work held as much as its own."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and not any(link is seen for seen in chain):
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain
