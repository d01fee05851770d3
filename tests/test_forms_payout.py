"""The payout definition form: each kind, the details that follow the type, the local record."""

from __future__ import annotations

import asyncio
import errno
import fcntl
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Select

from tokensales_tui import files
from tokensales_tui.files import lock_path
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
from .hung_files import hung
from .test_quit_waits import exits

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


@pytest.mark.parametrize(
    "damage",
    [b"{not json", b'{"version": 1, "definitions": ["\xff"]}', None],
    ids=["not-json", "not-utf8", "a-folder"],
)
async def test_a_record_that_cannot_take_the_definition_refuses_before_anything_is_sent(
    damage: bytes | None,
) -> None:
    # It sent the definition, then said "Added on the server, but not recorded here":
    # the service lists none, so the Payouts tab could never show it.
    path = record_path("default", EMULATOR_URL)
    path.parent.mkdir(parents=True)
    if damage is None:
        path.mkdir()
    else:
        path.write_bytes(damage)
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.url.path == ADD[1] else None
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        before = len(app.rigged_emulator.payouts)
        await fill(pilot, name="EU cards", type="fiat", detail_provider="stripe")
        await fill(pilot, detail_paymentProviderId="acct_9")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "Nothing was sent" in status(form), pilot)
        said = status(form)
        assert f"the payout record {path}" in said
        assert ("damaged" in said) if damage else ("not a regular file" in said)
        assert form.is_attached and not form.sending
        assert form.text("name") == "EU cards" and form.text("detail-paymentProviderId") == "acct_9"
        assert form.query_one("#type", Select).value == "fiat"
        assert posts == [] and len(app.rigged_emulator.payouts) == before
    if damage is not None:
        assert path.read_bytes() == damage


async def test_a_held_lock_is_waited_for_off_the_loop_and_escape_still_stops() -> None:
    path = record_path("default", EMULATOR_URL)
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.url.path == ADD[1] else None
    with lock.open("wb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)  # another process's add, say
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "4")
            await fill(pilot, name="Free mint", type="free")
            await pilot.press("ctrl+s")
            await wait_for(lambda: "for the payout record's lock" in status(form), pilot)
            assert lock.name in status(form) and "esc to stop" in status(form)
            # The lock still held: the key is answered now, not once the wait gives up.
            await pilot.press("escape")
            await wait_for(lambda: not form.sending, pilot)
            assert "Stopped before the request was sent" in status(form)
            assert form.text("name") == "Free mint" and posts == []
            fcntl.flock(holder, fcntl.LOCK_UN)
            await submit_and_close(app, pilot, form)
            tab = app.active_tab
            await wait_for(lambda: getattr(tab.highlighted, "name", None) == "Free mint", pilot)
    assert posts == [ADD[1]]
    assert [d["name"] for d in PayoutRecord.for_service("default", EMULATOR_URL).load()] == [
        "Free mint"
    ]


async def test_a_record_not_written_once_the_service_added_it_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = record_path("default", EMULATOR_URL)
    real = os.replace

    def full_disk(source: Any, target: Any) -> None:
        if Path(target) == path:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(source, target)

    monkeypatch.setattr(files.os, "replace", full_disk)
    app, transport = rigged_app()
    ready_when_sent: list[bool] = []

    def hook(request: httpx.Request) -> None:
        if request.url.path == ADD[1]:  # the record was made ready first: its temp file
            ready_when_sent.append(any(path.parent.glob(f".{path.name}.*.tmp")))

    transport.hook = hook
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Disk full", type="free")
        await submit_and_close(app, pilot, form)  # added: nothing to send again

        def said() -> list[Any]:
            return [n for n in app._notifications if "not recorded" in n.message]

        await wait_for(lambda: bool(said()), pilot)
        [notice] = said()
        assert notice.severity == "error"
        assert "Added payout definition Disk full on the server" in notice.message
        assert "No space left on device" in notice.message
        assert app.rigged_emulator.payouts[-1]["name"] == "Disk full"
    assert ready_when_sent == [True]
    assert not path.exists() and list(path.parent.iterdir()) == []


async def quit_while_sending(app: Any, pilot: Any, name: str) -> None:
    """Add payout definition ``name``, then quit while its answer is held back."""
    form = await open_form(app, pilot, "4")
    await fill(pilot, name=name, type="free")
    await pilot.press("ctrl+s")
    await wait_for(lambda: "Sending POST" in status(form), pilot)
    await pilot.press("ctrl+q")
    await wait_for_screen(app, pilot, "DiscardScreen")
    assert "The changes under way are waited for, 10 s at most" in app.screen.subject
    await pilot.press("right", "enter")  # Quit
    waiting = "Waiting up to 10 s for the changes under way to end: "
    await wait_for(lambda: any(waiting in m for m in messages(app)), pilot)
    [said] = [m for m in messages(app) if waiting in m]
    assert f"payout definition {name}, its record in" in said
    # One change, said once: not again as its request, nor as the record's files (its
    # own, and those under an earlier name whose lock it holds while it is sent).
    assert said.count(name) == 1 and "POST" not in said and "the file" not in said, said
    assert app.is_running


