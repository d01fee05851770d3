"""The emulator delivers signed events to webhooks on this machine, and only there."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.emulator.events import NOT_LOCAL
from tokensales_tui.local import local_target
from tokensales_tui.webhooks.signatures import STANDARD, verify

from .webhookhelpers import Recorder, api_client, fast, serve_on_loopback, trickling_server

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


async def test_changes_through_the_api_reach_a_loopback_webhook_signed() -> None:
    app = create_app(seed=1, items=3)
    recorder = Recorder()
    async with serve_on_loopback(recorder.app()) as url:
        client = await api_client(app)
        events = ["webhook.created", "item.deleted", "collection.deleted"]
        created = await client.post(
            "/v1/platform-webhooks", json={"url": url + "/hook", "events": events, "secret": SECRET}
        )
        assert created.status_code == 201
        item_id = next(iter(app.state.emulator.items))
        assert (await client.delete(f"/v1/items/{item_id}")).status_code == 200
        await recorder.wait_for(2)
        await app.state.emulator.deliveries.idle()
        await client.aclose()
    bodies = {json.loads(body)["type"]: (headers, body) for _, headers, body in recorder.received}
    assert set(bodies) == {"webhook.created", "item.deleted"}
    headers, body = bodies["item.deleted"]
    event = json.loads(body)
    assert event["data"] == {"id": item_id}
    assert set(event) == {"id", "type", "time", "data"}
    verdict = verify(headers, body, SECRET, now=app.state.emulator.clock())
    assert (verdict.status, verdict.scheme) == ("valid", STANDARD)
    created_event = json.loads(bodies["webhook.created"][1])
    assert "secret" not in created_event["data"] and created_event["data"]["url"] == url + "/hook"


async def test_only_active_subscribed_webhooks_receive_and_star_means_every_event() -> None:
    app = create_app(seed=1, items=3)
    emulator = app.state.emulator
    recorder = Recorder()
    async with serve_on_loopback(recorder.app()) as url:
        emulator.webhooks.clear()
        emulator.webhooks["wh_a"] = {
            "id": "wh_a",
            "url": url + "/a",
            "isActive": True,
            "events": ["item.sold"],
        }
        emulator.webhooks["wh_b"] = {
            "id": "wh_b",
            "url": url + "/b",
            "isActive": False,
            "events": ["item.sold"],
        }
        emulator.webhooks["wh_c"] = {
            "id": "wh_c",
            "url": url + "/c",
            "isActive": True,
            "events": ["token.minted"],
        }
        emulator.webhooks["wh_d"] = {
            "id": "wh_d",
            "url": url + "/d",
            "isActive": True,
            "events": ["*"],
        }
        client = await api_client(app)
        answer = await client.post(
            "/_emulator/events", json={"type": "item.sold", "data": {"quantity": 3}}
        )
        assert answer.status_code == 202 and answer.json()["webhooks"] == 2
        await emulator.deliveries.idle()
        await client.aclose()
    assert sorted(path for path, _, _ in recorder.received) == ["/a", "/d"]
    data = json.loads(recorder.received[0][2])["data"]
    assert data["quantity"] == 3 and data["itemId"] in emulator.items
    # Without a secret the delivery carries an id and a time but no signature.
    assert "webhook-signature" not in recorder.received[0][1]
    assert "webhook-id" in recorder.received[0][1]


async def test_a_failing_receiver_is_retried_with_backoff_and_then_given_up() -> None:
    app = create_app(seed=1, items=3)
    fast(app)
    emulator = app.state.emulator
    recorder = Recorder(statuses=[500, 503, 200])
    async with serve_on_loopback(recorder.app()) as url:
        emulator.webhooks.clear()
        emulator.webhooks["wh_a"] = {
            "id": "wh_a",
            "url": url,
            "isActive": True,
            "events": ["item.sold"],
            "secret": "s3",
        }
        emulator.deliveries.emit("other", {}, [])  # outside any subscription: nothing
        client = await api_client(app)
        await client.post("/_emulator/events", json={"type": "item.sold"})
        await emulator.deliveries.idle()
        assert [a.outcome for a in emulator.deliveries.log] == ["500", "503", "200"]
        # Each retry keeps the delivery's id and signs again.
        ids = {headers["webhook-id"] for _, headers, _ in recorder.received}
        assert len(ids) == 1
        recorder.statuses[:] = [500] * 10
        await client.post("/_emulator/events", json={"type": "item.sold"})
        await emulator.deliveries.idle()
        log = await client.get("/_emulator/deliveries")
        await client.aclose()
    outcomes = [entry["outcome"] for entry in log.json()["deliveries"]]
    assert outcomes == ["500", "503", "200", "500", "500", "500", "500"]


async def test_a_connection_refused_is_logged_per_attempt() -> None:
    app = create_app(seed=1, items=3)
    fast(app)
    emulator = app.state.emulator
    async with serve_on_loopback(Recorder().app()) as url:
        pass  # the port is free again: nobody listens there
    emulator.webhooks.clear()
    emulator.webhooks["wh_a"] = {"id": "wh_a", "url": url, "isActive": True, "events": ["x.y"]}
    client = await api_client(app)
    await client.post("/_emulator/events", json={"type": "x.y"})
    await emulator.deliveries.idle()
    await client.aclose()
    assert [a.outcome for a in emulator.deliveries.log] == ["failed: ConnectError"] * 4


async def test_a_url_off_this_machine_is_never_contacted_and_logged() -> None:
    app = create_app(seed=1, items=3)
    emulator = app.state.emulator
    emulator.webhooks.clear()
    for n, url in enumerate(
        ["http://example.com/h", "http://10.0.0.1/", "http://[::ffff:8.8.8.8]/", "ftp://127.0.0.1/"]
    ):
        emulator.webhooks[f"wh_{n}"] = {
            "id": f"wh_{n}",
            "url": url,
            "isActive": True,
            "events": ["item.sold"],
        }
    client = await api_client(app)
    await client.post("/_emulator/events", json={"type": "item.sold"})
    await emulator.deliveries.idle()
    await client.aclose()
    assert [a.outcome for a in emulator.deliveries.log] == [NOT_LOCAL] * 4


async def test_a_demo_served_to_browsers_never_delivers_to_this_machine() -> None:
    # A browser tab of `serve --demo` made the serving machine post to its own local
    # services: a webhook at http://127.0.0.1:PORT/ got every event.
    from tokensales_tui.emulator.events import ONLY_IN_PROCESS
    from tokensales_tui.session import Launch, demo_session

    recorder = Recorder()
    async with serve_on_loopback(recorder.app()) as url:
        session = demo_session(Launch(demo=True, served=True))
        emulator = session.emulator
        assert emulator is not None
        emulator.webhooks.clear()
        emulator.webhooks["wh_a"] = {"id": "wh_a", "url": url, "isActive": True, "events": ["x.y"]}
        emulator.deliveries.emit("x.y", {}, emulator.webhooks.values())
        await emulator.deliveries.idle()
    assert recorder.received == []
    assert [a.outcome for a in emulator.deliveries.log] == [ONLY_IN_PROCESS]
    assert demo_session(Launch(demo=True)).emulator.deliveries.to_this_machine  # type: ignore[union-attr]


def test_local_targets() -> None:
    assert local_target("http://localhost:9/x?y") == "http://127.0.0.1:9/x?y"
    assert local_target("http://127.3.4.5/") == "http://127.3.4.5/"
    assert local_target("http://[::1]:80/") == "http://[::1]:80/"
    assert local_target("http://localhost.example.com/") is None
    assert local_target("http://127.0.0.1.nip.io/") is None
    assert local_target("http://0.0.0.0/") is None
    assert local_target("javascript:alert(1)") is None


def test_a_local_target_named_with_a_final_dot_is_sent_to_the_host_without_it() -> None:
    # This machine, fully qualified: relayed to, and never looked up with its dot.
    assert local_target("http://localhost.:9/x") == "http://127.0.0.1:9/x"
    assert local_target("http://127.0.0.1./") == "http://127.0.0.1/"
    assert local_target("http://localhost../") is None


async def test_a_bad_trigger_is_refused_with_the_catalogue() -> None:
    client = await api_client(create_app(seed=1, items=3))
    bad = await client.post("/_emulator/events", json={"type": "a b\x1b"})
    assert bad.status_code == 422 and "item.sold" in bad.json()["message"]
    # A final newline: "$" of the name's pattern let it through.
    newline = await client.post("/_emulator/events", json={"type": "nl.test\n"})
    assert newline.status_code == 422
    assert (
        await client.post("/_emulator/events", json={"type": "x", "data": [1]})
    ).status_code == 422
    await client.aclose()


_OFFLINE = textwrap.dedent(
    """
    import asyncio, socket, sys
    from tokensales_tui.emulator import create_app
    from tokensales_tui.emulator.events import NOT_LOCAL

    tried = []
    real_connect = socket.socket.connect
    def connect(self, address):
        tried.append(address)
        return real_connect(self, address)
    socket.socket.connect = connect

    async def main():
        app = create_app(seed=1, items=2)
        emulator = app.state.emulator
        emulator.deliveries.backoff = (0.01,)
        emulator.webhooks.clear()
        for n, url in enumerate(["http://93.184.215.14/h", "https://example.com/h", "http://localhost.example/"]):
            emulator.webhooks[str(n)] = {"id": str(n), "url": url, "isActive": True, "events": ["*"]}
        emulator.deliveries.emit("item.sold", {}, list(emulator.webhooks.values()))
        await emulator.deliveries.idle()
        assert [a.outcome for a in emulator.deliveries.log] == [NOT_LOCAL] * 3, emulator.deliveries.log
        assert tried == [], tried
        print("ok")

    asyncio.run(main())
    """
)


def test_nothing_is_delivered_off_the_machine_in_a_network_namespace() -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run([unshare, "-rn", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("unshare -rn is refused here: " + probe.stderr.decode(errors="replace").strip())
    script = f'ip link set lo up && exec {sys.executable} -c "$0"'
    result = subprocess.run(
        [unshare, "-rn", "sh", "-c", script, _OFFLINE],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


async def _run(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tokensales_tui",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


async def test_trigger_and_deliveries_commands_against_a_served_emulator() -> None:
    recorder = Recorder()
    emulator = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tokensales_tui",
        "emulator",
        "--port",
        "0",
        "--items",
        "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert emulator.stdout is not None
    try:
        base = ""
        async with asyncio.timeout(60):
            while not base:
                line = (await emulator.stdout.readline()).decode()
                assert line, "the emulator ended early"
                if line.startswith("export TOKENSALES_BASE_URL="):
                    base = line.strip().partition("=")[2]
        async with serve_on_loopback(recorder.app()) as url:
            async with httpx.AsyncClient(base_url=base, trust_env=False) as client:
                credentials = {"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
                token = (await client.post("/auth/getAccessToken", json=credentials)).json()
                client.headers["Authorization"] = "Bearer " + token["accessToken"]
                hook = {"url": url, "events": ["payment.succeeded"], "secret": "s"}
                assert (await client.post("/v1/platform-webhooks", json=hook)).status_code == 201
            code, out, err = await _run(
                "emulator", "trigger", "payment.succeeded", "--data", '{"amount": 5}', "--url", base
            )
            assert code == 0, err
            event = json.loads(out)
            assert event["type"] == "payment.succeeded" and event["data"]["amount"] == 5
            assert "sent to 4 webhook(s)" in err  # ours and three seeded ones, off the machine
            await recorder.wait_for(1)
            # The served emulator prints each attempt; the log lists it.
            async with asyncio.timeout(30):
                printed = ""
                while ": 200 (" not in printed:
                    printed = (await emulator.stdout.readline()).decode()
            assert event["id"] in printed and url in printed
            code, out, _ = await _run("emulator", "deliveries", "--url", base)
            assert code == 0 and event["id"] in out and "attempt 1: 200" in out
            assert out.count("not delivered: not a local address") == 3
            code, _, err = await _run("emulator", "trigger", "x", "--data", "[1", "--url", base)
            assert code == 2 and "--data is not JSON" in err
    finally:
        emulator.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await emulator.wait()


@contextlib.asynccontextmanager
async def _raw_receiver(answer: bytes, then: bytes, every: float) -> AsyncIterator[str]:
    """A receiver on 127.0.0.1 that reads a request, sends ``answer``, then ``then``
    (``N`` numbered) every ``every`` seconds for a long while; yields its URL."""
    pieces = (then.replace(b"N", str(n).encode()) for n in range(3000))
    async with trickling_server(itertools.chain([answer], pieces), every) as url:
        yield f"{url}/hook"


def _one_webhook(emulator: Any, url: str) -> None:
    emulator.webhooks.clear()
    emulator.webhooks["wh_a"] = {"id": "wh_a", "url": url, "isActive": True, "events": ["*"]}


async def test_an_attempt_has_its_time_out_in_all_however_slowly_headers_trickle() -> None:
    # A header line every 0.1 s never lets a per-read time-out fire.
    app = create_app(seed=1, items=2)
    fast(app)
    emulator = app.state.emulator
    emulator.deliveries.timeout = 0.5
    async with _raw_receiver(b"HTTP/1.1 200 OK\r\n", b"X-N: y\r\n", 0.1) as url:
        _one_webhook(emulator, url)
        emulator.deliveries.emit("item.sold", {}, list(emulator.webhooks.values()))
        async with asyncio.timeout(15):
            await emulator.deliveries.idle()
    assert [a.outcome for a in emulator.deliveries.log] == ["timed out"] * 4
    assert all(a.duration_ms < 1500 for a in emulator.deliveries.log)


async def test_the_body_of_an_answer_is_never_read() -> None:
    # Its status is all a delivery needs; an endless body would hold it (and memory).
    app = create_app(seed=1, items=2)
    emulator = app.state.emulator
    emulator.deliveries.timeout = 2.0
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n"
    async with _raw_receiver(head, b"1000\r\n" + b"x" * 4096 + b"\r\n", 0.05) as url:
        _one_webhook(emulator, url)
        emulator.deliveries.emit("item.sold", {}, list(emulator.webhooks.values()))
        async with asyncio.timeout(15):
            await emulator.deliveries.idle()
    [attempt] = emulator.deliveries.log
    assert attempt.outcome == "200" and attempt.duration_ms < 1000


async def test_whatever_fails_in_a_delivery_is_logged_as_a_failed_attempt() -> None:
    app = create_app(seed=1, items=2)
    fast(app)
    emulator = app.state.emulator
    emulator.webhooks.clear()
    for n, url in enumerate(["http://127.0.0.1:9/\x1b]0;X\x07/\x9b31m", "http://[::1/"]):
        emulator.webhooks[f"wh_{n}"] = {
            "id": f"wh_{n}",
            "url": url,
            "isActive": True,
            "events": ["*"],
        }

    def broken_printer(attempt: Any) -> None:
        raise BrokenPipeError("the reader went away")

    emulator.deliveries.on_attempt = broken_printer
    emulator.deliveries.emit("item.sold", {}, list(emulator.webhooks.values()))
    tasks = list(emulator.deliveries._tasks)
    await emulator.deliveries.idle()
    assert [t.exception() for t in tasks] == [None, None]
    outcomes = {a.webhook_id: a.outcome for a in emulator.deliveries.log}
    assert outcomes == {"wh_0": "failed: InvalidURL", "wh_1": "failed: ValueError"}
    assert len(emulator.deliveries.log) == 2  # not retried: the same request would fail again
