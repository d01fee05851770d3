"""A number in an object the app writes as JSON again — copied with ``y`` (one row or
the marked ones), shown and copied in the detail view, exported as JSON or JSON Lines —
is the text the server wrote: never the float it reads as written again
(``0.1000000000000000000001`` as ``0.1``, ``1.10`` as ``1.1``, ``-0`` as ``0``,
``1e400`` as ``Infinity``), which is other data for whoever posts or reads it again.
Sorting and filtering still read the numbers as numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from tokensales_tui.api import shapes
from tokensales_tui.api.decode import convert
from tokensales_tui.api.models import Asset, Collection, Item, Webhook, raw_texts
from tokensales_tui.emulator import create_app
from tokensales_tui.mask import set_masking
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.export import export_rows
from tokensales_tui.ui.json_text import full_json, preview_json
from tokensales_tui.ui.resources import RESOURCES

from .apphelpers import Rigged, emulator_env, loaded, wait_for, wait_for_screen

WRITTEN = (
    "0.1000000000000000000001",
    "1.10",
    "-0.0",
    "-0",
    "1e400",
    "-1E+400",
    "12345678901234567890123",
    "1E5",
)
"""Numbers as a server writes them, each read by a float (or an int) as another."""
NUMBERS = ", ".join(f'"n{place}": {text}' for place, text in enumerate(WRITTEN))
NESTED = '"nested": {"list": [1.10, -0, {"deep": 1e400}], "empty": {}}'


def sent(head: str, extra: str = "") -> bytes:
    """One object: ``head`` (its own members), the numbers, nested ones, ``extra``."""
    return f"{{{head}, {NUMBERS}, {NESTED}{extra}}}".encode()


ITEM = '"id": "itm_1", "title": "t", "currency": "USD", "price": 2.50, "payout": {"type": "fiat"}'
OBJECTS = {
    "webhooks": sent('"id": "wh_1", "url": "https://example.com/h", "events": []'),
    "items": sent(ITEM),
    "assets": sent('"id": "ast_1", "symbol": "X", "decimals": 18.0'),
    "collections": sent('"id": "col_1", "name": "c", "whitelisted": false'),
}
FETCHED = {
    # what the detail view fetches: the object as it is now, with a member more
    "items": sent(ITEM, ', "now": 7.70'),
    "assets": sent('"id": "ast_1", "symbol": "X", "decimals": 18.0', ', "now": 7.70'),
}
LISTS = {
    "webhooks": "/v1/platform-webhooks",
    "items": "/v1/items",
    "assets": "/v1/assets",
    "collections": "/collections",
}
ONES = {"/v1/items/itm_1": FETCHED["items"], "/v1/assets/ast_1": FETCHED["assets"]}
WRITE = next(resource for resource in RESOURCES if resource.key == "items").raw
"""What every tab writes a row's object from (:func:`.resources.as_sent`)."""
TAB_KEYS = {"webhooks": "1", "items": "2", "assets": "3", "payouts": "4", "collections": "5"}


def as_written(text: str | bytes) -> Any:
    """JSON text decoded with each number as the text it is written as (and a float's
    ``Infinity``, which is no JSON, as what it is), to compare numbers as written."""
    return json.loads(
        text,
        parse_float=lambda number: ("number", number),
        parse_int=lambda number: ("number", number),
        parse_constant=lambda constant: ("not JSON", constant),
    )


def listed(content: bytes, shape: str) -> bytes:
    if shape == "bare":
        return b"[" + content + b"]"
    # an entry that is no object: the list is read whole, the rest kept
    return b'{"data": [' + content + b", 7]}"


class Serving(Rigged):
    """The emulator, each list answered with one object as written, in ``shape``."""

    def __init__(self, shape: str) -> None:
        super().__init__(create_app(seed=0))
        self.shape = shape

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        content = next(
            (listed(OBJECTS[k], self.shape) for k, p in LISTS.items() if p == path), None
        )
        content = ONES.get(path, content)
        if request.method == "GET" and content is not None:
            return httpx.Response(
                200, content=content, headers={"content-type": "application/json"}
            )
        return await super().handle_async_request(request)


# --- the writers -----------------------------------------------------------------------


def test_the_writers_write_a_number_kept_as_text_as_that_text() -> None:
    from tokensales_tui.ui.json_text import json_line

    value = shapes.decode_as_sent(OBJECTS["items"])
    assert value["n0"] == msgspec.Raw(b"0.1000000000000000000001")
    for written in (full_json(value), json_line(value), "\n".join(preview_json(value).lines)):
        assert as_written(written) == as_written(OBJECTS["items"])
    assert "\n" not in json_line(value)
    # text that is not UTF-8, or a lone surrogate escaped: read as every route reads them
    odd = shapes.decode_as_sent(b'{"a": "\xff", "b": "\\ud800", "n": 1.10}')
    assert odd == {"a": "\ufffd", "b": "\ufffd", "n": msgspec.Raw(b"1.10")}


async def test_every_listed_object_is_written_with_the_numbers_its_server_wrote() -> None:
    """Rows read whole, with a misfit left out, as they arrive; kept as text or, an
    asset's, decoded for its cells: each writes its numbers as sent."""
    from tokensales_tui.api.decode import ListParser

    for model, what in (
        (Webhook, "webhooks"),
        (Item, "items"),
        (Asset, "assets"),
        (Collection, "collections"),
    ):
        for shape in ("bare", "misfit"):
            rows = ListParser(model, what, 200, "")(listed(OBJECTS[what], shape))
            assert as_written(full_json(WRITE(rows[0]))) == as_written(OBJECTS[what]), (
                what,
                shape,
            )
            assert rows[0].raw["n1"] == 1.1  # what sorts and filters read


