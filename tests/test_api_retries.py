"""Retry policy per method, the deadline, redirects, and network failures naming the host."""

from __future__ import annotations

import email.utils
import logging
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest

from tokensales_tui.api import (
    ApiClient,
    ApiError,
    Deleted,
    Endpoint,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitedError,
    RedirectError,
    ServerError,
    TimeoutError_,
)
from tokensales_tui.api.models import PayoutDefinition, WebhookCreate, WebhookUpdate

from .apifakes import (
    FakeClock,
    FakeServer,
    broken_body,
    connection,
    in_turn,
    json_response,
    raises,
)

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
        with pytest.raises((ServerError, RateLimitedError, OutcomeUnknownError)):
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
@pytest.mark.parametrize(
    ("path", "send", "advice"),
    [
        ("/v1/platform-webhooks", lambda c: c.create_webhook(NEW), "refresh to check"),
        # No list shows payout definitions, and the local record is written on success
        # only: "refresh to check" could not be followed.
        (
            "/v1/payouts/add",
            lambda c: c.add_payout(PayoutDefinition(type="free", name="Free mint")),
            "check in its own console whether it was added before adding it again",
        ),
    ],
)
async def test_post_whose_answer_never_came_is_outcome_unknown_and_not_repeated(
    failure: Exception, path: str, send: Any, advice: str
) -> None:
    server = FakeServer()
    state = {"n": 0}

    def lost(request: httpx.Request) -> httpx.Response:
        state["n"] += 1
        raise failure

    server.routes[("POST", path)] = lost
    async with server.client() as client:
        with pytest.raises(OutcomeUnknownError) as caught:
            await send(client)
    assert state["n"] == 1
    message = caught.value.one_line
    assert f"POST {path}" in message and "outcome unknown" in message and advice in message
    if "payouts" in path:
        assert "refresh" not in message


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


@pytest.mark.parametrize(
    ("location", "said", "hint"),
    [
        (
            "https://api.example.test/v1/items",
            "api.example.test redirected from http to https on the same host"
            " (https://api.example.test, HTTP 301); not followed",
            "the server asks for https: use https:// in the profile's address",
        ),
        (
            "/v2/items",
            "api.example.test redirected to another path on the same host (/v2/items,"
            " HTTP 301); not followed",
            "check the path of the profile's address",
        ),
        (
            "http://api.example.test:8080/v1/items",
            "api.example.test redirected to api.example.test:8080 (HTTP 301); not followed",
            "the server redirects elsewhere",
        ),
        (
            "ftp://api.example.test/v1/items",
            "api.example.test redirected to api.example.test (HTTP 301); not followed",
            "the server redirects elsewhere",
        ),
    ],
    ids=["scheme", "path", "port", "ftp"],
)
async def test_a_redirect_on_the_same_host_says_what_it_changes(
    location: str, said: str, hint: str
) -> None:
    # http to https on the same host said "redirected to api.example.test; … the server
    # redirects elsewhere", which it does not.
    server = FakeServer(
        {("GET", "/v1/items"): lambda r: httpx.Response(301, headers={"Location": location})}
    )
    plain = replace(connection(), base_url="http://api.example.test")
    transport = httpx.MockTransport(server.handle)
    async with ApiClient(plain, transport=transport, sleep=FakeClock().sleep) as client:
        with pytest.raises(RedirectError) as caught:
            await client.list_items()
    assert str(caught.value) == f"GET /v1/items: {said}"
    assert hint in caught.value.hint
    assert server.count("GET", "/v1/items") == 1


async def test_a_write_answered_303_see_other_is_outcome_unknown_not_followed() -> None:
    # It was "redirected …; not followed — the server redirects elsewhere": a failure,
    # which invited sending the webhook again, though a 303 says the POST was done.
    server = FakeServer(
        {
            ("POST", "/v1/platform-webhooks"): lambda r: httpx.Response(
                303, headers={"Location": "/v1/platform-webhooks/wh_new"}
            )
        }
    )
    async with server.client() as client:
        with pytest.raises(OutcomeUnknownError) as caught:
            await client.create_webhook(NEW)
    assert "answered 303 See Other to /v1/platform-webhooks/wh_new" in str(caught.value)
    assert server.count("POST", "/v1/platform-webhooks") == 1
    assert all(r.url.path != "/v1/platform-webhooks/wh_new" for r in server.seen)


