"""A write done whose answer's body could not be read says so, wherever it is reported.

The client reports such a write done, with a note (see ``api.client.Done``). Every place
that reports a write says it through ``Done.said``: forms, deletes, the scripting
commands, ``listen --register`` and the demo's own webhook.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tokensales_tui.api import ApiClient, Done, client
from tokensales_tui.api.client import Deleted
from tokensales_tui.session import Launch
from tokensales_tui.ui import webhook_views
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import loaded, rigged_app, wait_for, wait_for_screen
from .test_reliability_network import KeptAlive, raw_answer

PACKAGE = Path(__file__).resolve().parent.parent / "tokensales_tui"
UNREAD = "the body is encoded as “br”, which was not asked for"
NOTE = f"its answer's body could not be read: {UNREAD}"
BROTLI = b"\x1b\x0f\x00\xf8\xa5\x40\xc2\xaa\x02"


class _Brotli(httpx.AsyncByteStream):
    """A body said to be Brotli, read as it arrives (as from a socket)."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield BROTLI


def _writes() -> set[str]:
    """The client's methods whose result is a write's :class:`Done`."""
    found = set()
    for name, method in vars(ApiClient).items():
        if not callable(method) or name.startswith("_"):
            continue
        # The annotation's name, read in the client's module (its other names are
        # imported for type checking only).
        answer = getattr(client, str(getattr(method, "__annotations__", {}).get("return")), None)
        if isinstance(answer, type) and issubclass(answer, Done):
            found.add(name)
    return found


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(PACKAGE)), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_every_write_is_reported_with_its_note_through_one_function() -> None:
    # listen --register and the demo's webhook threw the create's answer away, and the
    # forms, the deletes and the commands each added the note their own way.
    writes = _writes()
    assert {"create_webhook", "delete_webhook", "add_payout", "add_collections"} <= writes
    thrown_away, notes_read = [], []
    for name, module in _modules():
        for node in ast.walk(module):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Await):
                called = {
                    call.func.attr
                    for call in ast.walk(node.value)
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                }
                if called & writes:
                    thrown_away.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "note" and name != "api/client.py":
                notes_read.append(f"{name}:{node.lineno}")
    assert thrown_away == [], "a write's answer (and its note) thrown away"
    assert notes_read == [], "a note read outside Done.said: report the write through it"


def test_a_note_is_said_as_plain_text_after_the_callers_own() -> None:
    hostile = "the body is encoded as “\x1b]52;c;eA==\x07[b]br\x9b”, which was not asked for"
    said = Deleted(hostile, already_gone=True).said("deleted webhook wh_1", "listed 2 times")
    assert said.startswith(
        "deleted webhook wh_1 (listed 2 times; it was already gone when the request was"
        " repeated; its answer's body could not be read: the body is encoded as “"
    )
    assert "\x1b" not in said and "\x07" not in said and "\x9b" not in said
    assert Done().said("created webhook x", "free") == "created webhook x (free)"
    assert Done().said("created webhook x") == "created webhook x"


async def test_listen_register_says_the_note_of_its_create_and_of_its_delete() -> None:
    # Both answers were thrown away: the webhook "registered" and deleted in silence.
    public = "http://127.0.0.1:9/tunnel"
    made = json.dumps([{"id": "wh_1", "url": public, "events": ["item.sold"]}]).encode()
    json_type = "Content-Type: application/json"
    routes: dict[tuple[str, str], bytes | list[bytes]] = {
        ("GET", "/v1/platform-webhooks"): [
            raw_answer(200, b"[]", json_type),
            raw_answer(200, made, json_type),
        ],
        ("POST", "/v1/platform-webhooks"): raw_answer(
            201, BROTLI, json_type, "Content-Encoding: br"
        ),
        ("DELETE", "/v1/platform-webhooks/wh_1"): raw_answer(
            200, BROTLI, json_type, "Content-Encoding: br"
        ),
    }
    said, rest = await listen_registering(routes, public)
    assert said[-1] == (
        f"registered webhook wh_1 for {public} (item.sold); deleted when listen stops ({NOTE})"
    )
    assert f"tokensales-tui: deleted webhook wh_1 ({NOTE})" in rest


