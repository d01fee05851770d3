"""Retry policy per method, the deadline, redirects, and network failures naming the host."""

from __future__ import annotations

import email.utils
import logging
import time

import httpx
import pytest

from tokensales_tui.api import (
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitedError,
    RedirectError,
    ServerError,
    TimeoutError_,
)
from tokensales_tui.api.models import PayoutDefinition, WebhookCreate, WebhookUpdate

from .apifakes import FakeClock, FakeServer, json_response

NEW = WebhookCreate(url="https://hooks.example.com/in", events=["item.sold"])


def failing_then_ok(status: int, failures: int, **headers: str):
    state = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        if state["n"] <= failures:
            return httpx.Response(status, json={"message": "busy"}, headers=headers)
        return httpx.Response(200, json=[])

    return handler


@pytest.mark.parametrize("status", [502, 503, 504, 429])
async def test_get_is_retried_on_transient_statuses(status: int) -> None:
    clock = FakeClock()
    server = FakeServer({("GET", "/v1/platform-webhooks"): failing_then_ok(status, 2)})
    async with server.client(clock) as client:
        assert await client.list_webhooks() == []
    assert server.count("GET", "/v1/platform-webhooks") == 3
    assert clock.slept == [0.5, 1.0]  # exponential backoff, jitter fixed at 1.0x by rand=0.5


async def test_get_gives_up_after_three_attempts() -> None:
    clock = FakeClock()
    server = FakeServer({("GET", "/v1/platform-webhooks"): failing_then_ok(503, 99)})
    async with server.client(clock) as client:
        with pytest.raises(ServerError, match="HTTP 503"):
            await client.list_webhooks()
    assert server.count("GET", "/v1/platform-webhooks") == 3


async def test_500_is_not_retried() -> None:
    server = FakeServer({("GET", "/v1/platform-webhooks"): failing_then_ok(500, 99)})
    async with server.client() as client:
        with pytest.raises(ServerError):
            await client.list_webhooks()
    assert server.count("GET", "/v1/platform-webhooks") == 1


async def test_put_and_delete_are_retried() -> None:
    server = FakeServer(
        {
            ("PUT", "/v1/platform-webhooks/wh_1"): failing_then_ok(502, 1),
            ("DELETE", "/v1/platform-webhooks/wh_1"): failing_then_ok(503, 1),
        }
    )
    async with server.client() as client:
        await client.update_webhook("wh_1", WebhookUpdate(url="https://a.example"))
        await client.delete_webhook("wh_1")
    assert server.count("PUT", "/v1/platform-webhooks/wh_1") == 2
    assert server.count("DELETE", "/v1/platform-webhooks/wh_1") == 2


@pytest.mark.parametrize("status", [429, 502, 503])
async def test_post_is_not_retried_on_a_status(status: int) -> None:
    server = FakeServer({("POST", "/v1/platform-webhooks"): failing_then_ok(status, 1)})
    async with server.client() as client:
        with pytest.raises((ServerError, RateLimitedError)):
            await client.create_webhook(NEW)
    assert server.count("POST", "/v1/platform-webhooks") == 1