SIGNED = "admin:hunter2@{host}/r/wh_new?sig=SECRETSIG#frag"


@pytest.mark.parametrize("status", [300, 301, 302, 303, 307, 308])
@pytest.mark.parametrize("host", ["other.example", "api.example.test", "api.example.test:8443"])
@pytest.mark.parametrize("scheme", ["https", "http"])
@pytest.mark.parametrize("write", [True, False], ids=["POST", "GET"])
async def test_no_redirect_is_described_with_the_password_or_query_of_its_location(
    status: int, host: str, scheme: str, write: bool
) -> None:
    # A write's 303 quoted its Location whole: user, password and signature went to the
    # toast and to stderr.
    location = f"{scheme}://{SIGNED.format(host=host)}"
    answer = lambda r: httpx.Response(status, headers={"Location": location})  # noqa: E731
    server = FakeServer({("POST", "/v1/platform-webhooks"): answer, ("GET", "/v1/items"): answer})
    async with server.client() as client:
        with pytest.raises(ApiError) as caught:
            await (client.create_webhook(NEW) if write else client.list_items())
    said = f"{caught.value} {caught.value.hint}"
    for secret in ("admin", "hunter2", "SECRETSIG", "sig=", "frag"):
        assert secret not in said
    if status == 303 and write:
        same = (scheme, host) == ("https", "api.example.test")  # the profile's own
        assert f"303 See Other to {'/r/wh_new' if same else scheme + '://' + host}," in said


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


# --- a DELETE repeated after an attempt whose answer was lost -----------------------------

DELETES = [
    ("delete_webhook", "/v1/platform-webhooks/x_1"),
    ("delete_item", "/v1/items/x_1"),
    ("delete_collection", "/collection/x_1"),
]
LOST_ANSWERS = {
    # The server deleted it, then answered past the read time-out.
    "time-out": raises(httpx.ReadTimeout("timed out")),
    # The server deleted it, then closed the connection before any answer.
    "closed unanswered": raises(
        httpx.RemoteProtocolError("Server disconnected without sending a response.")
    ),
    "connection reset": raises(httpx.ReadError("connection reset by peer")),
    # A gateway whose server had the request and never answered it.
    "502": json_response(502, {"message": "upstream closed the connection"}),
    "504": json_response(504, {"message": "upstream timed out"}),
}
GONE = json_response(404, {"message": "no such object"})


@pytest.mark.parametrize("lost", LOST_ANSWERS.values(), ids=LOST_ANSWERS.keys())
@pytest.mark.parametrize(("method", "path"), DELETES, ids=[d[0] for d in DELETES])
async def test_a_delete_repeated_after_a_lost_answer_and_then_not_found_is_deleted(
    method: str, path: str, lost: Any
) -> None:
    server = FakeServer({("DELETE", path): in_turn(lost, GONE)})
    async with server.client() as client:
        done = await getattr(client, method)("x_1")
    assert done == Deleted(already_gone=True)
    assert done.note == "it was already gone when the request was repeated"
    assert server.count("DELETE", path) == 2


@pytest.mark.parametrize(("method", "path"), DELETES, ids=[d[0] for d in DELETES])
async def test_a_delete_answered_at_once_is_deleted_and_not_already_gone(
    method: str, path: str
) -> None:
    server = FakeServer({("DELETE", path): in_turn(json_response(200, {}), GONE)})
    async with server.client() as client:
        done = await getattr(client, method)("x_1")
    assert done == Deleted(status=200) and done.note == ""
    assert server.count("DELETE", path) == 1


class _StalledStream(httpx.AsyncByteStream):
    """A body that sends its first bytes, then nothing until the read time-out."""

    async def __aiter__(self):  # type: ignore[no-untyped-def]
        yield b'{"id": "wh'
        raise httpx.ReadTimeout("timed out")


