"""What each form looks like at 120x40: empty, filled with errors, filled and valid.

The forms run on a small host app with the API worker on the seeded emulator, so the
pictures hold no clock-dependent text (the main screen's header counts the token down).
Regenerate with ``pytest tests/test_snapshots_forms.py --snapshot-update -n0`` and look.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input

from tokensales_tui.api.models import Webhook, from_raw
from tokensales_tui.emulator import create_app
from tokensales_tui.payouts import PayoutAdd, PayoutRecord
from tokensales_tui.session import demo_connection
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.forms.collections import CollectionsForm
from tokensales_tui.ui.forms.payout import PayoutForm
from tokensales_tui.ui.forms.webhook import WebhookForm, known_events
from tokensales_tui.ui.worker import ApiWorker

from .apphelpers import wait_for
from .formhelpers import fill

SIZE = (120, 40)
SECRET = "whsec-never-in-a-picture"
W1 = "0x39e61A1Ea7BC4554B59455b94AcC848F13AaD484"
W2 = "0xBE5E7d3D8d9428050fFEE666C84c8B6fEF426716"
CONTRACT = "0x7241369492Ea20ED060fa4160015A77F2e8C33F2"

FormFactory = Callable[[ApiWorker, list[Webhook]], FormScreen]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


class FormHost(App[None]):
    """Shows one form over an empty screen, with an API worker on the seeded emulator."""

    def __init__(self, make_form: FormFactory) -> None:
        super().__init__()
        self.make_form = make_form

    def on_mount(self) -> None:
        emulator = create_app(seed=0)
        api = ApiWorker(self, demo_connection(), httpx.ASGITransport(app=emulator))
        webhooks = [from_raw(w, Webhook) for w in emulator.state.emulator.webhook_list()]
        self.push_screen(self.make_form(api, webhooks))


def webhook_form(api: ApiWorker, webhooks: list[Webhook]) -> FormScreen:
    return WebhookForm(api, known_events=known_events(webhooks))


def webhook_edit_form(api: ApiWorker, webhooks: list[Webhook]) -> FormScreen:
    return WebhookForm(api, known_events=known_events(webhooks), webhook=webhooks[3])


def payout_form(api: ApiWorker, _webhooks: list[Webhook]) -> FormScreen:
    return PayoutForm(api, lambda body, waiting: PayoutAdd(PayoutRecord.in_memory(), body))


def collections_form(api: ApiWorker, _webhooks: list[Webhook]) -> FormScreen:
    return CollectionsForm(api)


def steps(**values: Any) -> RunBefore:
    """Fill the fields, then optionally submit (``submit=True``) or scroll to the preview."""
    submit = values.pop("submit", False)
    to_preview = values.pop("to_preview", False)
    secret = values.pop("secret", None)
    lists = values.pop("lists", ())

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(lambda: isinstance(pilot.app.screen, FormScreen), pilot)
        form = pilot.app.screen
        assert isinstance(form, FormScreen)
        if "c2_name" in values:
            await pilot.press("ctrl+n")
        await fill(pilot, **values)
        if secret is not None:
            form.query_one("#secret", Input).value = secret
        for field_id in lists:
            assert isinstance(form, CollectionsForm)
            await wait_for(lambda f=field_id: form._fresh(f, f.split("-")[0]) is not None, pilot)
        if submit:
            await pilot.press("ctrl+s")
            await wait_for(lambda: form.attempted and not form.query("#form-status.-busy"), pilot)
        if to_preview:
            form.query_one("#form-body").scroll_end(animate=False)
        await steady(pilot)
        assert SECRET not in pilot.app.export_screenshot()

    return run_before


async def steady(pilot: Pilot[Any]) -> None:
    """A cursor that does not blink, so the picture does not depend on when it is taken."""
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


async def _nothing(pilot: Pilot[Any]) -> None:
    await wait_for(lambda: isinstance(pilot.app.screen, FormScreen), pilot)
    await steady(pilot)


CASES: dict[str, tuple[FormFactory, RunBefore]] = {
    "webhook-empty": (webhook_form, _nothing),
    "webhook-errors": (
        webhook_form,
        steps(url="hooks.example.com/ts", events="item.sold, item created", submit=True),
    ),
    "webhook-valid": (
        webhook_form,
        steps(
            url="https://hooks.example.com/tokensales",
            events="item.sold, payment.succeeded",
            secret=SECRET,
        ),
    ),
    "webhook-edit": (
        webhook_edit_form,
        steps(events="payout.completed, item.sold", secret=SECRET),
    ),
    "payout-empty": (payout_form, _nothing),
    "payout-errors": (
        payout_form,
        steps(
            type="stablecoin",
            detail_blockchainId="polygon",
            detail_spender=W1.replace("A", "a", 1),
            submit=True,
        ),
    ),
    "payout-valid": (
        payout_form,
        steps(
            name="USDC on Polygon",
            type="stablecoin",
            detail_blockchainId="polygon",
            detail_tokenId="ast_usdc_polygon",
            detail_spender=W1,
        ),
    ),
    "collections-empty": (collections_form, _nothing),
    "collections-errors": (
        collections_form,
        steps(
            c1_name="The Extraordinary Founders Pass",
            c1_blockchain="polygon",
            c1_contract=CONTRACT.replace("E", "e"),
            c1_wallets=f"{W1}\n0x1234\n{W1.lower()}",
            lists=("c1-wallets",),
            submit=True,
        ),
    ),
    "collections-valid": (
        collections_form,
        steps(
            c1_name="Founders Pass",
            c1_blockchain="polygon",
            c1_contract=CONTRACT,
            c1_whitelisted=True,
            c1_wallets=f"{W1}\n{W2}",
            c1_emails="anna@example.de",
            c2_name="Sol Drop",
            c2_blockchain="solana",
            c2_contract="7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV",
            lists=("c1-wallets", "c1-emails"),
            to_preview=True,
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_form(snap_compare: Any, case: str) -> None:
    factory, run_before = CASES[case]
    assert snap_compare(FormHost(factory), terminal_size=SIZE, run_before=run_before)