@pytest.mark.parametrize(("status", "headers"), [(503, {}), (429, {"Retry-After": "2"})])
async def test_the_token_request_is_retried_on_a_transient_status_like_a_get(
    status: int, headers: dict[str, str]
) -> None:
    # Asking for a token changes nothing on the server: a one-off 503 or 429 on it is
    # waited out as on a GET, not reported as a failure of the call that needed it.
    clock = FakeClock()
    server = FakeServer({("GET", "/v1/platform-webhooks"): json_response(200, [])})
    issue = server.routes[("POST", "/auth/getAccessToken")]
    state = {"n": 0}

    def busy_once(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        if state["n"] == 1:
            return httpx.Response(status, json={"message": "busy"}, headers=headers)
        return issue(request)

    server.routes[("POST", "/auth/getAccessToken")] = busy_once
    async with server.client(clock) as client:
        assert await client.list_webhooks() == []
    assert server.count("POST", "/auth/getAccessToken") == 2
    assert clock.slept == [2.0 if headers else 0.5]


async def test_the_token_request_gives_up_after_two_attempts() -> None:
    server = FakeServer({("GET", "/v1/platform-webhooks"): json_response(200, [])})
    server.routes[("POST", "/auth/getAccessToken")] = failing_then_ok(503, 99)
    async with server.client() as client:
        with pytest.raises(ServerError, match="503"):
            await client.list_webhooks()
    assert server.count("POST", "/auth/getAccessToken") == 2
    assert server.count("GET", "/v1/platform-webhooks") == 0


async def test_post_is_retried_when_the_connection_never_opened() -> None:
    server = FakeServer()
    state = {"n": 0}

    def refuse_once(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        if state["n"] == 1:
            raise httpx.ConnectError("[Errno 111] Connection refused")
        return httpx.Response(201)

    server.routes[("POST", "/v1/platform-webhooks")] = refuse_once
    async with server.client() as client:
        await client.create_webhook(NEW)
    assert state["n"] == 2


@pytest.mark.parametrize(
    "failure", [httpx.ReadTimeout("read timed out"), httpx.RemoteProtocolError("closed")]
)
async def test_post_whose_answer_never_came_is_outcome_unknown_and_not_repeated(
    failure: Exception,
) -> None:
    server = FakeServer()
    state = {"n": 0}

    def lost(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        raise failure

    server.routes[("POST", "/v1/platform-webhooks")] = lost
    async with server.client() as client:
        with pytest.raises(OutcomeUnknownError, match="refresh to check"):
            await client.create_webhook(NEW)
    assert state["n"] == 1


@pytest.mark.parametrize(
    "failure", [httpx.ReadTimeout("read timed out"), httpx.RemoteProtocolError("closed")]
)
async def test_a_payout_add_whose_answer_never_came_says_where_to_check(
    failure: Exception,
) -> None:
    # No list shows payout definitions, and the local record is written on success only:
    # "refresh to check" could not be followed.
    server = FakeServer()
    state = {"n": 0}

    def lost(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        raise failure

    server.routes[("POST", "/v1/payouts/add")] = lost
    async with server.client() as client:
        with pytest.raises(OutcomeUnknownError) as caught:
            await client.add_payout(PayoutDefinition(type="free", name="Free mint"))
    assert state["n"] == 1
    message = caught.value.one_line
    assert "POST /v1/payouts/add" in message and "outcome unknown" in message
    assert "refresh" not in message
    assert "check in its own console whether it was added before adding it again" in message


async def test_get_timeout_retries_then_names_the_host() -> None:
    server = FakeServer()

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out")

    server.routes[("GET", "/v1/items")] = slow
    async with server.client() as client:
        with pytest.raises(TimeoutError_, match="api.example.test"):
            await client.list_items()
    assert server.count("GET", "/v1/items") == 3


async def test_retry_after_is_honoured_and_capped() -> None:
    clock = FakeClock()
    notices = []
    server = FakeServer({("GET", "/v1/items"): failing_then_ok(429, 1, **{"Retry-After": "3"})})
    async with server.client(clock, on_retry=notices.append) as client:
        await client.list_items()
    assert clock.slept == [3.0]
    assert notices[0].delay == 3.0 and notices[0].capped_from is None

    clock = FakeClock()
    notices.clear()
    server = FakeServer({("GET", "/v1/items"): failing_then_ok(429, 1, **{"Retry-After": "86400"})})
    async with server.client(clock, on_retry=notices.append) as client:
        await client.list_items()
    assert clock.slept == [30.0]
    assert notices[0].capped_from == 86400


async def test_retry_after_as_http_date() -> None:
    clock = FakeClock()
    when = email.utils.formatdate(time.time() + 3600, usegmt=True)
    server = FakeServer({("GET", "/v1/items"): failing_then_ok(429, 1, **{"Retry-After": when})})
    async with server.client(clock) as client:
        await client.list_items()
    assert clock.slept == [30.0]


async def test_rate_limit_after_retries_reports_retry_after() -> None:
    server = FakeServer({("GET", "/v1/items"): failing_then_ok(429, 99, **{"Retry-After": "2"})})
    async with server.client() as client:
        with pytest.raises(RateLimitedError) as caught:
            await client.list_items()
    assert caught.value.retry_after == 2


async def test_overall_deadline_stops_retries() -> None:
    clock = FakeClock()
    server = FakeServer({("GET", "/v1/items"): failing_then_ok(429, 99, **{"Retry-After": "25"})})
    async with server.client(clock, deadline=40) as client:
        with pytest.raises(RateLimitedError):
            await client.list_items()
    assert server.count("GET", "/v1/items") == 2  # a third wait would pass the deadline


async def test_redirect_is_an_error_and_the_token_does_not_travel() -> None:
    server = FakeServer(
        {
            ("GET", "/v1/items"): lambda r: httpx.Response(
                302, headers={"Location": "https://evil.example/v1/items"}
            )
        }
    )
    async with server.client() as client:
        with pytest.raises(RedirectError, match="evil.example"):
            await client.list_items()
    assert all(r.url.host != "evil.example" for r in server.seen)


async def test_connection_refused_names_the_host() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    server = FakeServer({("GET", "/collections"): refuse})
    server.routes[("GET", "/collections")] = refuse
    async with server.client() as client:
        with pytest.raises(NetworkError) as caught:
            await client.list_collections()
    assert "console.example.test refused the connection" in str(caught.value)


async def test_dns_failure_names_the_host() -> None:
    def no_dns(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -2] Name or service not known")

    server = FakeServer({("GET", "/v1/items"): no_dns})
    async with server.client() as client:
        with pytest.raises(NetworkError, match="api.example.test could not be resolved"):
            await client.list_items()


async def test_certificate_error_is_not_retried_and_says_so() -> None:
    import ssl

    def bad_cert(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")

    server = FakeServer({("GET", "/v1/items"): bad_cert})
    async with server.client() as client:
        with pytest.raises(NetworkError, match="TLS certificate of api.example.test") as caught:
            await client.list_items()
    assert server.count("GET", "/v1/items") == 1
    assert "checks stay on" in caught.value.hint
    assert ssl  # certificate checks are httpx's default; the client never passes verify=False


async def test_not_found() -> None:
    server = FakeServer()
    async with server.client() as client:
        with pytest.raises(NotFoundError):
            await client.get_item("nope")


async def test_ids_are_quoted_into_one_path_segment() -> None:
    server = FakeServer({("DELETE", "/collection/a%2F..%2Fb"): json_response(200, {})})
    async with server.client() as client:
        await client.delete_collection("a/../b")
    assert server.seen[-1].url.raw_path == b"/collection/a%2F..%2Fb"


async def test_debug_log_has_no_secret_or_token(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = FakeServer({("GET", "/v1/items"): json_response(200, [])})
    async with server.client() as client:
        await client.list_items()
    text = caplog.text
    assert "GET https://api.example.test/v1/items" in text
    assert "secret-ZZZZ9999" not in text and "key-AAAA1111" not in text
    assert "eyJ" not in text and "Bearer" not in text
