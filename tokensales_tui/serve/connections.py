"""The server's connections: none kept without a request, and never more than a bound.

Anyone who can reach the port can open connections, without the token: the token is
only looked at once a request is complete. aiohttp kept a connection that sent nothing,
or a header every few seconds, for an hour; a thousand of them took every file
descriptor, and the printed address stopped answering. Here:

* a connection must send a complete request within :data:`REQUEST_WAIT` seconds of
  opening (or of its last answer), else it is closed (aiohttp's keep-alive time-out,
  which it starts when a connection opens and does not restart as bytes trickle in);
* at most :func:`connection_limit` connections are open at once: one more closes the
  oldest of those that have no request in progress (a page's request arrives with its
  connection, so a flood of idle ones pushes out its own kind first);
* asyncio logs a failed ``accept()`` (out of file descriptors) at most once a
  :data:`LOG_PERIOD`, with how many it left out (it had logged 122,029 tracebacks in 40 s),
  and takes one connection a turn, so that its retries after such a failure do not
  multiply (each failed ``accept()`` of a turn scheduled a retry of its own).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

__all__ = [
    "ACCEPTS_A_TURN",
    "LISTEN_BACKLOG",
    "REQUEST_WAIT",
    "ConnectionLimit",
    "Throttle",
    "accept_errors_throttled",
    "connection_limit",
]

log = logging.getLogger("tokensales_tui.serve")

REQUEST_WAIT = 5.0
"""Seconds a connection has to send a complete request, once open or answered."""

MAX_CONNECTIONS = 256
"""Most connections open at once (a browser tab uses one, and a few more as it loads)."""

SPARE_FILES = 64
"""File descriptors kept for anything but connections: the log, libraries, the loop."""

FILES_A_SESSION = 3
"""File descriptors of a session's app (its pipes), besides its connection."""

ACCEPTS_A_TURN = 1
"""Connections asyncio accepts each turn of the loop (its ``backlog``)."""

LISTEN_BACKLOG = 128
"""Connections the system queues before they are accepted."""

LOG_PERIOD = 1.0
"""Seconds between two records of one kind that could come in floods."""

ACCEPT_FAILED = "socket.accept() out of system resource"
"""asyncio's message when ``accept()`` fails for want of a resource (EMFILE, ENFILE…)."""


def connection_limit(max_sessions: int) -> int:
    """How many connections may be open at once, within this process's file limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    room = soft - SPARE_FILES - FILES_A_SESSION * max_sessions
    return max(1, min(MAX_CONNECTIONS, room))


class ConnectionLimit:
    """The listening socket's protocol factory: aiohttp's, with at most ``limit``
    connections open; each one more closes the oldest without a request in progress.

    Args:
        server: aiohttp's low-level server (what ``AppRunner.server`` is once set up).
        limit: Most connections open at once.
        busy: Connections with a request in progress (the server's guard keeps it).
    """

    def __init__(self, server: web.Server, limit: int, busy: set[RequestHandler]) -> None:
        self.server = server
        self.limit = limit
        self.busy = busy
        self._log = Throttle()

    def __call__(self) -> asyncio.BaseProtocol:
        open_now = [h for h in self.server.connections if h.transport is not None]
        over = len(open_now) + 1 - self.limit
        if over > 0:
            idle = [handler for handler in open_now if handler not in self.busy]
            for handler in idle[:over]:  # oldest first
                handler.force_close()
            if (left_out := self._log.allow("limit")) is not None:
                log.warning(
                    "%d connections open, the most allowed: the oldest idle one closed%s",
                    self.limit,
                    Throttle.more(left_out),
                )
            if len(idle) < over:  # every one is at work: this one waits for none
                return _Refused()
        return self.server()


class _Refused(asyncio.Protocol):
    """A connection closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


class Throttle:
    """At most one record of a kind every :data:`LOG_PERIOD` seconds; the rest counted."""

    def __init__(self, period: float = LOG_PERIOD) -> None:
        self.period = period
        self._last: dict[str, float] = {}
        self._left_out: dict[str, int] = {}

    def allow(self, kind: str) -> int | None:
        """None: leave this one out; else log it, saying how many were left out before it."""
        now = time.monotonic()
        if now - self._last.get(kind, -self.period) < self.period:
            self._left_out[kind] = self._left_out.get(kind, 0) + 1
            return None
        self._last[kind] = now
        return self._left_out.pop(kind, 0)

    @staticmethod
    def more(left_out: int) -> str:
        """What to add to a record after ``left_out`` of its kind were left out."""
        return f" ({left_out} more since the last one logged)" if left_out else ""


@contextmanager
def accept_errors_throttled(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While the block runs, ``loop`` logs a failed ``accept()`` at most once a second,
    in one line; what else it reports goes on as before."""
    throttle = Throttle()
    before = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_FAILED:
            if before is not None:
                before(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        if (left_out := throttle.allow("accept")) is not None:
            error = context.get("exception")
            reason = getattr(error, "strerror", None) or repr(error)
            log.error("accepting a connection failed: %s%s", reason, Throttle.more(left_out))

    loop.set_exception_handler(handle)
    try:
        yield
    finally:
        loop.set_exception_handler(before)