def stalled_body(status: int) -> Any:
    return lambda request: httpx.Response(
        status, stream=_StalledStream(), headers={"Content-Type": "application/json"}
    )


WRITES = {
    "create_webhook": ("POST", "/v1/platform-webhooks", lambda c: c.create_webhook(NEW)),
    "update_webhook": (
        "PUT",
        "/v1/platform-webhooks/x_1",
        lambda c: c.update_webhook("x_1", WebhookUpdate(url="https://a.example.com")),
    ),
    "delete_item": ("DELETE", "/v1/items/x_1", lambda c: c.delete_item("x_1")),
    "add_payout": (
        "POST",
        "/v1/payouts/add",
        lambda c: c.add_payout(PayoutDefinition(type="free", name="Free mint")),
    ),
    "add_collections": ("POST", "/collections", lambda c: c.add_collections([])),
}
BROKEN_BODIES = {
    "cut": (broken_body(201), "the connection broke before the body ended"),
    "stalled": (stalled_body(200), "the body stopped arriving"),
}


@pytest.mark.parametrize("broken", list(BROKEN_BODIES))
@pytest.mark.parametrize("write", list(WRITES))
async def test_a_write_whose_2xx_body_breaks_is_done_once_and_says_so(
    write: str, broken: str
) -> None:
    # Its status line said done; a POST was "outcome unknown", a PUT or DELETE sent again.
    method, path, send = WRITES[write]
    answer, why = BROKEN_BODIES[broken]
    server = FakeServer({(method, path): in_turn(answer, GONE)})
    async with server.client() as client:
        done = await send(client)
    assert server.count(method, path) == 1
    assert done.note.startswith(f"its answer's body could not be read: {why}"), done.note
    assert not getattr(done, "already_gone", False)


REFUSED_FIRST = {
    # Nothing reached the server, or it said it did nothing: a 404 then is its own.
    "refused": raises(httpx.ConnectError("[Errno 111] Connection refused")),
    "connect time-out": raises(httpx.ConnectTimeout("timed out connecting")),
    "503": json_response(503, {"message": "busy"}),
    "429": json_response(429, {"message": "slow down"}, **{"Retry-After": "1"}),
}


@pytest.mark.parametrize("first", REFUSED_FIRST.values(), ids=REFUSED_FIRST.keys())
async def test_a_delete_not_found_after_an_attempt_that_did_nothing_is_not_found(
    first: Any,
) -> None:
    server = FakeServer({("DELETE", "/v1/items/x_1"): in_turn(first, GONE)})
    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.delete_item("x_1")
    assert not caught.value.after_unknown_outcome
    assert "most likely deleted" not in str(caught.value)
    assert server.count("DELETE", "/v1/items/x_1") == 2


async def test_a_delete_not_found_at_the_first_attempt_is_not_found() -> None:
    server = FakeServer({("DELETE", "/v1/items/x_1"): GONE})
    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.delete_item("x_1")
    assert not caught.value.after_unknown_outcome
    assert server.count("DELETE", "/v1/items/x_1") == 1


async def test_a_raw_delete_not_found_on_its_repeat_says_the_first_most_likely_deleted_it() -> None:
    # The raw request (`tokensales-tui api DELETE …`) reports the server's answer as it is,
    # and says what it means; a GET's 404 after a lost answer says nothing of the kind.
    server = FakeServer(
        {
            ("DELETE", "/v1/items/x_1"): in_turn(raises(httpx.ReadError("reset")), GONE),
            ("GET", "/v1/items/x_1"): in_turn(raises(httpx.ReadTimeout("t")), GONE),
        }
    )
    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.request(Endpoint("DELETE", "base", "/v1/items/x_1"), None)
        assert caught.value.after_unknown_outcome
        assert "when the request was repeated" in str(caught.value)
        assert "most likely deleted it" in str(caught.value)
        with pytest.raises(NotFoundError) as read:
            await client.get_item("x_1")
    assert not read.value.after_unknown_outcome


