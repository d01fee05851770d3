"""Every path a form's request body can hold maps to one of its fields.

A server that refuses a request names the member it refused by its path in the body; the
form marks the field that path maps to (:meth:`FormScreen.body_fields`). These tests
build each form's body and check that each of its paths, and each path its type can
hold, maps to a field of the form, shown where the body holds it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input

from tokensales_tui.api.body_paths import wire_paths, without_positions
from tokensales_tui.api.models import NewCollection, PayoutDefinition, WebhookCreate, WebhookUpdate
from tokensales_tui.checks import PAYOUT_TYPES, detail_fields
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.forms.payout import OTHER

from .formhelpers import SIZE, demo, fill, open_form

CONTRACT = "0x7241369492Ea20ED060fa4160015A77F2e8C33F2"
COLLECTION = {"c1_name": "Founders", "c1_blockchain": "polygon", "c1_contract": CONTRACT}


def resolved(form: FormScreen, path: str, index: int | None = None) -> str | None:
    """The field a refusal naming ``path`` marks (positions and all)."""
    fields = form.body_fields(index)
    path = without_positions(path)
    while path and path not in fields:
        path = path.rpartition(".")[0]
    return fields.get(path)


def body_paths(body: Any, prefix: str = "") -> Iterator[str]:
    """Every member path of a decoded body, with the positions of list elements."""
    if isinstance(body, dict):
        for key, value in body.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path
            yield from body_paths(value, path)
    elif isinstance(body, list):
        for position, value in enumerate(body):
            yield from body_paths(value, f"{prefix}[{position}]")


def sent(form: FormScreen) -> Any:
    preview = form.preview
    assert preview is not None
    return json.loads(preview.body_start(10_000)[0])


async def test_every_path_of_a_webhook_body_maps_to_its_field() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://a.example/h", events="item.sold")
        form.query_one("#secret", Input).value = "s3cret-value"
        await pilot.pause()
        for path in wire_paths(WebhookCreate, WebhookUpdate):
            assert resolved(form, path) == path, path
        paths = list(body_paths(sent(form)))
        assert {"url", "events", "secret"} <= set(paths)
        assert all(form.has_widget(resolved(form, p) or "") for p in paths), paths


@pytest.mark.parametrize("kind", [*PAYOUT_TYPES, OTHER])
async def test_every_path_of_a_payout_body_maps_to_a_field_shown(kind: str) -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="N", type=kind)
        if kind == OTHER:
            await fill(pilot, other_type="crypto")
        for name, _label in detail_fields(kind):
            await fill(pilot, **{f"detail_{name}": "x"})
        for path in body_paths(sent(form)):
            field_id = resolved(form, path)
            assert field_id is not None and form._shown(field_id), path
        # Every path the body's type holds maps to a field of the form.
        for path in wire_paths(PayoutDefinition):
            assert form.has_widget(resolved(form, path) or ""), path


async def test_every_path_of_a_collections_body_maps_to_its_block_s_field() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **COLLECTION, c1_emails="a@b.io", c1_wallets=CONTRACT)
        await pilot.press("ctrl+n")
        await fill(pilot, c2_name="Second", c2_emails="c@d.io")
        body = sent(form)
        assert len(body) == 2
        for index, element in enumerate(body):
            for path in body_paths(element):
                field_id = resolved(form, path, index)
                assert field_id is not None and field_id.startswith(f"c{index + 1}-"), path
                assert form._shown(field_id), path
        for path in wire_paths(list[NewCollection]):
            assert form.has_widget(resolved(form, path, 1) or ""), path
        assert form.body_fields(None) == {}  # two collections: which one is not said
        assert form.body_fields(2) == {}