async def listen_registering(
    routes: dict[tuple[str, str], bytes | list[bytes]], public: str
) -> tuple[list[str], list[str]]:
    """``listen --register public`` against ``routes``: what it said up to its line
    "registered webhook …", and what it said once stopped."""
    with KeptAlive(routes) as server:
        env = {
            **os.environ,
            "TOKENSALES_BASE_URL": server.url,
            "TOKENSALES_API_KEY": "key",
            "TOKENSALES_API_SECRET": "secret",
        }
        args = ("listen", "--print", "--register", public, "--events", "item.sold")
        listen = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tokensales_tui", *args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        assert listen.stderr is not None
        try:
            said = []
            async with asyncio.timeout(60):
                while not said or not said[-1].startswith("registered webhook"):
                    line = (await listen.stderr.readline()).decode()
                    assert line, said
                    said.append(line.rstrip("\n"))
            listen.send_signal(signal.SIGTERM)
            async with asyncio.timeout(60):
                rest = (await listen.stderr.read()).decode().splitlines()
                await listen.wait()
        finally:
            if listen.returncode is None:
                listen.kill()
                await listen.wait()
        assert server.count("POST", "/v1/platform-webhooks") == 1
        assert server.count("DELETE", "/v1/platform-webhooks/wh_1") == 1
    return said, rest


async def test_the_demo_webhook_says_the_note_of_its_create(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The view opened as if the answer had been read.
    created = ApiClient.create_webhook

    async def unread(self: ApiClient, body: Any) -> Done:
        await created(self, body)
        return Done(UNREAD)

    monkeypatch.setattr(ApiClient, "create_webhook", unread)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("v")
        said = f"{webhook_views.ADDED} ({webhook_views.stays(app)}; {NOTE})"
        await wait_for(lambda: any(n.message == said for n in app._notifications), pilot)


async def test_a_bulk_delete_names_each_delete_whose_answer_went_unread() -> None:
    # Each was counted deleted, its note dropped (a single delete said it).
    app, transport = rigged_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        rows = app.active_tab.table.model.shown_rows[:2]
        path = f"/v1/items/{rows[1].id}"
        emulator = transport.inner

        class Unread(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                answer = await emulator.handle_async_request(request)
                if request.url.path != path:
                    return answer
                await answer.aclose()
                headers = {"Content-Type": "application/json", "Content-Encoding": "br"}
                return httpx.Response(200, headers=headers, stream=_Brotli())

        transport.inner = Unread()  # type: ignore[assignment]
        await pilot.press("space", "space", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        noted = lambda: [n for n in app._notifications if "with a note" in n.title]  # noqa: E731
        await wait_for(lambda: bool(noted()), pilot)
        [note] = noted()
        assert note.title == "1 deleted, with a note"
        assert rows[1].title[:20] in note.message and note.message.endswith(f"({NOTE})")
        assert rows[0].title[:20] not in note.message


def test_api_says_the_note_of_a_write_as_the_other_commands_do() -> None:
    from .test_script import run_against

    answer = raw_answer(200, BROTLI, "Content-Type: application/json", "Content-Encoding: br")
    with KeptAlive({("DELETE", "/v1/platform-webhooks/wh_1"): answer}) as server:
        result = run_against(server.url, "api", "DELETE", "/v1/platform-webhooks/wh_1")
        sent = server.count("DELETE", "/v1/platform-webhooks/wh_1")
    assert (result.returncode, sent) == (0, 1), result.stderr
    assert result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        f"tokensales-tui: DELETE /v1/platform-webhooks/wh_1: done (HTTP 200; {NOTE})"
    ]
