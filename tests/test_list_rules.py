"""One rule for where a list body's list is, and whether it is one, in every route that
reads it: the app's (decoded as it arrives, else read whole), ``get``'s (split as it
arrives, else read whole) and the whole read itself."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec
import pytest

from tokensales_tui import cli
from tokensales_tui.api import UnexpectedResponse
from tokensales_tui.script import main as script
from tokensales_tui.script import run
from tokensales_tui.session import Session

from .apifakes import FakeServer, connection


def item(name: str) -> dict[str, Any]:
    return {
        "id": name,
        "title": name,
        "currency": "USD",
        "price": 1,
        "description": "",
        "imageUrl": "",
    }


X, Y = [item("itm_X")], [item("itm_Y")]
LONG = [item(f"itm_{i}") for i in range(6000)]  # 600 KB: rows are handed over as it arrives


def answering(content: bytes) -> FakeServer:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content, headers={"content-type": "application/json"})

    return FakeServer({("GET", "/v1/items"): handler})


async def both_routes(content: bytes) -> list[Any]:
    """What the app's route and ``get``'s route make of ``content``: ids, or the error."""
    said: list[Any] = []
    async with answering(content).client() as client:
        try:
            said.append([row.id for row in await client.list_items()])
        except UnexpectedResponse as error:
            said.append(error.message)
        got: list[str] = []
        try:
            await client.stream_list(
                "items", lambda rows: got.extend(msgspec.json.decode(r)["id"] for r in rows)
            )
            said.append(got)
        except UnexpectedResponse as error:
            said.append(error.message)
    return said


def body(*members: tuple[str, Any]) -> bytes:
    return ("{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in members) + "}").encode()


@pytest.mark.parametrize("first", [X, LONG, []])
async def test_the_order_of_the_members_never_changes_the_list(first: list[Any]) -> None:
    forward = await both_routes(body(("data", first), ("items", Y)))
    backward = await both_routes(body(("items", Y), ("data", first)))
    assert forward == backward
    for said in forward:  # two lists under list keys: neither is guessed
        assert isinstance(said, str) and "“items” and “data”" in said, said


@pytest.mark.parametrize(
    ("members", "message"),
    [
        (
            (
                ("success", False),
                ("error", {"code": 401, "message": "token expired"}),
                ("data", []),
            ),
            "token expired",
        ),
        ((("items", []), ("errors", ["upstream timeout"])), "upstream timeout"),
        ((("items", LONG), ("errors", ["upstream timeout"])), "upstream timeout"),
        ((("items", X), ("error", "quota exceeded")), "quota exceeded"),
        ((("data", []), ("success", False)), "success: false"),
    ],
)
async def test_a_list_carrying_an_error_is_that_error_in_every_route(
    members: tuple[tuple[str, Any], ...], message: str
) -> None:
    for said in await both_routes(body(*members)):
        assert isinstance(said, str) and message in said, said
        assert said.startswith("items: the server reported an error")


@pytest.mark.parametrize(
    "members",
    [
        (("items", X), ("success", True), ("error", None), ("errors", [])),
        (("error", ""), ("errors", {}), ("items", X)),
        (("items", X), ("error", {})),
    ],
)
async def test_a_list_beside_marks_of_no_error_is_a_list(members: tuple[Any, ...]) -> None:
    assert await both_routes(body(*members)) == [["itm_X"], ["itm_X"]]


def test_get_reports_the_error_a_list_carries_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = answering(body(("items", []), ("errors", ["upstream timeout"])))
    session = Session(
        "p", connection(), read_only=True, transport=httpx.MockTransport(server.handle)
    )
    monkeypatch.setattr(run, "open_session", lambda _args: (session, {}))
    code = script.main(cli.build_parser().parse_args(["get", "items", "-o", "jsonl"]))
    said = capsys.readouterr()
    assert code == 1 and said.out == "" and "upstream timeout" in said.err


@pytest.mark.parametrize("items", [X, LONG])
async def test_a_byte_order_mark_is_skipped_in_every_route(items: list[Any]) -> None:
    said = await both_routes(b"\xef\xbb\xbf" + json.dumps(items).encode())
    assert said == [[row["id"] for row in items]] * 2


async def test_a_body_that_is_no_json_is_named_by_its_resource_in_every_route() -> None:
    for said in await both_routes(b"\xef\xbb\xbf{oops"):
        assert said.startswith("items: "), said


@pytest.mark.parametrize("tail", [b"\x00", b"\x0c", b"\x0b", b" garbage", b"\xc2\xa0"])
@pytest.mark.parametrize("items", [X, LONG])
@pytest.mark.parametrize("wrapped", [False, True])
async def test_only_white_space_may_follow_a_list_in_every_route(
    tail: bytes, items: list[Any], wrapped: bool
) -> None:
    text = json.dumps({"items": items} if wrapped else items).encode()
    assert await both_routes(b"\n" + text + b" \r\n\t") == [[row["id"] for row in items]] * 2
    for said in await both_routes(text + tail):
        assert isinstance(said, str) and said.startswith("items: "), said


@pytest.mark.parametrize("head", [b"\x0c", b"\x0b"])
async def test_only_white_space_may_come_before_a_list_in_every_route(head: bytes) -> None:
    for said in await both_routes(head + json.dumps(X).encode()):
        assert isinstance(said, str) and said.startswith("items: "), said


def raw_body(*members: tuple[str, Any]) -> bytes:
    """:func:`body` with keys written as given (an escape in a key stays one) and values
    given as bytes written as they are."""

    def text(value: Any) -> str:
        return value.decode() if isinstance(value, bytes) else json.dumps(value)

    return ("{" + ", ".join(f'"{k}": {text(v)}' for k, v in members) + "}").encode()


@pytest.mark.parametrize(
    ("members", "key"),
    [
        ((("items", X), ("items", Y)), "items"),
        ((("items", LONG), ("items", Y)), "items"),
        ((("data", X), ("data", Y)), "data"),
        ((("results", X), ("results", [])), "results"),
        ((("note", "x"), ("data", X), ("data", Y)), "data"),  # not the first member
        ((("items", X), ("\\u0069tems", Y)), "items"),  # the same key, written otherwise
        ((("items", X), ("success", True), ("items", "later")), "items"),
        ((("data", raw_body(("items", X), ("total", 1), ("items", Y))),), "items"),
    ],
)
async def test_a_list_key_given_twice_is_refused_alike_in_every_route(
    members: tuple[tuple[str, Any], ...], key: str
) -> None:
    """The whole read kept the last list, the app's decoding as it arrives refused the
    body, and a checker reading the first would have seen another list: which list a
    body named twice holds is a guess, refused in every route in the same words."""
    said = await both_routes(raw_body(*members))
    assert said[0] == said[1], said
    assert isinstance(said[0], str), said
    assert said[0].startswith(f"items: the body holds the list “{key}” twice"), said


@pytest.mark.parametrize(
    ("body", "escaped"),
    [
        (rb'{"\u0069tems": [], "items": []}', True),
        (rb'{"v": "a\"", "\u0069tems": []}', True),
        (rb'{"v": "\\uZZ", "\u0069tems": []}', True),  # a backslash escaped, then "u"
        (rb'{"v": "\u0041\u0042", "items": []}', False),  # in a value, not a key
        (rb'{"v": "\u0041: x", "items": []}', False),
        (rb'{"v": "\u0041', False),  # a string that never ends
    ],
)
def test_a_key_written_with_an_escape_is_found_wherever_it_stands(
    body: bytes, escaped: bool
) -> None:
    from tokensales_tui.api import shapes

    assert shapes.may_repeat(body, ["items"]) is escaped


def test_a_body_of_many_escapes_is_read_once_for_keys_written_with_one() -> None:
    # Searched from every escape, a value of 200,000 escaped characters was read again
    # from each (about 10^11 steps: hours, the load wedged); ended by a bound here.
    import subprocess
    import sys

    program = (
        "from tokensales_tui.api import shapes\n"
        "value = b'\\\\u00e9' * 200_000\n"
        'plain = b\'[{"title": "\' + value + b\'", "id": "a"}\'\n'
        "keyed = plain + b', {\"\\\\u0069d\": 1}]'\n"
        "print(shapes.may_repeat(keyed, ['items']), shapes.may_repeat(plain + b']', ['items']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["True", "False"], done.stderr
