"""Mask mode: what is masked, that nothing shown skips it, and that the data stays real."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tokensales_tui import mask as mask_module
from tokensales_tui.api.models import Webhook, raw_texts
from tokensales_tui.emulator.seed import generate
from tokensales_tui.mask import mask_text, masking, set_masking, shown
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.export import export_rows
from tokensales_tui.ui.resources import RESOURCES

from .apphelpers import loaded, rigged_app, screen_text, wait_for, wait_for_screen
from .test_rows_arrive import read_streamed

SIZE = (120, 40)

WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


@pytest.fixture(autouse=True)
def mask_off() -> None:
    set_masking(False)


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        (WALLET, "0x7099…79C8"),
        ("owner@quillmarket.example", "o•••@quillmarket.example"),
        ("ops+whitelist@aurora-games.io", "o•••@aurora-games.io"),
        ("acct_1NvJrRYnJhryVOkv", "acct_•••VOkv"),
        ("mk_live_4eC39HqLyjWDarjtT1zdp7dc", "mk_live_•••p7dc"),
        ("whsec_6cc566b73354862d8715171ddd4ac4aa", "whsec_•••c4aa"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature", "eyJ•••ture"),
        ("HbWhg23L5eafuMj8ptavZMVY1nybCzxQ3Wd4xGki63nt", "HbWh…63nt"),  # Solana
        (
            "https://hooks.slack.com/services/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",
            "https://hooks.slack.com/services/T04ABCD12/B05EFGH34/xY9z…1cDe",
        ),
        ("wallet 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, ok", "wallet 0x7099…79C8, ok"),
    ],
)
def test_private_values_are_partly_hidden(value: str, masked: str) -> None:
    assert mask_text(value) == masked


@pytest.mark.parametrize(
    "value",
    [
        "itm_9445e5f5cfa4",
        "col_64198cc8cea6",
        "3f6c9a2e-8d41-4b7e-9c15-2a7e6d0f4b19",  # a UUID: an id, its parts are short
        "https://cdn.tokensales-demo.io/items/hackathon-2025-participant-badge.png",
        "The Extraordinarily Comprehensive Annual Collection",
        "100000000000000000000000000000",
        "payment.succeeded, token.minted",
        "31,542.00 JPY",
    ],
)
def test_ids_words_and_numbers_stay(value: str) -> None:
    assert mask_text(value) == value


@given(st.text())
def test_masking_twice_changes_nothing(value: str) -> None:
    once = mask_text(value)
    assert mask_text(once) == once


def test_shown_masks_only_while_on() -> None:
    assert shown(WALLET) == WALLET
    set_masking(True)
    assert shown(WALLET) == "0x7099…79C8"


def private_values() -> set[str]:
    """Every wallet, e-mail, account id and secret in the demo data (seed 0)."""
    dumped = json.dumps(dataclasses.asdict(generate(0)), default=str)
    found = set(re.findall(r"0x[0-9a-fA-F]{40}", dumped))
    found |= set(re.findall(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", dumped))
    found |= set(re.findall(r"acct_\w+|whsec_\w+", dumped))
    return found


def test_the_demo_has_private_values_to_hide() -> None:
    values = private_values()
    assert len(values) > 40
    assert not any(value in mask_text(" ".join(values)) for value in values)


async def test_no_screen_shows_a_private_value_in_mask_mode() -> None:
    # Every tab, and the detail of each tab's first object, drawn as a person sees it.
    private = private_values()
    app = TokenSalesApp(Launch(demo=True, mask=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert masking()
        for number, resource in enumerate(RESOURCES, start=1):
            await pilot.press(str(number))
            text = screen_text(app)
            assert "MASKED" in text
            leaked = sorted(value for value in private if value in text)
            assert leaked == [], f"{resource.key}: {leaked}"
            if resource.key == "payouts":
                continue  # enter shows the items it pays out: the Items tab, seen already
            await pilot.press("enter")
            await wait_for_screen(app, pilot, "DetailScreen")
            status = app.screen.query_one("#detail-status")
            await wait_for(lambda: not status.display, pilot)  # noqa: B023
            text = screen_text(app)
            leaked = sorted(value for value in private if value in text)
            assert leaked == [], f"{resource.key} detail: {leaked}"
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")


async def test_filter_uses_real_values_and_copies_say_they_are_masked() -> None:
    app = TokenSalesApp(Launch(demo=True, mask=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        table = app.active_tab.table
        real = table.highlighted.raw["contractAddress"]
        middle = real[10:30]  # hidden on screen
        assert middle not in screen_text(app)
        await pilot.press("slash", *middle, "enter")
        assert table.shown_count == 1
        assert table.highlighted.raw["contractAddress"] == real
        await wait_for(lambda: "0x7241…33F2" in screen_text(app), pilot)
        await pilot.press("y")
        copied = json.loads(app.clipboard)  # masked, and still JSON
        assert copied["contractAddress"] == "0x7241…33F2"
        assert real not in app.clipboard
        assert any("copy is masked" in str(n.message) for n in app._notifications)
        await pilot.press("c")
        assert app.clipboard == table.highlighted.id  # an id is not private


async def test_the_palette_turns_it_off_and_on(tmp_path: Path) -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        full = "0x7241369492Ea20ED060fa41"  # the column is narrower than an address
        assert full in screen_text(app)
        assert "MASKED" not in screen_text(app)
        await pilot.press("ctrl+p")
        await wait_for_screen(app, pilot, "SafePalette")
        await pilot.press(*"mask mode", "enter")
        await wait_for(lambda: app.masked, pilot)
        await wait_for_screen(app, pilot, "BrowseScreen")
        await wait_for(lambda: "MASKED" in screen_text(app), pilot)
        text = screen_text(app)
        assert "0x7241…33F2" in text and full not in text
        # The columns fit what is shown: the masked addresses' column is narrow now.
        assert re.search(r"0x7241…33F2 {1,9}● yes", text), text
        app.action_toggle_mask()
        await wait_for(lambda: full in screen_text(app), pilot)
        await wait_for(lambda: "MASKED" not in screen_text(app), pilot)


async def test_a_profile_with_mask_true_starts_masked(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.show]\nbase_url = "http://127.0.0.1:9"\napi_key = "k"\napi_secret = "s"\n'
        "mask = true\n",
        encoding="utf-8",
    )
    app, _transport = rigged_app(env={}, config_path=config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.session is not None, pilot)
        await wait_for(lambda: app.masked, pilot)
        await wait_for(lambda: "MASKED" in screen_text(app), pilot)  # drawn on the next frame


async def test_exports_are_masked_in_mask_mode(tmp_path: Path) -> None:
    private = private_values()
    app = TokenSalesApp(Launch(demo=True, mask=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        for kind in ("csv", "jsonl"):
            target = tmp_path / f"collections.{kind}"
            await pilot.press("x")
            await wait_for_screen(app, pilot, "ExportScreen")
            if kind == "jsonl":
                await pilot.click("#format-jsonl")
            app.screen.query_one("#path").value = str(target)  # type: ignore[attr-defined]
            await pilot.press("ctrl+s")
            await wait_for(lambda: target.exists(), pilot)  # noqa: B023
            await wait_for_screen(app, pilot, "BrowseScreen")
            text = target.read_text(encoding="utf-8")
            assert "0x7241…33F2" in text
            assert not any(value in text for value in private), kind
        objects = [json.loads(line) for line in text.splitlines()]
        assert len(objects) == app.active_tab.table.total_count
        assert any("masked as shown" in str(n.message) for n in app._notifications)


PIECES = [
    "sk_live_", "pk_test_", "whsec_", "acct_", "cus_", "0x", "eyJ", "@", ".", "_", "-", "%",
    "+", " ", '"', ":", ",", "/", "a", "Z", "9", "0f", "é", "例", "abcdef012345",
    "A1b2C3d4E5f6G7h8I9j0", "example.com", "x" * 25, "o@example.de", "0x" + "ab12" * 5,
    "eyJhbGci.eyJzdWIi.sig", "sk_live_4eC39HqLyjWD", "acct_1Nv89cHYYsvZLReR", "a@b.c",
]  # fmt: skip


@example("abcdefghijabcdefghijk_0x1234567890abcdef1234 and o@example.de, a@b.c.")
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_looking_in_runs_masks_what_looking_in_the_whole_text_masks(text: str) -> None:
    whole = text if len(text) < 6 else mask_module._PATTERN.sub(mask_module._replace, text)
    assert mask_text(text) == whole


async def test_a_masked_export_finds_values_a_server_sent_as_escapes(tmp_path: Path) -> None:
    # A server may write any character as an escape; a mask looks at the characters.
    body = (
        b'[{"id":"w1","url":"u","events":[],"owner":"j\\u00f6rg@example.com",'
        b'"key":"\\u0028sk_live_abcdef123456"},'
        b'{"id":"w2","url":"u","events":[],"note":"a\\ud800b"}]'
    )
    rows = await read_streamed(body, Webhook)
    read_one_by_one: list[Any] = []

    def raw(row: Any) -> Any:
        read_one_by_one.append(row)
        return row.raw

    set_masking(True)
    path = tmp_path / "out.jsonl"
    export_rows(path, "jsonl", [], rows, raw, raw_texts=raw_texts)
    first, second = map(json.loads, path.read_text(encoding="utf-8").splitlines())
    assert first["owner"] == "j\u2022\u2022\u2022@example.com"
    assert "abcdef" not in first["key"]
    assert second["note"] == "a\ufffdb"  # a lone surrogate: read as the detail view reads it
    assert read_one_by_one == []  # all read in bulk, the lone surrogate too
    set_masking(False)
    export_rows(path, "jsonl", [], rows, raw, raw_texts=raw_texts, replace=True)
    assert "j\\u00f6rg@example.com" in path.read_text(encoding="utf-8")  # as sent


PACKAGE = Path(__file__).resolve().parent.parent / "tokensales_tui"

SINKS = {
    "ui/safe.py": ("text", "content", "line"),
    "ui/table/widget.py": ("_row_text",),
    "ui/widgets/json_view.py": ("set_lines",),
    "ui/safe_app.py": ("notify", "copy_to_clipboard"),
    "ui/export.py": ("csv_cell", "export_rows"),
    "ui/widgets/delivery_list.py": ("delivery_cells",),
}
"""Every way text leaves for a person: drawn (safe.py; the table's and the JSON view's
lines, which are drawn as segments), toasts, the clipboard, exported files."""


def _calls(module: str) -> dict[str, set[str]]:
    """The names each function of ``module`` calls."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    return {
        node.name: {
            call.func.id
            for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        }
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }


