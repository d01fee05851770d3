"""Background work of a screen never touches a screen that is gone.

A screen's worker may resume after the person pressed escape: the answer from a slow
server arrives while the screen is being taken apart, its children already removed.
:func:`while_shown` wraps such a worker: whatever it raises once its screen has left
the stack (or started closing) is dropped, since nobody can see the screen any more;
while the screen is shown, errors still surface as bugs.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from textual.dom import DOMNode

__all__ = ["is_gone", "while_shown"]

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
