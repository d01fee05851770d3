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
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any

__all__ = ["look_up_in_own_threads"]


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
    """``socket.getaddrinfo`` in a daemon thread, its answer awaited on this loop."""
    answer: asyncio.Future[list[Any]] = self.create_future()

    def settle(result: list[Any] | None, error: BaseException | None) -> None:
        if answer.done():  # given up on
            return
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(result or [])

    def look_up() -> None:
        try:
            # Looked up at each call: the served app's fence wraps it.
            result, error = socket.getaddrinfo(host, port, family, type, proto, flags), None
        except BaseException as failed:  # handed to the caller
            result, error = None, failed
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=look_up, name="getaddrinfo", daemon=True).start()
    return await answer


def look_up_in_own_threads() -> None:
    """Have every asyncio event loop of this process look host names up in a daemon
    thread each (see the module's docstring). Called again, it does nothing."""
    loop_class = asyncio.base_events.BaseEventLoop
    if loop_class.getaddrinfo is not _getaddrinfo:
        loop_class.getaddrinfo = _getaddrinfo  # type: ignore[assignment]
