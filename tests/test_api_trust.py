"""What a hostile server cannot do to the client: escape ApiError, exhaust memory or time,
send a request elsewhere, or put its text unclean into a message.

Everything here runs in-process through ``httpx.MockTransport`` (``FakeServer``), except
the bodies without a length, which need a socket on 127.0.0.1.
"""

from __future__ import annotations

import ast
import asyncio
import gzip
import math
import socket
import threading
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tokensales_tui.api import (
    ApiClient,
    ApiError,
    AuthError,
    Deleted,
    NotFoundError,
    RateLimitedError,
    RedirectError,
    RefusedRequest,
    RetryNotice,
    ServerError,
    UnexpectedResponse,
)
from tokensales_tui.api.auth import MAX_LIFETIME, TokenManager, lifetime_of
from tokensales_tui.api.connection import Connection
from tokensales_tui.api.models import WebhookCreate, WebhookUpdate
from tokensales_tui.api.secret import Secret
from tokensales_tui.api.transport import ERROR_BODY_CAP, MAX_RETRY_AFTER

from .apifakes import FakeClock, FakeServer, json_response, make_jwt
from .apphelpers import resident_bytes

TOKEN_PATH = "/auth/getAccessToken"
ITEM = {"id": "itm_1", "title": "t", "currency": "USD", "price": 1}
NEW_WEBHOOK = WebhookCreate(url="https://hooks.example.com/in", events=["item.sold"])
ESCAPES = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;title\x07\x1b[31m\x9b1m\x1bP1$r\x1b\\\u202e"


def jwt_with(**claims: Any) -> str:
    """A JWT whose payload is exactly ``claims`` (numbers written as given, even 500 digits)."""
    import base64
    import json

    def part(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()

    payload = "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in claims.items()) + "}"
    header = part('{"alg":"HS256"}')
    return f"{header}.{part(payload)}.c2ln"


def assert_clean(text: str) -> None:
    assert not any(
        ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u202a\u202b\u202c\u202d\u202e"
        for c in text
    ), repr(text)


# --- 1. nothing but ApiError leaves the client ------------------------------------------

Operation = Callable[[ApiClient], Awaitable[Any]]

OPERATIONS: dict[str, Operation] = {
    "list_webhooks": lambda c: c.list_webhooks(),
    "list_items": lambda c: c.list_items(),
    "get_item": lambda c: c.get_item("itm_1"),
    "delete_item": lambda c: c.delete_item("itm_1"),
    "list_assets": lambda c: c.list_assets(),
    "get_asset": lambda c: c.get_asset("ast_1"),
    "update_webhook": lambda c: c.update_webhook("wh_1", WebhookUpdate(url="https://a.test")),
    "list_collections": lambda c: c.list_collections(),
    "add_collections": lambda c: c.add_collections([]),
    "delete_collection": lambda c: c.delete_collection("col_1"),
    "check_credentials": lambda c: c.check_credentials(),
}

FAILURES = [
    ValueError("boom"),
    KeyError("x"),
    TypeError("t"),
    OverflowError("o"),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    UnicodeEncodeError("ascii", "\xe9", 0, 1, "ordinal not in range"),
    RecursionError("deep"),
    MemoryError(),
    RuntimeError("r"),
    AttributeError("a"),
    httpx.DecodingError("bad gzip"),
    httpx.LocalProtocolError("bad header"),
    httpx.UnsupportedProtocol("nope"),
    OSError(5, "io"),
]


@pytest.mark.parametrize("failure", FAILURES, ids=lambda f: type(f).__name__)
@pytest.mark.parametrize("where", ["token", "call"])
@pytest.mark.parametrize("operation", list(OPERATIONS))
async def test_any_exception_in_the_transport_becomes_an_api_error(
    operation: str, where: str, failure: BaseException
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if (where == "token") == (request.url.path == TOKEN_PATH):
            raise failure
        return httpx.Response(200, json=[])

    clock = FakeClock()
    client = ApiClient(
        connection(), transport=httpx.MockTransport(handler), clock=clock, sleep=clock.sleep
    )
    async with client:
        with pytest.raises(ApiError) as caught:
            await asyncio.wait_for(OPERATIONS[operation](client), 5)
        assert "\n" not in caught.value.one_line
        assert client.tokens._inflight is None  # nothing left waiting


class Exploding(httpx.AsyncByteStream):
    """A body that sends a few bytes, then raises ``failure``."""

    def __init__(self, failure: BaseException) -> None:
        self.failure = failure

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'[{"id": '
        raise self.failure


@pytest.mark.parametrize("failure", FAILURES, ids=lambda f: type(f).__name__)
async def test_any_exception_while_the_body_streams_becomes_an_api_error(
    failure: BaseException,
) -> None:
    server = FakeServer(
        {("GET", "/v1/items"): lambda r: httpx.Response(200, stream=Exploding(failure))}
    )
    async with server.client() as client:
        with pytest.raises(ApiError):
            await asyncio.wait_for(client.list_items(), 5)


async def test_a_token_with_a_character_outside_ascii_is_an_api_error() -> None:
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    token = make_jwt() + "é"
    server.routes[("POST", TOKEN_PATH)] = json_response(200, {"accessToken": token})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse, match="cannot carry") as caught:
            await client.list_items()
        assert token not in caught.value.one_line
        # and the next call asks again rather than hanging on the failed one
        server.routes[("POST", TOKEN_PATH)] = server.issue_token
        assert await client.list_items() == []
    assert server.count("GET", "/v1/items") == 1


@pytest.mark.parametrize("scheme", ["Bearer ", "bearer  ", "BEARER\t"])
async def test_a_token_given_with_its_bearer_scheme_is_used_without_it(scheme: str) -> None:
    # It was refused: "holds characters an Authorization header cannot carry".
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    token = make_jwt()
    server.routes[("POST", TOKEN_PATH)] = json_response(200, {"accessToken": scheme + token})
    async with server.client() as client:
        assert await client.list_items() == []
        assert client.token_state.expires_in is not None  # its lifetime read from the JWT
    [sent] = [r for r in server.seen if r.url.path == "/v1/items"]
    assert sent.headers["Authorization"] == f"Bearer {token}"


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (
            "Token abc.def",
            "starts with “Token ” (an authorization scheme's name, not a bearer token)",
        ),
        ("abc def", "holds white space"),
        ("abc\x01def", "holds control characters"),
    ],
)
async def test_a_token_no_header_can_carry_says_why_without_quoting_it(
    token: str, said: str
) -> None:
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    server.routes[("POST", TOKEN_PATH)] = json_response(200, {"accessToken": token})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse) as caught:
            await client.list_items()
    assert f"the access token {said}, which an Authorization header cannot carry" in str(
        caught.value
    )
    assert "abc" not in str(caught.value)


