"""A server's connections: none kept without a complete request, never more than a bound.

``serve`` and ``listen`` both take connections from anyone who can reach their port, before
any token or signature is looked at. Their servers (aiohttp, uvicorn) kept a connection that
sent nothing, or a header every few seconds, or a body that stopped half way, for an hour;
a thousand of them took every file descriptor, and the address stopped answering. Both
serve through a :class:`ConnectionGuard`, under the protocol of their server:

* a connection must send a complete request within :data:`REQUEST_WAIT` seconds of
  opening (or of its last answer), and one more second for each :data:`MIN_RATE` bytes it
  sends meanwhile (a large body coming at a fair rate), else it is closed; the count of
  bytes stops at ``body_limit`` and a little more for the headers, so no request takes
  longer than its largest body at :data:`MIN_RATE`;
* a request whose body has come whole is at work (:meth:`ConnectionGuard.at_work`): no
  time applies until it is answered;
* at most ``limit`` connections are open at once (:func:`connection_limit`, within the
  process's file limit): one more closes the oldest of those not at work (a request
  arrives with its connection, so a flood of idle ones pushes out its own kind first);
* a failed ``accept()`` (out of file descriptors) is logged at most once a
  :data:`~tokensales_tui.debug_log.LOG_PERIOD`, with how many were left out
  (:func:`accept_errors_throttled`; asyncio had logged 122,029 tracebacks in 40 s), and
  one connection is accepted a turn (:data:`ACCEPTS_A_TURN`), so that asyncio's retries
  after such a failure, a second later, do not multiply (each failed ``accept()`` of a
  turn scheduled a retry of its own);
* each connection has a :class:`Closing`, given to the server's protocol as it is made,
  where the guard writes why it closed the connection before it does: a request cut short
  reads there whether the guard or the other end closed its connection (and why), from
  the connection itself, not from a guess by address or time.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .debug_log import Throttle

__all__ = [
    "ACCEPTS_A_TURN",
    "LISTEN_BACKLOG",
    "MIN_RATE",
    "REQUEST_WAIT",
    "Closing",
    "ConnectionGuard",
    "Peer",
    "accept_errors_throttled",
    "connection_limit",
    "peer_of",
]

REQUEST_WAIT = 5.0
"""Seconds a connection has to send a complete request, once open or answered."""

CLOSE_WAIT = 5.0
"""Seconds a connection closed for its time has to take what was sent to it before it
is cut off (a peer that does not read would hold it open for good)."""

MIN_RATE = 10_000
"""Bytes a second a request must come at, past its first :data:`REQUEST_WAIT` seconds."""

HEAD_ROOM = 64 * 1024
"""Bytes of a request's line and headers counted towards its time, besides its body."""

MAX_CONNECTIONS = 256
"""Most connections open at once (a browser tab uses one, a delivery one)."""

SPARE_FILES = 64
"""File descriptors kept for anything but connections: the log, libraries, the loop."""

ACCEPTS_A_TURN = 1
"""Connections asyncio accepts each turn of the loop (its ``backlog``)."""

LISTEN_BACKLOG = 128
"""Connections the system queues before they are accepted."""

ACCEPT_FAILED = "socket.accept() out of system resource"
"""asyncio's message when ``accept()`` fails for want of a resource (EMFILE, ENFILE…)."""

Peer = tuple[str, int]
"""A connection's other end, as uvicorn names it (``scope["client"]``): address and port."""


@dataclass
class Closing:
    """Why the guard closed one connection: written before it closes it."""

    why: str | None = None
    """``no complete request within 5 s``, or ``to make room for a new connection (…)``;
    None while the connection is open, or when its other end closed it."""


