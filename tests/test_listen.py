"""listen: emulator → receiver → relay target on loopback; verdicts, limits, replay, save."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import stat
import sys
import time
from pathlib import Path

import httpx
import pytest

from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.local import reaches
from tokensales_tui.webhooks import receiver as receiver_module
from tokensales_tui.webhooks.listen import ListenError, Listening, ListenOptions, register_command
from tokensales_tui.webhooks.receiver import Receiver, ReceiverServer
from tokensales_tui.webhooks.signatures import (
    GITHUB,
    STANDARD,
    github_signature,
    standard_headers,
    stripe_signature,
)

from .webhookhelpers import Recorder, api_client, fast, serve_on_loopback, trickling_target

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def subscribe(app, url: str, events: list[str], secret: str | None = SECRET) -> None:
    emulator = app.state.emulator
    emulator.webhooks.clear()
    hook = {"id": "wh_listen", "url": url, "isActive": True, "events": events}
    if secret:
        hook["secret"] = secret
    emulator.webhooks["wh_listen"] = hook


async def test_emulator_to_receiver_to_forward_target_end_to_end() -> None:
    app = create_app(seed=2, items=3)
    target = Recorder()
    async with serve_on_loopback(target.app()) as target_url:
        receiver = Receiver(secret=SECRET, forward_to=target_url + "/local/hook")
        server = ReceiverServer(receiver)
        await server.start()
        try:
            subscribe(app, server.url + "/in", ["item.sold"])
            client = await api_client(app)
            await client.post("/_emulator/events", json={"type": "item.sold"})
            await app.state.emulator.deliveries.idle()
            await client.aclose()
        finally:
            await server.stop()
    [delivery] = receiver.deliveries
    assert delivery.event_type == "item.sold" and delivery.path == "/in"
    assert (delivery.verdict.status, delivery.verdict.scheme) == ("valid", STANDARD)
    assert delivery.relay is not None and delivery.relay.status == 200
    # The target got the body and the signature as received.
    [(path, headers, body)] = target.received
    assert path == "/local/hook" and body == delivery.body
    assert headers["webhook-signature"] == delivery.header("webhook-signature")
    assert [a.outcome for a in app.state.emulator.deliveries.log] == ["200"]


async def test_a_failing_target_makes_the_emulator_retry_and_the_repeat_is_flagged() -> None:
    app = create_app(seed=2, items=3)
    fast(app)
    target = Recorder(statuses=[500])
    async with serve_on_loopback(target.app()) as target_url:
        receiver = Receiver(secret=SECRET, forward_to=target_url)
        server = ReceiverServer(receiver)
        await server.start()
        try:
            subscribe(app, server.url, ["token.minted"])
            client = await api_client(app)
            await client.post("/_emulator/events", json={"type": "token.minted"})
            await app.state.emulator.deliveries.idle()
            await client.aclose()
        finally:
            await server.stop()
    first, second = receiver.deliveries
    assert first.relay is not None and first.relay.status == 500
    assert not first.verdict.repeated and second.verdict.repeated
    assert second.verdict.status == "valid" and "repeated id" in second.verdict.label()
    assert [a.outcome for a in app.state.emulator.deliveries.log] == ["500", "200"]


async def test_routes_send_event_types_to_their_own_urls() -> None:
    target = Recorder()
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(routes={"item.sold": url + "/sold"}, forward_to=url + "/rest")
        server = ReceiverServer(receiver)
        await server.start()
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                for kind in ("item.sold", "token.minted", "item.sold"):
                    await client.post(server.url, json={"type": kind})
        finally:
            await server.stop()
    assert [path for path, _, _ in target.received] == ["/sold", "/rest", "/sold"]


def _post_headers(secret: str, timestamp: int, body: bytes) -> dict[str, str]:
    return standard_headers(secret, "msg_1", timestamp, body)


@pytest.mark.parametrize(
    ("headers", "status", "reason"),
    [
        (lambda b, now: _post_headers(SECRET, now, b), "valid", "base64 after whsec_"),
        (lambda b, now: _post_headers("whsec_" + "B" * 32, now, b), "invalid", "wrong secret"),
        (lambda b, now: _post_headers(SECRET, now - 900, b), "invalid", "15 min old"),
        (lambda b, now: {"webhook-id": "msg_1"}, "unsigned", "webhook-id came without one"),
        (
            lambda b, now: {"webhook-id": "msg_1", "webhook-signature": "v1,AAAA"},
            "invalid",
            "missing header webhook-timestamp",
        ),
        (
            lambda b, now: {"Stripe-Signature": stripe_signature(b"whsec_stripe_raw", now, b)},
            "valid",
            "raw text",
        ),
        (
            lambda b, now: {"Stripe-Signature": stripe_signature(b"other", now, b)},
            "invalid",
            "wrong secret",
        ),
        (lambda b, now: {}, "unsigned", "no signature header"),
        (
            lambda b, now: {"X-Hub-Signature-256": github_signature(SECRET.encode(), b)},
            "valid",
            "raw text",
        ),
    ],
)
async def test_every_verdict_through_the_receiver(headers, status: str, reason: str) -> None:
    stripe = "Stripe-Signature" in headers(b"", 0)
    receiver = Receiver(secret="whsec_stripe_raw" if stripe else SECRET)
    server = ReceiverServer(receiver)
    await server.start()
    body = b'{"type": "item.sold", "data": {}}'
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(
                server.url, content=body, headers=headers(body, int(time.time()))
            )
    finally:
        await server.stop()
    assert answer.status_code == 200
    [delivery] = receiver.deliveries
    assert delivery.verdict.status == status
    assert reason in delivery.verdict.reason


async def _raw_exchange(url: str, request: bytes) -> bytes:
    """Send ``request`` as bytes (httpx refuses odd header values); the whole answer."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        async with asyncio.timeout(20):
            return await reader.read()
    finally:
        writer.close()