# --- a write whose every answer was lost ---------------------------------------------------

EVERY_ANSWER_LOST = {
    "time-out": raises(httpx.ReadTimeout("timed out")),
    "connection reset": raises(httpx.ReadError("connection reset by peer")),
    "502": json_response(502, {"message": "upstream closed the connection"}),
    "504": json_response(504, {"message": "upstream timed out"}),
}


@pytest.mark.parametrize("lost", EVERY_ANSWER_LOST.values(), ids=EVERY_ANSWER_LOST.keys())
@pytest.mark.parametrize("method", ["PUT", "DELETE"])
async def test_a_write_retried_with_every_answer_lost_is_outcome_unknown(
    method: str, lost: Any
) -> None:
    # Each attempt may have been done: "not deleted" (a time-out error) said the opposite.
    server = FakeServer({(method, "/v1/platform-webhooks/wh_1"): lost})
    async with server.client(FakeClock()) as client:
        with pytest.raises(OutcomeUnknownError, match="outcome unknown") as caught:
            if method == "PUT":
                await client.update_webhook("wh_1", WebhookUpdate(url="https://a.example"))
            else:
                await client.delete_webhook("wh_1")
    assert "refresh to check" in str(caught.value)
    assert server.count(method, "/v1/platform-webhooks/wh_1") == 3


@pytest.mark.parametrize("status", [502, 504])
async def test_a_post_answered_by_a_gateway_that_lost_it_is_outcome_unknown(status: int) -> None:
    server = FakeServer({("POST", "/v1/platform-webhooks"): failing_then_ok(status, 1)})
    async with server.client() as client:
        with pytest.raises(OutcomeUnknownError, match=f"HTTP {status} from a gateway"):
            await client.create_webhook(NEW)
    assert server.count("POST", "/v1/platform-webhooks") == 1


LAST_ANSWERS = {
    "503": json_response(503, {"message": "busy"}),
    "429": json_response(429, {"message": "slow down"}, **{"Retry-After": "1"}),
    "500": json_response(500, {"message": "oops"}),
    "refused": raises(httpx.ConnectError("[Errno 111] Connection refused")),
}


@pytest.mark.parametrize("last", LAST_ANSWERS.values(), ids=LAST_ANSWERS.keys())
async def test_a_write_whose_first_answer_was_lost_stays_unknown_whatever_comes_last(
    last: Any,
) -> None:
    # The first attempt may have deleted it: a 503, 429 or 500 to a later one says
    # nothing of that one, and it said "failed" (filed under "not deleted").
    lost = raises(httpx.ReadTimeout("timed out"))
    server = FakeServer({("DELETE", "/v1/items/x_1"): in_turn(lost, last, last, last)})
    async with server.client(FakeClock()) as client:
        with pytest.raises(OutcomeUnknownError) as caught:
            await client.delete_item("x_1")
    assert "did not answer in time" in str(caught.value)  # why it is unknown: the first


async def test_a_delete_never_sent_is_a_network_error_not_an_unknown_outcome() -> None:
    refused = raises(httpx.ConnectError("[Errno 111] Connection refused"))
    server = FakeServer({("DELETE", "/v1/items/x_1"): refused})
    async with server.client(FakeClock()) as client:
        with pytest.raises(NetworkError):
            await client.delete_item("x_1")


async def test_a_410_gone_is_not_found_like_a_404() -> None:
    # It was a validation error: exit 2, "the server rejected the request", for an object
    # the server says is gone for good.
    from tokensales_tui.script.parser import EXIT_NOT_FOUND
    from tokensales_tui.script.run import exit_code

    server = FakeServer({("GET", "/v1/items/it_1"): json_response(410, {"message": "gone"})})
    async with server.client() as client:
        with pytest.raises(NotFoundError, match=r"not found \(gone\)") as raised:
            await client.get_item("it_1")
    assert exit_code(raised.value) == EXIT_NOT_FOUND
    assert server.count("GET", "/v1/items/it_1") == 1