def connection_limit(reserved: int = 0) -> int:
    """How many connections may be open at once, within this process's file limit, with
    ``reserved`` file descriptors kept for other work (a session's pipes, relays)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft - SPARE_FILES - reserved))


def peer_of(transport: asyncio.BaseTransport | None) -> Peer | None:
    """The other end of ``transport``'s connection, as :data:`Peer` (None once closed)."""
    if transport is None:
        return None
    name = transport.get_extra_info("peername")
    if not isinstance(name, tuple) or len(name) < 2:
        return None
    return (str(name[0]), int(name[1]))


class ConnectionGuard:
    """A listening socket's protocol factory: the server's (``factory``), each connection
    given a time for its request and closed, oldest first, past ``limit``.

    Args:
        factory: The server's protocol factory (aiohttp's ``web.Server``), when the guard
            is called as one; else the server calls :meth:`wrap` with its own, which is
            given the connection's :class:`Closing`.
        limit: Most connections open at once.
        log: Where closing connections for new ones is said (once a second at most).
        request_wait: Seconds for a complete request, besides what :data:`MIN_RATE` adds.
        close_wait: Seconds a connection closed for its time may still take what was sent
            to it (:data:`CLOSE_WAIT`).
        body_limit: The largest body the server takes (the rest is never waited for).
    """

    def __init__(
        self,
        factory: Callable[[], asyncio.BaseProtocol] | None = None,
        *,
        limit: int,
        log: logging.Logger,
        request_wait: float = REQUEST_WAIT,
        close_wait: float = CLOSE_WAIT,
        body_limit: int = 0,
    ) -> None:
        self.factory = factory
        self.limit = limit
        self.log = log
        self.request_wait = request_wait
        self.close_wait = close_wait
        self.most_counted = body_limit + HEAD_ROOM
        self._open: dict[_Guarded, None] = {}
        """The connections open, oldest first."""
        self._by_peer: dict[Peer, _Guarded] = {}
        self._throttle = Throttle()

    def __call__(self) -> asyncio.BaseProtocol:
        factory = self.factory
        assert factory is not None
        return self.wrap(lambda _closing: factory())

    def wrap(self, make: Callable[[Closing], asyncio.BaseProtocol]) -> asyncio.BaseProtocol:
        """The protocol of a new connection: ``make(closing)``'s, guarded, where ``closing``
        will say why the guard closed the connection, if it does (or a protocol that
        closes the connection at once, when every one open is at work)."""
        # Counted from here, not once asyncio has made it (a turn or two later): accepts
        # coming faster than that could not pass the limit unseen.
        over = len(self._open) + 1 - self.limit
        if over > 0:
            idle = [connection for connection in self._open if not connection.working]
            for connection in idle[:over]:  # oldest first
                connection.close(
                    f"to make room for a new connection ({self.limit:,} open, the most allowed)",
                    at_once=True,
                )
            if (left_out := self._throttle.allow("limit")) is not None:
                self.log.warning(
                    "%d connections open, the most allowed: the oldest idle one closed%s",
                    self.limit,
                    Throttle.more(left_out),
                )
            if len(idle) < over:  # every one is at work: this one waits for none
                return _Refused()
        closing = Closing()
        connection = _Guarded(self, make(closing), closing)
        self._open[connection] = None
        return connection

    @property
    def open(self) -> int:
        """How many connections are open now."""
        return len(self._open)

    def is_at_work(self, peer: Peer | None) -> bool:
        """Whether the connection of ``peer`` has a request in progress."""
        connection = self._by_peer.get(peer) if peer is not None else None
        return connection is not None and connection.working > 0

    @contextmanager
    def at_work(self, peer: Peer | None) -> Iterator[None]:
        """While the block runs, the connection of ``peer`` has a complete request: it is
        given no time and never closed for another. Its time starts again at the end (its
        answer given)."""
        connection = self._by_peer.get(peer) if peer is not None else None
        if connection is None:  # closed already, or not one of ours
            yield
            return
        connection.working += 1
        try:
            yield
        finally:
            connection.working -= 1
            if not connection.working:
                connection.restart()

    def _opened(self, connection: _Guarded) -> None:
        if connection.peer is not None:
            self._by_peer[connection.peer] = connection

    def _closed(self, connection: _Guarded) -> None:
        self._open.pop(connection, None)
        if connection.peer is not None and self._by_peer.get(connection.peer) is connection:
            del self._by_peer[connection.peer]


