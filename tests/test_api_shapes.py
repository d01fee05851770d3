"""Each response shape the client accepts where the interface says "not shown"."""

from __future__ import annotations

import math

import httpx
import pytest

from tokensales_tui.api import UnexpectedResponse, ValidationError, shapes
from tokensales_tui.api.body_paths import (
    argument_paths,
    wire_paths,
    with_objects,
    without_positions,
)
from tokensales_tui.api.models import NewCollection, PayoutDefinition, WebhookCreate, WebhookUpdate

from .apifakes import FakeServer, json_response, make_jwt

ITEM = {
    "id": "itm_1",
    "title": "Gold pass",
    "currency": "USD",
    "price": 10,
    "description": "",
    "imageUrl": "",
}


@pytest.mark.parametrize(
    "body",
    [
        [ITEM],
        {"items": [ITEM]},
        {"data": [ITEM]},
        {"results": [ITEM], "count": 1},
        {"data": {"items": [ITEM]}, "page": 1},
        {"page": 1, "things": [ITEM]},
    ],
    ids=["bare", "items", "data", "results", "nested-data", "only-list"],
)
async def test_item_list_shapes(body: object) -> None:
    server = FakeServer({("GET", "/v1/items"): json_response(200, body)})
    async with server.client() as client:
        items = await client.list_items()
    assert [i.id for i in items] == ["itm_1"]
    assert items[0].raw == ITEM


@pytest.mark.parametrize("key", ["assets", "data", "results"])
async def test_asset_list_keys_and_id_keys(key: str) -> None:
    rows = [{"assetId": "a1", "symbol": "USDC"}, {"_id": 7, "symbol": "ETH"}, {"name": "no id"}]
    server = FakeServer({("GET", "/v1/assets"): json_response(200, {key: rows})})
    async with server.client() as client:
        assets = await client.list_assets()
    assert [a.id for a in assets] == ["a1", "7", None]
    assert assets[0].raw["symbol"] == "USDC"


@pytest.mark.parametrize("id_key", ["id", "_id", "tokenId", "token_id", "collectionId"])
async def test_collection_id_keys(id_key: str) -> None:
    row = {id_key: "col_9", "name": "Genesis", "whitelisted": True}
    server = FakeServer({("GET", "/collections"): json_response(200, {"collections": [row]})})
    async with server.client() as client:
        (collection,) = await client.list_collections()
    assert collection.id == "col_9"
    assert collection.is_whitelisted is True


@pytest.mark.parametrize(
    "body",
    [
        {"accessToken": "T"},
        {"access_token": "T", "expires_in": 30},
        {"token": "T"},
        {"jwt": "T"},
        {"data": {"accessToken": "T", "expiresIn": "30"}},
        "T",
    ],
)
def test_token_shapes(body: object) -> None:
    token, expires = shapes.extract_token(body)
    assert token == "T"
    assert expires in (None, 30.0)


@pytest.mark.parametrize("expiry", ["\u0663\u0660", "\uff13\uff10", "3_0", "\u00b3\u2070"])
def test_a_token_lifetime_written_as_text_is_read_from_ascii_digits_only(expiry: str) -> None:
    assert shapes.extract_token({"accessToken": "T", "expiresIn": expiry}) == ("T", None)
    assert shapes.extract_token({"accessToken": "T", "expiresIn": " 30 "}) == ("T", 30.0)


def test_token_shape_without_token_is_rejected() -> None:
    with pytest.raises(ValueError):
        shapes.extract_token({"ok": True})


