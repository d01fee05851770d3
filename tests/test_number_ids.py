"""An id the server sends as a JSON number is the text it wrote, in every route that
reads one (the app's, as the list arrives or read whole; ``get``'s; one object), and
that text is what the app shows, copies and deletes by, and what ``get`` prints and
``delete`` addresses: never a decoded number written again (``1e+20`` read as ``1e20``,
``0.1000000000000000000001`` as ``0.1``, ``-0`` as ``0``, ``1e400`` as nothing), which
would address another object, or none."""

from __future__ import annotations

import asyncio
import io
import math
import re
import sys
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from tokensales_tui import cli
from tokensales_tui.api import shapes
from tokensales_tui.api.decode import left_out
from tokensales_tui.emulator import create_app
from tokensales_tui.script import main as script
from tokensales_tui.script import run
from tokensales_tui.session import Launch, Session
from tokensales_tui.ui.app import TokenSalesApp

from .apifakes import FakeServer, connection
from .apphelpers import Rigged, emulator_env, loaded, screen_text, wait_for, wait_for_screen

WRITTEN = [
    "0.1000000000000000000001",
    "1E5",
    "1e+20",
    "1e400",
    "-0",
    "12345678901234567890123",
]
"""Ids as a server writes them: each a JSON number a float reads as another (or none)."""


def entries(key: str = "id", pad: int = 0) -> list[bytes]:
    filler = f', "note": "{"x" * pad}"' if pad else ""
    return [
        f'{{"{key}": {written}, "name": "c{n}", "price": 0.1000000000000000000001{filler}}}'.encode()
        for n, written in enumerate(WRITTEN)
    ]


SHAPES = {
    # a short list: decoded once it has arrived
    "bare": lambda rows: b"[" + b", ".join(rows) + b"]",
    # a long one: decoded as it arrives, a stretch at a time
    "arriving": lambda rows: b"[" + b",\n".join(rows) + b"]",
    # a shape read whole, then split
    "nested": lambda rows: b'{"data": {"collections": [' + b", ".join(rows) + b"]}}",
    # an entry that fits no collection: the whole read names it and reads the rest
    "misfit": lambda rows: b"[" + b", ".join([*rows, b'{"id": "x", "name": 5}']) + b"]",
    # a lone surrogate, which JSON allows and JavaScript servers send
    "surrogate": lambda rows: b'[{"id": "\\ud800"}, ' + b", ".join(rows) + b"]",
}


def body(shape: str, key: str = "id") -> bytes:
    return SHAPES[shape](entries(key, pad=60_000 if shape == "arriving" else 0))