class _Guarded(asyncio.Protocol):
    """One connection: the server's protocol, given a time for each request."""

    def __init__(
        self, guard: ConnectionGuard, inner: asyncio.BaseProtocol, closing: Closing
    ) -> None:
        self.guard = guard
        self.inner: Any = inner
        self.closing = closing
        self.transport: asyncio.BaseTransport | None = None
        self.peer: Peer | None = None
        self.working = 0
        """Requests in progress (complete, not yet answered)."""
        self._since = 0.0
        self._received = 0
        self._timer: asyncio.TimerHandle | None = None
        self._closing = False
        """Closed for another before it was made: closed as soon as it is."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.peer = peer_of(transport)
        self.guard._opened(self)
        self.inner.connection_made(transport)
        if self._closing:
            transport.close()
        else:
            self.restart()

    def data_received(self, data: bytes) -> None:
        self._received += len(data)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        result: bool | None = self.inner.eof_received()
        return result

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard._closed(self)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.inner.connection_lost(exc)

    def restart(self) -> None:
        """The time for a request starts now (the connection opened, or was answered)."""
        loop = asyncio.get_running_loop()
        self._since = loop.time()
        self._received = 0
        self._check()

    def _deadline(self) -> float:
        counted = min(self._received, self.guard.most_counted)
        return self._since + self.guard.request_wait + counted / MIN_RATE

    def _check(self) -> None:
        """Close the connection if its request is late; else look again at its deadline."""
        self._timer = None
        if self.working or self.transport is None or self.transport.is_closing():
            return
        loop = asyncio.get_running_loop()
        deadline = self._deadline()
        if loop.time() >= deadline:
            self.close(f"no complete request within {_seconds(deadline - self._since)} s")
            return
        self._timer = loop.call_at(deadline, self._check)

    def close(self, why: str, *, at_once: bool = False) -> None:
        """Close the connection for ``why`` (its server is told it was lost, and can read
        ``why`` in its :class:`Closing`): ``at_once`` (for room), or once what was sent to
        it has gone, within the guard's ``close_wait``."""
        if self.transport is None or not self.transport.is_closing():
            self.closing.why = self.closing.why or why  # not when its other end closed it
        self._closing = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        transport = self.transport
        if transport is None:
            return
        unsent = isinstance(transport, asyncio.WriteTransport) and (
            transport.get_write_buffer_size() > 0
        )
        if unsent and (at_once or transport.is_closing()):
            # A close waits for the bytes not yet sent, for good when the peer never
            # reads them: the connection would stay open past its time and the limit.
            self._cut_off()
            return
        if transport.is_closing():  # nothing left to send: it is gone in a moment
            return
        transport.close()
        if unsent:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.guard.close_wait, self._cut_off)

    def _cut_off(self) -> None:
        """End the connection now, what was not sent to it with it."""
        self._timer = None
        transport = self.transport
        if isinstance(transport, asyncio.WriteTransport):
            transport.abort()
        elif transport is not None:
            transport.close()


def _seconds(value: float) -> str:
    """``value`` seconds to a tenth, as a person writes them: ``5``, ``6.2``, ``1,024``."""
    return f"{value:,.1f}".removesuffix(".0")


class _Refused(asyncio.Protocol):
    """A connection closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


@contextmanager
def accept_errors_throttled(loop: asyncio.AbstractEventLoop, log: logging.Logger) -> Iterator[None]:
    """While the block runs, ``loop`` logs a failed ``accept()`` to ``log`` at most once a
    second, in one line; what else it reports goes on as before."""
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