async def test_token_response_without_token_is_unexpected() -> None:
    server = FakeServer({("POST", "/auth/getAccessToken"): json_response(200, {"ok": True})})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse, match="no access token"):
            await client.list_webhooks()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"message": "url is required"}, "url is required"),
        ({"error": "bad url"}, "bad url"),
        ({"error": {"message": "nested"}}, "nested"),
        ({"detail": "too short"}, "too short"),
        (
            {"title": "Bad Request", "errors": ["events must not be empty"]},
            "Bad Request — events must not be empty",
        ),
        ({"errors": [{"field": "url", "message": "invalid"}]}, "url: invalid"),
        (
            {
                "type": "about:blank",
                "title": "Invalid",
                "validation": [{"field": "name", "message": "required"}],
            },
            "Invalid — name: required",
        ),
        ({"message": "is invalid", "field": "whitelisted"}, "whitelisted: is invalid"),
        # The path the message starts with keeps a separator from its problem.
        (
            {
                "message": "contractAddress the address must start with 0x",
                "field": "contractAddress",
            },
            "contractAddress: the address must start with 0x",
        ),
        ({"message": "name: too long", "field": "name"}, "name: too long"),
        ({"message": "see name above", "field": "name"}, "see name above"),
        ({"errors": {"url": ["is not a URL"]}}, "url: is not a URL"),
        # OAuth's code came alone: its description was lost.
        (
            {"error": "invalid_request", "error_description": "url not reachable"},
            "invalid_request — url not reachable",
        ),
        ({"error_description": "only this"}, "only this"),
        # NestJS: a list of messages beside the status's name; it said "Bad Request" only.
        (
            {
                "statusCode": 400,
                "message": [
                    "url must be an URL address",
                    "events must contain at least 1 elements",
                ],
                "error": "Bad Request",
            },
            "url must be an URL address; events must contain at least 1 elements",
        ),
        # FastAPI: problems under "detail", each placed by "loc"; it said nothing at all.
        (
            {
                "detail": [
                    {
                        "loc": ["body", "fiatDetails", "paymentProviderId"],
                        "msg": "field required",
                        "type": "missing",
                    }
                ]
            },
            "fiatDetails.paymentProviderId: field required",
        ),
        (
            {"detail": [{"loc": ["body", 1, "whitelistingInfo", "emails", 0], "msg": "bad"}]},
            "[1].whitelistingInfo.emails[0]: bad",
        ),
        # Long lists are bounded: five said, the rest counted.
        (
            {"message": [f"problem {n}" for n in range(9)]},
            "problem 0; problem 1; problem 2; problem 3; problem 4; and 4 more",
        ),
        ({"message": [], "error": "Bad Request"}, "Bad Request"),
        ({"message": [3, None, {"no": "text"}], "error": "Bad Request"}, "Bad Request"),
    ],
)
def test_error_bodies_become_one_line(body: object, expected: str) -> None:
    assert shapes.error_message(body) == expected


def test_one_long_entry_leaves_room_for_the_others() -> None:
    said = shapes.error_message({"message": ["x" * 5000, "url must be an URL address"]})
    assert said is not None and said.endswith("; url must be an URL address")
    assert len(said) <= shapes.MAX_MESSAGE


async def test_a_nestjs_refusal_is_said_in_its_words_headed_by_the_request() -> None:
    body = {
        "statusCode": 400,
        "message": ["url must be an URL address"],
        "error": "Bad Request",
    }
    server = FakeServer({("POST", "/v1/platform-webhooks"): json_response(400, body)})
    from tokensales_tui.api.models import WebhookCreate

    async with server.client() as client:
        with pytest.raises(ValidationError) as caught:
            await client.create_webhook(WebhookCreate(url="x", events=["a"]))
    assert caught.value.message == "url must be an URL address"
    assert caught.value.headed == (
        "POST /v1/platform-webhooks (HTTP 400): url must be an URL address"
    )


async def test_server_message_reaches_validation_error() -> None:
    server = FakeServer(
        {
            ("POST", "/v1/platform-webhooks"): json_response(
                422, {"message": "events must not be empty", "field": "events"}
            )
        }
    )
    from tokensales_tui.api.models import WebhookCreate

    async with server.client() as client:
        with pytest.raises(ValidationError) as caught:
            await client.create_webhook(WebhookCreate(url="https://x.example", events=[]))
    assert str(caught.value) == "events: must not be empty"
    assert caught.value.status == 422
    assert (caught.value.field, caught.value.index) == ("events", None)


