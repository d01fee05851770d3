"""Loopback servers for the webhook tests: a recording receiver, served in the test's loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET


@dataclass
class Recorder:
    """An ASGI app that records each POST and answers the next of ``statuses`` (then 200)."""

    statuses: list[int] = field(default_factory=list)
    received: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    raw_headers: list[list[tuple[str, str]]] = field(default_factory=list)
    """Each request's headers in order, repeats included (``received`` keeps one of each)."""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> Starlette:
        async def record(request: Request) -> Response:
            self.raw_headers.append(
                [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw]
            )
            self.received.append((request.url.path, dict(request.headers), await request.body()))
            self.arrived.set()
            return Response(status_code=self.statuses.pop(0) if self.statuses else 200)

        return Starlette(routes=[Route("/{path:path}", record, methods=["POST"])])

    async def wait_for(self, count: int, timeout: float = 20.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()


@contextlib.asynccontextmanager
async def serve_on_loopback(app: Any, host: str = "127.0.0.1") -> AsyncIterator[str]:
    """Serve ``app`` on ``host`` (a loopback address; a free port) in the running loop;
    yields its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="error", lifespan="off", timeout_graceful_shutdown=1)
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    async with asyncio.timeout(20):
        while not server.started:
            await asyncio.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def api_client(emulator_app: Any) -> httpx.AsyncClient:
    """An authenticated client of an in-process emulator."""
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=emulator_app), base_url="http://emulator"
    )
    answer = await client.post(
        "/auth/getAccessToken", json={"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
    )
    client.headers["Authorization"] = "Bearer " + answer.json()["accessToken"]
    return client


def fast(emulator_app: Any, backoff: tuple[float, ...] = (0.01, 0.01, 0.01)) -> Callable[[], None]:
    """Shorten the emulator's retry backoff; returns nothing useful, for symmetry."""
    emulator_app.state.emulator.deliveries.backoff = backoff
    return lambda: None


@contextlib.asynccontextmanager
async def trickling_target(every: float = 0.3) -> AsyncIterator[str]:
    """A relay target on 127.0.0.1 that reads a request, then answers one byte every
    ``every`` seconds, never finishing its status line; yields its URL."""
    pieces = (bytes([byte]) for byte in b"HTTP/1.1 200 OK, one byte at a time " * 100)
    async with trickling_server(pieces, every) as url:
        yield url


@contextlib.asynccontextmanager
async def trickling_server(pieces: Iterable[bytes], every: float) -> AsyncIterator[str]:
    """A server on 127.0.0.1 that reads a request, then writes ``pieces`` one at a time,
    ``every`` seconds apart; yields its URL. (Made for one connection: the pieces are
    shared.)"""
    writers: list[asyncio.StreamWriter] = []

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            await reader.readuntil(b"\r\n\r\n")
            for piece in pieces:
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(every)

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        for writer in writers:
            writer.close()
        await server.wait_closed()


async def post_in_process(
    receiver: Any, body: bytes, *, announced: int | None = None, closed_by: str | None = None
) -> None:
    """Hand ``receiver`` one POST as its server would, without a socket: ``body`` whole, or,
    when ``announced`` is more, ``body`` then the connection closed (by listen's guard, for
    ``closed_by``; by the sender, for None)."""
    length = len(body) if announced is None else announced
    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(b"content-length", str(length).encode())],
    }
    if closed_by is not None:
        from tokensales_tui.connections import Closing
        from tokensales_tui.webhooks.receiver import CLOSING_STATE

        scope["state"] = {CLOSING_STATE: Closing(closed_by)}
    messages = [{"type": "http.request", "body": body, "more_body": length > len(body)}]
    if length > len(body):
        messages.append({"type": "http.disconnect"})

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        pass

    await receiver(scope, receive, send)
