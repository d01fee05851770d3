"""Which connection a request goes on, and what the clients keep between requests.

A server on 127.0.0.1 that closes a connection after each answer, the close reaching the
client late (as a load balancer's idle time-out does, or a server that closes right after
an answer without saying ``Connection: close``): a write that cannot be repeated never
goes on such a connection. No client of the product keeps a cookie.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx
import pytest

from tokensales_tui.api import ApiClient, Connection, OutcomeUnknownError, Secret
from tokensales_tui.api.models import PayoutDefinition, WebhookCreate
from tokensales_tui.http_clients import new_client

from .apifakes import FakeClock, make_jwt
from .source_lines import lines_matching

NEW = WebhookCreate(url="https://hooks.example.com/in", events=["item.sold"])


@dataclass
class ClosingServer:
    """Answers the first request of each connection, then closes it once the next one
    arrives, unanswered and not acted on: the close it made after its answer reaches the
    client only after the client has sent again, every time (the race, made certain).

    ``breaks``: (method, path) acted on and then left unanswered, the connection closed.
    ``cookie``: a ``Set-Cookie`` on every answer.
    """

    breaks: set[tuple[str, str]] = field(default_factory=set)
    cookie: str = ""
    acted: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    cookies_sent: list[str] = field(default_factory=list)
    connections: int = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            for number in range(2):
                request = await self._request(reader)
                if request is None:
                    return
                if number == 1:  # the connection was closed after the first answer
                    self.dropped.append(request)
                    return
                self.acted.append(request)
                if request in self.breaks:
                    return
                writer.write(self._answer(request))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _request(self, reader: asyncio.StreamReader) -> tuple[str, str] | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        }
        await reader.readexactly(int(headers.get("content-length", "0")))
        if "cookie" in headers:
            self.cookies_sent.append(headers["cookie"])
        method, path = lines[0].split(" ")[:2]
        return method, path

    def _answer(self, request: tuple[str, str]) -> bytes:
        method, path = request
        if path == "/auth/getAccessToken":
            status, body = 200, json.dumps({"accessToken": make_jwt(lifetime=3600)}).encode()
        elif method == "GET":
            status, body = 200, b"[]"
        else:
            status, body = 201, b""
        head = [f"HTTP/1.1 {status} X", "Content-Type: application/json"]
        head.append(f"Content-Length: {len(body)}")
        if self.cookie:
            head.append(f"Set-Cookie: {self.cookie}")
        return ("\r\n".join(head) + "\r\n\r\n").encode() + body

    @asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.close()
            await server.wait_closed()


def client_of(url: str) -> ApiClient:
    return ApiClient(
        Connection(url, url, url, Secret("key"), Secret("secret")), sleep=FakeClock().sleep
    )


async def test_a_write_never_goes_on_a_connection_the_server_closed_after_its_answer() -> None:
    # It went on the connection the token came on, kept alive: the server had closed it,
    # and the create was "outcome unknown (the connection broke)" though never received.
    server = ClosingServer()
    async with server.running() as url, client_of(url) as client:
        await client.check_credentials()
        await client.create_webhook(NEW)
        await client.add_payout(PayoutDefinition(type="free", name="Free mint"))
        await client.create_webhook(NEW)
    posts = [request for request in server.acted if request[1] != "/auth/getAccessToken"]
    assert posts == [
        ("POST", "/v1/platform-webhooks"),
        ("POST", "/v1/payouts/add"),
        ("POST", "/v1/platform-webhooks"),
    ]
    assert server.dropped == []


async def test_reads_still_share_kept_alive_connections() -> None:
    # A read on a connection the server closed is repeated on another: the pool stays.
    server = ClosingServer()
    async with server.running() as url, client_of(url) as client:
        await client.check_credentials()
        assert await client.list_webhooks() == []
    assert server.dropped == [("GET", "/v1/platform-webhooks")]  # tried on the token's
    assert server.acted[-1] == ("GET", "/v1/platform-webhooks")


async def test_a_write_the_server_took_and_then_broke_on_is_still_outcome_unknown() -> None:
    server = ClosingServer(breaks={("POST", "/v1/platform-webhooks")})
    async with server.running() as url, client_of(url) as client:
        await client.check_credentials()
        with pytest.raises(OutcomeUnknownError, match="the connection broke"):
            await client.create_webhook(NEW)
    assert server.acted.count(("POST", "/v1/platform-webhooks")) == 1
    assert server.dropped == []


def test_every_http_client_of_the_product_is_made_by_new_client() -> None:
    # The rules of http_clients (no cookies, no environment, no Location read) hold for
    # every client only if every client is made there.
    made_elsewhere = lines_matching(
        r"\b(AsyncClient|httpx\.Client|ClientSession)\(", except_in="http_clients.py"
    )
    assert made_elsewhere == []


async def test_a_client_keeps_no_cookie_a_server_set() -> None:
    # httpx's jar sent a cookie set by one server to every port of its host, and through
    # Domain= to the host's siblings.
    sent: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("cookie"))
        return httpx.Response(
            200,
            headers=[("Set-Cookie", "sid=1; Path=/"), ("Set-Cookie", "d=2; Domain=example.test")],
        )

    async with new_client(transport=httpx.MockTransport(handler)) as client:
        for url in (
            "http://auth.example.test:1/",
            "http://auth.example.test:1/",
            "http://api.example.test:2/",
        ):
            await client.get(url)
        assert not client.cookies
    assert sent == [None, None, None]


async def test_the_api_never_gets_the_cookie_the_token_endpoint_set() -> None:
    # The token endpoint's cookie (127.0.0.1, one port) went to the API (another port).
    auth = ClosingServer(cookie="sid=from_auth; Path=/")
    base = ClosingServer(cookie="other=from_base; Path=/")
    async with auth.running() as auth_url, base.running() as base_url:
        connection = Connection(base_url, auth_url, base_url, Secret("key"), Secret("secret"))
        async with ApiClient(connection, sleep=FakeClock().sleep) as client:
            await client.create_webhook(NEW)
            await client.create_webhook(NEW)
    assert base.acted == [("POST", "/v1/platform-webhooks")] * 2
    assert auth.cookies_sent == base.cookies_sent == []
