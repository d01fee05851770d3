"""Closing a response finishes whatever cancellations arrive meanwhile (api/closing.py).

A list being read is cancelled (a reload), and cancelled again while its response is
being closed (``r`` and escape in the same read of the terminal): its connection must
still leave httpcore's pool, never stay there ACTIVE with its body unread, taking one of
the pool's 100 places for as long as the client lives. The server here, on 127.0.0.1,
sends a list far longer than is read; the close is held at httpcore's lock until the
second cancellation has landed, so the interleaving is the same every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socketserver
import threading
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import h11
import httpcore
import pytest

from tokensales_tui.api import ApiClient
from tokensales_tui.emulator.app import TOKEN_PATH

from .apifakes import make_jwt
from .test_reliability_network import (
    LOOPBACK,
    bounded,
    connection,
    no_wait,
    raw_answer,
    read_requests,
)

JSON = "Content-Type: application/json"
ITEM = b'{"id": "itm_1", "title": "Item", "currency": "USD", "price": 1},'
LONG_LIST = 50_000_000
"""Bytes the list says it has: far more than any test reads."""


class _Handler(socketserver.StreamRequestHandler):
    server: _Tcp
    timeout = 10

    def handle(self) -> None:
        token = json.dumps({"accessToken": make_jwt(lifetime=3600)}).encode()
        with contextlib.suppress(OSError, ValueError):
            for method, path in read_requests(self.rfile):
                if (method, path) == ("POST", TOKEN_PATH):
                    self.wfile.write(raw_answer(200, token, JSON))
                elif (method, path) == ("GET", "/v1/items"):
                    self._send_long_list()
                    return
                elif (last := self.server.last_byte) is not None:
                    answer = raw_answer(200, b"[]", JSON)
                    self.wfile.write(answer[:-1])
                    self.wfile.flush()
                    self.server.sent.set()
                    last.wait(10)
                    self.wfile.write(answer[-1:])
                else:
                    self.wfile.write(raw_answer(200, b"[]", JSON))

    def _send_long_list(self) -> None:
        """A list longer than is ever read, sent until the client closes the connection."""
        head = f"HTTP/1.1 200 OK\r\n{JSON}\r\nContent-Length: {LONG_LIST}\r\n\r\n["
        self.wfile.write(head.encode())
        piece = ITEM * 1000
        for _ in range(LONG_LIST // len(piece)):
            self.wfile.write(piece)
            self.server.sent.set()


class _Tcp(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False
    sent: threading.Event
    last_byte: threading.Event | None = None
    """Set, the lists other than items are sent but for their last byte until it is set."""


@contextlib.contextmanager
def long_lists() -> Iterator[tuple[str, _Tcp]]:
    """A server on 127.0.0.1 whose ``GET /v1/items`` never ends: its URL, and the server."""
    tcp = _Tcp((LOOPBACK, 0), _Handler)
    tcp.sent = threading.Event()
    thread = threading.Thread(target=tcp.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{tcp.server_address[1]}", tcp
    finally:
        tcp.shutdown()
        tcp.server_close()
        thread.join(10)


class HeldLock:
    """Stands for a connection's state lock: whoever takes it is held until :attr:`open`
    is set (the close of a response takes it), and :attr:`entered` says someone is."""

    def __init__(self, lock: Any) -> None:
        self._lock = lock
        self.entered = asyncio.Event()
        self.open = asyncio.Event()

    async def __aenter__(self) -> None:
        self.entered.set()
        await self.open.wait()
        await self._lock.__aenter__()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._lock.__aexit__(kind, error, tb)


def pool_of(client: ApiClient) -> httpcore.AsyncConnectionPool:
    # The kept-alive pool (reads, the token's request): writes go on their own connections.
    pool: httpcore.AsyncConnectionPool = client._http._transport.shared._pool  # type: ignore[attr-defined]
    return pool


def reading_body(pool: httpcore.AsyncConnectionPool) -> list[Any]:
    """The HTTP/1.1 connections of ``pool`` receiving a body."""
    return [
        inner
        for held in pool.connections
        if (inner := getattr(held, "_connection", None)) is not None
        and inner._h11_state.their_state is h11.SEND_BODY
    ]


def active(pool: httpcore.AsyncConnectionPool) -> list[str]:
    return [repr(held) for held in pool.connections if "ACTIVE" in repr(held)]


async def assert_pool_let_go(client: ApiClient) -> None:
    """Assert that the pool holds no connection ACTIVE and counts no request, once the
    close going on in the background has ended (5 s at most)."""
    pool = pool_of(client)
    for _ in range(500):
        if not active(pool) and not pool._requests:
            break
        await asyncio.sleep(0.01)
    assert not active(pool), "a connection left ACTIVE, its body unread"
    assert not pool._requests, "the pool still counts a request that ended"


class Pauses:
    """Between two pieces of a list: held there while :attr:`hold` is set."""

    def __init__(self) -> None:
        self.hold = False
        self.held = asyncio.Event()

    async def __call__(self) -> None:
        if self.hold:
            self.held.set()
            await asyncio.Event().wait()


async def cancel_twice_while_closing(
    client: ApiClient, sent: threading.Event, pauses: Pauses, between_pieces: bool
) -> None:
    """Read the long list, cancel it (between two pieces, or wherever the reading is),
    and cancel it again while its close waits."""
    sent.clear()
    pauses.held.clear()
    pauses.hold = between_pieces
    reading = asyncio.ensure_future(client.list_items())
    async with asyncio.timeout(10):
        while not (sent.is_set() and reading_body(pool_of(client))):
            await asyncio.sleep(0.01)
        if pauses.hold:
            await pauses.held.wait()
    [inner] = reading_body(pool_of(client))
    held = HeldLock(inner._state_lock)
    inner._state_lock = held
    pauses.hold = False
    reading.cancel()
    await bounded(held.entered.wait(), 10)  # the close waits for the lock
    reading.cancel()
    for _ in range(5):
        await asyncio.sleep(0)
    held.open.set()
    with contextlib.suppress(asyncio.CancelledError):
        await bounded(reading, 10)


@pytest.mark.parametrize("between_pieces", [False, True], ids=["reading", "between-pieces"])
async def test_a_list_cancelled_again_while_its_response_closes_leaves_no_connection_behind(
    between_pieces: bool,
) -> None:
    # Cancelled while reading the socket, httpcore closes the response; between two
    # pieces (a frame drawn), the client does.
    pauses = Pauses()
    with long_lists() as (url, server):
        async with ApiClient(connection(url), sleep=no_wait, between_reads=pauses) as client:
            await bounded(client.list_webhooks())
            for _ in range(3):
                await cancel_twice_while_closing(client, server.sent, pauses, between_pieces)
                await assert_pool_let_go(client)
            for _ in range(120):  # more than the pool's 100 places
                assert await bounded(client.list_webhooks()) == []
            assert not active(pool_of(client))


async def closing_at_the_last_byte(
    client: ApiClient, server: _Tcp
) -> tuple[asyncio.Future[Any], HeldLock]:
    """A short list read until httpx closes it at its last byte, the close held at the
    connection's lock (let on by ``HeldLock.open``)."""
    server.sent.clear()
    server.last_byte = threading.Event()
    reading = asyncio.ensure_future(client.list_webhooks())
    async with asyncio.timeout(10):
        while not (server.sent.is_set() and reading_body(pool_of(client))):
            await asyncio.sleep(0.01)
    [inner] = reading_body(pool_of(client))
    held = HeldLock(inner._state_lock)
    inner._state_lock = held
    server.last_byte.set()
    await bounded(held.entered.wait(), 10)  # the close waits for the lock
    return reading, held