@pytest.mark.parametrize(
    ("body", "place"),
    [
        (
            {"message": "m", "field": "whitelistingInfo.emails[0]", "index": 1},
            ("whitelistingInfo.emails[0]", 1),
        ),
        ({"message": "m", "field": "[2].name"}, ("name", 2)),
        ({"message": "m", "field": "collections[3].contractAddress"}, ("contractAddress", 3)),
        ({"message": "m", "field": "1.blockchain", "index": 0}, ("blockchain", 0)),
        ({"message": "m", "field": "name", "index": -1}, ("name", None)),
        ({"message": "m", "field": "name", "index": True}, ("name", None)),
        ({"message": "m", "field": "name", "index": 1.5}, ("name", None)),
        ({"message": "m", "field": ["name"]}, (None, None)),
        # FastAPI's loc, where the request part leads and positions are numbers.
        (
            {"detail": [{"loc": ["body", "fiatDetails", "paymentProviderId"], "msg": "m"}]},
            ("fiatDetails.paymentProviderId", None),
        ),
        (
            {"detail": [{"loc": ["body", 2, "contractAddress"], "msg": "m"}]},
            ("contractAddress", 2),
        ),
        ({"errors": [{"path": "[1].name", "message": "m"}]}, ("name", 1)),
        # A list's own element is no element of the body.
        ({"errors": [{"field": "events[1]", "message": "m"}]}, ("events[1]", None)),
        # Several problems name no one place.
        (
            {"detail": [{"loc": ["body", "a"], "msg": "m"}, {"loc": ["body", "b"], "msg": "m"}]},
            (None, None),
        ),
        ({"message": "m", "field": "  "}, (None, None)),
        (["not", "an", "object"], (None, None)),
        ("text", (None, None)),
    ],
)
def test_the_place_an_error_body_names(body: object, place: tuple[object, object]) -> None:
    assert shapes.error_place(body) == place


@pytest.mark.parametrize(
    ("body", "problems"),
    [
        # FastAPI: every entry, its loc as a path (a list's own element stays in it).
        (
            {
                "detail": [
                    {"loc": ["body", "fiatDetails", "paymentProviderId"], "msg": "field required"},
                    {"loc": ["body", "events", 1], "msg": "unknown"},
                    {"loc": ["body", 2, "name"], "msg": "too long"},
                ]
            },
            [
                (
                    "fiatDetails.paymentProviderId",
                    None,
                    "fiatDetails.paymentProviderId: field required",
                ),
                ("events[1]", None, "events[1]: unknown"),
                ("name", 2, "[2].name: too long"),
            ],
        ),
        # NestJS: texts that start with the field they are about.
        (
            {"statusCode": 400, "message": ["url must be an URL address", "0.name is empty"]},
            [("url", None, "url must be an URL address"), ("name", 0, "0.name is empty")],
        ),
        # Whether the first word is a field of the request, only the caller knows.
        (
            {"message": ["Something is wrong", "  ", "Refused."]},
            [("Something", None, "Something is wrong"), (None, None, "Refused.")],
        ),
        # An errors list naming fields, a map of fields, a JSON pointer.
        (
            {"errors": [{"field": "events", "message": "bad"}, {"message": "and this"}]},
            [("events", None, "events: bad"), (None, None, "and this")],
        ),
        ({"errors": {"url": ["bad", "worse"]}}, [("url", None, "url: bad, worse")]),
        (
            {"errors": [{"pointer": "/1/contractAddress", "detail": "no"}]},
            [("contractAddress", 1, "[1].contractAddress: no")],
        ),
        # A pointer's parts that are no position in ASCII digits stay names (int() took
        # a superscript two for one, and refused 5,000 digits with an error).
        (
            {"errors": [{"pointer": "/a/\u00b2/b", "detail": "no"}]},
            [("a.\u00b2.b", None, "a.\u00b2.b: no")],
        ),
        # A field of the body's own: the whole message is its problem.
        (
            {"message": "must not be empty", "field": "events"},
            [("events", None, "events: must not be empty")],
        ),
        # No field named, or nothing said.
        ({"message": "emulated failure"}, [(None, None, "emulated failure")]),
        ({"message": "  "}, []),
        (["not", "an", "object"], []),
    ],
)
def test_each_problem_an_error_body_names(body: object, problems: list[object]) -> None:
    assert shapes.error_problems(body) == problems