def answering(path: str, content: bytes) -> tuple[FakeServer, list[str]]:
    """A server whose list at ``path`` is ``content``; the DELETE paths it was sent."""
    deleted: list[str] = []

    def listed(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content, headers={"content-type": "application/json"})

    server = FakeServer({("GET", path): listed})
    handle = server.handle

    def handled(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            deleted.append(unquote(request.url.raw_path.decode()))
            return httpx.Response(200)
        return handle(request)

    server.handle = handled  # type: ignore[method-assign]
    return server, deleted


def listed_ids(rows: list[Any]) -> list[str | None]:
    return [row.id for row in rows if row.id != "\ufffd"]


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_a_collection_is_listed_and_deleted_by_the_id_its_server_wrote(shape: str) -> None:
    server, deleted = answering("/collections", body(shape))
    async with server.client() as client:
        rows = await client.list_collections()
        assert listed_ids(rows) == WRITTEN
        assert (left_out(rows) is not None) == (shape == "misfit")
        for row in rows[-len(WRITTEN) :]:
            await client.delete_collection(row.id)
    assert deleted == [f"/collection/{written}" for written in WRITTEN]


@pytest.mark.parametrize("key", ["id", "_id", "assetId"])
@pytest.mark.parametrize("shape", ["bare", "arriving", "nested", "surrogate"])
async def test_an_asset_is_listed_by_the_id_its_server_wrote(shape: str, key: str) -> None:
    content = body(shape, key).replace(b'"collections"', b'"assets"')
    server, _ = answering("/v1/assets", content)
    async with server.client() as client:
        rows = await client.list_assets()
    assert listed_ids(rows) == WRITTEN


@pytest.mark.parametrize("written", WRITTEN)
def test_one_asset_is_read_by_the_id_its_server_wrote(
    written: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    content = f'{{"data": {{"assetId": {written}, "symbol": "X"}}}}'.encode()

    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content, headers={"content-type": "application/json"})

    server = FakeServer({("GET", f"/v1/assets/{written.replace('+', '%2B')}"): answer})

    async def read() -> Any:
        async with server.client() as client:
            return await client.get_asset(written)

    asset = asyncio.run(read())
    assert asset.id == written
    assert asset.raw["symbol"] == "X"
    # get prints it, by the same text; the number as the server wrote it
    assert command(server, monkeypatch, "get", "assets", written, "-o", "jsonl") == 0
    assert capsys.readouterr().out == f'{{"assetId":{written},"symbol":"X"}}\n'


def test_ids_are_never_a_decoded_number_written_again() -> None:
    """Where only a decoded object is at hand, a number id has no text left: no id,
    rather than another object's."""
    keys = shapes.COLLECTION_ID_KEYS
    assert shapes.find_id({"id": 1e20, "_id": "col_1"}, keys) is None
    assert shapes.find_id({"id": 0, "_id": "col_1"}, keys) is None
    assert shapes.find_id({"id": "", "_id": "col_1"}, keys) == "col_1"
    assert shapes.COLLECTION_IDS(b'{"id": null, "tokenId": -0, "_id": "col_1"}') == "col_1"
    assert shapes.COLLECTION_IDS(b'{"id": true, "tokenId": -0}') == "-0"
    assert shapes.COLLECTION_IDS(b'{"id": "c\\u00e9"}') == "c\u00e9"
    assert shapes.COLLECTION_IDS(b'{"id": "\xff"}') == "\ufffd"
    assert shapes.COLLECTION_IDS(b"[1]") is None
    assert shapes.created_ids(b'{"created": [{"id": 1e+20}, {"_id": "b"}, 7]}') == {"1e+20", "b"}
    assert shapes.created_ids(b'[{"id": 0.10}]') == {"0.10"}


def test_an_id_past_a_float_is_read_as_written_and_its_object_still_shows() -> None:
    """Listed as it arrived, such a collection failed the whole list ("the client failed
    unexpectedly (ValidationError)"); read whole, it had no id."""
    from tokensales_tui.api.decode import ListParser
    from tokensales_tui.api.models import Collection

    (collection,) = ListParser(Collection, "collections", 200, "")(b'[{"id": 1e400}]')
    assert collection.id == "1e400" and collection.raw == {"id": math.inf}


# --- the commands ----------------------------------------------------------------------


class Terminal(io.StringIO):
    """A stdin that is a terminal, answering yes to each question."""

    def isatty(self) -> bool:
        return True


def command(server: FakeServer, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    session = Session(
        "p", connection(), read_only=False, transport=httpx.MockTransport(server.handle)
    )
    monkeypatch.setattr(run, "open_session", lambda _args: (session, {}))
    return script.main(cli.build_parser().parse_args(list(args)))


@pytest.mark.parametrize("shape", ["bare", "arriving", "nested"])
def test_get_prints_and_delete_addresses_the_id_the_server_wrote(
    shape: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server, deleted = answering("/collections", body(shape))
    assert command(server, monkeypatch, "get", "collections", "-o", "csv", "--fields", "id") == 0
    assert capsys.readouterr().out.splitlines() == ["id", *WRITTEN]
    assert command(server, monkeypatch, "get", "collections", "-o", "jsonl") == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(",", 1)[0] for line in printed] == [f'{{"id":{w}' for w in WRITTEN]
    for written in WRITTEN:
        assert command(server, monkeypatch, "get", "collections", written, "-o", "jsonl") == 0
        assert capsys.readouterr().out.startswith(f'{{"id":{written},')
    # asked on a terminal: found in the list by the same text, then deleted
    monkeypatch.setattr(sys, "stdin", Terminal("y\n" * len(WRITTEN)))
    assert command(server, monkeypatch, "delete", "collection", *WRITTEN) == 0
    assert deleted == [f"/collection/{written}" for written in WRITTEN]
    said = capsys.readouterr().err
    assert "not found" not in said and said.count("deleted collection") == len(WRITTEN)


# --- the app ---------------------------------------------------------------------------


class Listing(Rigged):
    """The emulator, its collections list answered with ``content`` as it is."""

    def __init__(self, app: Any, content: bytes) -> None:
        super().__init__(app)
        self.content = content
        self.deleted: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/collections":
            return httpx.Response(
                200, content=self.content, headers={"content-type": "application/json"}
            )
        if request.method == "DELETE" and request.url.path.startswith("/collection/"):
            self.deleted.append(unquote(request.url.raw_path.decode()))
            return httpx.Response(200)
        return await super().handle_async_request(request)


async def sent(transport: Listing, path: str, pilot: Any) -> None:
    await wait_for(lambda: transport.deleted[-1:] == [path], pilot)


@pytest.mark.parametrize("shape", ["bare", "nested"])
async def test_the_app_shows_copies_and_deletes_by_the_id_the_server_wrote(shape: str) -> None:
    transport = Listing(create_app(seed=0), body(shape))
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot, "collections")
        await pilot.press("5")
        table = app.active_tab.table
        assert [row.id for row in table.model.shown_rows] == WRITTEN
        table.sort_by("id")
        await wait_for(lambda: table.pending_sort is None, pilot)
        assert sorted(row.id for row in table.model.shown_rows) == sorted(WRITTEN)
        for written in WRITTEN:
            table.move_cursor_to(lambda row, written=written: row.id == written)
            await pilot.press("c")
            assert app.clipboard == written
            await pilot.press("enter")
            await wait_for_screen(app, pilot, "DetailScreen")
            assert re.search(rf"^ *ID +{re.escape(written)}( |$)", screen_text(app), re.M)
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")
            await pilot.press("d")
            await wait_for_screen(app, pilot, "ConfirmScreen")
            assert f"id {written}" in screen_text(app)
            await pilot.press("right", "enter")
            await sent(transport, f"/collection/{written}", pilot)
            await wait_for_screen(app, pilot, "BrowseScreen")
    assert transport.deleted == [f"/collection/{written}" for written in WRITTEN]
