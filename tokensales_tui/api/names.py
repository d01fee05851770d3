"""Host names looked up where a resolver that never answers holds nothing up.

asyncio looks a name up (``loop.getaddrinfo``, which httpx's connections call) in a
thread of the loop's default executor. The connect time-out stops the wait for it, not
the look-up: a resolver that does not answer (a name server gone, a stuck NSS module)
kept that thread, and ``asyncio.run`` waits for every such thread as it ends, as the
interpreter does at exit. A command that had said "timed out connecting" then stayed
until the resolver answered, however long that was.

:func:`look_up_in_own_threads` has every event loop look a name up in a daemon thread
of its own instead: a caller that stops waiting (a time-out, a cancel) leaves it, and
nothing waits for it at the end.

Threads left so must not pile up: a watched tab reloading against a resolver that never
answers would leave one more at each attempt. So a look-up under way is shared by every
caller asking the same (host, port, family, ...), on any loop, and at most
:data:`MAX_LOOK_UPS` are under way at once: past that, a look-up fails at once with
``socket.gaierror`` (``EAI_AGAIN``, "try again") saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any

__all__ = ["MAX_LOOK_UPS", "look_up_in_own_threads"]

MAX_LOOK_UPS = 8
"""Most look-ups of different names under way at once in this process."""

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[list[Any]]"]

_LOCK = threading.Lock()
_UNDER_WAY: dict[tuple[Any, ...], list[_Waiter]] = {}
"""Each look-up under way, by its arguments: who waits for its answer."""


def _too_many() -> socket.gaierror:
    return socket.gaierror(
        socket.EAI_AGAIN,
        f"{MAX_LOOK_UPS} host name look-ups already wait for the resolver, which may not be"
        " answering; try again later",
    )


async def _getaddrinfo(
    self: asyncio.AbstractEventLoop,
    host: Any,
    port: Any,
    *,
    family: int = 0,
    type: int = 0,
    proto: int = 0,
    flags: int = 0,
) -> list[Any]:
    """``socket.getaddrinfo`` in a daemon thread, its answer awaited on this loop; the
    look-up of the same arguments under way shared, and at most :data:`MAX_LOOK_UPS`."""
    key = (host, port, family, type, proto, flags)
    answer: asyncio.Future[list[Any]] = self.create_future()
    waiter = (self, answer)
    with _LOCK:
        waiters = _UNDER_WAY.get(key)
        start = waiters is None
        if waiters is None:
            if len(_UNDER_WAY) >= MAX_LOOK_UPS:
                raise _too_many()
            waiters = _UNDER_WAY[key] = []
        waiters.append(waiter)
    if start:
        threading.Thread(target=_look_up, args=(key,), name="getaddrinfo", daemon=True).start()
    try:
        return await answer
    except asyncio.CancelledError:
        with _LOCK, contextlib.suppress(ValueError):  # given up on: nothing to hand it
            waiters.remove(waiter)
        raise


def _look_up(key: tuple[Any, ...]) -> None:
    try:
        # Looked up at each call: the served app's fence wraps it.
        result, error = socket.getaddrinfo(*key), None
    except BaseException as failed:  # handed to the callers
        result, error = None, failed
    with _LOCK:
        waiters = _UNDER_WAY.pop(key, [])
    for loop, answer in waiters:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_settle, answer, result, error)


def _settle(answer: asyncio.Future[list[Any]], result: Any, error: BaseException | None) -> None:
    if answer.done():  # given up on
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(list(result or []))


def look_up_in_own_threads() -> None:
    """Have every asyncio event loop of this process look host names up in a daemon
    thread each (see the module's docstring). Called again, it does nothing."""
    loop_class = asyncio.base_events.BaseEventLoop
    if loop_class.getaddrinfo is not _getaddrinfo:
        loop_class.getaddrinfo = _getaddrinfo  # type: ignore[assignment]
