"""One rule for the text of a body, in every route that reads one (:mod:`api.body_text`).

Data (a list, one object, a token answer) must be UTF-8, as JSON is: anything else is the
same refusal in the app's tab, the client's routes and every output of ``get``, never a
list read with U+FFFD for the bytes (an id changed, and a ``delete`` addressed another).
An error body is read for its reason in the charset it declares, a byte order mark
skipped, a byte that is no UTF-8 marked: the reason is shown and its field marked.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest

from tokensales_tui import cli
from tokensales_tui.api import UnexpectedResponse, ValidationError
from tokensales_tui.api.body_text import DataPieces, reason_text
from tokensales_tui.api.endpoints import Endpoint
from tokensales_tui.emulator import create_app
from tokensales_tui.script import main as script
from tokensales_tui.script import run
from tokensales_tui.session import Launch, Session
from tokensales_tui.ui.app import TokenSalesApp

from .apifakes import FakeServer, connection
from .apphelpers import Rigged, emulator_env, loaded, screen_text

JSON = "application/json"


def item(name: str) -> dict[str, Any]:
    return {
        "id": name,
        "title": f"{name} café €",  # not ASCII: decoded across the cuts of the pieces
        "currency": "USD",
        "price": 1,
        "description": "",
        "imageUrl": "",
    }


LONG = [item(f"itm_{i}") for i in range(3000)]  # past a stretch: rows handed before the end
LATIN = (
    b'{"id":"itm_\xe9","title":"T\xe9","currency":"USD","price":1,"description":"d","imageUrl":""}'
)
SKIPPED = b'{"id":"itm_1","title":"T","currency":"USD","price":1,"description":"","imageUrl":"","note":"caf\xe9"}'


def listed(*texts: bytes, wrapped: bool = False) -> bytes:
    body = b"[" + b",".join(texts) + b"]"
    return b'{"items":' + body + b"}" if wrapped else body


def long_then(bad: bytes) -> bytes:
    return listed(*(json.dumps(row).encode() for row in LONG), bad)


# (body, content type, offset of its first byte that is not UTF-8)
NOT_UTF8 = {
    "bare": (listed(LATIN), JSON, listed(LATIN).index(b"\xe9")),
    "wrapped": (listed(LATIN, wrapped=True), JSON, listed(LATIN, wrapped=True).index(b"\xe9")),
    "declared latin-1": (listed(LATIN), f"{JSON}; charset=latin-1", listed(LATIN).index(b"\xe9")),
    "in a member the model skips": (listed(SKIPPED), JSON, listed(SKIPPED).index(b"\xe9")),
    "after a BOM": (b"\xef\xbb\xbf" + listed(LATIN), JSON, 3 + listed(LATIN).index(b"\xe9")),
    "after 3,000 rows": (long_then(LATIN), JSON, long_then(LATIN).index(b"\xe9")),
}


class Pieces(httpx.AsyncByteStream):
    """A body arriving ``size`` bytes at a time: characters cut between two pieces."""

    def __init__(self, body: bytes, size: int = 7) -> None:
        self.body, self.size = body, size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), self.size):
            yield self.body[start : start + self.size]


def answer(body: bytes, content_type: str, *, pieces: bool) -> httpx.Response:
    headers = {"content-type": content_type}
    if pieces:
        return httpx.Response(200, stream=Pieces(body), headers=headers)
    return httpx.Response(200, content=body, headers=headers)


def answering(body: bytes, content_type: str, *, pieces: bool = True) -> FakeServer:
    def handler(request: httpx.Request) -> httpx.Response:
        return answer(body, content_type, pieces=pieces)

    return FakeServer(
        {("GET", "/v1/items"): handler, ("GET", "/v1/items/itm_1"): handler},
    )


def refusal(offset: int) -> str:
    """The start of the words every route refuses such a body in."""
    return f"items: the body is not UTF-8, as JSON must be (byte {offset:,} is 0xE9"


async def client_routes(server: FakeServer) -> list[str]:
    """What each route of the client makes of the list: its error, or the ids it read."""
    said: list[str] = []

    def watch(_what: str, _arrival: Any) -> None:
        pass

    for kwargs in ({}, {"watch_rows": watch}):  # the Items tab's: only counted as it arrives
        async with server.client(**kwargs) as client:
            try:
                rows = await client.list_items()
                said.append(repr([row.id for row in rows]))
            except UnexpectedResponse as error:
                said.append(error.message)
    async with server.client() as client:
        got: list[str] = []
        try:
            await client.stream_list(
                "items", lambda rows: got.extend(msgspec.json.decode(r)["id"] for r in rows)
            )
            said.append(repr(got))
        except UnexpectedResponse as error:
            said.append(error.message)
    return said


OUTPUTS = [
    ["-o", "json"],
    ["-o", "jsonl"],
    ["-o", "csv"],
    ["-o", "table"],
    ["--jq", ".[].id"],
    ["--fields", "id,title", "-o", "csv"],
]


def get(
    server: FakeServer,
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str, str]:
    session = Session(
        "p", connection(), read_only=True, transport=httpx.MockTransport(server.handle)
    )
    monkeypatch.setattr(run, "open_session", lambda _args: (session, {}))
    code = script.main(cli.build_parser().parse_args(["get", *args]))
    said = capsys.readouterr()
    return code, said.out, said.err


@pytest.mark.parametrize("pieces", [True, False])
@pytest.mark.parametrize("case", list(NOT_UTF8))
async def test_a_list_that_is_not_utf8_is_refused_alike_by_every_client_route(
    case: str, pieces: bool
) -> None:
    body, content_type, offset = NOT_UTF8[case]
    said = await client_routes(answering(body, content_type, pieces=pieces))
    assert len(said) == 3
    for message in said:
        assert message.startswith(refusal(offset)), message


@pytest.mark.parametrize("case", list(NOT_UTF8))
def test_every_output_of_get_refuses_a_list_that_is_not_utf8(
    case: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body, content_type, offset = NOT_UTF8[case]
    server = answering(body, content_type)
    for args in [*(["items", *output] for output in OUTPUTS), ["payouts", "-o", "json"]]:
        code, out, err = get(server, args, monkeypatch, capsys)
        assert code == 1, (args, out, err)
        assert "\ufffd" not in out and "itm_\u00e9" not in out, args  # no row read otherwise
        assert refusal(offset) in err, (args, err)


def test_getting_one_object_that_is_not_utf8_is_refused_in_the_same_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = answering(LATIN, f"{JSON}; charset=iso-8859-1", pieces=False)
    for output in OUTPUTS[:2]:
        code, out, err = get(server, ["items", "itm_1", *output], monkeypatch, capsys)
        assert code == 1 and out == ""
        assert "item: the body is not UTF-8, as JSON must be (byte 11 is 0xE9;" in err, err
        assert "it names charset=iso-8859-1" in err


async def test_a_token_answer_that_is_not_utf8_is_refused_in_the_same_words() -> None:
    def token(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b'{"accessToken":"tok\xe9n"}')

    server = FakeServer({("POST", "/auth/getAccessToken"): token})
    async with server.client() as client:
        with pytest.raises(UnexpectedResponse) as caught:
            await client.check_credentials()
    assert "token response: the body is not UTF-8, as JSON must be (byte 19 is 0xE9)" in str(
        caught.value
    )


@pytest.mark.parametrize("pieces", [True, False])
async def test_characters_cut_between_pieces_and_a_bom_read_alike_in_every_route(
    pieces: bool,
) -> None:
    rows = [item(name) for name in ("itm_é", "itm_€", "itm_😀", "itm_\u0627")]
    body = b"\xef\xbb\xbf" + json.dumps(rows, ensure_ascii=False).encode()
    said = await client_routes(answering(body, JSON, pieces=pieces))
    assert said == [repr([row["id"] for row in rows])] * 3


@pytest.mark.parametrize("cut", [b"\xe2\x82", b"\xf0\x9f\x98"])
def test_a_character_cut_short_at_the_end_is_no_utf8(cut: bytes) -> None:
    check = DataPieces("items", status=200, content_type=JSON)
    check(b"[1] " + cut)  # white space after the list, then the start of a character
    with pytest.raises(UnexpectedResponse, match=r"byte 4 is 0x"):
        check.end()


class NotUtf8Items(Rigged):
    """The emulator, its items answered with a body that is not UTF-8, in pieces."""

    def __init__(self, body: bytes, content_type: str) -> None:
        super().__init__(create_app(seed=0))
        self.body, self.content_type = body, content_type

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/v1/items":
            return answer(self.body, self.content_type, pieces=True)
        return await super().handle_async_request(request)


@pytest.mark.parametrize("case", ["declared latin-1", "in a member the model skips"])
async def test_the_items_tab_refuses_a_list_that_is_not_utf8_as_get_does(case: str) -> None:
    body, content_type, offset = NOT_UTF8[case]
    streamed = (await client_routes(answering(body, content_type)))[-1]  # get's route
    transport = NotUtf8Items(body, content_type)
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot, "items")
        tab = app.browse.tab("items")
        assert tab.error is not None
        assert tab.error.message.startswith(refusal(offset))
        assert tab.error.message == streamed  # the command's words, exactly
        await pilot.press("2")
        await pilot.pause()
        assert "not UTF-8" in screen_text(app)
        assert "\ufffd" not in screen_text(app)


# --- error bodies: the reason, in the charset declared ---------------------------------

REFUSED = [
    (
        b'{"message":"URL r\xe9fus\xe9e","field":"url"}',
        f"{JSON}; charset=iso-8859-1",
        "URL réfusée",
    ),
    (b'{"message":"URL r\xe9fus\xe9e","field":"url"}', f'{JSON}; charset="Latin-1"', "URL réfusée"),
    (b'{"message":"\x93quoted\x94","field":"url"}', f"{JSON};charset=windows-1252", "“quoted”"),
    (
        b'\xef\xbb\xbf{"message":"url must be an URL address","field":"url"}',
        JSON,
        "must be an URL address",
    ),
    (b'{"message":"URL r\xe9fus\xe9e","field":"url"}', JSON, "URL r\ufffdfus\ufffde"),
    (
        b'{"message":"URL r\xe9fus\xe9e","field":"url"}',
        f"{JSON}; charset=x-unknown",
        "URL r\ufffdfus\ufffde",
    ),
    (b'{"message":"r\\u00e9","field":"url"}', f"{JSON}; charset=unicode_escape", "ré"),
    (b'{"message":"bad \\u001b[31m \xe9","field":"url"}', f"{JSON}; charset=latin-1", "bad"),
]


@pytest.mark.parametrize(("body", "content_type", "reason"), REFUSED)
async def test_an_error_body_gives_its_reason_and_field_in_any_charset(
    body: bytes, content_type: str, reason: str
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(422, content=body, headers={"content-type": content_type})

    server = FakeServer({("POST", "/v1/platform-webhooks"): refuse})
    async with server.client() as client:
        with pytest.raises(ValidationError) as caught:
            await client.request(Endpoint("POST", "base", "/v1/platform-webhooks"), b"{}")
    error = caught.value
    assert reason in error.message and error.field == "url", error.message
    assert "\x1b" not in error.message and "\ufeff" not in error.message


def test_an_error_body_s_text_is_read_by_the_charset_python_knows_as_text() -> None:
    assert reason_text(b"r\xe9", "text/plain; charset=ISO-8859-1") == "ré"
    assert reason_text(b"\xef\xbb\xbfr\xc3\xa9", "text/plain") == "ré"
    # A codec that is no text encoding, or no charset, is not used: UTF-8, bytes marked.
    for charset in ("rot13", "base64", "hex", "zlib", "unicode_escape", "idna", "../../x"):
        assert reason_text(b"r\xe9\\x41", f"text/plain; charset={charset}") == "r\ufffd\\x41"
    # Declared UTF-8 that is not: marked, never lost.
    assert reason_text(b"r\xe9", "text/plain; charset=utf-8") == "r\ufffd"


@pytest.mark.parametrize(("body", "content_type", "reason"), REFUSED[:5])
def test_create_says_the_server_s_reason_in_any_charset(
    body: bytes,
    content_type: str,
    reason: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(422, content=body, headers={"content-type": content_type})

    server = FakeServer({("POST", "/v1/platform-webhooks"): refuse})
    session = Session(
        "p", connection(), read_only=False, transport=httpx.MockTransport(server.handle)
    )
    monkeypatch.setattr(run, "open_session", lambda _args: (session, {}))
    args = ["create", "webhook", "--url", "https://e.example/h", "--event", "item.sold"]
    code = script.main(cli.build_parser().parse_args(args))
    err = capsys.readouterr().err
    assert code == 2 and reason in err and "url" in err, err
    assert "rejected the request (HTTP 422)" not in err and "{" not in err
