"""A scriptable fake server for API-layer tests that need exact control of answers."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tokensales_tui.api import ApiClient, Connection, Secret

BASE = "https://api.example.test"
AUTH = "https://auth.example.test"
CONSOLE = "https://console.example.test"


def make_jwt(iat: int = 1_700_000_000, lifetime: int = 3600, **claims: Any) -> str:
    """An unsigned-looking JWT with the given claims (the client never verifies signatures)."""

    def part(obj: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    payload = {"sub": "demo", "iat": iat, "exp": iat + lifetime, **claims}
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(payload)}.c2ln"


class FakeClock:
    """A monotonic clock and sleep that advance only when told."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class FakeServer:
    """Routes requests to handlers by (method, path); counts everything it sees."""

    routes: dict[tuple[str, str], Handler] = field(default_factory=dict)
    seen: list[httpx.Request] = field(default_factory=list)
    token_lifetime: int = 3600
    issued: int = 0

    def __post_init__(self) -> None:
        self.routes.setdefault(("POST", "/auth/getAccessToken"), self.issue_token)

    def issue_token(self, request: httpx.Request) -> httpx.Response:
        self.issued += 1
        token = make_jwt(lifetime=self.token_lifetime, jti=self.issued)
        return httpx.Response(200, json={"accessToken": token})

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        handler = self.routes.get((request.method, raw_path(request)))
        if handler is None:
            return httpx.Response(404, json={"message": "no such route"})
        return handler(request)

    def count(self, method: str, path: str) -> int:
        return sum(1 for r in self.seen if r.method == method and raw_path(r) == path)

    def client(self, clock: FakeClock | None = None, **kwargs: Any) -> ApiClient:
        clock = clock or FakeClock()
        return ApiClient(
            connection(),
            transport=httpx.MockTransport(self.handle),
            clock=clock,
            sleep=clock.sleep,
            rand=lambda: 0.5,
            **kwargs,
        )


def raw_path(request: httpx.Request) -> str:
    """The path as sent, percent-escapes kept."""
    return request.url.raw_path.decode().split("?", 1)[0]


def connection() -> Connection:
    return Connection(
        base_url=BASE,
        auth_url=AUTH,
        console_url=CONSOLE,
        api_key=Secret("key-AAAA1111"),
        api_secret=Secret("secret-ZZZZ9999"),
        profile="staging",
    )


def json_response(status: int, body: Any, **headers: str) -> Handler:
    return lambda request: httpx.Response(status, json=body, headers=headers)


def in_turn(*handlers: Handler) -> Handler:
    """Each request answered by the next of ``handlers``; the last answers the rest."""
    queue = list(handlers)

    def handler(request: httpx.Request) -> httpx.Response:
        return (queue.pop(0) if len(queue) > 1 else queue[0])(request)

    return handler


class _BrokenStream(httpx.AsyncByteStream):
    """A body that sends its first bytes, then breaks as a connection closed midway does."""

    def __init__(self, first: bytes) -> None:
        self.first = first

    async def __aiter__(self):  # type: ignore[no-untyped-def]
        yield self.first
        raise httpx.RemoteProtocolError(
            "peer closed connection without sending complete message body"
        )


def broken_body(status: int, first: bytes = b'{"del') -> Handler:
    """An answer of ``status`` whose body breaks after ``first`` (the connection closed)."""
    return lambda request: httpx.Response(
        status,
        stream=_BrokenStream(first),
        headers={"Content-Type": "application/json", "Content-Length": "64"},
    )


def raises(error: Exception) -> Handler:
    """A request that gets no answer: ``error`` instead (a time-out, a broken connection)."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    return handler