def test_a_pointer_of_five_thousand_digits_is_a_name_not_an_error() -> None:
    ((field, index, _),) = shapes.error_problems(
        {"errors": [{"pointer": "/a/" + "1" * 5000, "detail": "no"}]}
    )
    assert index is None and field is not None and field.startswith("a.1111")


async def test_every_problem_reaches_the_validation_error_cleaned() -> None:
    hostile = "url \x1b]0;owned\x07 must be [b]an URL[/b]"
    server = FakeServer(
        {
            ("POST", "/v1/platform-webhooks"): json_response(
                400, {"message": [hostile, "events must be an array"]}
            )
        }
    )
    from tokensales_tui.api.models import WebhookCreate

    async with server.client() as client:
        with pytest.raises(ValidationError) as caught:
            await client.create_webhook(WebhookCreate(url="x", events=["a"]))
    problems = caught.value.problems
    assert [(p.field, p.index) for p in problems] == [("url", None), ("events", None)]
    assert "\x1b" not in problems[0].message and "\x07" not in problems[0].message
    assert "must be [b]an URL[/b]" in problems[0].message
    assert caught.value.field is None  # several problems name no one place


@pytest.mark.parametrize(
    ("path", "member"),
    [
        ("whitelistingInfo.list.wallets[12]", "whitelistingInfo.list.wallets"),
        ("events.0", "events"),
        ("a.3.b", "a.b"),
        ("[1].name", "name"),
        ("name", "name"),
    ],
)
def test_a_path_without_positions(path: str, member: str) -> None:
    assert without_positions(path) == member


def test_the_paths_a_body_type_holds() -> None:
    assert wire_paths(WebhookCreate, WebhookUpdate) == ["url", "events", "secret"]
    assert wire_paths(list[NewCollection]) == [
        "name",
        "blockchain",
        "contractAddress",
        "whitelisted",
        "whitelistingInfo",
        "whitelistingInfo.emails",
        "whitelistingInfo.list",
        "whitelistingInfo.list.wallets",
    ]
    assert "fiatDetails.paymentProviderId" in wire_paths(PayoutDefinition)


def test_where_each_argument_of_a_build_lands() -> None:
    sample = {
        "name": "",
        "blockchain": "",
        "contract_address": "",
        "whitelisted": False,
        "wallets": [],
        "emails": [],
    }
    assert argument_paths(NewCollection.build, sample) == {
        "name": "name",
        "blockchain": "blockchain",
        "contract_address": "contractAddress",
        "whitelisted": "whitelisted",
        "wallets": "whitelistingInfo.list.wallets",
        "emails": "whitelistingInfo.emails",
    }
    assert with_objects({"a.b.c": "x", "a.d": "y"}) == {
        "a.b.c": "x",
        "a.b": "x",
        "a": "x",
        "a.d": "y",
    }


def test_an_argument_built_into_no_member_or_two_is_refused() -> None:
    def twice(name: str) -> dict[str, str]:
        return {"name": name, "label": name}

    with pytest.raises(ValueError, match="not one member"):
        argument_paths(twice, {"name": ""})
    with pytest.raises(ValueError, match="not one member"):
        argument_paths(lambda name: {"fixed": 1}, {"name": ""})


