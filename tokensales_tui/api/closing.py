"""Closing a response to its end, whatever cancellations reach its reader meanwhile.

Closing a response is what gives its connection back to httpcore's pool, or closes it
when its body was not read to the end. The close waits for a lock, and httpcore shields
it with an anyio cancel scope, which a plain ``Task.cancel()`` passes straight through:
a reader cancelled again while its response closed (a reload cancelled, then a key
pressed at once) left the close half done, the response marked closed and its
connection ACTIVE in the pool with its body unread, for as long as the client lived. The
pool has 100 places; each such connection took one for good.

:func:`close_whatever_cancels` runs a close in a task of its own. A cancelled caller
stops waiting at once; the close goes on, for :data:`CLOSE_WITHIN` at most. A close that
fails or does not end in time closes the connection itself, so that it never goes back
to the pool half read. Every close of a response goes through it: the client's own, and
httpcore's (a body read to its end, a read that failed or was cancelled), see
:func:`pool_closes_whatever_cancels`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["CLOSE_WITHIN", "close_whatever_cancels", "pool_closes_whatever_cancels"]

log = logging.getLogger("tokensales_tui.api")

CLOSE_WITHIN = 5.0
"""Seconds a close may take before its connection is closed instead."""

Close = Callable[[], Awaitable[None]]

_closing: set[asyncio.Task[None]] = set()
"""Closes under way (the loop keeps only a weak reference to a task)."""


async def close_whatever_cancels(close: Close, drop: Close | None = None) -> None:
    """Run ``close()`` to its end, even when the caller is cancelled, any number of times.

    The caller's cancellation reaches it at once, and the close goes on without it. When
    ``close()`` fails or takes longer than :data:`CLOSE_WITHIN`, ``drop()`` closes the
    connection instead; a failure is raised to a caller still waiting.
    """
    closing = asyncio.get_running_loop().create_task(_close(close, drop))
    _closing.add(closing)
    closing.add_done_callback(_closed)
    await asyncio.shield(closing)


async def _close(close: Close, drop: Close | None) -> None:
    try:
        async with asyncio.timeout(CLOSE_WITHIN):
            await close()
    except TimeoutError:
        log.warning("a response took over %.0f s to close: its connection is closed", CLOSE_WITHIN)
        await _drop(drop)
    except BaseException:
        await _drop(drop)
        raise


async def _drop(drop: Close | None) -> None:
    if drop is None:
        return
    try:
        async with asyncio.timeout(CLOSE_WITHIN):
            await drop()
    except Exception:  # closed as far as it can be: the connection is marked closed first
        log.debug("closing a connection failed", exc_info=True)


def _closed(closing: asyncio.Task[None]) -> None:
    _closing.discard(closing)
    if not closing.cancelled():
        closing.exception()  # retrieved: a caller that still waits has it


def pool_closes_whatever_cancels() -> None:
    """Let httpcore's pool close each response through :func:`close_whatever_cancels`.

    Its response stream closes the connection's stream, then hands the connection back
    to the pool; a cancellation between the two left the pool counting a request that
    had ended. The connection's own part of the close goes through it too (see
    ``_close_after_extra_bytes`` in :mod:`.client`).
    """
    import httpcore._async.connection_pool as pool

    stream = getattr(pool, "PoolByteStream", None)
    aclose = getattr(stream, "aclose", None)
    if stream is None or aclose is None or getattr(aclose, "whatever_cancels", False):
        return

    async def close(self: Any) -> None:
        async def drop() -> None:
            # The close cut short: the connection closed, and the request the pool
            # still counts let go as the close would have (it was counted for as long
            # as the client lived, and scanned on every request).
            connection = getattr(self._pool_request, "connection", None)
            if connection is not None:
                await connection.aclose()
            pool = self._pool
            with pool._optional_thread_lock:
                if self._pool_request not in pool._requests:
                    return
                pool._requests.remove(self._pool_request)
                closing = pool._assign_requests_to_connections()
            await pool._close_connections(closing)

        await close_whatever_cancels(lambda: aclose(self), drop)

    close.whatever_cancels = True  # type: ignore[attr-defined]
    stream.aclose = close
