"""The ``hostile`` fault: every string an attack, ids that escape their segment, extreme
numbers and lifetimes, hostile headers and bodies at the caps — and the client coping."""

from __future__ import annotations

import asyncio
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import httpx
import msgspec
import pytest

from tokensales_tui.api import ApiClient, ApiError, Connection, RefusedRequest, Secret
from tokensales_tui.api.auth import MAX_LIFETIME, lifetime_of
from tokensales_tui.api.transport import ERROR_BODY_CAP
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.emulator.hostile import DATA_PAYLOADS, HOSTILE_IDS
from tokensales_tui.emulator.server import EmulatorServer

CREDENTIALS = {"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
LISTS = {
    "/v1/platform-webhooks": None,
    "/v1/items": "items",
    "/v1/assets": "assets",
    "/collections": "collections",
}
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
ATTACK = (
    "\ud800",
    "\x1b",
    "\x9b",
    "\u202e",
    "\u2066",
    "[/",
    "[@",
    "[b]",
    "\u200b",
    "\x00",
    "\n",
    "\x08",
)


def carries_payload(text: str) -> bool:
    return any(mark in text for mark in ATTACK)


def strings_and_keys(value: Any, path: str = "$") -> Iterator[tuple[str, str, bool]]:
    """(path, text, is_key) for every string and key in ``value``."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_and_keys(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path, key, True
            yield from strings_and_keys(item, f"{path}.{key}")


@contextmanager
def in_process(seed: int = 0, rate: float = 0.0) -> Iterator[tuple[httpx.AsyncClient, Any]]:
    app = create_app(seed=seed, faults=["hostile"])
    app.state.emulator.fault_rate = rate
    yield httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://e"), app


async def authorised(client: httpx.AsyncClient) -> httpx.AsyncClient:
    response = await client.post("/auth/getAccessToken", json=CREDENTIALS)
    assert response.status_code == 200
    client.headers["Authorization"] = f"Bearer {response.json()['accessToken']}"
    return client


def rows(body: Any, key: str | None) -> list[dict[str, Any]]:
    return body if key is None else body[key]


async def test_every_string_of_every_list_carries_a_payload_and_every_object_a_payload_key() -> (
    None
):
    with in_process() as (client, _app):
        async with client:
            await authorised(client)
            for path, key in LISTS.items():
                response = await client.get(path)
                assert response.status_code == 200
                objects = rows(response.json(), key)
                ids = [obj["id"] for obj in objects]
                for hostile_id in HOSTILE_IDS:
                    assert hostile_id in ids, (path, hostile_id)
                for obj in objects:
                    assert any(carries_payload(k) for k in obj), (path, obj["id"])
                    for where, text, is_key in strings_and_keys(obj):
                        if is_key or text in HOSTILE_IDS or where.endswith(".id"):
                            continue
                        assert carries_payload(text), (path, where, text)


async def test_numbers_sit_at_their_extremes_and_one_description_is_a_megabyte() -> None:
    with in_process() as (client, _app):
        async with client:
            await authorised(client)
            items = (await client.get("/v1/items")).json()["items"]
            assets = (await client.get("/v1/assets")).json()["assets"]
    prices = {item["price"] for item in items}
    assert {1.7e308, 5e-324, 10**30, -(10**30)} <= prices
    assert 10**30 in {asset["decimals"] for asset in assets}
    assert max(len(item.get("description", "")) for item in items) > 1024 * 1024


async def test_the_same_seed_gives_the_same_attack() -> None:
    bodies = []
    for _ in range(2):
        with in_process(seed=7, rate=0.5) as (client, _app):
            async with client:
                await authorised(client)
                bodies.append([(await client.get(p)).content for p in LISTS for _ in range(3)])
    assert bodies[0] == bodies[1]


async def test_hostile_ids_are_served_at_their_own_address() -> None:
    with in_process() as (client, _app):
        async with client:
            await authorised(client)
            for hostile_id in ("a/b", "%2F", "a?b=c#d%", "line\nbreak", HOSTILE_IDS[-1]):
                response = await client.get(f"/v1/items/{quote(hostile_id, safe='')}")
                assert response.status_code == 200, hostile_id
                assert response.json()["id"] == hostile_id


async def test_tokens_have_extreme_lifetimes_and_each_one_works() -> None:
    with in_process() as (client, _app):
        async with client:
            seen = []
            for _ in range(5):
                response = await client.post("/auth/getAccessToken", json=CREDENTIALS)
                body = response.json()
                token = body["accessToken"]
                seen.append(response.content)
                lifetime = lifetime_of(token, None)
                assert lifetime is None or 0 <= lifetime <= MAX_LIFETIME
                check = await client.get("/v1/items", headers={"Authorization": f"Bearer {token}"})
                assert check.status_code == 200
    text = b"".join(seen)
    assert b'"1e999"' in text and b"1.7e308" in text and b'"NaN"' in text
    assert b"9" * 0 + b"1" + b"0" * 500 in text  # a 500-digit number


async def test_headers_and_error_bodies_are_hostile_and_at_the_cap() -> None:
    with in_process() as (client, _app):
        async with client:
            await authorised(client)
            ok = await client.get("/v1/items")
            assert "\x1b" in ok.headers["content-type"] and "[@click" in ok.headers["content-type"]
            missing = await client.get("/v1/items/nope")
    assert missing.status_code == 404
    assert len(missing.content) == ERROR_BODY_CAP + 1
    assert b"\\ud800" in missing.content  # a lone surrogate, as JSON escapes it


async def test_a_share_of_answers_are_hostile_redirects_304s_bombs_and_waits() -> None:
    statuses = set()
    with in_process(rate=1.0) as (client, app):
        async with client:
            await authorised(client)
            transport = httpx.ASGITransport(app=app)  # raw answers: no redirect handling
            for _ in range(40):
                request = client.build_request("GET", "/v1/items")
                response = await transport.handle_async_request(request)
                await response.aread()
                statuses.add(response.status_code)
                if response.status_code == 302:
                    assert "\x1b" in response.headers["location"]
                if response.status_code == 429:
                    assert response.headers["retry-after"] in (
                        "inf",
                        "1e999",
                        "-5",
                        "NaN",
                        "9" * 500,
                    )
    assert statuses == {302, 304, 429, 500, 503}


async def test_the_client_against_the_hostile_service_raises_only_clean_api_errors() -> None:
    app = create_app(seed=3, faults=["hostile"])
    app.state.emulator.fault_rate = 0.3
    url = "http://e"
    connection = Connection(url, url, url, Secret(DEMO_API_KEY), Secret(DEMO_API_SECRET))

    async def no_wait(_seconds: float) -> None:
        pass

    loaded = 0
    async with ApiClient(
        connection, transport=httpx.ASGITransport(app=app), sleep=no_wait
    ) as client:
        for round_ in range(10):
            for operation in (
                client.list_webhooks,
                client.list_items,
                client.list_assets,
                client.list_collections,
            ):
                try:
                    rows_ = await asyncio.wait_for(operation(), 30)
                except ApiError as error:
                    assert not CONTROLS.search(error.one_line), repr(error.one_line)
                    assert "inf s" not in error.one_line
                else:
                    loaded += 1
                    for row in rows_[-len(HOSTILE_IDS) :]:
                        if row.id in ("", ".", ".."):
                            with pytest.raises(RefusedRequest):
                                await client.get_item(row.id)
            state = client.token_state
            if state.expires_in is not None:
                assert math.isfinite(state.expires_in) and state.expires_in <= MAX_LIFETIME
            if round_ % 2:
                client.tokens.forget()  # the next token has another extreme lifetime
    assert loaded >= 10


def test_hostile_headers_pass_a_real_socket() -> None:
    """h11 lets a header value carry ESC and C1 bytes: the served emulator sends them."""
    server = EmulatorServer("127.0.0.1", 0, faults=["hostile"])
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.server.started:
                break
            threading.Event().wait(0.01)
        server.emulator.fault_rate = 0.0
        with httpx.Client(base_url=server.url, trust_env=False, timeout=10) as client:
            token = client.post("/auth/getAccessToken", json=CREDENTIALS)
            assert token.status_code == 200
            assert "\x1b" in token.headers["content-type"]
            assert b'"message"' in token.content
            assert msgspec.json.decode(token.content)["accessToken"]
    finally:
        server.stop()
        thread.join(10)


def test_data_payloads_cover_the_classes() -> None:
    joined = "".join(DATA_PAYLOADS)
    for mark in ("\x1b]52;c;", "\x1b]0;", "\x1b]8;", "\x1b[", "\x1bP", "\x1b_", "\x9b", "\u202e"):
        assert mark in joined
    for mark in ("[@click=app.quit]x[/]", "a [/] b", "\u200b", "\x00"):
        assert mark in joined