@pytest.mark.parametrize(
    ("content", "content_type", "fragment"),
    [
        (
            b"<html><body>502 Bad Gateway</body></html>",
            "text/html",
            "not valid JSON (HTTP 200, text/html",
        ),
        (b"", "application/json", "empty body"),
        (b"\xff\xfe\xfa", "application/json", "the body is not UTF-8"),
        (b"[" * 10_000 + b"]" * 10_000, "application/json", "body is nested too deeply to read"),
        (b'{"items": "nope"}', "application/json", "no list in it"),
        (b'["a", "b"]', "application/json", "entry 0 is not an object"),
        (
            b'{"items": [{"id": null, "title": "x", "currency": "USD", "price": 1}]}',
            "application/json",
            "items[0]",
        ),
        (
            b'{"items": [{"id": "1", "title": "x", "currency": "USD", "price": "cheap"}]}',
            "application/json",
            "price",
        ),
    ],
    ids=[
        "html",
        "empty",
        "bad-utf8",
        "deep",
        "object-not-list",
        "strings",
        "null-id",
        "bad-number",
    ],
)
async def test_bodies_that_fit_no_shape(content: bytes, content_type: str, fragment: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content, headers={"content-type": content_type})

    server = FakeServer({("GET", "/v1/items"): handler})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse) as caught:
            await client.list_items()
    assert fragment in str(caught.value)


async def test_numbers_sent_as_strings_are_accepted() -> None:
    row = dict(ITEM, price="12.50")
    server = FakeServer({("GET", "/v1/items"): json_response(200, [row])})
    async with server.client() as client:
        (item,) = await client.list_items()
    assert item.price == 12.5


async def test_single_asset_wrapped_under_data() -> None:
    server = FakeServer(
        {
            ("GET", "/v1/assets/a%2F1"): json_response(
                200, {"data": {"assetId": "a/1", "name": "USDC"}}
            )
        }
    )
    async with server.client() as client:
        asset = await client.get_asset("a/1")
    assert asset.id == "a/1"
    assert asset.raw["name"] == "USDC"


async def test_large_list_is_decoded_off_the_loop() -> None:
    rows = [dict(ITEM, id=f"itm_{i}") for i in range(5000)]
    server = FakeServer({("GET", "/v1/items"): json_response(200, {"items": rows})})
    async with server.client() as client:
        items = await client.list_items()
    assert len(items) == 5000 and items[-1].id == "itm_4999"


def test_jwt_helper_is_a_jwt() -> None:
    from tokensales_tui.api.auth import jwt_claims

    assert jwt_claims(make_jwt(iat=10, lifetime=5))["exp"] == 15


HOOK = '{"id":"%s","url":"https://x.example","events":["a"],"isActive":true}'
FOUR = "[" + ",".join(HOOK % name for name in "abcd") + "]"


