"""The embedded emulator: tokens, every endpoint, validation, seed data, faults, serving."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from starlette.applications import Starlette

from tokensales_tui.api import models
from tokensales_tui.api.decode import convert
from tokensales_tui.api.secret import Secret
from tokensales_tui.checks import chain_family
from tokensales_tui.emulator import (
    DEMO_API_KEY,
    DEMO_API_SECRET,
    FAULTS,
    Emulator,
    create_app,
)
from tokensales_tui.emulator.addresses import address_problem, evm_from_bytes, solana_from_bytes
from tokensales_tui.emulator.app import SEND_SLICE, TOKEN_PATH
from tokensales_tui.emulator.server import EmulatorServer, serve
from tokensales_tui.local import bind

ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
CREDENTIALS = {"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
WALLET = "0x52908400098527886E0F7030069857D2E4169EE7"  # an EIP-55 test vector


class ListedItem(msgspec.Struct):
    id: str
    title: str
    price: float


class Listing(msgspec.Struct):
    items: list[ListedItem]
    total: int


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(clock: Clock) -> Starlette:
    return create_app(seed=0, clock=clock)


@pytest.fixture
def emulator(app: Starlette) -> Emulator:
    return app.state.emulator


@pytest.fixture
async def anonymous(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
        yield client


@pytest.fixture
async def client(anonymous: httpx.AsyncClient) -> httpx.AsyncClient:
    anonymous.headers["Authorization"] = f"Bearer {await token(anonymous)}"
    return anonymous


async def token(client: httpx.AsyncClient) -> str:
    response = await client.post("/auth/getAccessToken", json=CREDENTIALS)
    assert response.status_code == 200, response.text
    return str(response.json()["accessToken"])


def claims_of(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    return msgspec.json.decode(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def collection(**overrides: Any) -> dict[str, Any]:
    body = {
        "name": "Harbour Lights",
        "blockchain": "polygon",
        "contractAddress": WALLET,
        "whitelisted": "true",
        "whitelistingInfo": {"list": {"wallets": [WALLET]}, "emails": ["ana@example.pt"]},
    }
    body.update(overrides)
    return body


# --- tokens ------------------------------------------------------------------------


async def test_token_for_demo_credentials(anonymous: httpx.AsyncClient, clock: Clock) -> None:
    response = await anonymous.post("/auth/getAccessToken", json=CREDENTIALS)

    assert response.status_code == 200
    body = response.json()
    assert body["expiresIn"] == 3600
    claims = claims_of(body["accessToken"])
    assert claims["sub"] == DEMO_API_KEY
    assert claims["iat"] == int(clock.now)
    assert claims["exp"] == int(clock.now) + 3600
    assert isinstance(claims["jti"], str) and claims["jti"]


@pytest.mark.parametrize(
    "body",
    [
        {"apiKey": DEMO_API_KEY, "apiSecret": "wrong"},
        {"apiKey": "other-key", "apiSecret": DEMO_API_SECRET},
        {"apiKey": "", "apiSecret": ""},
    ],
)
async def test_wrong_credentials_are_refused(
    anonymous: httpx.AsyncClient, body: dict[str, str]
) -> None:
    response = await anonymous.post("/auth/getAccessToken", json=body)

    assert response.status_code == 401
    assert response.json() == {"message": "invalid API key or secret"}


@pytest.mark.parametrize(
    "content", [b"", b"{not json", b"[]", b'{"apiKey": "demo-key-7f3a"}', b'{"apiKey": 1}']
)
async def test_malformed_token_request_is_400(anonymous: httpx.AsyncClient, content: bytes) -> None:
    response = await anonymous.post("/auth/getAccessToken", content=content)

    assert response.status_code == 400
    assert response.json()["message"]


async def test_token_lifetime_is_settable(anonymous: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.token_lifetime = 90.0

    response = await anonymous.post("/auth/getAccessToken", json=CREDENTIALS)

    assert response.json()["expiresIn"] == 90


@pytest.mark.parametrize(
    ("header", "word"),
    [
        (None, "missing"),
        ("Basic abc", "invalid"),
        ("Bearer not-a-jwt", "not a JWT"),
        ("Bearer a.b.c", "not a JWT"),
    ],
)
async def test_requests_without_a_good_token_are_401(
    anonymous: httpx.AsyncClient, header: str | None, word: str
) -> None:
    headers = {"Authorization": header} if header else {}

    response = await anonymous.get("/v1/items", headers=headers)

    assert response.status_code == 401
    assert word in response.json()["message"]


async def test_token_of_another_emulator_is_invalid(anonymous: httpx.AsyncClient) -> None:
    other = create_app()
    transport = httpx.ASGITransport(app=other)
    async with httpx.AsyncClient(transport=transport, base_url="http://other") as client:
        foreign = await token(client)

    response = await anonymous.get("/collections", headers={"Authorization": f"Bearer {foreign}"})

    assert response.status_code == 401
    assert "signature is invalid" in response.json()["message"]


async def test_expired_token_is_401(client: httpx.AsyncClient, clock: Clock) -> None:
    assert (await client.get("/v1/assets")).status_code == 200
    clock.now += 3600

    response = await client.get("/v1/assets")

    assert response.status_code == 401
    assert "expired" in response.json()["message"]


# --- webhooks ----------------------------------------------------------------------


async def test_webhook_round_trip(
    client: httpx.AsyncClient, emulator: Emulator, clock: Clock
) -> None:
    before = len((await client.get("/v1/platform-webhooks")).json())
    created = await client.post(
        "/v1/platform-webhooks",
        json={"url": "https://hooks.example.org/in", "events": ["item.sold"], "secret": "s3cr3t"},
    )
    assert (created.status_code, created.content) == (201, b"")

    listed = (await client.get("/v1/platform-webhooks")).json()
    assert len(listed) == before + 1
    new = listed[-1]
    assert new["url"] == "https://hooks.example.org/in"
    assert new["events"] == ["item.sold"]
    assert new["isActive"] is True
    assert ISO_UTC.fullmatch(new["createdAt"]) and new["createdAt"] == new["lastUpdatedAt"]
    assert "secret" not in new
    assert emulator.webhooks[new["id"]]["secret"] == "s3cr3t"

    clock.now += 61
    updated = await client.put(
        f"/v1/platform-webhooks/{new['id']}", json={"events": ["payout.completed", "item.sold"]}
    )
    assert (updated.status_code, updated.content) == (200, b"")
    after = {w["id"]: w for w in (await client.get("/v1/platform-webhooks")).json()}[new["id"]]
    assert after["events"] == ["payout.completed", "item.sold"]
    assert after["url"] == new["url"] and after["createdAt"] == new["createdAt"]
    assert after["lastUpdatedAt"] > new["lastUpdatedAt"]
    assert emulator.webhooks[new["id"]]["secret"] == "s3cr3t"

    paused = await client.put(f"/v1/platform-webhooks/{new['id']}", json={"isActive": False})
    assert paused.status_code == 200
    assert emulator.webhooks[new["id"]]["isActive"] is False

    deleted = await client.delete(f"/v1/platform-webhooks/{new['id']}")
    assert (deleted.status_code, deleted.content) == (200, b"")
    ids = [w["id"] for w in (await client.get("/v1/platform-webhooks")).json()]
    assert new["id"] not in ids

    again = await client.delete(f"/v1/platform-webhooks/{new['id']}")
    assert again.status_code == 404
    assert again.json()["message"] == f"webhook {new['id']} not found"
    missing = await client.put(
        "/v1/platform-webhooks/wh_000000000000", json={"url": "https://a.io"}
    )
    assert missing.status_code == 404


async def test_webhook_list_never_holds_a_secret(
    client: httpx.AsyncClient, emulator: Emulator
) -> None:
    assert any("secret" in w for w in emulator.webhooks.values())

    response = await client.get("/v1/platform-webhooks")

    assert b"secret" not in response.content
    assert len(response.json()) == len(emulator.webhooks)


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"events": ["item.sold"]}, 422, "url"),
        ({"url": 5, "events": ["item.sold"]}, 422, "url"),
        ({"url": "ftp://files.example.org", "events": ["item.sold"]}, 422, "url"),
        ({"url": "hooks.example.org/in", "events": ["item.sold"]}, 422, "url"),
        ({"url": "https://", "events": ["item.sold"]}, 422, "url"),
        ({"url": "https://a.io"}, 422, "events"),
        ({"url": "https://a.io", "events": []}, 422, "events"),
        ({"url": "https://a.io", "events": "item.sold"}, 422, "events"),
        ({"url": "https://a.io", "events": ["item.sold", 3]}, 422, "events[1]"),
        ({"url": "https://a.io", "events": ["a", "a"]}, 422, "events[1]"),
        ({"url": "https://a.io", "events": ["a"], "secret": 7}, 422, "secret"),
        (["https://a.io"], 400, None),
    ],
)
async def test_webhook_create_validation_names_the_field(
    client: httpx.AsyncClient, body: Any, status: int, field: str | None
) -> None:
    response = await client.post("/v1/platform-webhooks", json=body)

    assert response.status_code == status
    error = response.json()
    assert error.get("field") == field
    if field:
        assert error["message"].startswith(field + " ")


async def test_webhook_update_validation(client: httpx.AsyncClient, emulator: Emulator) -> None:
    webhook_id = next(iter(emulator.webhooks))
    bad_json = await client.put(f"/v1/platform-webhooks/{webhook_id}", content=b"{")
    bad_flag = await client.put(f"/v1/platform-webhooks/{webhook_id}", json={"isActive": "no"})
    no_events = await client.put(f"/v1/platform-webhooks/{webhook_id}", json={"events": []})

    assert bad_json.status_code == 400
    assert (bad_flag.status_code, bad_flag.json()["field"]) == (422, "isActive")
    assert (no_events.status_code, no_events.json()["field"]) == (422, "events")


_UNSENDABLE_URLS = [
    "http://127.0.0.1:18909/\u001b]0;X\u0007/\u009b31m",  # ESC, BEL and C1 CSI
    "http://127.0.0.1:18909/\u009b31m",  # a C1 control alone, which httpx would send
    "http://127.0.0.1/a\u007f",
    "http://127.0.0.1/\u0000",
    "http://[::1/",
    "http://[zz]/",
    "http://127.0.0.1:0/",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:x/",
]


@pytest.mark.parametrize("url", _UNSENDABLE_URLS)
async def test_a_webhook_url_that_cannot_be_sent_to_is_refused(
    client: httpx.AsyncClient, emulator: Emulator, url: str
) -> None:
    # JSON escapes every control as \uXXXX.
    body = json.dumps({"url": url, "events": ["item.sold"]}).encode()
    created = await client.post("/v1/platform-webhooks", content=body)
    webhook_id = next(iter(emulator.webhooks))
    updated = await client.put(f"/v1/platform-webhooks/{webhook_id}", content=body)

    for answer in (created, updated):
        assert answer.status_code == 422, answer.text
        assert answer.json()["field"] == "url"
        assert answer.json()["message"].startswith("url ")
    assert all(url not in w["url"] for w in emulator.webhooks.values())


# --- items and assets --------------------------------------------------------------


async def test_item_round_trip(client: httpx.AsyncClient, emulator: Emulator) -> None:
    listing = (await client.get("/v1/items")).json()
    assert listing["total"] == len(listing["items"]) == 40
    first = listing["items"][0]

    fetched = await client.get(f"/v1/items/{first['id']}")
    assert fetched.json() == first

    deleted = await client.delete(f"/v1/items/{first['id']}")
    assert (deleted.status_code, deleted.content) == (200, b"")
    assert (await client.get(f"/v1/items/{first['id']}")).status_code == 404
    assert (await client.delete(f"/v1/items/{first['id']}")).json() == {
        "message": f"item {first['id']} not found"
    }
    listing = (await client.get("/v1/items")).json()
    assert listing["total"] == 39
    assert first["id"] not in {item["id"] for item in listing["items"]}

    emulator.items.clear()  # direct changes invalidate the cached body too
    assert (await client.get("/v1/items")).json() == {"items": [], "total": 0}
    emulator.items = {first["id"]: first}
    assert (await client.get("/v1/items")).json() == {"items": [first], "total": 1}


async def test_assets(client: httpx.AsyncClient) -> None:
    assets = (await client.get("/v1/assets")).json()["assets"]
    assert len(assets) == 12

    one = await client.get(f"/v1/assets/{assets[3]['id']}")
    assert one.json() == assets[3]
    assert (await client.get("/v1/assets/ast_nothing")).status_code == 404


async def test_hundred_thousand_items_are_served_from_a_cached_body() -> None:
    # How fast is measured by benchmarks/run.py; here: it works, and the body is reused.
    app = create_app(items=100_000)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
        client.headers["Authorization"] = f"Bearer {await token(client)}"
        response = await client.get("/v1/items")  # encodes the body and caches it
        assert (await client.get("/v1/items")).content is not None
        assert app.state.emulator.items_body() is app.state.emulator.items_body()

    listing = msgspec.json.decode(response.content, type=Listing)
    assert listing.total == len(listing.items) == 100_000
    assert len({item.id for item in listing.items}) == 100_000


async def test_a_long_items_body_goes_to_the_server_a_slice_at_a_time() -> None:
    # Handed to the server whole, a body of hundreds of megabytes is copied and shifted
    # by the socket transport at each send (seconds of processor time at 1,000,000).
    app = create_app(items=5_000)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
        bearer = f"Bearer {await token(client)}"
    body = app.state.emulator.items_body()
    assert len(body) > 2 * SEND_SLICE
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/v1/items",
        "raw_path": b"/v1/items",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"emulator"), (b"authorization", bearer.encode())],
        "client": ("127.0.0.1", 1),
        "server": ("emulator", 80),
    }
    await app(scope, receive, send)

    start, *parts = sent
    headers = dict(start["headers"])
    assert start["status"] == 200 and int(headers[b"content-length"]) == len(body)
    assert max(len(part["body"]) for part in parts) == SEND_SLICE
    assert [part["more_body"] for part in parts] == [True] * (len(parts) - 1) + [False]
    assert b"".join(part["body"] for part in parts) == body


# --- payouts -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"type": "free", "name": "No payout"},
        {"type": "fiat", "name": "EU bank", "fiatDetails": {"provider": "stripe"}},
        {
            "type": "stablecoin",
            "name": "USDC on Base",
            "stablecoinDetails": {"blockchainId": "base", "tokenId": "usdc", "spender": WALLET},
        },
        {"type": "native", "name": "ETH", "nativeDetails": {"blockchainId": "ethereum"}},
        {"type": "revenue-split", "name": "Unknown types are accepted"},
    ],
)
async def test_payout_is_added(
    client: httpx.AsyncClient, emulator: Emulator, body: dict[str, Any]
) -> None:
    response = await client.post("/v1/payouts/add", json=body)

    assert (response.status_code, response.content) == (201, b"")
    stored = emulator.payouts[-1]
    assert stored["id"].startswith("po_")
    assert {k: stored[k] for k in body} == body


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"name": "x"}, 422, "type"),
        ({"type": "", "name": "x"}, 422, "type"),
        ({"type": "free"}, 422, "name"),
        ({"type": "fiat", "name": "x"}, 422, "fiatDetails"),
        ({"type": "stablecoin", "name": "x"}, 422, "stablecoinDetails"),
        ({"type": "native", "name": "x", "fiatDetails": {}}, 422, "nativeDetails"),
        ({"type": "fiat", "name": "x", "fiatDetails": "stripe"}, 422, "fiatDetails"),
        ({"type": "free", "name": "x", "nativeDetails": []}, 422, "nativeDetails"),
        (
            {"type": "fiat", "name": "x", "fiatDetails": {"provider": 1}},
            422,
            "fiatDetails.provider",
        ),
        ("free", 400, None),
    ],
)
async def test_payout_validation_names_the_field(
    client: httpx.AsyncClient, emulator: Emulator, body: Any, status: int, field: str | None
) -> None:
    response = await client.post("/v1/payouts/add", json=body)

    assert response.status_code == status
    assert response.json().get("field") == field
    assert emulator.payouts == []


# --- collections -------------------------------------------------------------------


async def test_collection_round_trip(client: httpx.AsyncClient) -> None:
    sent = [
        collection(),
        collection(
            name="Sol Riders",
            blockchain="solana",
            whitelisted="false",
            contractAddress="7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV",
            whitelistingInfo={"list": {"wallets": []}, "emails": []},
        ),
    ]
    before = (await client.get("/collections")).json()["collections"]

    created = await client.post("/collections", json=sent)

    assert created.status_code == 201
    names = [c["name"] for c in created.json()["created"]]
    assert names == ["Harbour Lights", "Sol Riders"]
    listed = (await client.get("/collections")).json()["collections"]
    assert len(listed) == len(before) + 2
    new_id = created.json()["created"][0]["id"]
    assert {c["id"]: c for c in listed}[new_id] == {"id": new_id, **sent[0]}

    deleted = await client.delete(f"/collection/{new_id}")
    assert (deleted.status_code, deleted.json()) == (200, {"deleted": new_id})
    assert new_id not in {c["id"] for c in (await client.get("/collections")).json()["collections"]}
    gone = await client.delete(f"/collection/{new_id}")
    assert (gone.status_code, gone.json()["message"]) == (404, f"collection {new_id} not found")


@pytest.mark.parametrize(
    ("element", "field"),
    [
        ({"name": None}, "name"),
        ({"blockchain": ""}, "blockchain"),
        ({"contractAddress": "0x123"}, "contractAddress"),
        ({"whitelisted": True}, "whitelisted"),
        ({"whitelisted": "yes"}, "whitelisted"),
        ({"whitelistingInfo": {"emails": []}}, "whitelistingInfo.list"),
        (
            {"whitelistingInfo": {"list": {"wallets": "0xabc"}, "emails": []}},
            "whitelistingInfo.list.wallets",
        ),
        ({"whitelistingInfo": {"list": {"wallets": [WALLET.lower()]}}}, "whitelistingInfo.emails"),
        (
            {"whitelistingInfo": {"list": {"wallets": [1]}, "emails": []}},
            "whitelistingInfo.list.wallets[0]",
        ),
        (
            {"whitelistingInfo": {"list": {"wallets": [WALLET.replace("E7", "e7")]}, "emails": []}},
            "whitelistingInfo.list.wallets[0]",
        ),
        (
            {"whitelistingInfo": {"list": {"wallets": []}, "emails": ["not-an-email"]}},
            "whitelistingInfo.emails[0]",
        ),
        ({"whitelistingInfo": []}, "whitelistingInfo"),
    ],
)
async def test_collection_validation_names_the_field(
    client: httpx.AsyncClient, emulator: Emulator, element: dict[str, Any], field: str
) -> None:
    before = dict(emulator.collections)

    response = await client.post("/collections", json=[collection(), collection(**element)])

    assert response.status_code == 422
    error = response.json()
    assert (error["field"], error["index"]) == (field, 1)
    assert emulator.collections == before  # all or nothing


async def test_boolean_whitelisted_message(client: httpx.AsyncClient) -> None:
    response = await client.post("/collections", json=[collection(whitelisted=True)])

    assert response.json()["message"] == 'whitelisted must be the string "true" or "false"'


@pytest.mark.parametrize("body", [collection(), "x", None, [collection(), 3]])
async def test_collections_body_of_wrong_shape_is_400(client: httpx.AsyncClient, body: Any) -> None:
    response = await client.post("/collections", content=msgspec.json.encode(body))

    assert response.status_code == 400
    assert "array" in response.json()["message"] or "object" in response.json()["message"]


# --- the client's wire shapes ------------------------------------------------------


async def test_accepts_what_the_client_sends_and_answers_what_it_reads(
    client: httpx.AsyncClient, emulator: Emulator
) -> None:
    bodies = {
        "/v1/platform-webhooks": models.WebhookCreate(
            url="https://hooks.example.org/in", events=["item.sold"], secret=Secret("s")
        ),
        "/v1/payouts/add": models.PayoutDefinition(
            type="fiat", name="EU bank", fiat_details=models.FiatDetails(provider="stripe")
        ),
        "/collections": [
            models.NewCollection.build(
                name="Harbour Lights",
                blockchain="polygon",
                contract_address=WALLET,
                whitelisted=True,
                wallets=[WALLET],
                emails=["ana@example.pt"],
            )
        ],
    }
    for path, body in bodies.items():
        response = await client.post(path, content=models.encode(body))
        assert response.status_code == 201, response.text

    webhooks = (await client.get("/v1/platform-webhooks")).json()
    items = (await client.get("/v1/items")).json()["items"]
    assets = (await client.get("/v1/assets")).json()["assets"]
    collections = (await client.get("/collections")).json()["collections"]
    assert [models.from_raw(w, models.Webhook).id for w in webhooks] == list(emulator.webhooks)
    parsed_items = [models.from_raw(i, models.Item) for i in items]
    assert len(parsed_items) == 40 and any(i.contract_function for i in parsed_items)
    # Their ids are found in each object as the client reads it (convert), not decoded.
    assert [convert(a, models.Asset, "asset", 200).id for a in assets] == list(emulator.assets)
    parsed = [convert(c, models.Collection, "collection", 200) for c in collections]
    assert [c.id for c in parsed] == list(emulator.collections)
    assert parsed[-1].is_whitelisted is True and parsed[-1].wallets == [WALLET]


# --- general -----------------------------------------------------------------------


async def test_unknown_path_and_method_answer_json(
    client: httpx.AsyncClient, emulator: Emulator
) -> None:
    unknown = await client.get("/v1/nothing")
    wrong = await client.patch("/v1/items/itm_1")

    assert (unknown.status_code, unknown.json()) == (404, {"message": "no such path"})
    assert wrong.status_code == 405
    assert all(path != "/v1/nothing" for _, path in emulator.counts)


async def test_counts_by_route_template(client: httpx.AsyncClient, emulator: Emulator) -> None:
    item_id = next(iter(emulator.items))
    await client.get(f"/v1/items/{item_id}")
    await client.get("/v1/items/itm_missing")
    await client.post("/v1/platform-webhooks", json={})

    assert emulator.counts[("POST", "/auth/getAccessToken")] == 1
    assert emulator.counts[("GET", "/v1/items/{id}")] == 2
    assert emulator.counts[("POST", "/v1/platform-webhooks")] == 1
    assert emulator.counts[("GET", "/v1/items")] == 0


def test_seed_is_deterministic() -> None:
    def data(seed: int) -> tuple[Any, ...]:
        e: Emulator = create_app(seed=seed).state.emulator
        return e.webhooks, e.items, e.assets, e.collections

    assert data(7) == data(7)
    assert all(a != b for a, b in zip(data(7), data(8), strict=True))


def test_seed_data_exercises_a_ui(emulator: Emulator) -> None:
    titles = [item["title"] for item in emulator.items.values()]
    text = " ".join(titles)
    assert any(len(title) > 120 for title in titles)
    assert re.search(r"[\u3040-\u30ff]", text) and re.search(r"[\u0600-\u06ff]", text)
    assert re.search(r"[\u0400-\u04ff]", text) and re.search(r"[\U0001F300-\U0001FAFF]", text)
    assert "[b]not bold[/b]" in text and "Limited [Gold] Edition" in text
    assert len({item["currency"] for item in emulator.items.values()}) >= 6
    assert {item["payout"]["type"] for item in emulator.items.values()} == {
        "free",
        "fiat",
        "stablecoin",
        "native",
    }
    functions = [i["contractFunction"] for i in emulator.items.values() if "contractFunction" in i]
    for function in functions:
        contract = function["contract"]
        assert address_problem(contract["address"], contract["blockchainId"]) is None
        assert function["functionSignature"].startswith(contract["abi"][0]["name"] + "(")

    webhooks = list(emulator.webhooks.values())
    assert len(webhooks) >= 8
    assert {w["isActive"] for w in webhooks} == {True, False}
    assert len(emulator.assets) == 12 and len(emulator.collections) == 6
    for c in emulator.collections.values():
        for wallet in [c["contractAddress"], *c["whitelistingInfo"]["list"]["wallets"]]:
            assert address_problem(wallet, c["blockchain"]) is None


def test_items_scale() -> None:
    assert len(create_app(items=3).state.emulator.items) == 3
    assert len(create_app(items=1000).state.emulator.items) == 1000


def test_emulator_does_not_import_textual() -> None:
    code = "import sys, tokensales_tui.emulator.server; sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --- faults ------------------------------------------------------------------------


def test_unknown_fault_is_refused(emulator: Emulator) -> None:
    with pytest.raises(ValueError, match=r"known faults: .*slow.*token-down"):
        emulator.set_faults(["slow", "wobbly"])
    with pytest.raises(ValueError, match="wobbly"):
        create_app(faults=["wobbly"])
    assert set(FAULTS) == {
        "slow",
        "flaky",
        "ratelimit",
        "expiring",
        "garbage",
        "hang",
        "token-down",
        "hostile",
    }

    emulator.set_faults(["flaky", "slow"])
    assert emulator.faults == frozenset({"flaky", "slow"})


async def test_flaky(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["flaky"])
    emulator.fault_rate = 1.0
    before = len(emulator.webhooks)

    response = await client.post(
        "/v1/platform-webhooks", json={"url": "https://a.io", "events": ["a"]}
    )

    assert response.status_code in {500, 502, 503}
    assert response.json()["message"]
    assert len(emulator.webhooks) == before
    assert emulator.counts[("POST", "/v1/platform-webhooks")] == 1


async def test_flaky_share_follows_the_rate(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["flaky"])

    statuses = [(await client.get("/v1/assets")).status_code for _ in range(60)]

    assert 5 <= sum(s >= 500 for s in statuses) <= 35
    assert 200 in statuses


async def test_fault_draws_are_deterministic() -> None:
    async def statuses() -> list[int]:
        app = create_app(seed=3, faults=["flaky", "ratelimit"])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
            return [(await client.get("/v1/assets")).status_code for _ in range(20)]

    first = await statuses()
    assert first == await statuses()
    assert {429, 401} <= set(first)


async def test_ratelimit(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["ratelimit"])
    emulator.fault_rate = 1.0

    response = await client.get("/v1/items")

    assert response.status_code == 429
    assert response.headers["Retry-After"] == "2"


async def test_expiring(anonymous: httpx.AsyncClient, emulator: Emulator, clock: Clock) -> None:
    emulator.set_faults(["expiring"])
    response = await anonymous.post("/auth/getAccessToken", json=CREDENTIALS)
    assert response.json()["expiresIn"] == 5
    headers = {"Authorization": f"Bearer {response.json()['accessToken']}"}
    assert (await anonymous.get("/collections", headers=headers)).status_code == 200

    clock.now += 5

    expired = await anonymous.get("/collections", headers=headers)
    assert (expired.status_code, "expired" in expired.json()["message"]) == (401, True)


async def test_garbage_spoils_gets_only(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["garbage"])
    emulator.fault_rate = 1.0

    for _ in range(8):
        response = await client.get("/v1/platform-webhooks")
        if response.headers["content-type"].startswith("application/json"):
            with pytest.raises(ValueError):
                response.json()
        else:
            assert response.headers["content-type"].startswith("text/html")
            assert response.text.startswith("<!DOCTYPE html>")
    created = await client.post(
        "/v1/platform-webhooks", json={"url": "https://a.io", "events": ["a"]}
    )
    assert created.status_code == 201


async def test_hang_never_answers(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["hang"])

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(client.get("/v1/items"), timeout=0.2)
    assert emulator.counts[("GET", "/v1/items")] == 1

    hung = asyncio.create_task(client.get("/v1/assets"))
    await asyncio.sleep(0.05)
    assert not hung.done()
    emulator.injector.release_hung()  # what a server does when it shuts down
    assert (await hung).status_code == 503


async def test_token_down(client: httpx.AsyncClient, emulator: Emulator) -> None:
    emulator.set_faults(["token-down"])

    down = await client.post("/auth/getAccessToken", json=CREDENTIALS)

    assert down.status_code == 503
    assert (await client.get("/v1/assets")).status_code == 200  # the issued token still works


async def test_slow_waits_before_answering(client: httpx.AsyncClient, emulator: Emulator) -> None:
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    emulator.injector.sleep = record
    emulator.set_faults(["slow"])

    assert (await client.get("/v1/assets")).status_code == 200
    assert len(delays) == 1 and 0.3 <= delays[0] <= 1.5

    emulator.injector.sleep = asyncio.sleep
    emulator.injector.slow_range = (0.05, 0.05)
    started = time.perf_counter()
    await client.get("/v1/assets")
    assert time.perf_counter() - started >= 0.05


# --- serving on a socket -----------------------------------------------------------


def test_server_on_loopback() -> None:
    server = EmulatorServer("127.0.0.1", 0, items=5)
    ready = threading.Event()
    urls: list[str] = []

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    thread = threading.Thread(target=server.run, args=(on_ready,), daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        assert urls == [server.url] and server.url.startswith("http://127.0.0.1:")
        response = httpx.post(f"{server.url}/auth/getAccessToken", json=CREDENTIALS, timeout=5)
        assert response.status_code == 200
        assert server.emulator.counts[("POST", "/auth/getAccessToken")] == 1
    finally:
        server.stop()
        thread.join(10)
    assert not thread.is_alive()


def test_what_fails_in_a_served_emulator_goes_to_the_log_in_one_line_to_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokensales_tui.debug_log import disable_debug_log, enable_debug_log

    def broken(self: Emulator) -> list[dict[str, Any]]:
        raise RuntimeError("a fault of the emulator's own")

    monkeypatch.setattr(Emulator, "webhook_list", broken)
    log = tmp_path / "debug.log"
    handler = enable_debug_log(str(log))
    said: list[str] = []
    server = EmulatorServer("127.0.0.1", 0, items=1, on_error=said.append)
    ready = threading.Event()
    thread = threading.Thread(target=server.run, args=(lambda url: ready.set(),), daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        token = httpx.post(f"{server.url}/auth/getAccessToken", json=CREDENTIALS, timeout=5)
        headers = {"Authorization": "Bearer " + token.json()["accessToken"]}
        answer = httpx.get(f"{server.url}/v1/platform-webhooks", headers=headers, timeout=5)
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            raw.sendall(b"NOT HTTP\r\n\r\n")
            assert raw.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        server.stop()
        thread.join(10)
        disable_debug_log(handler)
    assert answer.status_code == 500
    assert answer.json() == {"message": "the emulator failed: RuntimeError"}
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Invalid HTTP request" not in out + err
    assert said == [
        "GET /v1/platform-webhooks failed (RuntimeError: a fault of the emulator's own)"
    ]
    text = log.read_text()
    assert "Traceback" in text and "RuntimeError: a fault of the emulator's own" in text
    assert "Invalid HTTP request received" in text


def test_serve_refuses_a_taken_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            serve("127.0.0.1", taken.getsockname()[1])


@pytest.mark.parametrize("port", [-1, 65536, 99999])
def test_binding_a_port_out_of_range_is_an_os_error(port: int) -> None:
    # Every caller of bind() expects an OSError; socket.bind() raises OverflowError.
    with pytest.raises(OSError, match="choose 0"):
        bind("127.0.0.1", port)
    with pytest.raises(OSError, match="choose 0"):
        EmulatorServer("127.0.0.1", port, items=1)
    with pytest.raises(OSError, match="null character"):
        bind("127.0.0.1\x00", 0)


@pytest.mark.parametrize(
    "settings",
    [
        {"token_lifetime": float("nan")},
        {"token_lifetime": float("inf")},
        {"token_lifetime": 0.0},
        {"token_lifetime": -1.0},
        {"token_lifetime": 1e9},
        {"items": -1},
        {"items": 10_000_001},
    ],
)
def test_an_emulator_refuses_settings_out_of_range(settings: dict[str, Any]) -> None:
    # A NaN lifetime made every token request answer 500.
    with pytest.raises(ValueError):
        create_app(**settings)


@pytest.mark.parametrize(
    "chain", ["sol", "solana", "Solana", "solana-devnet", "eth", "matic", "polygon", "base"]
)
def test_the_emulator_reads_chain_names_as_the_forms_do(chain: str) -> None:
    solana = solana_from_bytes(bytes(range(1, 33)))
    evm = evm_from_bytes(bytes(range(20)))
    good, bad = (solana, evm) if chain_family(chain) == "solana" else (evm, solana)
    assert address_problem(good, chain) is None
    assert address_problem(bad, chain) is not None


# --- memory bounds -------------------------------------------------------------------


async def _chunks(total: int, size: int = 1 << 20) -> AsyncIterator[bytes]:
    """``total`` bytes of white space, made a chunk at a time (nothing held here)."""
    for start in range(0, total, size):
        yield b" " * min(size, total - start)


async def test_request_bodies_are_read_up_to_a_limit_then_413(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracemalloc

    from tokensales_tui.emulator import app as emulator_app

    # The token endpoint, open to anyone, takes 64 KB: a chunked body is cut off there.
    tracemalloc.start()
    try:
        answer = await client.post(TOKEN_PATH, content=_chunks(50 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 413
    assert answer.json() == {"message": "request body is over 65,536 bytes"}
    assert peak < 8 << 20
    # A Content-Length over the limit is refused before any of the body is read.
    declared = await client.post(TOKEN_PATH, content=b"{}", headers={"content-length": str(10**12)})
    assert declared.status_code == 413
    # Elsewhere authentication comes first, and the limit fits a long whitelist.
    monkeypatch.setattr(emulator_app, "BODY_LIMIT", 4 << 20)
    unsigned = await client.post(
        "/collections", content=_chunks(5 << 20), headers={"Authorization": ""}
    )
    assert unsigned.status_code == 401
    big = await client.post("/collections", content=_chunks(5 << 20))
    assert (big.status_code, big.json()["message"]) == (413, "request body is over 4,194,304 bytes")
    wallets = [WALLET] * 50_000  # some 2.2 MB of JSON
    body = [collection(whitelistingInfo={"list": {"wallets": wallets}, "emails": []})]
    assert (await client.post("/collections", json=body)).status_code == 201


@pytest.mark.parametrize("path", [TOKEN_PATH, "/collections", "/v1/platform-webhooks"])
async def test_a_body_nested_thousands_deep_is_400_not_a_fault(
    client: httpx.AsyncClient, path: str
) -> None:
    # The decoder raises RecursionError, not a DecodeError, some thousand levels down.
    answer = await client.post(path, content=b"[" * 5000 + b"]" * 5000)
    assert answer.status_code == 400
    assert answer.json() == {"message": "request body is not valid JSON: it nests too deeply"}


async def test_a_webhook_url_is_at_most_2048_characters(client: httpx.AsyncClient) -> None:
    base = "http://127.0.0.1/"
    longest = base + "x" * (2048 - len(base))
    created = await client.post("/v1/platform-webhooks", json={"url": longest, "events": ["a"]})
    too_long = await client.post(
        "/v1/platform-webhooks", json={"url": longest + "x", "events": ["a"]}
    )
    assert created.status_code == 201
    assert (too_long.status_code, too_long.json()["field"]) == (422, "url")
    assert too_long.json()["message"] == "url is longer than 2,048 characters (2,049)"


async def test_the_delivery_log_is_bounded_by_size_as_well_as_count(emulator: Emulator) -> None:
    # Webhooks set in the state directly may hold what the API refuses: a 1 MB URL.
    hook = {"id": "wh_x", "url": "http://off.example/" + "x" * (1 << 20), "isActive": True}
    hook["events"] = ["*"]
    for _ in range(40):
        emulator.deliveries.emit("item.sold", {}, [hook])
    await emulator.deliveries.idle()
    entries = emulator.deliveries.entries()
    assert 1 < len(entries) < 40
    assert len(msgspec.json.encode(entries)) <= (16 << 20) + 1000  # 16 MB, a few bytes more