async def test_a_list_cancelled_as_its_last_byte_arrives_is_let_go_by_the_pool() -> None:
    # A body read to its end is closed by httpx there and then; cancelled (twice) as
    # it closes, the connection goes back to the pool, which no longer counts the request.
    with long_lists() as (url, server):
        async with ApiClient(connection(url), sleep=no_wait) as client:
            await bounded(client.list_webhooks())
            for _ in range(3):
                reading, held = await closing_at_the_last_byte(client, server)
                reading.cancel()
                for _ in range(5):
                    await asyncio.sleep(0)
                reading.cancel()
                held.open.set()
                with contextlib.suppress(asyncio.CancelledError):
                    await bounded(reading, 10)
                await assert_pool_let_go(client)
            server.last_byte = None
            for _ in range(120):
                assert await bounded(client.list_webhooks()) == []


async def test_a_close_that_never_ends_is_cut_short_and_its_request_let_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past its bound the close is given up and the connection closed; the request the
    # pool counted stayed counted for as long as the client lived.
    from tokensales_tui.api import closing

    monkeypatch.setattr(closing, "CLOSE_WITHIN", 0.2)
    with long_lists() as (url, server):
        async with ApiClient(connection(url), sleep=no_wait) as client:
            await bounded(client.list_webhooks())
            reading, _ = await closing_at_the_last_byte(client, server)  # never let on
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await bounded(reading, 10)
            await assert_pool_let_go(client)
            server.last_byte = None
            assert await bounded(client.list_webhooks()) == []