# --- the app ---------------------------------------------------------------------------


def app_on(transport: Rigged) -> TokenSalesApp:
    return TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: transport))


@pytest.mark.parametrize("shape", ["bare", "misfit"])
async def test_y_copies_each_object_and_the_marked_ones_with_the_numbers_as_written(
    shape: str,
) -> None:
    app = app_on(Serving(shape))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        for key, content in OBJECTS.items():
            await pilot.press(TAB_KEYS[key])
            await wait_for(lambda key=key: app.active_tab.resource.key == key, pilot)
            app.copy_to_clipboard("")
            await pilot.press("y")
            assert as_written(app.clipboard) == as_written(content), key
            app.copy_to_clipboard("")
            await pilot.press("ctrl+a", "y")
            await wait_for(lambda: app.clipboard != "", pilot)
            assert as_written(app.clipboard) == [as_written(content)], key
            await pilot.press("ctrl+a")


async def test_the_detail_view_shows_and_copies_the_numbers_as_written() -> None:
    app = app_on(Serving("bare"))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        for key in ("webhooks", "items", "assets", "collections"):
            await pilot.press(TAB_KEYS[key])
            await wait_for(lambda key=key: app.active_tab.resource.key == key, pilot)
            await pilot.press("enter")
            await wait_for_screen(app, pilot, "DetailScreen")
            shown = FETCHED.get(key, OBJECTS[key])  # fetched again where the API can
            view = app.screen.json_view  # type: ignore[attr-defined]
            if key in FETCHED:
                await wait_for(lambda view=view: '"now"' in view.code, pilot)  # type: ignore[misc]
            assert as_written(view.code) == as_written(shown), key
            await pilot.press("y")
            assert as_written(app.clipboard) == as_written(shown), key
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")


async def export(app: TokenSalesApp, pilot: Any, key: str, target: Path, kind: str) -> Any:
    """What the tab ``key`` exports as ``kind`` to ``target``, decoded (:func:`as_written`)."""
    await pilot.press(TAB_KEYS[key])
    await wait_for(lambda: app.active_tab.resource.key == key, pilot)
    await wait_for(lambda: app.active_tab.table.total_count > 0, pilot)
    await pilot.press("x")
    await wait_for_screen(app, pilot, "ExportScreen")
    await pilot.click(f"#format-{kind}")
    app.screen.query_one("#path").value = str(target)  # type: ignore[attr-defined]
    await pilot.press("ctrl+s")
    await wait_for(lambda: target.exists(), pilot)
    await wait_for_screen(app, pilot, "BrowseScreen")
    text = target.read_text(encoding="utf-8")
    return as_written(text) if kind == "json" else list(map(as_written, text.splitlines()))


@pytest.mark.parametrize("kind", ["json", "jsonl"])
async def test_an_export_writes_the_numbers_as_written(tmp_path: Path, kind: str) -> None:
    app = app_on(Serving("misfit"))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        for key, content in OBJECTS.items():
            written = await export(app, pilot, key, tmp_path / f"{key}.{kind}", kind)
            assert written == [as_written(content)], key


async def test_payout_settings_export_as_json_lines(tmp_path: Path) -> None:
    """Rows of our own, which keep no text: written as they are (the export failed,
    asking them for a text)."""
    app = app_on(Serving("bare"))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        written = await export(app, pilot, "payouts", tmp_path / "payouts.jsonl", "jsonl")
        assert written == [
            {"payout": {"type": "fiat"}, "usedBy": ("number", "1"), "items": ["itm_1"]}
        ]


@pytest.mark.parametrize("mask", [False, True])
@pytest.mark.parametrize("bulk", [False, True])
def test_an_export_of_rows_of_any_keeping_writes_the_numbers_as_written(
    tmp_path: Path, mask: bool, bulk: bool
) -> None:
    """In mask mode (each object decoded and written again), with the texts read in
    bulk or not, rows kept as text or decoded (an asset's)."""
    from tokensales_tui.api.decode import ListParser

    rows = [
        ListParser(model, what, 200, "")(listed(OBJECTS[what], "bare"))[0]
        for model, what in ((Webhook, "webhooks"), (Item, "items"), (Asset, "assets"))
    ]
    set_masking(mask)
    try:
        path = tmp_path / "out.jsonl"
        export_rows(path, "jsonl", [], rows, WRITE, raw_texts=raw_texts if bulk else None)
    finally:
        set_masking(False)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert list(map(as_written, lines)) == [
        as_written(OBJECTS[what]) for what in ("webhooks", "items", "assets")
    ]


def test_every_tab_writes_its_objects_through_the_one_reader() -> None:
    from tokensales_tui.ui.resources import as_sent

    assert all(resource.raw is as_sent for resource in RESOURCES)


@pytest.mark.parametrize("model", [Item, Webhook, Collection, Asset])
def test_a_kept_text_with_an_escaped_lone_surrogate_reads_it_as_every_route_does(
    model: type[Any],
) -> None:
    text = (
        b'{"id": "x1", "title": "\\ud800", "currency": "a\\udc00b", "price": 1.10,'
        b' "url": "https://a.example/"}'
    )
    row = convert(json.loads(shapes.as_read(text)), model, "an object", 200, text)
    raw = row.raw
    assert raw["title"] == "\ufffd" and raw["currency"] == "a\ufffdb"
    assert raw["price"] == 1.1
    assert row.raw_text == text  # written out again as the server wrote it