@pytest.mark.parametrize("status", [200, 500])
async def test_a_content_length_of_ten_to_the_fifteen_is_an_api_error(status: int) -> None:
    class Lying(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b'{"message": "huge"}'

    def huge(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status,
            headers={"Content-Length": str(10**15), "Content-Type": "application/json"},
            stream=Lying(),
        )

    server = FakeServer({("GET", "/v1/items"): huge})
    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await asyncio.wait_for(client.list_items(), 5)
    if status == 200:
        assert isinstance(caught.value, UnexpectedResponse)
        assert "larger than the 1 GB limit" in str(caught.value)
        assert "max_body_mb" in caught.value.hint
    else:
        assert isinstance(caught.value, ServerError)
        assert "huge" in str(caught.value)


@pytest.mark.parametrize("length", [b"\xb2", b"1\xb2", b"1_9"])
async def test_a_content_length_that_is_no_ascii_number_is_ignored(length: bytes) -> None:
    # "²".isdigit() is true but int("²") raises: the length is read as ASCII digits only.
    class Streamed(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b"[]"

    def odd(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=[(b"Content-Length", length)], stream=Streamed())

    server = FakeServer({("GET", "/v1/items"): odd})
    async with server.client() as client:
        assert await client.list_items() == []


async def test_invalid_utf8_in_one_item_is_an_unexpected_response() -> None:
    body = b'{"id": "itm_1", "title": "\xff\xfe", "currency": "USD", "price": 1}'
    server = FakeServer({("GET", "/v1/items/itm_1"): lambda r: httpx.Response(200, content=body)})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse):
            await client.get_item("itm_1")


# --- 2. lifetimes and waits are finite ----------------------------------------------------


EXTREME_TOKENS = {
    "exp-1.7e308": ({"accessToken": jwt_with(iat=1_700_000_000, exp="1.7e308")}, None),
    "exp-1.7e308-no-iat": ({"accessToken": jwt_with(exp="1.7e308")}, None),
    "exp-500-digits": ({"accessToken": jwt_with(iat=1, exp="9" * 500)}, None),
    "exp-500-digits-no-iat": ({"accessToken": jwt_with(exp="9" * 500)}, None),
    "exp-negative-500-digits": ({"accessToken": jwt_with(exp="-" + "9" * 500)}, None),
    "expiresIn-1e999": ({"accessToken": jwt_with(sub='"x"'), "expiresIn": "1e999"}, None),
    "expiresIn-inf": ({"accessToken": jwt_with(sub='"x"'), "expiresIn": "Infinity"}, None),
    "expiresIn-nan": ({"accessToken": jwt_with(sub='"x"'), "expiresIn": "NaN"}, None),
    "expiresIn-negative": ({"accessToken": jwt_with(sub='"x"'), "expiresIn": -5}, None),
    "expiresIn-1.7e308": ({"accessToken": jwt_with(sub='"x"'), "expiresIn": 1.7e308}, None),
}


@pytest.mark.parametrize("name", list(EXTREME_TOKENS))
async def test_any_claimed_lifetime_gives_a_finite_bounded_one(name: str) -> None:
    body, _ = EXTREME_TOKENS[name]
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    server.routes[("POST", TOKEN_PATH)] = json_response(200, body)
    async with server.client() as client:
        assert await asyncio.wait_for(client.list_items(), 5) == []
        state = client.token_state
        assert state.status == "valid"
        if state.expires_in is not None:
            assert math.isfinite(state.expires_in)
            assert 0 <= state.expires_in <= MAX_LIFETIME
            int(state.expires_in)  # what the header does with it
        state = await asyncio.wait_for(client.check_credentials(), 5)
        assert state.status == "valid"


def test_lifetime_of_is_within_bounds_for_absurd_claims() -> None:
    assert lifetime_of(jwt_with(iat=0, exp="1.7e308"), None) == MAX_LIFETIME
    assert lifetime_of(jwt_with(exp="9" * 500), None) == MAX_LIFETIME
    # Long past and just issued: the clocks disagree; used until the server refuses it.
    assert lifetime_of(jwt_with(exp="-" + "9" * 500), None) is None
    assert lifetime_of(jwt_with(sub='"x"'), math.inf) == MAX_LIFETIME
    assert lifetime_of(jwt_with(sub='"x"'), math.nan) is None
    assert lifetime_of(jwt_with(iat=10, exp=70), None) == 60


@pytest.mark.parametrize(
    "failure",
    [ValueError("v"), OverflowError("o"), KeyError("k"), asyncio.CancelledError()],
    ids=lambda f: type(f).__name__,
)
async def test_the_single_flight_token_future_is_always_resolved(failure: BaseException) -> None:
    calls = {"n": 0}

    async def fetch() -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise failure
        from tokensales_tui.api.auth import TokenGrant

        return TokenGrant(Secret(make_jwt()), None)

    tokens = TokenManager(fetch)
    results = await asyncio.wait_for(
        asyncio.gather(*(tokens.token() for _ in range(5)), return_exceptions=True), 5
    )
    assert all(isinstance(r, ApiError) for r in results), results
    assert tokens.state.status == "failed"
    assert await asyncio.wait_for(tokens.token(), 5)  # the next call tries again
    assert tokens.state.status == "valid"


async def test_a_lifetime_that_breaks_the_arithmetic_still_resolves_every_waiter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(token: str, advertised: float | None) -> float:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr("tokensales_tui.api.auth.lifetime_of", broken)
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    async with server.client() as client:
        results = await asyncio.wait_for(
            asyncio.gather(*(client.list_items() for _ in range(3)), return_exceptions=True), 5
        )
    assert all(isinstance(r, ApiError) for r in results), results


@pytest.mark.parametrize(
    ("header", "waited"),
    [
        ("inf", 30.0),
        ("1e999", 30.0),
        ("Infinity", 30.0),
        ("9" * 500, 30.0),
        ("-5", 0.0),
        ("NaN", 0.5),  # not a number: the backoff, as without a Retry-After
        ("Fri, 31 Dec 9999 23:59:59 GMT", 30.0),
    ],
)
async def test_retry_after_is_clamped_and_said_in_words(header: str, waited: float) -> None:
    clock = FakeClock()
    notices: list[RetryNotice] = []
    calls = {"n": 0}

    def limited(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return httpx.Response(429, json={}, headers={"Retry-After": header})
        return httpx.Response(200, json=[])

    server = FakeServer({("GET", "/v1/items"): limited})
    async with server.client(clock, on_retry=notices.append, deadline=1e9) as client:
        assert await client.list_items() == []
    assert clock.slept == [waited]
    (notice,) = notices
    if notice.capped_from is not None:
        assert math.isfinite(notice.capped_from) and notice.capped_from <= MAX_RETRY_AFTER
        assert notice.asked == "more than a day"


@pytest.mark.parametrize(
    "header",
    [
        "\u0661\u0662",  # Arabic-Indic 12: float() reads it
        "\uff11\uff12",  # full-width 12
        "1_2",
        "\u00b9\u00b2",
        "Fri, \u0663\u0661 Dec 9999 23:59:59 GMT",  # the date parser reads ٣١ as 31
        "\u0131nf",  # a dotless i: case-blind but not ASCII, it passed as "inf", then float() raised
        "\u0130NF",
    ],
)
async def test_retry_after_is_read_from_ascii_digits_only(header: str) -> None:
    clock = FakeClock()
    calls = {"n": 0}

    def limited(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return httpx.Response(429, json={}, headers={"Retry-After": header.encode()})
        return httpx.Response(200, json=[])

    server = FakeServer({("GET", "/v1/items"): limited})
    async with server.client(clock, deadline=1e9) as client:
        assert await client.list_items() == []
    assert clock.slept == [0.5]  # no value: the backoff, as without a Retry-After


def test_no_header_value_becomes_a_number_but_through_digits() -> None:
    # int() and float() read other scripts' digits (float("١٢") is 12.0): in a function
    # that reads headers, text becomes a number only through digits.ascii_int or
    # digits.ascii_number.
    package = Path(__file__).resolve().parent.parent / "tokensales_tui"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "digits.py":
            continue
        source = path.read_text(encoding="utf-8")
        for function in ast.walk(ast.parse(source)):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            text = ast.get_source_segment(source, function) or ""
            if "headers" not in text and ".header(" not in text:
                continue
            found += [
                f"{path.relative_to(package)}:{call.lineno}"
                for call in ast.walk(function)
                if isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in ("int", "float", "Decimal")
                and call.args
                and _may_be_text(call.args[0])
            ]
    assert found == []


def _may_be_text(node: ast.expr) -> bool:
    """Whether an argument may be text: a name, a slice, a method that gives text."""
    if isinstance(node, ast.Name | ast.Subscript | ast.JoinedStr | ast.BoolOp):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "strip", "lstrip", "rstrip", "header", "decode", "group")
    )


@pytest.mark.parametrize("header", ["inf", "1e999", "9" * 500, "Fri, 31 Dec 9999 23:59:59 GMT"])
async def test_a_rate_limit_error_never_says_retry_in_inf(header: str) -> None:
    server = FakeServer({("GET", "/v1/items"): json_response(429, {}, **{"Retry-After": header})})
    async with server.client() as client:
        with pytest.raises(RateLimitedError) as caught:
            await client.list_items()
    assert "inf" not in str(caught.value)
    assert "retry in more than a day" in str(caught.value)
    assert caught.value.retry_after is not None and math.isfinite(caught.value.retry_after)


# --- 3. caps on bodies ---------------------------------------------------------------------


class Endless(httpx.AsyncByteStream):
    """An answer that never ends, in chunks of ``size`` bytes; counts what it sent."""

    def __init__(self, chunk: bytes) -> None:
        self.chunk = chunk
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.sent += len(self.chunk)
            yield self.chunk


def limited_connection(max_body: int) -> Connection:
    base = connection()
    return Connection(
        base.base_url,
        base.auth_url,
        base.console_url,
        base.api_key,
        base.api_secret,
        base.profile,
        max_body=max_body,
    )


def limited_client(server: FakeServer, max_body: int, **options: Any) -> ApiClient:
    """A client of ``server`` that accepts bodies of ``max_body`` bytes at most."""
    clock = FakeClock()
    return ApiClient(
        limited_connection(max_body),
        transport=httpx.MockTransport(server.handle),
        clock=clock,
        sleep=clock.sleep,
        **options,
    )


@pytest.mark.parametrize("status", [200, 500])
async def test_an_endless_body_stops_at_the_limit(status: int) -> None:
    stream = Endless(b"[" * 65536)
    server = FakeServer({("GET", "/v1/items"): lambda r: httpx.Response(status, stream=stream)})
    client = limited_client(server, 4 * 1024 * 1024)
    async with client:
        with pytest.raises(ApiError) as caught:
            await asyncio.wait_for(client.list_items(), 10)
    if status == 200:
        assert isinstance(caught.value, UnexpectedResponse)
        assert "larger than the 4 MB limit" in str(caught.value)
        assert stream.sent <= 4 * 1024 * 1024 + 65536
    else:
        assert isinstance(caught.value, ServerError)
        assert stream.sent <= ERROR_BODY_CAP + 65536


def gzip_bomb(inflated: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(1024 * 1024)
    parts = [compressor.compress(zeros) for _ in range(inflated // len(zeros))]
    return b"".join(parts) + compressor.flush()


BOMB = gzip_bomb(256 * 1024 * 1024)  # 256 MB of zeros in about 250 KB


@pytest.mark.parametrize("status", [200, 503])
async def test_a_gzip_bomb_stops_at_the_limit_without_being_inflated(status: int) -> None:
    assert len(BOMB) < 300_000

    class Slices(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for start in range(0, len(BOMB), 65536):
                yield BOMB[start : start + 65536]

    def bomb(request: httpx.Request) -> httpx.Response:
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
        return httpx.Response(status, headers=headers, stream=Slices())

    server = FakeServer({("GET", "/v1/items"): bomb})
    client = limited_client(server, 2 * 1024 * 1024, max_attempts=1)
    async with client:
        await client.check_credentials()
        tracemalloc.start()
        try:
            with pytest.raises(ApiError) as caught:
                await asyncio.wait_for(client.list_items(), 10)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, peak  # never the 256 MB, never even one inflated chunk
    if status == 200:
        assert "larger than the 2 MB limit" in str(caught.value)
    else:
        assert isinstance(caught.value, ServerError)


async def test_a_compressed_body_within_the_limit_is_read() -> None:
    body = gzip.compress(
        b'{"items": ['
        + b",".join([b'{"id":"i","title":"t","currency":"USD","price":1}'] * 1000)
        + b"]}"
    )

    class Once(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield body

    server = FakeServer(
        {
            ("GET", "/v1/items"): lambda r: httpx.Response(
                200, headers={"Content-Encoding": "gzip"}, stream=Once()
            )
        }
    )
    async with server.client() as client:
        items = await client.list_items()
    assert len(items) == 1000
    request = next(r for r in server.seen if r.url.path == "/v1/items")
    assert request.headers["accept-encoding"] == "gzip, deflate"


async def test_memory_goes_back_after_a_body_over_the_limit() -> None:
    chunk = b" " * (1024 * 1024)
    stream = Endless(chunk)
    server = FakeServer({("GET", "/v1/items"): lambda r: httpx.Response(200, stream=stream)})
    client = ApiClient(
        limited_connection(96 * 1024 * 1024),
        transport=httpx.MockTransport(server.handle),
        max_attempts=1,
    )
    async with client:
        await client.check_credentials()
        before = resident_bytes()
        with pytest.raises(UnexpectedResponse):
            await asyncio.wait_for(client.list_items(), 30)
        after = resident_bytes()
    assert stream.sent > 96 * 1024 * 1024
    assert after - before < 32 * 1024 * 1024, (before, after)


class RawServer:
    """A socket on 127.0.0.1 that records what each connection sends first, then answers
    with ``head`` and ``body`` forever, until the client goes away (or closes at once
    when there is no ``head``)."""

    def __init__(self, head: bytes = b"", body: bytes = b"") -> None:
        self.head, self.body = head, body
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.sent = 0
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    self.received.append(conn.recv(65536))
                    if not self.head:
                        continue
                    conn.sendall(self.head)
                    while not self._stop.is_set():
                        conn.sendall(self.body)
                        self.sent += len(self.body)
                except OSError:
                    pass

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self.sock.close()


CHUNK = b"[" * 65536
ENDLESS = {
    "close-delimited": (b"Connection: close\r\n", CHUNK),
    "chunked": (b"Transfer-Encoding: chunked\r\n", b"10000\r\n" + CHUNK + b"\r\n"),
}


@pytest.mark.parametrize("kind", list(ENDLESS))
@pytest.mark.parametrize("status", [200, 502])
async def test_endless_bodies_on_a_socket_stop_at_the_limit(kind: str, status: int) -> None:
    header, body = ENDLESS[kind]
    head = f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n".encode() + header + b"\r\n"
    with RawServer(head, body) as server:
        base = limited_connection(2 * 1024 * 1024)
        plain = Connection(
            server.url,
            server.url,
            server.url,
            base.api_key,
            base.api_secret,
            max_body=base.max_body,
        )
        client = ApiClient(plain, max_attempts=1)
        client.tokens._token = Secret(make_jwt())  # no token request: straight to the body
        async with client:
            with pytest.raises(ApiError) as caught:
                await asyncio.wait_for(client.list_items(), 20)
    if status == 200:
        assert "larger than the 2 MB limit" in str(caught.value)
    else:
        assert isinstance(caught.value, ServerError)


# --- 4. requests only where the interface says ---------------------------------------------

IDS = {
    "a/b": "a%2Fb",
    "%2F": "%252F",
    "a?b=c": "a%3Fb%3Dc",
    "a#b": "a%23b",
    "100%": "100%25",
    "line\nbreak": "line%0Abreak",
    " spaced ": "%20spaced%20",
    ".hidden": ".hidden",
    "...": "...",
    "%2E%2E": "%252E%252E",
    "ünï": "%C3%BCn%C3%AF",
}
REFUSED = ["", ".", "..", "\ud800"]

ID_OPERATIONS: dict[str, tuple[str, str, Callable[[ApiClient, str], Awaitable[Any]]]] = {
    "get_item": ("GET", "/v1/items/", lambda c, i: c.get_item(i)),
    "delete_item": ("DELETE", "/v1/items/", lambda c, i: c.delete_item(i)),
    "get_asset": ("GET", "/v1/assets/", lambda c, i: c.get_asset(i)),
    "update_webhook": (
        "PUT",
        "/v1/platform-webhooks/",
        lambda c, i: c.update_webhook(i, WebhookUpdate(url="https://a.test")),
    ),
    "delete_webhook": ("DELETE", "/v1/platform-webhooks/", lambda c, i: c.delete_webhook(i)),
    "delete_collection": ("DELETE", "/collection/", lambda c, i: c.delete_collection(i)),
}


@pytest.mark.parametrize("operation", list(ID_OPERATIONS))
@pytest.mark.parametrize("hostile", list(IDS), ids=repr)
async def test_a_hostile_id_stays_one_path_segment(operation: str, hostile: str) -> None:
    method, prefix, call = ID_OPERATIONS[operation]
    server = FakeServer()
    server.routes[(method, prefix + IDS[hostile])] = json_response(200, {**ITEM, "id": hostile})
    async with server.client() as client:
        await call(client, hostile)
    (sent,) = [r for r in server.seen if r.url.path != TOKEN_PATH]
    assert sent.method == method
    assert sent.url.raw_path == (prefix + IDS[hostile]).encode()
    host = "console.example.test" if operation == "delete_collection" else "api.example.test"
    assert sent.url.host == host


@pytest.mark.parametrize("operation", list(ID_OPERATIONS))
@pytest.mark.parametrize("hostile", REFUSED, ids=repr)
async def test_an_empty_or_dot_id_is_refused_before_any_request(
    operation: str, hostile: str
) -> None:
    _method, _prefix, call = ID_OPERATIONS[operation]
    server = FakeServer()
    async with server.client() as client:
        with pytest.raises(RefusedRequest, match="not sent"):
            await call(client, hostile)
    assert server.seen == []  # not even a token request


@pytest.mark.parametrize("operation", list(ID_OPERATIONS))
async def test_an_id_too_long_for_an_address_is_refused_before_any_request(
    operation: str,
) -> None:
    # httpx refused the URL (over 65,536 characters) as the request was built: the app
    # and the commands said "the answer may be one this client does not understand",
    # and for a change that it might have gone.
    _method, _prefix, call = ID_OPERATIONS[operation]
    server = FakeServer()
    async with server.client() as client:
        with pytest.raises(RefusedRequest) as refused:
            await call(client, "a" * 70_000)
    assert server.seen == []  # not even a token request
    message = refused.value.one_line
    assert "{id}: not sent — the id makes its address 70," in message
    assert "more than the 65,536 a request can carry" in message and len(message) < 400


# --- 5. the environment's proxies ------------------------------------------------------------


async def test_proxies_in_the_environment_receive_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
    from tokensales_tui.emulator.server import EmulatorServer

    from .test_reliability_network import serving

    with RawServer() as proxy, serving(EmulatorServer("127.0.0.1", 0)) as server:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        demo = Connection(
            server.url, server.url, server.url, Secret(DEMO_API_KEY), Secret(DEMO_API_SECRET)
        )
        async with ApiClient(demo) as client:
            await asyncio.wait_for(client.check_credentials(), 10)
            assert await asyncio.wait_for(client.list_webhooks(), 10)
        await asyncio.sleep(0.1)
        assert proxy.received == []
        assert server.emulator.counts[("POST", TOKEN_PATH)] == 1


async def test_a_proxy_named_by_the_profile_is_used() -> None:
    with RawServer() as proxy:
        target = "http://127.0.0.1:9"
        named = Connection(target, target, target, Secret("k"), Secret("s"), proxy=proxy.url)
        async with ApiClient(named, max_attempts=1) as client:
            with pytest.raises(ApiError):
                await asyncio.wait_for(client.check_credentials(), 10)
        await asyncio.sleep(0.1)
    assert proxy.received and proxy.received[0].startswith(
        b"POST http://127.0.0.1:9/auth/getAccessToken"
    )


async def test_a_given_transport_is_handed_every_request_whatever_proxy_the_profile_names() -> None:
    # httpx mounted a transport of its own for the profile's proxy in front of the given
    # one, which then saw nothing: every request went to the proxy.
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == TOKEN_PATH:
            return httpx.Response(200, json={"accessToken": make_jwt()})
        return httpx.Response(200, json=[])

    with RawServer() as proxy:
        url = "https://api.example.test"
        named = Connection(url, url, url, Secret("k"), Secret("s"), proxy=proxy.url)
        transport = httpx.MockTransport(answer)
        async with ApiClient(named, transport=transport, max_attempts=1) as client:
            assert await asyncio.wait_for(client.list_webhooks(), 10) == []
    assert seen == [TOKEN_PATH, "/v1/platform-webhooks"]
    assert proxy.received == []


# --- 6. messages that say what happened ------------------------------------------------------


async def test_a_hanging_token_endpoint_is_a_timeout_said_once() -> None:
    def hang(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out")

    server = FakeServer({("POST", TOKEN_PATH): hang})
    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await client.list_items()
    text = caught.value.one_line
    assert "outcome unknown" not in text
    assert text.count("refresh to check") <= 1
    assert "did not answer in time" in text
    assert server.count("POST", TOKEN_PATH) == 2  # asking for a token again is harmless


async def test_outcome_unknown_says_refresh_to_check_once() -> None:
    def lost(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out")

    server = FakeServer(
        {("POST", "/v1/platform-webhooks"): lost, ("POST", "/v1/payouts/add"): lost}
    )
    from tokensales_tui.api.models import PayoutDefinition, WebhookCreate

    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await client.create_webhook(WebhookCreate(url="https://a.example/h", events=["e"]))
        assert caught.value.one_line.count("refresh to check") == 1
        with pytest.raises(ApiError) as caught:  # no list shows it: another advice, once
            await client.add_payout(PayoutDefinition(type="free", name="x"))
    assert caught.value.one_line.count("check in its own console") == 1
    assert "refresh" not in caught.value.one_line


async def test_a_304_is_not_called_a_redirect() -> None:
    server = FakeServer({("GET", "/v1/items"): lambda r: httpx.Response(304)})
    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await client.list_items()
    assert not isinstance(caught.value, RedirectError)
    assert "redirect" not in str(caught.value) and "elsewhere" not in str(caught.value)
    assert "304 Not Modified" in str(caught.value)


async def test_a_redirect_to_an_invalid_url_is_a_redirect_error() -> None:
    server = FakeServer(
        {
            ("GET", "/v1/items"): lambda r: httpx.Response(
                302, headers=[(b"Location", b"https://evil\x1b]0;t\x07\x9b.example/")]
            )
        }
    )
    async with server.client() as client:
        with pytest.raises(RedirectError, match="not a valid URL") as caught:
            await client.list_items()
    assert_clean(caught.value.one_line)
    assert server.count("GET", "/v1/items") == 1


@pytest.mark.parametrize(
    "location",
    ["http:127.0.0.2:10381/x", "ftp:x", "https:", "/\\127.0.0.2:10381/", "http://[::1/x"],
    ids=["scheme-no-slashes", "ftp-no-host", "scheme-only", "backslash", "bracket"],
)
@pytest.mark.parametrize(
    ("method", "path", "call"),
    [
        ("GET", "/v1/items", lambda c: c.list_items()),
        ("POST", "/v1/platform-webhooks", lambda c: c.create_webhook(NEW_WEBHOOK)),
        ("DELETE", "/v1/items/itm_1", lambda c: c.delete_item("itm_1")),
        ("POST", TOKEN_PATH, lambda c: c.check_credentials()),
    ],
    ids=["read", "write", "delete", "token"],
)
async def test_a_redirect_to_a_malformed_location_is_described_never_raised(
    location: str, method: str, path: str, call: Any
) -> None:
    # httpx built the next request from the Location even though it follows none, and
    # raised for these: "the client failed unexpectedly (InvalidURL)", exit 1; the one
    # with a \ (another host to a browser) was "another path on the same host".
    server = FakeServer(
        {(method, path): lambda r: httpx.Response(302, headers={"Location": location})}
    )
    async with server.client() as client:
        with pytest.raises(RedirectError) as caught:
            await call(client)
    assert str(caught.value).endswith(
        "redirected to an address that is not a valid URL (HTTP 302); not followed"
    )
    assert server.count(method, path) == 1
    assert all(r.url.host.endswith("example.test") for r in server.seen)


async def test_a_redirect_without_location_says_so() -> None:
    server = FakeServer({("GET", "/v1/items"): lambda r: httpx.Response(302)})
    async with server.client() as client:
        with pytest.raises(RedirectError, match="to no address") as caught:
            await client.list_items()
    assert "elsewhere" not in str(caught.value)


async def test_a_404_from_the_token_endpoint_names_the_url_and_blames_the_address() -> None:
    server = FakeServer({("POST", TOKEN_PATH): json_response(404, {"message": "no such path"})})
    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await client.check_credentials()
    error = caught.value
    assert not isinstance(error, AuthError)
    assert isinstance(error, NotFoundError)
    assert "https://auth.example.test/auth/getAccessToken" in str(error)
    assert "address is likely wrong" in str(error)
    assert "auth_url" in error.hint and "API key" not in error.one_line


async def test_https_to_a_plain_http_port_says_so() -> None:
    from .test_reliability_network import ScriptedServer

    with ScriptedServer() as server:
        url = server.url.replace("http://", "https://")
        plain = Connection(url, url, url, Secret("k"), Secret("s"))
        async with ApiClient(plain) as client:
            with pytest.raises(ApiError) as caught:
                await asyncio.wait_for(client.list_items(), 10)
        await asyncio.sleep(0.1)
    assert "plain http:// server" in str(caught.value)
    assert "http://" in caught.value.hint
    assert len(server.seen) <= 1  # never retried


# --- 7. header-derived and server text in messages is clean ----------------------------------


async def test_header_values_and_server_text_are_cleaned_in_messages() -> None:
    markup = "[@click=app.quit]x[/] a [/] b"
    cases: list[Callable[[httpx.Request], httpx.Response]] = [
        lambda r: httpx.Response(
            200, content=b"<html>", headers={"Content-Type": f"text/html{ESCAPES}{markup}"}
        ),
        lambda r: httpx.Response(
            302, headers={"Location": f"https://evil{ESCAPES}.example/{markup}"}
        ),
        lambda r: httpx.Response(500, json={"message": f"{ESCAPES}{markup}\ud800\u200b\x00"}),
        lambda r: httpx.Response(422, json={"errors": [{"field": ESCAPES, "message": ESCAPES}]}),
        lambda r: httpx.Response(
            404, json={"message": "x" * 100_000 + ESCAPES}, headers={"X": ESCAPES}
        ),
    ]
    for handler in cases:
        server = FakeServer({("GET", "/v1/items"): handler})
        async with server.client() as client:
            with pytest.raises(ApiError) as caught:
                await client.list_items()
        error = caught.value
        for text in (str(error), error.hint, error.one_line):
            assert_clean(text)
            assert len(text) <= 2100


def connection() -> Connection:
    from .apifakes import connection as fake_connection

    return fake_connection()


# --- 8. lone surrogates ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["list", "one"])
async def test_a_lone_surrogate_is_read_as_a_replacement_character(where: str) -> None:
    item = b'{"id": "itm_1", "title": "a\\ud800b \\ud83d\\ude00 \\\\ud800", "currency": "USD", "price": 1}'
    body = b'{"items": [' + item + b"]}" if where == "list" else item
    path = "/v1/items" if where == "list" else "/v1/items/itm_1"
    server = FakeServer({("GET", path): lambda r: httpx.Response(200, content=body)})
    async with server.client() as client:
        got = (await client.list_items())[0] if where == "list" else await client.get_item("itm_1")
    assert got.title == "a\ufffdb \U0001f600 \\ud800"
    assert got.raw["title"] == got.title


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
async def test_a_streamed_list_stops_at_the_limit_too(encoding: str) -> None:
    element = b'{"id":"i","title":"t","currency":"USD","price":1},'

    class Endless(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            if encoding == "gzip":
                for start in range(0, len(BOMB), 65536):
                    yield BOMB[start : start + 65536]
                return
            yield b"["
            while True:
                yield element * 1000

    def endless(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": encoding}, stream=Endless())

    server = FakeServer({("GET", "/v1/items"): endless})
    received: list[int] = []
    client = limited_client(server, 2 * 1024 * 1024)
    async with client:
        with pytest.raises(UnexpectedResponse, match="larger than the 2 MB limit"):
            await asyncio.wait_for(
                client.stream_list("items", lambda elements: received.append(len(elements))), 10
            )
    assert server.count("GET", "/v1/items") == 1


@pytest.mark.parametrize(
    "lifetime", [b"1e400", b"-1E+309", b"9" * 5000], ids=["1e400", "-1e309", "5000-digits"]
)
async def test_a_lifetime_beyond_any_number_still_gives_a_bounded_one(lifetime: bytes) -> None:
    # Valid JSON that no float or Python integer holds: read as infinite, then clamped.
    body = b'{"accessToken": "tok-0123456789abcdef", "expiresIn": ' + lifetime + b"}"
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    server.routes[("POST", TOKEN_PATH)] = lambda _request: httpx.Response(200, content=body)
    async with server.client() as client:
        assert await asyncio.wait_for(client.list_items(), 5) == []
        expires_in = client.token_state.expires_in
        assert expires_in is None or 0 <= expires_in <= MAX_LIFETIME


@pytest.mark.parametrize("lifetime", ["\u0131nf", "\u0130nfinity"])
async def test_a_lifetime_in_letters_outside_ascii_is_none_and_the_token_still_serves(
    lifetime: str,
) -> None:
    # "ınf" once passed the number pattern, made float() raise and the whole answer read
    # as "no access token in it".
    body = {"accessToken": "tok-0123456789abcdef", "expires_in": lifetime}
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    server.routes[("POST", TOKEN_PATH)] = lambda _request: httpx.Response(200, json=body)
    async with server.client() as client:
        assert await asyncio.wait_for(client.list_items(), 5) == []
        assert client.token_state.expires_in is None or client.token_state.expires_in > 0


async def test_a_server_that_quotes_the_credentials_or_token_it_was_sent_shows_neither() -> None:
    token = "tok-SENT-4f1e2d3c4b5a69788796"  # no JWT: found by its value, not its shape
    secret = connection().api_secret.reveal()

    def quoting(request: httpx.Request) -> httpx.Response:
        sent = request.headers["authorization"].removeprefix("Bearer ")
        return httpx.Response(500, json={"message": f"upstream refused {sent} ({secret})"})

    server = FakeServer({("GET", "/v1/items"): quoting})
    server.routes[("POST", TOKEN_PATH)] = json_response(200, {"accessToken": token})
    async with server.client() as client:
        with pytest.raises(ServerError) as caught:
            await client.list_items()
    shown = f"{caught.value.one_line} {caught.value!r}"
    assert "upstream refused ******** (********)" in shown
    assert token not in shown and secret not in shown
    # The token endpoint quoting the secret in its failure.
    server = FakeServer()
    server.routes[("POST", TOKEN_PATH)] = json_response(500, {"error": f"bad secret {secret}"})
    async with server.client() as client:
        with pytest.raises(ApiError) as failed:
            await client.list_items()
    assert secret not in failed.value.one_line and "bad secret ********" in failed.value.one_line


def test_a_secret_is_masked_wherever_a_long_message_quotes_it() -> None:
    # Masking a long token early in the text shortens it: a secret quoted past the first
    # 4,000 characters, once cut there in half, came into the 1,000 shown unmasked.
    token = Secret("eyJ" + "a" * 900 + ".bbbb.cccc")
    secret = Secret("k3J9x2Qm7Lp4Vt8Zr1Wn6Yb5Hc0Fd2Aa")
    token.reveal()
    secret.reveal()
    text = f"Bearer {token.reveal()} " * 4
    text += "x" * (3980 - len(text)) + f" apiSecret={secret.reveal()} and more"  # across 4,000
    shown = ApiError(text).message
    assert not any(secret.reveal()[i : i + 6] in shown for i in range(len(secret.reveal()) - 5))


@pytest.mark.parametrize("method", ["DELETE", "PUT"])
async def test_a_writes_long_answer_is_read_no_further_than_it_needs(method: str) -> None:
    # The interface's writes answer with no body: a megabyte of gzip inflating to a
    # gigabyte once held two copies of it (2 GB) for a DELETE.
    pulled = []

    class Endless(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for _ in range(10_000):  # 640 MB
                pulled.append(1)
                yield b" " * 65536

    server = FakeServer(
        {(method, "/v1/platform-webhooks/wh_1"): lambda r: httpx.Response(200, stream=Endless())}
    )
    async with server.client() as client:
        if method == "DELETE":
            assert await client.delete_webhook("wh_1") == Deleted(status=200)
        else:
            await client.update_webhook("wh_1", WebhookUpdate(url="https://a.example"))
    assert len(pulled) < 300  # 16 MB is kept; the rest never read
