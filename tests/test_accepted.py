"""A write answered 202 Accepted is reported as accepted by the server, not as done.

202 says the server took the write to be processed later: it may still fail. Every
report of a write goes through ``Done.said``, which says so for a 202 (the commands,
the app's toasts, the forms, ``listen --register``); the exit code stays 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tokensales_tui.api import Done
from tokensales_tui.api.client import ACCEPTED_NOTE, Created, Deleted

from .apphelpers import loaded, rigged_app, wait_for, wait_for_screen
from .test_reliability_network import KeptAlive, raw_answer
from .test_script import run_against
from .test_write_notes import listen_registering

JSON_TYPE = "Content-Type: application/json"
QUEUED = raw_answer(202, b'{"status":"queued"}', JSON_TYPE)


def test_done_says_a_202_was_only_accepted_and_keeps_its_status() -> None:
    assert Done(status=202).said("created webhook x") == f"created webhook x ({ACCEPTED_NOTE})"
    assert Done(status=202).said("created webhook x", "free") == (
        f"created webhook x ({ACCEPTED_NOTE}; free)"
    )
    assert Deleted(status=202).unusual and Created(status=202).accepted
    assert Done(status=201).said("created webhook x") == "created webhook x"
    assert not Done(status=200).unusual


def test_create_webhook_answered_202_says_accepted_not_done() -> None:
    # It printed "created webhook https://…", as if the server had made it.
    with KeptAlive({("POST", "/v1/platform-webhooks"): QUEUED}) as server:
        result = run_against(
            server.url, "create", "webhook", "--url", "https://e.test/h", "--event", "item.sold"
        )
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().splitlines() == [
        f"tokensales-tui: created webhook https://e.test/h ({ACCEPTED_NOTE})"
    ]


def test_api_write_answered_202_says_accepted_beside_its_body(tmp_path: Path) -> None:
    body = tmp_path / "hook.json"
    body.write_text('{"url": "https://e.test/h", "events": ["item.sold"]}', encoding="utf-8")
    with KeptAlive({("POST", "/v1/platform-webhooks"): QUEUED}) as server:
        result = run_against(
            server.url, "api", "POST", "/v1/platform-webhooks", "--input", str(body)
        )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"status": "queued"}
    assert result.stderr.decode().splitlines() == [
        f"tokensales-tui: POST /v1/platform-webhooks: answered ({ACCEPTED_NOTE})"
    ]


async def test_listen_register_answered_202_says_accepted() -> None:
    public = "http://127.0.0.1:9/tunnel"
    made = json.dumps([{"id": "wh_1", "url": public, "events": ["item.sold"]}]).encode()
    routes: dict[tuple[str, str], bytes | list[bytes]] = {
        ("GET", "/v1/platform-webhooks"): [
            raw_answer(200, b"[]", JSON_TYPE),
            raw_answer(200, made, JSON_TYPE),
        ],
        ("POST", "/v1/platform-webhooks"): QUEUED,
        ("DELETE", "/v1/platform-webhooks/wh_1"): raw_answer(204),
    }
    said, _ = await listen_registering(routes, public)
    assert said[-1] == (
        f"registered webhook wh_1 for {public} (item.sold); deleted when listen stops"
        f" ({ACCEPTED_NOTE})"
    )


async def test_a_delete_answered_202_is_toasted_as_accepted() -> None:
    # The toast said "Deleted item …", and a bulk delete counted it deleted in silence.
    app, transport = rigged_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        row = app.active_tab.table.model.shown_rows[0]
        emulator = transport.inner

        class Accepted(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                answer = await emulator.handle_async_request(request)
                if request.method != "DELETE":
                    return answer
                await answer.aclose()
                return httpx.Response(202, json={"status": "queued"})

        transport.inner = Accepted()  # type: ignore[assignment]
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        toasted = lambda: [n for n in app._notifications if ACCEPTED_NOTE in n.message]  # noqa: E731
        await wait_for(lambda: bool(toasted()), pilot)
        [toast] = toasted()
        assert row.title[:20] in toast.message