async def test_quitting_while_the_answer_is_awaited_records_it_once_it_comes() -> None:
    # Quitting cut the request off: added or not, the definition was never recorded.
    app, transport = rigged_app()
    transport.held[ADD[1]] = release = asyncio.Event()
    async with app.run_test(size=SIZE) as pilot:
        await quit_while_sending(app, pilot, "Late answer")
        release.set()
        await wait_for(lambda: not app.is_running, pilot)
    assert app.rigged_emulator.payouts[-1]["name"] == "Late answer"
    assert [d["name"] for d in PayoutRecord.for_service("default", EMULATOR_URL).load()] == [
        "Late answer"
    ]


async def test_quitting_again_while_the_answer_is_awaited_quits_at_once() -> None:
    app, transport = rigged_app()
    asked = exits(app)
    transport.held[ADD[1]] = asyncio.Event()  # never answered
    async with app.run_test(size=SIZE) as pilot:
        await quit_while_sending(app, pilot, "Never answered")
        assert any("press ctrl+q again to quit now" in m for m in messages(app))
        await pilot.press("ctrl+q")  # not asked again
        await wait_for(lambda: not app.is_running, pilot)
    assert PayoutRecord.for_service("default", EMULATOR_URL).load() == []
    [(code, said)] = asked
    assert code == 1
    assert said.startswith("tokensales-tui quit with 1 change under way:"), said
    assert "payout definition Never answered, its record in" in said


async def test_a_record_left_unknown_by_its_file_system_at_the_quit_is_said_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The answer came during the quit and the record's rename was left unanswered: the
    # add had ended, its file was the definition's own, and the quit said nothing, exit 0.
    monkeypatch.setattr(files, "FILE_WAIT", 1.0)
    app, transport = rigged_app()
    asked = exits(app)
    transport.held[ADD[1]] = release = asyncio.Event()
    with hung(monkeypatch, record_path("default", EMULATOR_URL), "replace"):
        async with app.run_test(size=SIZE) as pilot:
            await quit_while_sending(app, pilot, "Stuck record")
            release.set()
            await wait_for(lambda: not app.is_running, pilot, timeout=30)
    [(code, said)] = asked
    assert code == 1
    assert "payout definition Stuck record, its record in" in said
    assert said.endswith("outcome unknown — check it") and said.count("check it") == 1, said


async def test_quitting_never_waits_for_a_record_kept_in_memory_only() -> None:
    # A browser tab of serve (and the demo) keeps its record in memory, gone with the app:
    # the quit waited up to 10 s for it. The request itself, sent to a real service, is
    # waited for as any change is.
    app, transport = rigged_app(served=True)
    transport.held[ADD[1]] = asyncio.Event()  # never answered
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="In memory", type="free")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "Sending POST" in status(form), pilot)
        await pilot.press("ctrl+q")
        await wait_for_screen(app, pilot, "DiscardScreen")
        await pilot.press("right", "enter")  # Quit
        await wait_for(lambda: any("Waiting up to" in m for m in messages(app)), pilot)
        assert not any("its record in" in m for m in messages(app))
        await pilot.press("ctrl+q")
        await wait_for(lambda: not app.is_running, pilot)


async def test_read_only_refuses() -> None:
    await assert_read_only_refuses("4")


async def entered_on_submit(app: Any, pilot: Any, name: str) -> Any:
    """Add payout definition ``name`` with enter on Submit; back once it is sending."""
    form = await open_form(app, pilot, "4")
    await fill(pilot, name=name, type="free")
    form.query_one("#form-submit").focus()
    await pilot.press("enter")
    await wait_for(lambda: form.sending, pilot)
    return form


async def test_enter_pressed_again_on_submit_neither_sends_twice_nor_stops_waiting() -> None:
    # Enter on Submit, then enter again while the answer is slow: the repeat must not
    # reach "Stop waiting" (which put focus back on Submit, whose next enter sent again).
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.url.path == ADD[1] else None
    transport.held[ADD[1]] = release = asyncio.Event()
    async with app.run_test(size=SIZE) as pilot:
        form = await entered_on_submit(app, pilot, "Dup test")
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