def _raw_post(headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return (
        b"POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + head
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


@pytest.mark.parametrize("timestamp", [b"\xb2", b"\xb9", b"\xb3", b"1700000000\xb2"])
async def test_a_timestamp_of_superscript_digits_is_invalid_not_a_crash(timestamp: bytes) -> None:
    receiver = Receiver(secret=SECRET)
    server = ReceiverServer(receiver)
    await server.start()
    body = b'{"type": "item.sold"}'
    headers = [
        (b"webhook-id", b"msg_1"),
        (b"webhook-timestamp", timestamp),
        (b"webhook-signature", b"v1,AAAA"),
    ]
    try:
        answer = await _raw_exchange(server.url, _raw_post(headers, body))
    finally:
        await server.stop()
    assert answer.startswith(b"HTTP/1.1 200 ")
    [delivery] = receiver.deliveries
    assert (delivery.verdict.status, delivery.verdict.scheme) == ("invalid", STANDARD)
    assert "is not a number of seconds" in delivery.verdict.reason


async def test_a_body_cut_short_is_kept_as_such_never_judged_relayed_or_remembered(
    tmp_path: Path,
) -> None:
    save = tmp_path / "deliveries.jsonl"
    target = Recorder()
    body = b'{"type": "item.sold", "data": {"note": "' + b"x" * 64 + b'"}}'
    headers = standard_headers(SECRET, "msg_cut", int(time.time()), body)
    whole = _raw_post([(k.encode(), v.encode()) for k, v in headers.items()], body)
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(secret=SECRET, forward_to=url, save=str(save))
        server = ReceiverServer(receiver)
        await server.start()
        try:
            # Content-Length says 100-odd bytes; 16 come, then the sender goes away.
            host, port = server.url.removeprefix("http://").split(":")
            _, writer = await asyncio.open_connection(host, int(port))
            writer.write(whole[: len(whole) - len(body) + 16])
            await writer.drain()
            writer.close()
            async with asyncio.timeout(20):
                while not (receiver.deliveries and receiver.deliveries[0].done):
                    await asyncio.sleep(0.02)
            # The sender tries again with the whole body.
            answer = await _raw_exchange(server.url, whole)
        finally:
            await server.stop()
    assert answer.startswith(b"HTTP/1.1 200 ")
    cut, again = receiver.deliveries
    # The whole delivery is judged on its own: valid, not a repeat, relayed once.
    assert [received_body for _, _, received_body in target.received] == [body]
    assert again.verdict.ok and again.relay is not None
    assert cut.relay is None and cut.verdict.status == "invalid"
    assert f"of {len(body)} came before the sender closed the connection" in cut.verdict.reason
    assert cut.verdict.label().startswith("invalid: cut short: ")
    assert cut.cut_short and not again.cut_short
    first, second = (json.loads(line) for line in save.read_text().splitlines())
    assert first["cut_short"] is True and first["verdict"]["status"] == "invalid"
    assert "cut_short" not in second and second["verdict"]["status"] == "valid"


async def test_a_body_shorter_than_its_content_length_is_cut_short() -> None:
    # What uvicorn never hands over, another server (or an in-process transport) might.
    receiver = Receiver(secret=SECRET)
    body = b'{"type": "item.sold"}'
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(b"content-length", str(len(body) + 10).encode())],
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await receiver(scope, receive, send)
    [delivery] = receiver.deliveries
    assert delivery.verdict.status == "invalid" and sent[0]["status"] == 400
    assert delivery.verdict.reason.startswith(
        f"cut short: {len(body)} bytes of {len(body) + 10} came; "
    )
    assert delivery.cut_short


def _break(receiver: Receiver, where: str) -> contextlib.AbstractContextManager[None]:
    """Make one step of handling a delivery fail as a bug of ours would, while in the block."""

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault planted by the test")

    @contextlib.contextmanager
    def broken():  # type: ignore[no-untyped-def]
        unwritable = os.open(os.devnull, os.O_RDONLY)
        try:
            with pytest.MonkeyPatch.context() as patch:
                if where == "judging":
                    patch.setattr(receiver_module, "verify", boom)
                elif where == "event type":
                    patch.setattr(receiver_module, "event_type_of", boom)
                elif where == "showing":
                    patch.setattr(receiver, "on_change", boom)
                else:  # saving: the file cannot be written (like a disk that went away)
                    patch.setattr(receiver, "_save_fd", unwritable)
                yield
        finally:
            os.close(unwritable)

    return broken()


@pytest.mark.parametrize("where", ["judging", "event type", "showing", "saving"])
async def test_a_fault_in_handling_a_delivery_is_kept_logged_and_answered_500(
    where: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    save = tmp_path / "deliveries.jsonl"
    target = Recorder()
    body = b'{"type": "item.sold"}'
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(secret=SECRET, save=str(save), routes={"item.sold": url})
        server = ReceiverServer(receiver)
        await server.start()
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                with _break(receiver, where):
                    answer = await client.post(
                        server.url,
                        content=body,
                        headers=_post_headers(SECRET, int(time.time()), body),
                    )
                # The receiver goes on: the next delivery is judged as ever.
                after = await client.post(server.url, json={"type": "next"})
        finally:
            await server.stop()
    assert (answer.status_code, after.status_code) == (500, 200)
    first, second = receiver.deliveries
    assert receiver.count == 2 and first.done and second.verdict.status == "unsigned"
    stage = "judging" if where == "event type" else where
    error = "OSError" if where == "saving" else "RuntimeError"
    assert first.problem is not None and f"{error} while {stage} it" in first.problem
    saved = [json.loads(line) for line in save.read_text().splitlines()]
    if where in ("judging", "event type"):
        assert first.verdict.status == "error" and first.relay is None
        assert first.verdict.label().startswith("error: listen failed, not judged: RuntimeError")
        assert saved[0]["verdict"]["status"] == "error" and "problem" in saved[0]
    else:
        assert first.verdict.status == "valid" and first.relay is not None
    # Relayed only when the fault came after the relay; never left "on its way".
    assert len(target.received) == (1 if where == "saving" else 0)
    if where == "saving":
        assert first.relay is not None and first.relay.status == 200
    elif where == "showing":
        assert first.relay is not None and first.relay.error == "not relayed"
    assert saved[-1]["type"] == "next"
    # The traceback went to the app's own log, nothing to the terminal.
    record = next(r for r in caplog.records if "a delivery failed" in r.getMessage())
    assert record.name == "tokensales_tui.webhooks"
    assert record.exc_info is not None and error in repr(record.exc_info[1])
    assert not any(r.name.startswith("uvicorn") for r in caplog.records)
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Exception in ASGI" not in out + err


class _Broken(Receiver):
    async def __call__(self, scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            raise RuntimeError("an app that fails")


async def test_what_the_server_logs_goes_to_the_app_log_never_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from tokensales_tui.debug_log import disable_debug_log, enable_debug_log

    log = tmp_path / "debug.log"
    handler = enable_debug_log(str(log))
    server = ReceiverServer(_Broken())
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(server.url, content=b"{}")
    finally:
        await server.stop()
        disable_debug_log(handler)
    assert answer.status_code == 500
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Exception in ASGI" not in out + err
    text = log.read_text()
    assert "Exception in ASGI application" in text and "an app that fails" in text


async def test_a_github_signature_names_its_scheme() -> None:
    receiver = Receiver(secret="It's a Secret to Everybody")
    server = ReceiverServer(receiver)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            await client.post(
                server.url,
                content=b"Hello, World!",
                headers={
                    "X-Hub-Signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
                    "X-GitHub-Event": "push",
                },
            )
    finally:
        await server.stop()
    [delivery] = receiver.deliveries
    assert (delivery.verdict.status, delivery.verdict.scheme, delivery.event_type) == (
        "valid",
        GITHUB,
        "push",
    )


async def test_body_cap_and_the_bound_on_kept_deliveries(tmp_path: Path) -> None:
    save = tmp_path / "deliveries.jsonl"
    receiver = Receiver(body_limit=1000, keep=3, save=str(save))
    server = ReceiverServer(receiver)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            big = await client.post(server.url, content=b"x" * 5000)
            for n in range(5):
                await client.post(
                    server.url,
                    json={"type": f"t{n}", "text": "\x1b]52;c;SGk=\x07"},
                    headers={"Authorization": "Bearer sk_live_secret_token"},
                )
    finally:
        await server.stop()
    assert big.status_code == 413
    assert receiver.count == 6 and [d.event_type for d in receiver.deliveries] == ["t2", "t3", "t4"]
    assert stat.S_IMODE(save.stat().st_mode) == 0o600
    lines = save.read_text(encoding="ascii").splitlines()
    assert len(lines) == 6
    first = json.loads(lines[0])
    assert first["size"] == 5000 and first["body"] == "" and "limit" in first["verdict"]["reason"]
    assert "\x1b" not in lines[1] and json.loads(json.loads(lines[1])["body"])["type"] == "t0"
    assert "sk_live_secret_token" not in save.read_text(encoding="ascii")
    assert ["authorization", "********"] in json.loads(lines[1])["headers"]


async def test_replay_signs_again_with_a_fresh_timestamp() -> None:
    now = [1_700_000_000.0]
    target = Recorder()
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(secret=SECRET, forward_to=url, clock=lambda: now[0])
        server = ReceiverServer(receiver)
        await server.start()
        body = b'{"type": "item.sold"}'
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                await client.post(
                    server.url, content=body, headers=_post_headers(SECRET, int(now[0]), body)
                )
            now[0] += 3600
            replay = await receiver.replay(receiver.deliveries[0])
        finally:
            await server.stop()
    assert replay.status == 200 and replay.resigned
    (_, first, _), (_, again, again_body) = target.received
    assert again["webhook-id"] == first["webhook-id"] and again_body == body
    assert int(again["webhook-timestamp"]) == int(now[0])
    from tokensales_tui.webhooks.signatures import verify

    assert verify(again, again_body, SECRET, now=now[0]).status == "valid"
    assert verify(first, body, SECRET, now=now[0]).status == "invalid"  # the original is stale


async def test_a_relay_to_a_target_that_trickles_ends_at_its_deadline() -> None:
    async with trickling_target() as url:
        receiver = Receiver(forward_to=url, relay_deadline=1.0)
        server = ReceiverServer(receiver)
        await server.start()
        try:
            async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
                started = time.monotonic()
                answer = await client.post(server.url, json={"type": "item.sold"})
                took = time.monotonic() - started
        finally:
            await server.stop()
    # The sender is answered once the deadline is over, not when the target is done.
    assert answer.status_code == 504 and 1.0 <= took < 5
    [delivery] = receiver.deliveries
    assert delivery.relay is not None and delivery.relay.timed_out
    assert delivery.relay.label() == "timed out: no answer within 1 s" and delivery.done


async def test_a_replay_is_listed_pending_at_once_and_ends_at_its_deadline() -> None:
    receiver = Receiver(relay_deadline=1.0)
    server = ReceiverServer(receiver)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            await client.post(server.url, json={"type": "item.sold"})
        async with trickling_target() as url:
            receiver.forward_to = url
            [delivery] = receiver.deliveries
            replay = asyncio.create_task(receiver.replay(delivery))
            await asyncio.sleep(0.2)
            assert len(delivery.replays) == 1 and delivery.replays[0].pending
            async with asyncio.timeout(5):
                outcome = await replay
    finally:
        await server.stop()
    assert outcome is delivery.replays[0] and not outcome.pending
    assert outcome.timed_out and outcome.status is None and 1000 <= outcome.latency_ms < 5000


async def test_a_repeated_webhook_id_is_invalid_relayed_and_replayed_as_received() -> None:
    target = Recorder()
    body = b'{"type": "item.sold"}'
    signed = standard_headers(SECRET, "msg_signed", int(time.time()), body)
    # The id that was signed comes last: a reader keeping the last would call it valid,
    # one keeping the first would sign a replay with the other.
    headers = [(b"webhook-id", b"msg_decoy")]
    headers += [(name.encode(), value.encode()) for name, value in signed.items()]
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(secret=SECRET, forward_to=url)
        server = ReceiverServer(receiver)
        await server.start()
        try:
            answer = await _raw_exchange(server.url, _raw_post(headers, body))
            outcome = await receiver.replay(receiver.deliveries[0])
        finally:
            await server.stop()
    assert answer.startswith(b"HTTP/1.1 200 ")
    [delivery] = receiver.deliveries
    assert (delivery.verdict.status, delivery.verdict.scheme) == ("invalid", STANDARD)
    assert delivery.verdict.reason == "webhook-id comes 2 times (which one counts is ambiguous)"
    assert delivery.verdict.delivery_id == delivery.header("webhook-id") == "msg_decoy"
    # Relayed and replayed as received, both ids in their order, never signed anew.
    assert outcome.status == 200 and not outcome.resigned
    relayed, replayed = target.raw_headers
    for sent in (relayed, replayed):
        ids = [value for name, value in sent if name == "webhook-id"]
        assert ids == ["msg_decoy", "msg_signed"]
        assert [v for k, v in sent if k == "webhook-signature"] == [signed["webhook-signature"]]


async def _deliver_in_parts(receiver: Receiver, parts: list[dict], announced: int) -> int:
    """Hand ``receiver`` one POST whose body comes as ``parts``; the status it answers."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(b"content-length", str(announced).encode())],
    }
    sent: list[dict] = []
    pending = list(parts)

    async def receive() -> dict:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await receiver(scope, receive, send)
    return sent[0]["status"]


async def test_only_a_delivery_that_came_whole_is_replayed() -> None:
    relayed: list[bytes] = []

    def target(request: httpx.Request) -> httpx.Response:
        relayed.append(request.content)
        return httpx.Response(200)

    receiver = Receiver(
        forward_to="http://127.0.0.1:9/in",
        body_limit=100,
        transport=httpx.MockTransport(target),
    )
    body = b'{"type": "item.sold", "data": {"amount": 100}}'
    part = {"type": "http.request", "body": body[:20], "more_body": True}
    whole = {"type": "http.request", "body": body, "more_body": False}
    over = {"type": "http.request", "body": b"x" * 500, "more_body": False}
    assert await _deliver_in_parts(receiver, [part], len(body)) == 400  # the sender went away
    assert await _deliver_in_parts(receiver, [over], 500) == 413
    with pytest.MonkeyPatch.context() as patch:  # a fault of ours while reading
        patch.setattr(receiver, "_read", lambda *args: 1 / 0)
        assert await _deliver_in_parts(receiver, [whole], len(body)) == 500
    assert await _deliver_in_parts(receiver, [whole], len(body)) == 200
    cut, too_large, unread, good = receiver.deliveries
    assert relayed == [body]  # the whole one, relayed on arrival
    outcomes = [await receiver.replay(delivery) for delivery in receiver.deliveries]
    assert [outcome.error for outcome in outcomes[:3]] == [
        "cut short, only 20 bytes came",
        "body over the 100 byte limit, not kept",
        "listen failed before reading its body",
    ]
    assert all(outcome.status is None for outcome in outcomes[:3])
    assert not (cut.replays or too_large.replays or unread.replays)
    assert outcomes[3].status == 200 and good.replays == [outcomes[3]]
    assert relayed == [body, body]  # nothing went out for the three refused


async def test_replay_without_a_target_says_so() -> None:
    receiver = Receiver()
    server = ReceiverServer(receiver)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            await client.post(server.url, json={"type": "a"})
        outcome = await receiver.replay(receiver.deliveries[0])
    finally:
        await server.stop()
    assert outcome.status is None and "--forward-to" in (outcome.error or "")


# --- the command ------------------------------------------------------------------


async def _start(*args: str, env: dict[str, str] | None = None) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tokensales_tui",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


async def _line_with(stream: asyncio.StreamReader, text: str, timeout: float = 60) -> str:
    async with asyncio.timeout(timeout):
        while True:
            line = (await stream.readline()).decode()
            assert line, f"ended before {text!r}"
            if text in line:
                return line


async def test_listen_print_writes_a_line_per_delivery_and_stops_on_sigterm() -> None:
    process = await _start("listen", "--print", "--port", "0")
    assert process.stdout is not None and process.stderr is not None
    try:
        url = (await _line_with(process.stderr, "listening on")).split()[-1]
        body = b'{"type": "payment.succeeded", "x": "\\u001b[31m"}'
        async with httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(
                url, content=body, headers=_post_headers(SECRET, int(time.time()), body)
            )
        assert answer.status_code == 200
        line = await _line_with(process.stdout, "payment.succeeded")
        assert "unchecked · Standard Webhooks (no secret)" in line and "not relayed" in line
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await process.wait()
    assert process.returncode == 128 + signal.SIGTERM


async def test_listen_print_keeps_a_signal_ignored_when_it_starts_ignored() -> None:
    # nohup listen --print: SIGHUP was taken all the same, and the terminal closing
    # stopped it. Linux hands pending signals over lowest number first: a SIGHUP or a
    # SIGUSR1 not ignored would stop it before the SIGTERM sent after them.
    ignored = (signal.SIGHUP, signal.SIGUSR1)

    def ignoring() -> None:
        for signum in ignored:
            signal.signal(signum, signal.SIG_IGN)

    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tokensales_tui", "listen", "--print", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, preexec_fn=ignoring,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        await _line_with(process.stderr, "listening on")
        for signum in ignored:
            process.send_signal(signum)
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 128 + signal.SIGTERM


async def test_listen_print_to_a_full_disk_answers_the_delivery_and_ends_in_one_line() -> None:
    # It answered each sender 500 for its own output's failure, said nothing, ran on,
    # and ended with 0.
    with open("/dev/full", "wb") as full:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tokensales_tui", "listen", "--print", "--port", "0",
            stdout=full, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    assert process.stderr is not None
    try:
        url = (await _line_with(process.stderr, "listening on")).split()[-1]
        body = b'{"type": "payment.succeeded"}'
        async with httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(
                url, content=body, headers=_post_headers(SECRET, int(time.time()), body)
            )
        assert answer.status_code == 200
        said = await _line_with(process.stderr, "cannot write the output")
        assert said.strip() == "tokensales-tui: cannot write the output: No space left on device"
        async with asyncio.timeout(30):
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 1


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--forward-to", "http://example.com/hook"], "this machine only"),
        (["--route", "a=http://10.1.2.3/"], "this machine only"),
        (["--route", "nourl"], "EVENT=URL"),
        (["--host", "0.0.0.0"], "--expose"),
        (["--register", "https://x.example/hook"], "--events"),
        (["--secret", "s3cr3t-value"], "--secret is not accepted"),
    ],
)
async def test_listen_refuses_bad_flags_in_one_line(flags: list[str], message: str) -> None:
    process = await _start("listen", "--print", *flags)
    async with asyncio.timeout(60):
        _, err = await process.communicate()
    assert process.returncode == 2
    assert message in err.decode() and "s3cr3t-value" not in err.decode()


async def test_listen_takes_the_debug_log_and_refuses_one_it_cannot_use(tmp_path: Path) -> None:
    process = await _start("--log", str(tmp_path / "missing" / "debug.log"), "listen", "--print")
    async with asyncio.timeout(60):
        _, err = await process.communicate()
    assert process.returncode == 2 and err.decode().startswith("tokensales-tui: --log ")
    log = tmp_path / "debug.log"
    process = await _start("--log", str(log), "listen", "--print")
    assert process.stderr is not None
    try:
        await _line_with(process.stderr, "listening on")
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await process.wait()
    assert process.returncode == 128 + signal.SIGTERM


async def _served_emulator() -> tuple[asyncio.subprocess.Process, str]:
    emulator = await _start("emulator", "--port", "0", "--items", "2")
    assert emulator.stdout is not None
    line = await _line_with(emulator.stdout, "export TOKENSALES_BASE_URL=")
    return emulator, line.strip().partition("=")[2]


async def _webhook_urls(base: str) -> list[str]:
    async with httpx.AsyncClient(base_url=base, trust_env=False) as client:
        credentials = {"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
        token = (await client.post("/auth/getAccessToken", json=credentials)).json()["accessToken"]
        answer = await client.get(
            "/v1/platform-webhooks", headers={"Authorization": f"Bearer {token}"}
        )
        return [hook["url"] for hook in answer.json()]


@pytest.mark.parametrize(
    "stop",
    [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1],
    ids=["INT", "TERM", "HUP", "QUIT", "USR1"],
)
async def test_register_creates_a_webhook_and_deletes_it_on_ctrl_c(stop: signal.Signals) -> None:
    # SIGHUP: the terminal closed, the SSH session lost (it left the webhook behind);
    # SIGQUIT, SIGUSR1: their default killed listen, the webhook left behind. Each ends
    # it with 128 + its number, as the screen ends on it (it was 0).
    emulator, base = await _served_emulator()
    env = {
        "TOKENSALES_BASE_URL": base,
        "TOKENSALES_API_KEY": DEMO_API_KEY,
        "TOKENSALES_API_SECRET": DEMO_API_SECRET,
    }
    public = "http://127.0.0.1:9/tunnel"
    try:
        listen = await _start(
            "listen", "--print", "--register", public, "--events", "item.sold", env=env
        )
        assert listen.stderr is not None and listen.stdout is not None
        await _line_with(listen.stderr, "registered webhook wh_")
        assert public in await _webhook_urls(base)
        listen.send_signal(stop)
        async with asyncio.timeout(30):
            await listen.wait()
        assert listen.returncode == 128 + stop
        assert public not in await _webhook_urls(base)
        # A read-only profile refuses before anything is created.
        refused = await _start(
            "listen", "--print", "--read-only", "--register", public, "--events", "a", env=env
        )
        async with asyncio.timeout(60):
            _, err = await refused.communicate()
        assert refused.returncode == 5 and "read-only" in err.decode()
        assert public not in await _webhook_urls(base)
    finally:
        emulator.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await emulator.wait()


async def test_the_listen_screen_deletes_its_webhook_on_sigterm_and_on_q() -> None:
    import pty

    emulator, base = await _served_emulator()
    env = {
        **os.environ,
        "TOKENSALES_BASE_URL": base,
        "TOKENSALES_API_KEY": DEMO_API_KEY,
        "TOKENSALES_API_SECRET": DEMO_API_SECRET,
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "30",
    }
    public = "http://127.0.0.1:9/screen-tunnel"
    try:
        for stop in ("SIGTERM", "q"):
            controller, terminal = pty.openpty()
            listen = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tokensales_tui",
                "listen",
                "--register",
                public,
                "--events",
                "item.sold",
                stdin=terminal,
                stdout=terminal,
                stderr=terminal,
                env=env,
            )
            os.close(terminal)
            os.set_blocking(controller, False)
            try:
                drawn = b""
                async with asyncio.timeout(60):
                    while public not in await _webhook_urls(base):
                        await asyncio.sleep(0.2)
                    while b"received" not in drawn:  # the screen is up and reads keys
                        with contextlib.suppress(BlockingIOError, OSError):
                            drawn += os.read(controller, 65536)
                        await asyncio.sleep(0.05)
                if stop == "q":
                    os.write(controller, b"q")
                else:
                    listen.send_signal(signal.SIGTERM)
                async with asyncio.timeout(60):
                    while listen.returncode is None:
                        with contextlib.suppress(BlockingIOError, OSError):
                            os.read(controller, 65536)  # keep the terminal drained
                        await asyncio.sleep(0.05)
            finally:
                if listen.returncode is None:
                    listen.kill()
                os.close(controller)
            # As listen --print ends on the same signal; q is a success.
            assert listen.returncode == (0 if stop == "q" else 128 + signal.SIGTERM), stop
            assert public not in await _webhook_urls(base), stop
    finally:
        emulator.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await emulator.wait()


async def test_a_save_file_that_is_a_link_empty_or_in_no_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("kept\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    for path in (link, tmp_path / "missing" / "x.jsonl"):
        process = await _start("listen", "--print", "--save", str(path))
        async with asyncio.timeout(60):
            _, err = await process.communicate()
        assert process.returncode == 2, err
        assert (
            err.decode().startswith("tokensales-tui: --save ") and "Traceback" not in err.decode()
        )
        if path == link:  # it said "Too many levels of symbolic links"
            assert "a symbolic link" in err.decode(), err
    assert target.read_text() == "kept\n"
    # An empty name had meant no save at all, with nothing said.
    process = await _start("listen", "--print", "--save", "")
    async with asyncio.timeout(60):
        _, err = await process.communicate()
    assert process.returncode == 2 and "--save: a file name is needed" in err.decode(), err


@pytest.mark.parametrize("second_lookup", ["fails", "finds"])
async def test_a_webhook_whose_id_was_not_found_is_looked_for_again_or_named(
    second_lookup: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The list after the create failed: the webhook stayed, never deleted nor named.
    from tokensales_tui.api import ServerError
    from tokensales_tui.webhooks.listen import Registration

    from .apifakes import FakeServer, json_response

    hooks: list[dict[str, object]] = []
    lists = {"n": 0}

    def listed(request: httpx.Request) -> httpx.Response:
        lists["n"] += 1
        if lists["n"] == 2 or (second_lookup == "fails" and lists["n"] > 1):
            return httpx.Response(500, json={"message": "busy"})
        return httpx.Response(200, json=hooks)

    def created(request: httpx.Request) -> httpx.Response:
        hooks.append({"id": "wh_made", "url": "https://t.example/in", "events": ["a"]})
        return httpx.Response(201)

    server = FakeServer(
        {
            ("GET", "/v1/platform-webhooks"): listed,
            ("POST", "/v1/platform-webhooks"): created,
            ("DELETE", "/v1/platform-webhooks/wh_made"): json_response(200, {}),
        }
    )
    async with server.client() as client:
        registration = Registration(client, "https://t.example/in", ["a"], "whsec_x")
        with pytest.raises(ServerError):
            await registration.create()
        assert registration.sent and registration.webhook_ids == []
        left = await registration.delete()
    assert left == []
    deleted = server.count("DELETE", "/v1/platform-webhooks/wh_made")
    assert (deleted, registration.unfound) == (
        (0, True) if second_lookup == "fails" else (1, False)
    )


@pytest.mark.parametrize("kind", ["forward", "route"])
async def test_a_target_at_listens_own_address_is_refused(kind: str) -> None:
    # One POST became 101 deliveries relayed to listen itself, and held healthy relays.
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    own = f"http://localhost:{port}/in"
    options = (
        ListenOptions(port=port, forward_to=own)
        if kind == "forward"
        else ListenOptions(port=port, routes={"a": own})
    )
    with pytest.raises(ListenError, match="is listen's own address"):
        async with Listening(options):
            pass


def test_the_suggested_register_command_pastes_as_one_command() -> None:
    import shlex

    command = register_command(9000, ["item.sold", "*", "a b\n$(x)"])
    assert shlex.split(command) == [
        "tokensales-tui",
        *("listen", "--port", "9000", "--register", "PUBLIC_URL"),
        *("--events", "item.sold,*,a b↵$(x)"),
    ]
    assert "\n" not in command
    assert register_command(9000, []).endswith("--events EVENT1,EVENT2")


def _bound(host: str, *, v6only: bool | None = None) -> socket.socket:
    """A socket bound to ``host`` on a free port, never listening: nothing reaches it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    if v6only is not None:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(v6only))
    sock.bind((host, 0))
    return sock


def _has_ipv6() -> bool:
    try:
        _bound("::1").close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("bound", "v6only", "target", "arrives"),
    [
        ("127.0.0.1", None, "127.0.0.1", True),
        ("127.0.0.1", None, "localhost", True),
        ("127.0.0.1", None, "127.0.0.2", False),
        ("127.0.0.1", None, "[::1]", False),
        ("0.0.0.0", None, "127.0.0.1", True),
        ("0.0.0.0", None, "localhost", True),
        ("0.0.0.0", None, "127.0.0.2", True),
        ("0.0.0.0", None, "[::1]", False),
        ("::", False, "127.0.0.1", True),
        ("::", False, "[::1]", True),
        ("::", True, "127.0.0.1", False),
        ("::", True, "[::1]", True),
        ("::1", None, "[::1]", True),
        ("::1", None, "127.0.0.1", False),
    ],
)
def test_a_relay_reaches_the_socket_exactly_when_the_system_would_deliver_it(
    bound: str, v6only: bool | None, target: str, arrives: bool
) -> None:
    # Bound to 0.0.0.0 or ::, listen took relays to 127.0.0.1 for another address's; bound
    # to 127.0.0.1 it refused [::1] and 127.0.0.2, which no socket on 127.0.0.1 receives.
    if ":" in bound and not _has_ipv6():
        pytest.skip("no IPv6 on this machine")
    with _bound(bound, v6only=v6only) as sock:
        port = sock.getsockname()[1]
        assert reaches(f"http://{target}:{port}/in", sock) is arrives
        assert not reaches(f"http://{target}:{port + 1 if port < 65535 else 1}/in", sock)


@pytest.mark.parametrize("kind", ["forward", "route"])
async def test_a_target_at_listens_own_address_is_refused_when_bound_to_every_address(
    kind: str,
) -> None:
    # One POST became 101 deliveries: the check compared 0.0.0.0 with 127.0.0.1. It is
    # made before listen listens, so nothing is ever served on 0.0.0.0 here.
    with _bound("127.0.0.1") as probe:
        port = probe.getsockname()[1]
    own = f"http://127.0.0.1:{port}/in"
    routes = {"item.sold": own} if kind == "route" else {}
    options = ListenOptions(
        host="0.0.0.0",
        expose=True,
        port=port,
        forward_to=own if kind == "forward" else None,
        routes=routes,
    )
    with pytest.raises(ListenError, match="is listen's own address"):
        async with Listening(options):
            pass


async def test_a_target_on_another_loopback_address_of_the_same_port_is_relayed_to() -> None:
    # Bound to 127.0.0.1:P, a target at 127.0.0.2:P is another socket (refused before).
    target = Recorder()
    async with serve_on_loopback(target.app(), host="127.0.0.2") as url:
        port = int(url.rsplit(":", 1)[1])
        options = ListenOptions(port=port, forward_to=url + "/in")
        async with Listening(options) as listening, httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(listening.url, json={"type": "item.sold"})
    assert answer.status_code == 200 and [path for path, _, _ in target.received] == ["/in"]


@pytest.mark.parametrize("host", ["127.1", "0x7f.0.0.1", "::ffff:127.0.0.1"])
def test_listen_takes_a_loopback_host_in_any_form_without_expose(host: str) -> None:
    from tokensales_tui.cli import build_parser
    from tokensales_tui.webhooks.listen import options_from

    assert options_from(build_parser().parse_args(["listen", "--host", host])).host == host


async def test_header_values_are_read_as_utf8_when_they_are_else_as_latin1(
    tmp_path: Path,
) -> None:
    """``X-Event-Type: café.sold`` sent as UTF-8 showed as ``cafÃ©.sold`` (read as Latin-1)
    in the list, --print and --save, and never matched ``--route café.sold=…``."""
    save = tmp_path / "deliveries.jsonl"
    target = Recorder()
    body = b'{"data": 1}'
    utf8 = "café.sold".encode()
    async with serve_on_loopback(target.app()) as url:
        receiver = Receiver(
            secret=SECRET, routes={"café.sold": url + "/sold"}, forward_to=url, save=str(save)
        )
        server = ReceiverServer(receiver)
        await server.start()
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                for event_type, note in [(utf8, b"\xe2\x82\xac 5"), (b"caf\xe9.sold", b"\xff")]:
                    signed = standard_headers(SECRET, f"msg_é{len(note)}", int(time.time()), body)
                    headers = [(k.encode(), v.encode()) for k, v in signed.items()]
                    headers += [(b"x-event-type", event_type), (b"x-note", note)]
                    await client.post(server.url, content=body, headers=headers)
            await target.wait_for(2)
            replay = await receiver.replay(receiver.deliveries[0])
        finally:
            await server.stop()
    first, second = receiver.deliveries
    assert first.event_type == "café.sold" and first.header("x-note") == "€ 5"
    assert "café.sold" in first.line()
    # Not UTF-8: each byte a character (é is E9 in Latin-1 too), said so where it is saved.
    assert second.event_type == "café.sold" and second.header("x-note") == "ÿ"
    # Routed by the type as read; relayed (and replayed) as the bytes received.
    assert [path for path, _, _ in target.received] == ["/sold", "/sold", "/sold"]
    sent = [dict((k, v.encode("latin-1")) for k, v in raw) for raw in target.raw_headers]
    assert [s["x-event-type"] for s in sent] == [utf8, b"caf\xe9.sold", utf8]
    assert [s["x-note"] for s in sent] == [b"\xe2\x82\xac 5", b"\xff", b"\xe2\x82\xac 5"]
    assert sent[0]["webhook-id"] == "msg_é5".encode()
    # The signature is checked over the bytes received, as its sender signed them.
    assert first.verdict.ok and replay.status == 200 and replay.resigned
    saved = [json.loads(line) for line in save.read_text().splitlines()]
    assert [record["type"] for record in saved] == ["café.sold", "café.sold"]
    assert ["x-event-type", "café.sold"] in saved[0]["headers"]
    assert "latin1_headers" not in saved[0]
    names = [saved[1]["headers"][index][0] for index in saved[1]["latin1_headers"]]
    assert names == ["x-event-type", "x-note"]