@pytest.mark.parametrize("path", ["fast", "generic"])
def test_a_list_longer_than_the_row_limit_is_refused_in_words(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokensales_tui.api import decode
    from tokensales_tui.api.models import Webhook

    parser = decode.ListParser(Webhook, "webhooks", 200, "application/json")
    read = parser if path == "fast" else parser._generic
    monkeypatch.setattr(decode, "MAX_ROWS", 3)
    with pytest.raises(UnexpectedResponse, match="holds 4 entries; this client reads at most 3"):
        read(FOUR.encode())
    monkeypatch.setattr(decode, "MAX_ROWS", 4)
    assert len(read(FOUR.encode())) == 4


def test_an_entry_with_a_number_past_a_float_is_left_out_named_as_such() -> None:
    # It was named "got `null`": 1e999 is read as infinity, written again as null.
    from tokensales_tui.api.decode import ListParser, left_out
    from tokensales_tui.api.models import Item

    body = (
        b'[{"id": "a", "title": "x", "currency": "USD", "price": 1},'
        b' {"id": "b", "title": "y", "currency": "USD", "price": 1e999}]'
    )
    rows = left_out(ListParser(Item, "items", 200, "application/json")(body))
    assert rows is not None and [row.id for row in rows] == ["a"]
    assert rows.problems == ["items[1]: a number beyond a float's range - at `$.price`"]


def test_a_number_past_a_float_in_a_field_no_model_types_reads_as_a_whole_read_reads_it() -> None:
    """A row decoded as its list arrived, its text kept, read such a number only when
    shown, and raised then (the detail view, an export); a body read whole reads it as
    infinite, as every consumer clamps."""
    from tokensales_tui.api.decode import ListParser
    from tokensales_tui.api.models import Item

    body = b'[{"id": "a", "title": "x", "currency": "USD", "price": 1, "extra": -1e400}]'
    (row,) = ListParser(Item, "items", 200, "application/json")(body)
    assert row.raw_text is not None
    assert row.raw == {"id": "a", "title": "x", "currency": "USD", "price": 1, "extra": -math.inf}


def test_an_integer_python_reads_is_itself_in_a_body_that_holds_one_beyond_a_float() -> None:
    """One number beyond a float has the body read by the stdlib; its cut for integers
    was 4,000 digits, so an integer of 4,299 in another row read as infinite there and
    as itself wherever msgspec read it (Python's bound, 4,300 digits, is msgspec's too)."""
    from tokensales_tui.api.decode import ListParser
    from tokensales_tui.api.models import Item

    big = "7" * 4299
    body = (
        f'[{{"id": "a", "title": "x", "currency": "USD", "price": 1, "extra": {big}}},'
        ' {"id": "b", "title": "y", "currency": "USD", "price": 1, "extra": 1e400}]'
    ).encode()
    first, second = ListParser(Item, "items", 200, "application/json")(body)
    assert first.raw["extra"] == int(big)
    assert second.raw["extra"] == math.inf
    whole = f"[{big}, 1{'0' * 4300}]".encode()
    assert shapes.decode_json(whole, status=200, content_type="application/json", what="x") == [
        int(big),
        math.inf,
    ]


ODD_IDS = [
    ({"id": 42, "name": "A"}, "42"),
    ({"id": "col_1", "name": "B"}, "col_1"),
    ({"_id": 7, "name": "C"}, "7"),
    ({"id": 1.5, "name": "D"}, "1.5"),
    ({"id": 1e20, "name": "E"}, "1e+20"),  # as the server wrote it, not as a float reads
    ({"tokenId": 12345678901234567890, "name": "F"}, "12345678901234567890"),
    ({"id": True, "name": "G"}, None),
]


@pytest.mark.parametrize("wrapped", [False, True])
async def test_a_collection_id_of_any_number_is_read_and_deleted_by_the_text_get_uses(
    wrapped: bool,
) -> None:
    """The interface never types a collection's id: a number is no reason to leave the
    collection out, and the app shows, filters and deletes it by the text ``get`` prints."""
    import io
    import json

    import msgspec

    from tokensales_tui.script.output import Printer
    from tokensales_tui.ui.resources import COLLECTIONS

    rows = [row for row, _ in ODD_IDS]
    deleted: list[str] = []

    def delete(request: httpx.Request) -> httpx.Response:
        deleted.append(request.url.raw_path.decode())
        return httpx.Response(200)

    server = FakeServer(
        {
            ("GET", "/collections"): json_response(200, {"collections": rows} if wrapped else rows),
            ("DELETE", "/collection/42"): delete,
        }
    )
    async with server.client() as client:
        listed = await client.list_collections()
        assert [COLLECTIONS.row_id(c) for c in listed] == [want for _, want in ODD_IDS]
        assert getattr(listed, "missing", 0) == 0
        await client.delete_collection(COLLECTIONS.row_id(listed[0]) or "")
    assert deleted == ["/collection/42"]
    out = io.BytesIO()
    printer = Printer("csv", kind="collections", fields=("id",), stream=out)
    # as the server wrote them (httpx's json=, the stdlib's: 1e+20)
    printer.rows([msgspec.Raw(json.dumps(row).encode()) for row in rows])
    printer.end()
    # (a row of one empty cell is written "", not as a blank line)
    assert out.getvalue().decode().splitlines()[1:] == [want or '""' for _, want in ODD_IDS]
