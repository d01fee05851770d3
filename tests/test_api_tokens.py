"""Token lifetime, proactive refresh, single-flight and the 401 retry, on a controlled clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from tokensales_tui.api import AuthError, NetworkError, secret
from tokensales_tui.api.secret import Secret, redact
from tokensales_tui.ui.widgets.header import describe_token

from .apifakes import FakeClock, FakeServer, connection, json_response, make_jwt


def webhooks_ok() -> FakeServer:
    return FakeServer({("GET", "/v1/platform-webhooks"): json_response(200, [])})


async def test_twenty_concurrent_calls_make_one_token_request() -> None:
    server = webhooks_ok()
    async with server.client() as client:
        results = await asyncio.gather(*(client.list_webhooks() for _ in range(20)))
    assert len(results) == 20
    assert server.count("POST", "/auth/getAccessToken") == 1
    assert server.count("GET", "/v1/platform-webhooks") == 20


async def test_twenty_concurrent_calls_on_an_expired_token_refresh_once() -> None:
    clock = FakeClock()
    server = webhooks_ok()
    async with server.client(clock) as client:
        await client.list_webhooks()
        clock.now += 3600  # expired
        await asyncio.gather(*(client.list_webhooks() for _ in range(20)))
    assert server.count("POST", "/auth/getAccessToken") == 2


async def test_refresh_happens_sixty_seconds_before_expiry() -> None:
    clock = FakeClock()
    server = webhooks_ok()
    async with server.client(clock) as client:
        await client.list_webhooks()
        clock.now += 3600 - 61
        await client.list_webhooks()
        assert server.count("POST", "/auth/getAccessToken") == 1
        clock.now += 2  # now inside the last minute
        await client.list_webhooks()
        assert server.count("POST", "/auth/getAccessToken") == 2
        state = client.token_state
        assert state.status == "valid"
        assert state.expires_in == pytest.approx(3600)


async def test_expiry_uses_lifetime_not_the_wall_clock() -> None:
    # The token's iat/exp are decades off the local wall clock; only exp - iat matters.
    clock = FakeClock()
    server = webhooks_ok()
    server.routes[("POST", "/auth/getAccessToken")] = json_response(
        200, {"accessToken": make_jwt(iat=100, lifetime=600)}
    )
    async with server.client(clock) as client:
        for _ in range(5):
            await client.list_webhooks()
    assert server.count("POST", "/auth/getAccessToken") == 1


async def test_short_lived_tokens_refresh_once_per_expiry() -> None:
    clock = FakeClock()
    server = webhooks_ok()
    server.token_lifetime = 5
    async with server.client(clock) as client:
        for _ in range(10):  # 10 calls over 25 s of 5-second tokens
            await client.list_webhooks()
            clock.now += 2.5
    assert server.count("POST", "/auth/getAccessToken") == 5


async def test_a_401_refreshes_once_and_retries_once() -> None:
    server = webhooks_ok()
    calls = {"n": 0}

    def sometimes_401(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(401 if calls["n"] == 1 else 200, json=[])

    server.routes[("GET", "/v1/platform-webhooks")] = sometimes_401
    async with server.client() as client:
        assert await client.list_webhooks() == []
    assert server.count("POST", "/auth/getAccessToken") == 2
    tokens = [
        r.headers["authorization"] for r in server.seen if r.url.path == "/v1/platform-webhooks"
    ]
    assert tokens[0] != tokens[1]


async def test_a_second_401_is_an_auth_error_naming_the_profile() -> None:
    server = FakeServer(
        {("GET", "/v1/platform-webhooks"): json_response(401, {"message": "expired"})}
    )
    async with server.client() as client:
        with pytest.raises(AuthError, match="staging"):
            await client.list_webhooks()
    assert server.count("GET", "/v1/platform-webhooks") == 2
    assert server.count("POST", "/auth/getAccessToken") == 2


async def test_a_token_refused_after_its_renewal_is_said_refused_until_a_request_passes() -> None:
    calls = {"n": 0}

    def refused_twice(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(401 if calls["n"] <= 2 else 200, json=[])

    server = FakeServer({("GET", "/v1/platform-webhooks"): refused_twice})
    async with server.client() as client:
        with pytest.raises(AuthError):
            await client.list_webhooks()
        assert client.token_state.status == "refused"
        assert describe_token(client.token_state) == "token: refused"
        assert await client.list_webhooks() == []  # a new token, and this one passes
        assert client.token_state.status == "valid"
    assert server.count("POST", "/auth/getAccessToken") == 3


async def test_refused_credentials_name_the_profile_and_do_not_storm() -> None:
    server = FakeServer(
        {("POST", "/auth/getAccessToken"): json_response(401, {"message": "bad key"})}
    )
    async with server.client() as client:
        results = await asyncio.gather(
            *(client.list_webhooks() for _ in range(10)), return_exceptions=True
        )
    assert all(isinstance(r, AuthError) for r in results)
    assert "staging" in str(results[0])
    assert server.count("POST", "/auth/getAccessToken") == 1
    assert "secret-ZZZZ9999" not in str(results[0])


async def test_token_failure_reaches_every_waiter_and_the_next_call_retries() -> None:
    server = webhooks_ok()
    state = {"down": True}

    def token(request: httpx.Request) -> httpx.Response:
        if state["down"]:
            raise httpx.ConnectError("connection refused")
        return server.issue_token(request)

    server.routes[("POST", "/auth/getAccessToken")] = token
    async with server.client() as client:
        results = await asyncio.gather(
            *(client.list_webhooks() for _ in range(20)), return_exceptions=True
        )
        assert all(isinstance(r, NetworkError) for r in results)
        assert "auth.example.test" in str(results[0])
        assert client.token_state.status == "failed"
        state["down"] = False
        assert await client.list_webhooks() == []
        assert client.token_state.status == "valid"


async def test_token_request_body_is_the_management_key_and_secret() -> None:
    server = webhooks_ok()
    async with server.client() as client:
        await client.list_webhooks()
    (token_request,) = [r for r in server.seen if r.url.path == "/auth/getAccessToken"]
    import json

    assert json.loads(token_request.content) == {
        "apiKey": "key-AAAA1111",
        "apiSecret": "secret-ZZZZ9999",
    }
    assert str(token_request.url).startswith("https://auth.example.test/")


async def test_a_token_past_its_exp_by_this_clock_is_not_fetched_before_every_request() -> None:
    # A token with exp and no iat, from a server whose clock is behind this one: it
    # "expired" at once, and each request fetched a new one (6 token requests for 6 loads).
    import base64
    import json
    import time

    def part(data: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    token = f"{part({'alg': 'none'})}.{part({'exp': int(time.time()) - 3600})}.sig"
    server = webhooks_ok()
    server.routes[("POST", "/auth/getAccessToken")] = json_response(200, {"accessToken": token})
    async with server.client() as client:
        for _ in range(6):
            await client.list_webhooks()
    assert server.count("POST", "/auth/getAccessToken") == 1


def remembered() -> int:
    """How many values ``redact`` masks by itself now (each one it tries on every message)."""
    held = {token._value for token in secret._TOKENS_HELD.values()}
    return len(secret._REVEALED | secret._TOKENS_KEPT.keys() | held)


def test_ten_thousand_tokens_leave_a_bounded_few_remembered_and_keep_the_credentials() -> None:
    key, api_secret = Secret("key-4f1e2d3c4b5a"), Secret("secret-69788796a5b4")
    key.reveal(), api_secret.reveal()
    first = Secret("tok-first-4f1e2d3c", short_lived=True)
    first.reveal()
    del first  # its request has ended
    for n in range(10_000):
        current = Secret(f"tok-{n:05d}-4f1e2d3c", short_lived=True)
        current.reveal()  # each one sent once; the one before let go of
    assert remembered() <= secret.TOKENS_KEPT + 2
    said = f"refused {current.reveal()} for key-4f1e2d3c4b5a (secret-69788796a5b4)"
    assert redact(said) == "refused ******** for ******** (********)"
    assert redact("tok-first-4f1e2d3c") == "tok-first-4f1e2d3c"  # forgotten


def test_a_token_held_by_a_request_on_its_way_stays_masked_however_many_follow() -> None:
    in_flight = Secret("tok-slow-request-4f1e", short_lived=True)
    in_flight.reveal()
    for n in range(10 * secret.TOKENS_KEPT):
        Secret(f"tok-{n:05d}-4f1e2d3c", short_lived=True).reveal()
    assert redact("refused tok-slow-request-4f1e") == "refused ********"
    assert redact("tok-00000-4f1e2d3c") == "tok-00000-4f1e2d3c"  # neither held nor recent
    last = f"tok-{10 * secret.TOKENS_KEPT - 1:05d}-4f1e2d3c"
    assert redact(last) == "********"  # its request has ended, its message may follow


async def test_a_client_renewing_short_tokens_300_times_remembers_a_bounded_few() -> None:
    clock = FakeClock()
    server = webhooks_ok()
    issued = iter(range(1_000_000))
    server.routes[("POST", "/auth/getAccessToken")] = lambda request: httpx.Response(
        200, json={"accessToken": f"opaque-{next(issued):07d}-4f1e2d3c", "expiresIn": 5}
    )
    async with server.client(clock) as client:
        for _ in range(300):
            await client.list_webhooks()
            clock.now += 5
        await client.list_webhooks()
        current = client.tokens.current
        assert current is not None
        assert redact(f"refused {current.reveal()}") == "refused ********"
    assert server.count("POST", "/auth/getAccessToken") == 301
    assert remembered() <= secret.TOKENS_KEPT + 2 + 1  # the key, the secret, one held
    assert redact(connection().api_secret.reveal()) == "********"


async def test_a_cancelled_token_request_leaves_its_waiters_one_new_request() -> None:
    """The token request runs in a task of its own: cancelled there (no waiter asked for
    it), its waiters got "the token request was cancelled". Those still waiting start
    one new request among them, and each gets a token."""
    from tokensales_tui.api.client import ApiClient
    from tokensales_tui.api.connection import Connection
    from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
    from tokensales_tui.emulator.app import TOKEN_PATH

    from .apphelpers import Rigged

    app = create_app(seed=1)
    rig = Rigged(app)
    asked: list[str] = []
    rig.hook = lambda request: asked.append(request.url.path)
    url = "http://127.0.0.1:9"
    demo = Connection(url, url, url, Secret(DEMO_API_KEY), Secret(DEMO_API_SECRET))
    clock = FakeClock()
    async with ApiClient(demo, transport=rig, clock=clock) as client:
        await client.list_webhooks()
        clock.now += 7200  # expired
        rig.held[TOKEN_PATH] = held = asyncio.Event()
        calls = [asyncio.create_task(client.list_webhooks()) for _ in range(20)]
        await asyncio.wait_for(_until(lambda: asked.count(TOKEN_PATH) == 2), 10)
        fetching = [
            task
            for task in asyncio.all_tasks()
            if task.get_coro().__qualname__ == "TokenManager._run"  # type: ignore[union-attr]
        ]
        assert len(fetching) == 1
        fetching[0].cancel()  # mid-request, no caller cancelled
        await asyncio.wait_for(_until(lambda: asked.count(TOKEN_PATH) == 3), 10)
        held.set()
        results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
    assert [type(result).__name__ for result in results] == ["list"] * 20
    assert asked.count(TOKEN_PATH) == 3  # the first, the cancelled one, one taking over
    assert client.tokens.requests == 3
    assert client.token_state.status == "valid"


async def test_a_waiter_cancelled_during_a_token_request_leaves_it_to_the_others() -> None:
    server = webhooks_ok()
    clock = FakeClock()
    async with server.client(clock) as client:
        await client.list_webhooks()
        clock.now += 7200
        calls = [asyncio.create_task(client.list_webhooks()) for _ in range(5)]
        await asyncio.sleep(0)
        calls[0].cancel()
        results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
    assert isinstance(results[0], asyncio.CancelledError)
    assert [type(result).__name__ for result in results[1:]] == ["list"] * 4
    assert server.count("POST", "/auth/getAccessToken") == 2


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)
