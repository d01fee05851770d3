"""The payout definition form: each kind, the details that follow the type, the local record."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from textual.widgets import Select

from tokensales_tui.payouts import PayoutRecord, record_path
from tokensales_tui.ui.forms.payout import OTHER, PayoutForm

from .apphelpers import EMULATOR_URL, loaded, rigged_app, screen_text, wait_for, wait_for_screen
from .formhelpers import (
    SIZE,
    Case,
    assert_each_blocked,
    assert_read_only_refuses,
    demo,
    fill,
    messages,
    open_form,
    status,
    submit_and_close,
)

SPENDER = "0x39e61A1Ea7BC4554B59455b94AcC848F13AaD484"
ADD = ("POST", "/v1/payouts/add")
DETAILS = ("provider", "paymentProviderId", "blockchainId", "tokenId", "spender")
PAYOUT_FIELDS: dict[str, Any] = {
    "name": "Payout",
    "type": "free",
    "other_type": "",
    **{f"detail_{name}": "" for name in DETAILS},
}

KINDS: list[tuple[str, dict[str, str], dict[str, Any]]] = [
    ("free", {}, {}),
    (
        "fiat",
        {"detail_provider": "stripe", "detail_paymentProviderId": "acct_123"},
        {"fiatDetails": {"provider": "stripe", "paymentProviderId": "acct_123"}},
    ),
    (
        "stablecoin",
        {
            "detail_blockchainId": "polygon",
            "detail_tokenId": "ast_usdc",
            "detail_spender": SPENDER,
        },
        {
            "stablecoinDetails": {
                "blockchainId": "polygon",
                "tokenId": "ast_usdc",
                "spender": SPENDER,
            }
        },
    ),
    ("native", {"detail_blockchainId": "base"}, {"nativeDetails": {"blockchainId": "base"}}),
]


def sent(app: Any) -> dict[str, Any]:
    """The last payout definition the emulator accepted, without what it added."""
    stored = dict(app.emulator.payouts[-1])
    del stored["id"], stored["createdAt"]
    return stored


@pytest.mark.parametrize(("kind", "details", "expected"), KINDS, ids=[k[0] for k in KINDS])
async def test_each_kind_sends_its_details_only_and_shows_as_added_from_here(
    kind: str, details: dict[str, str], expected: dict[str, Any]
) -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        assert isinstance(form, PayoutForm)
        assert app.focused is form.query_one("#name")
        # details of another type typed first are never sent
        await fill(pilot, type="fiat", detail_provider="left over")
        await fill(pilot, name=f"My {kind}", type=kind, **details)
        await submit_and_close(app, pilot, form)
        assert sent(app) == {"type": kind, "name": f"My {kind}", **expected}
        tab = app.active_tab
        await wait_for(lambda: getattr(tab.highlighted, "name", None) == f"My {kind}", pilot)
        assert tab.highlighted.source == "added from here"
        assert f"Added payout definition My {kind} ({kind})" in messages(app)


async def test_another_type_is_accepted_without_details() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        assert not form.query_one("#other-type-field").display
        await fill(pilot, name="Crypto", type=OTHER)
        assert form.query_one("#other-type-field").display
        await fill(pilot, other_type="crypto-split")
        await submit_and_close(app, pilot, form)
        assert sent(app) == {"type": "crypto-split", "name": "Crypto"}


async def test_the_detail_section_follows_the_type() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")

        def shown() -> list[str]:
            fields = form.query("#details .form-field")
            return [
                f.id.removeprefix("detail-").removesuffix("-field") for f in fields if f.display
            ]

        assert shown() == []
        for kind, names in [
            ("fiat", ["provider", "paymentProviderId"]),
            ("stablecoin", ["blockchainId", "tokenId", "spender"]),
            ("native", ["blockchainId"]),
            ("free", []),
        ]:
            await fill(pilot, type=kind)
            assert shown() == names, kind
        await fill(pilot, type="stablecoin")
        await pilot.click("#name")
        await pilot.press("tab", "tab")  # name → type → the first detail field
        assert app.focused is form.query_one("#detail-blockchainId")


BLOCKING: list[Case] = [
    ({"name": ""}, "name", "enter a name"),
    ({"type": None}, "type", "choose a payout type"),
    ({"type": OTHER, "other_type": "two words"}, "other-type", "is not allowed"),
    ({"type": "fiat"}, "detail-provider", "enter the provider"),
    (
        {"type": "stablecoin", "detail_blockchainId": "polygon", "detail_tokenId": "t"},
        "detail-spender",
        "enter the spender address",
    ),
    (
        {
            "type": "stablecoin",
            "detail_blockchainId": "polygon",
            "detail_tokenId": "t",
            "detail_spender": SPENDER.replace("A", "a", 1),
        },
        "detail-spender",
        "checksum does not match",
    ),
]


async def test_each_check_blocks_the_submit() -> None:
    await assert_each_blocked("4", PAYOUT_FIELDS, BLOCKING, ADD)


async def test_a_refusal_keeps_the_values() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        transport.fail["/v1/payouts/add"] = 400
        await fill(pilot, name="EU cards", type="fiat", detail_provider="stripe")
        await fill(pilot, detail_paymentProviderId="acct_9")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "emulated failure" in status(form), pilot)
        assert form.text("name") == "EU cards" and form.text("detail-provider") == "stripe"
        assert form.query_one("#type", Select).value == "fiat"
        assert not record_path("default", EMULATOR_URL).exists()


async def test_an_add_whose_answer_never_came_says_to_check_in_the_console() -> None:
    # The service lists no payout definitions and the record is written on success only:
    # the form says where the outcome can be seen, not "refresh to check".
    app, transport = rigged_app()
    posts: list[str] = []

    def hook(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == "/v1/payouts/add":
            posts.append(request.url.path)
            raise httpx.ReadError("connection reset")

    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Free mint", type="free")
        transport.hook = hook
        await pilot.press("ctrl+s")
        await wait_for(lambda: "outcome unknown" in status(form), pilot)
        assert "check in its own console" in status(form) and "refresh" not in status(form)
        assert posts == ["/v1/payouts/add"]  # sent once, never repeated
        assert form.text("name") == "Free mint"
        assert not record_path("default", EMULATOR_URL).exists()

        transport.hook = None
        transport.delay["/v1/payouts/add"] = 30
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")  # outcome unknown: asked first
        await pilot.press("right", "enter")
        await wait_for(lambda: form.sending, pilot)
        await pilot.press("escape")  # stop waiting
        await wait_for(lambda: not form.sending, pilot)
        assert "Stopped waiting" in status(form)
        assert "check in its own console" in status(form) and "refresh" not in status(form)


async def test_a_profile_keeps_its_record_between_runs() -> None:
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Native ETH", type="native", detail_blockchainId="ethereum")
        await submit_and_close(app, pilot, form)
    recorded = PayoutRecord.for_service("default", EMULATOR_URL).load()
    assert [(d["name"], d["nativeDetails"]) for d in recorded] == [
        ("Native ETH", {"blockchainId": "ethereum"})
    ]
    again, _transport = rigged_app()
    async with again.run_test(size=SIZE) as pilot:
        await loaded(again, pilot)
        await pilot.press("4")
        first = again.active_tab.table.rows[0]
        assert (first.name, first.source, first.chain) == (
            "Native ETH",
            "added from here",
            "ethereum",
        )


@pytest.mark.parametrize("damage", [b"{not json", b'{"version": 1, "definitions": ["\xff"]}'])
async def test_a_damaged_record_is_reported_and_left_alone(damage: bytes) -> None:
    path = record_path("default", EMULATOR_URL)
    path.parent.mkdir(parents=True)
    path.write_bytes(damage)
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Free", type="free")
        await submit_and_close(app, pilot, form)
        await wait_for(lambda: any("not recorded here" in m for m in messages(app)), pilot)
        assert any("damaged" in m for m in messages(app))
        assert app.browse.tab("payouts").table.total_count > 0  # the server's rows
    assert path.read_bytes() == damage


async def test_read_only_refuses() -> None:
    await assert_read_only_refuses("4")


async def test_enter_pressed_again_on_submit_neither_sends_twice_nor_stops_waiting() -> None:
    # Enter on Submit, then enter again while the answer is slow: the repeat must not
    # reach "Stop waiting" (which put focus back on Submit, whose next enter sent again).
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.url.path == ADD[1] else None
    transport.held[ADD[1]] = release = asyncio.Event()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Dup test", type="free")
        form.query_one("#form-submit").focus()
        await pilot.press("enter")
        await wait_for(lambda: form.sending, pilot)
        await pilot.press("enter", "enter", "enter")
        await pilot.pause(0.1)
        assert form.sending and "Stopped waiting" not in status(form)
        assert posts == [ADD[1]]
        release.set()
        await wait_for(lambda: not form.is_attached, pilot)
    assert posts == [ADD[1]]
    assert len(app.rigged_emulator.payouts) == 1


async def test_sending_again_after_an_unknown_outcome_asks_first() -> None:
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.url.path == ADD[1] else None
    transport.held[ADD[1]] = release = asyncio.Event()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Dup test", type="free")
        submit = form.query_one("#form-submit")
        submit.focus()
        await pilot.press("enter")
        await wait_for(lambda: form.sending, pilot)
        await pilot.press("escape")
        await wait_for(lambda: "outcome unknown" in status(form), pilot)
        assert app.focused is submit
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert "outcome unknown" in screen_text(app)
        await pilot.press("enter")  # Cancel is the default: nothing sent
        await wait_for(lambda: app.screen is form, pilot)
        assert posts == [ADD[1]] and "Nothing was sent" in status(form)
        release.set()
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")  # Send again, deliberately
        await wait_for(lambda: not form.is_attached, pilot)
    assert posts == [ADD[1], ADD[1]]