@pytest.mark.parametrize(("module", "functions"), SINKS.items())
def test_every_way_out_passes_the_mask(module: str, functions: tuple[str, ...]) -> None:
    # The behaviour is tested above; this keeps a later edit from dropping one path.
    # safe.plain, what every drawn text passes, masks by calling shown itself.
    assert "shown" in _calls("ui/safe.py")["plain"]
    found = _calls(module)
    for name in functions:
        assert name in found, f"{module}: {name} is gone; update SINKS"
        assert found[name] & {"shown", "mask_text", "plain"}, f"{module}: {name} skips the mask"


async def test_the_webhook_edit_form_shows_the_url_masked_and_keeps_it_unless_retyped() -> None:
    # A Slack hook's path is its secret: pressing e in a masked demo showed it whole.
    app = TokenSalesApp(Launch(demo=True, mask=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        table = app.active_tab.table
        stored = next(row.url for row in table.model.shown_rows if "slack" in row.url)
        assert table.move_cursor_to(lambda row: row.url == stored)
        await pilot.press("e")
        await wait_for_screen(app, pilot, "WebhookForm")
        field = app.screen.query_one("#url")
        assert field.value == shown(stored) != stored
        assert stored not in screen_text(app)
        assert app.screen.outgoing() is None  # left as shown: the URL is not sent
        field.value = field.value.replace("hooks.", "hooks2.")  # edited, still masked
        assert "type the whole new one" in app.screen.check()["url"].message
        field.value = "https://example.com/new"
        assert "url" not in app.screen.check()
        assert app.screen.outgoing().body.url == "https://example.com/new"
