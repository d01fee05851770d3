"""The collections form: several collections in one request, address and e-mail checks, imports."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TextArea

from tokensales_tui import config
from tokensales_tui.ui.forms import collections as collections_module
from tokensales_tui.ui.forms.collections import CollectionsForm
from tokensales_tui.ui.forms.import_list import ImportListScreen
from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

from .apphelpers import rigged_app, wait_for, wait_for_screen
from .formhelpers import (
    SIZE,
    Case,
    assert_each_blocked,
    assert_read_only_refuses,
    demo,
    fill,
    hint,
    messages,
    open_form,
    problem,
    status,
    submit_and_close,
)

W1 = "0x39e61A1Ea7BC4554B59455b94AcC848F13AaD484"
W2 = "0xBE5E7d3D8d9428050fFEE666C84c8B6fEF426716"
W3 = "0xa7252B4941F1BD0ba78d428861F435A89D9952F2"
CONTRACT = "0x7241369492Ea20ED060fa4160015A77F2e8C33F2"
SOLANA = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"
ADD = ("POST", "/collections")

VALID = {
    "c1_name": "Founders",
    "c1_blockchain": "polygon",
    "c1_contract": CONTRACT,
}


def stored(app: Any, name: str) -> dict[str, Any]:
    """The emulator's collection called ``name``, without its id."""
    (found,) = [c for c in app.emulator.collections.values() if c["name"] == name]
    return {k: v for k, v in found.items() if k != "id"}


async def import_file(pilot: Any, path: Path, *, key: str = "ctrl+o") -> str:
    """Open the import dialog (with ``key``, or a click when it is a selector), give it ``path``.

    Returns the dialog's title.
    """
    app = pilot.app
    if key.startswith("#"):
        await pilot.click(key)
    else:
        await pilot.press(key)
    await wait_for(lambda: isinstance(app.screen, ImportListScreen), pilot)
    dialog = app.screen
    title = str(dialog.query_one(".title").render())
    dialog.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    return title


async def checked(form: CollectionsForm, pilot: Any, field_id: str) -> None:
    """Wait until the list ``field_id`` has been checked."""
    await wait_for(lambda: form._fresh(field_id, field_id.split("-")[0]) is not None, pilot)
    await pilot.pause()


async def test_two_collections_in_one_request_with_exactly_the_sent_fields() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        assert isinstance(form, CollectionsForm)
        assert app.focused is form.query_one("#c1-name")
        await fill(pilot, **VALID, c1_whitelisted=True)
        await fill(pilot, c1_wallets=f"{W1}\n\n{W2}\n", c1_emails="a@example.com")
        await pilot.press("ctrl+n")
        assert app.focused is form.query_one("#c2-name")
        await fill(pilot, c2_name="Sol drop", c2_blockchain="solana", c2_contract=SOLANA)
        before = app.emulator.counts[ADD]
        await submit_and_close(app, pilot, form)
        assert app.emulator.counts[ADD] == before + 1
        assert stored(app, "Founders") == {
            "name": "Founders",
            "blockchain": "polygon",
            "contractAddress": CONTRACT,
            "whitelisted": "true",
            "whitelistingInfo": {"list": {"wallets": [W1, W2]}, "emails": ["a@example.com"]},
        }
        assert stored(app, "Sol drop") == {
            "name": "Sol drop",
            "blockchain": "solana",
            "contractAddress": SOLANA,
            "whitelisted": "false",
            "whitelistingInfo": {"list": {"wallets": []}, "emails": []},
        }
        tab = app.active_tab
        await wait_for(
            lambda: getattr(tab.highlighted, "name", None) in ("Founders", "Sol drop"), pilot
        )
        assert "Created 2 collections: Founders, Sol drop" in messages(app)


async def test_the_preview_is_the_json_array_that_is_sent() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID, c1_wallets=W1)
        await checked(form, pilot, "c1-wallets")
        preview = form.preview
        assert preview is not None
        assert preview.request_line == "POST http://demo.tokensales.invalid/collections"
        assert preview.body == [
            {
                "name": "Founders",
                "blockchain": "polygon",
                "contractAddress": CONTRACT,
                "whitelisted": "false",
                "whitelistingInfo": {"emails": [], "list": {"wallets": [W1]}},
            }
        ]


BLOCKING: list[Case] = [
    ({"c1_name": ""}, "c1-name", "enter a name for the collection"),
    ({"c1_blockchain": ""}, "c1-blockchain", "enter the blockchain"),
    ({"c1_contract": CONTRACT.replace("E", "e")}, "c1-contract", "checksum does not match"),
    ({"c1_contract": CONTRACT[:-1]}, "c1-contract", "expected 40 hex digits"),
    ({"c1_blockchain": "solana"}, "c1-contract", "looks like an EVM (0x) address"),
    ({"c1_blockchain": "solana", "c1_contract": SOLANA + "0"}, "c1-contract", "base58"),
    ({"c1_wallets": f"{W1}\n0x12"}, "c1-wallets", "1 invalid wallet"),
    ({"c1_wallets": W1.replace("A", "a", 1)}, "c1-wallets", "line 1:"),
    ({"c1_emails": "ok@example.com\nnot-an-email"}, "c1-emails", "line 2: not-an-email"),
]


async def test_each_check_blocks_the_submit() -> None:
    await assert_each_blocked("5", VALID | {"c1_wallets": "", "c1_emails": ""}, BLOCKING, ADD)


async def test_warnings_do_not_block_and_duplicates_are_sent_once() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        long_name = "The Extraordinary Founders Pass"
        await fill(
            pilot,
            **VALID
            | {
                "c1_name": long_name,
                "c1_wallets": f"{W1}\n{W2}\n{W1.lower()}",
                "c1_emails": "a@example.com\nA@example.com",
            },
        )
        await checked(form, pilot, "c1-wallets")
        await checked(form, pilot, "c1-emails")
        assert "cut off in checkout modals" in problem(form, "c1-name")
        assert "24 characters" in problem(form, "c1-name")
        assert "1 repeated wallet (line 3) — each is sent once" in problem(form, "c1-wallets")
        assert "1 repeated e-mail (line 2)" in problem(form, "c1-emails")
        assert "2 valid, 0 invalid, 1 duplicate" in hint(form, "c1-wallets")
        await submit_and_close(app, pilot, form)
        info = stored(app, long_name)["whitelistingInfo"]
        assert info == {"list": {"wallets": [W1, W2]}, "emails": ["a@example.com"]}


async def test_wallets_are_checked_again_when_the_chain_changes() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID, c1_wallets=SOLANA)
        await wait_for(lambda: "invalid wallet" in problem(form, "c1-wallets"), pilot)
        await fill(pilot, c1_blockchain="solana", c1_contract=SOLANA)
        await wait_for(lambda: problem(form, "c1-wallets") == "", pilot)
        # the lists are checked off the event loop: the counts follow a moment later
        await wait_for(lambda: "1 valid" in hint(form, "c1-wallets"), pilot)


async def test_lists_are_checked_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    original = collections_module.check_entries

    def spy(text: str, check: Any) -> Any:
        threads.append(threading.current_thread().name)
        return original(text, check)

    monkeypatch.setattr(collections_module, "check_entries", spy)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID, c1_wallets=W1)
        await checked(form, pilot, "c1-wallets")
    assert threads and threading.main_thread().name not in threads


async def test_an_unknown_chain_is_a_warning_and_the_server_may_still_refuse() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, c1_name="Tezos drop", c1_blockchain="tezos", c1_contract="KT1Abc")
        assert "not a chain this form knows" in problem(form, "c1-blockchain")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "refused" in status(form), pilot)
        # The emulator's own words, its path and problem apart, under the field it names.
        assert "contractAddress: the address must start with 0x" in status(form)
        assert "change the marked field" in status(form)
        assert problem(form, "c1-contract").startswith("contractAddress: the address must")
        assert form.text("c1-contract") == "KT1Abc"
        assert app.screen.focused is form.query_one("#c1-contract")
        await fill(pilot, c1_contract="KT1Abcd")  # changed: the server's mark goes
        assert problem(form, "c1-contract") == ""


async def test_a_refusal_naming_the_second_collection_marks_its_field() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        transport.fail["/collections"] = 422
        transport.fail_body["/collections"] = {
            "message": "whitelistingInfo.emails[0] is not accepted here",
            "field": "whitelistingInfo.emails[0]",
            "index": 1,
        }
        await fill(pilot, **VALID)
        await pilot.press("ctrl+n")
        await fill(
            pilot, c2_name="Second", c2_blockchain="base", c2_contract=CONTRACT, c2_emails="a@b.io"
        )
        await pilot.press("ctrl+s")
        await wait_for(lambda: "refused" in status(form), pilot)
        assert problem(form, "c2-emails") == "whitelistingInfo.emails[0]: is not accepted here"
        assert problem(form, "c1-emails") == ""
        assert form.text("c2-emails") == "a@b.io"
        transport.fail_body["/collections"] = {"message": "no", "field": "nonsense"}
        await pilot.press("ctrl+s")  # a field the form has not: said in the status line only
        await wait_for(lambda: "nonsense: no" in status(form), pilot)
        assert "marked" not in status(form)


async def test_import_from_a_csv_with_bad_lines_shows_counts_and_the_lines(tmp_path: Path) -> None:
    wrong_checksum = W3.replace("B", "b", 1)
    csv_file = tmp_path / "whitelist.csv"
    csv_file.write_text(
        "note,wallet\n"
        f"first,{W1}\n"
        f"second,{W2}\n"
        "short,0x1234\n"
        "empty,\n"
        f"again,{W1.lower()}\n"
        f"typo,{wrong_checksum}\n"
    )
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        form.query_one("#c1-wallets").focus()
        assert "the wallets of collection 1" in await import_file(pilot, csv_file)
        area = form.query_one("#c1-wallets", TextArea)
        await wait_for(lambda: W1 in area.text, pilot)
        await checked(form, pilot, "c1-wallets")
        assert area.text.splitlines() == [W1, W2, "0x1234", W1.lower(), wrong_checksum]
        text = problem(form, "c1-wallets")
        assert "2 invalid wallets — correct or delete them:" in text
        assert "line 3: 0x1234 — the address has 4 characters after 0x" in text
        assert "line 5: " in text and "checksum does not match" in text
        note = hint(form, "c1-wallets")
        assert "2 valid, 2 invalid, 1 duplicate" in note
        assert "imported 5 from whitelist.csv (column wallet)" in note
        assert "1 rows had no value (file line 5)" in note
        await pilot.press("ctrl+s")
        await wait_for(lambda: "fix the" in status(form), pilot)
        assert app.emulator.counts[ADD] == 0
        await fill(pilot, c1_wallets="\n".join([W1, W2, W1.lower(), W3]))
        await submit_and_close(app, pilot, form)
        assert stored(app, "Founders")["whitelistingInfo"]["list"]["wallets"] == [W1, W2, W3]


async def test_import_of_e_mails_from_a_text_file_adds_to_what_is_typed(tmp_path: Path) -> None:
    emails = tmp_path / "emails.txt"
    emails.write_text("email\nb@example.com\nc@example.com\n")
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID, c1_emails="a@example.com")
        await import_file(pilot, emails, key="#c1-import-emails")
        area = form.query_one("#c1-emails", TextArea)
        await wait_for(lambda: "c@example.com" in area.text, pilot)
        assert area.text.splitlines() == ["a@example.com", "b@example.com", "c@example.com"]


async def test_a_block_added_after_a_refused_submit_starts_clean() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, c1_name="Founders", c1_blockchain="polygon")  # no contract
        await pilot.press("ctrl+s")
        await wait_for(lambda: "fix the marked field" in status(form), pilot)
        assert problem(form, "c1-contract")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert problem(form, "c2-name") == "" and problem(form, "c2-contract") == ""
        assert status(form) == "Nothing was sent: fix the marked field first"
        await fill(pilot, c1_contract=CONTRACT)
        await wait_for(lambda: status(form) == "", pilot)  # the new block is not scolded yet
        assert app.emulator.counts[ADD] == 0


async def test_wallets_are_not_counted_valid_before_a_chain_is_chosen() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, c1_name="Founders", c1_wallets=f"{W1}\n{SOLANA}\n")
        await pilot.pause(0.5)
        assert hint(form, "c1-wallets") == "not checked yet: choose the chain first"
        await fill(pilot, c1_blockchain="polygon")
        await wait_for(lambda: "1 valid, 1 invalid" in hint(form, "c1-wallets"), pilot)


async def test_a_failed_import_offers_the_typed_path_again(tmp_path: Path) -> None:
    missing = tmp_path / "emials.txt"  # a typo
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        await import_file(pilot, missing, key="#c1-import-emails")
        await wait_for(
            lambda: "Not imported" in str(form.query_one("#form-status").render()), pilot
        )
        await pilot.click("#c1-import-emails")
        await wait_for(lambda: isinstance(app.screen, ImportListScreen), pilot)
        assert app.screen.query_one("#path", Input).value == str(missing)  # fix it, not retype it


async def import_wallets(app: Any, pilot: Any, path: Path) -> Any:
    """Open the form, fill it validly and import ``path`` into the first wallets list."""
    form = await open_form(app, pilot, "5")
    await fill(pilot, **VALID)
    form.query_one("#c1-wallets").focus()
    await import_file(pilot, path)
    return form


async def test_a_large_whitelist_imports_and_counts(tmp_path: Path) -> None:
    wallets = tmp_path / "big.txt"
    wallets.write_text("\n".join(f"0x{i:040x}" for i in range(5000)))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await import_wallets(app, pilot, wallets)
        await wait_for(lambda: "5,000 valid" in hint(form, "c1-wallets"), pilot, timeout=15)


async def test_a_list_too_long_to_edit_is_kept_whole_sent_whole_and_can_be_emptied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Textual's text area redraws every line on each key, so past EDIT_LIMIT lines an
    # import is kept beside it: the area shows the start, read-only; all is checked and sent.
    monkeypatch.setattr(collections_module, "EDIT_LIMIT", 50)
    monkeypatch.setattr(collections_module, "PREVIEW_LINES", 10)
    values = [f"0x{i:040x}" for i in range(1, 121)]
    wallets = tmp_path / "long.txt"
    wallets.write_text("\n".join(values))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await import_wallets(app, pilot, wallets)
        await wait_for(lambda: "120 valid" in hint(form, "c1-wallets"), pilot)
        area = form.query_one("#c1-wallets", TextArea)
        assert area.read_only and len(area.text.splitlines()) == 11
        assert "too many to edit here; ctrl+l empties the list" in hint(form, "c1-wallets")
        assert form.preview is not None
        assert form.preview.body[0]["whitelistingInfo"]["list"]["wallets"] == values
        area.focus()
        await pilot.press("ctrl+l")
        await wait_for(lambda: not area.read_only and area.text == "", pilot)
        assert form.preview.body[0]["whitelistingInfo"]["list"]["wallets"] == []


async def test_invalid_entries_of_a_list_too_long_to_edit_say_to_mend_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The area is read-only: "correct or delete them" could not be done there. The key
    # that empties the list is named as bound (a keymap may move it). Not to ctrl+k: in
    # the list, that is the text area's own key (delete to the line's end), and a key the
    # list takes is not named as the form's.
    config.save_config(config.ConfigFile(keymap={"form.empty_list": "f9"}))
    monkeypatch.setattr(collections_module, "EDIT_LIMIT", 50)
    wallets = tmp_path / "long.txt"
    wallets.write_text("\n".join([*(f"0x{i:040x}" for i in range(1, 100)), "0xbad"]))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await import_wallets(app, pilot, wallets)
        await wait_for(lambda: "1 invalid wallet" in problem(form, "c1-wallets"), pilot)
        assert (
            "1 invalid wallet — correct them in the file and import it again,"
            " or empty the list (f9):"
        ) in problem(form, "c1-wallets")
        assert "f9 empties the list" in hint(form, "c1-wallets")
        assert "correct or delete" not in problem(form, "c1-wallets")


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"], ids=["CR", "CRLF", "LF"])
async def test_a_pasted_list_has_one_entry_a_line_whatever_ends_its_lines(end: str) -> None:
    # Terminals paste each line break as CR; a Windows clipboard holds CR LF.
    from textual import events

    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        area = form.query_one("#c1-wallets", TextArea)
        area.focus()
        app.post_message(events.Paste(f"{W1}{end}{W2}{end}"))  # as the terminal sends it
        await wait_for(lambda: W2 in area.text, pilot)
        await checked(form, pilot, "c1-wallets")
        assert area.text.splitlines() == [W1, W2]
        assert "2 valid, 0 invalid" in hint(form, "c1-wallets")


async def test_control_characters_in_an_imported_file_are_shown_as_marks(tmp_path: Path) -> None:
    # The text area would draw them raw: the tripwire fails this test on any leak.
    wallets = tmp_path / "hostile.txt"
    wallets.write_text(f"{W1}\n0x\x1b]52;c;cHduZWQ=\x07\n\x9b31m{W2}\n")
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await import_wallets(app, pilot, wallets)
        area = form.query_one("#c1-wallets", TextArea)
        await wait_for(lambda: W1 in area.text, pilot)
        await checked(form, pilot, "c1-wallets")
        assert "\x1b" not in area.text and "␛]52" in area.text
        assert "2 invalid wallets" in problem(form, "c1-wallets")


async def test_an_unreadable_file_says_why(tmp_path: Path) -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await import_file(pilot, tmp_path / "missing.csv")
        await wait_for(lambda: "Not imported" in status(form), pilot)
        assert "there is no file at" in status(form)


async def open_with_two(app: Any, pilot: Any) -> Any:
    """Open the form and add a second collection (ctrl+n)."""
    form = await open_form(app, pilot, "5")
    await pilot.press("ctrl+n")
    await wait_for(lambda: len(form.sections) == 2, pilot)
    return form


async def test_a_collection_added_and_left_empty_is_nothing_to_lose() -> None:
    # ctrl+n then escape asked "What you typed will be lost" with nothing typed.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_with_two(app, pilot)
        assert not form.dirty
        await fill(pilot, c2_name="Second")
        assert form.dirty
        form.query_one("#c2-remove").press()  # typed in, then taken away: nothing left
        await wait_for(lambda: len(form.sections) == 1, pilot)
        assert not form.dirty
        await fill(pilot, c1_name="First")
        await pilot.press("ctrl+n")
        await wait_for(lambda: len(form.sections) == 2, pilot)
        await fill(pilot, c3_name="Third")
        form.query_one("#c1-remove").press()  # what was typed went with its section
        await wait_for(lambda: len(form.sections) == 1, pilot)
        assert form.dirty  # "Third" is still there
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "ConfirmScreen")


async def test_escape_after_only_adding_a_collection_closes_at_once() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_with_two(app, pilot)
        await pilot.press("escape")
        await wait_for(lambda: not form.is_attached, pilot)


async def test_remove_drops_a_collection_and_renumbers() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        assert not form.query_one("#c1-remove").display  # the only one stays
        await pilot.press("ctrl+n", "ctrl+n")
        assert [s.key for s in form.sections] == ["c1", "c2", "c3"]
        await fill(pilot, c2_name="gone")
        form.query_one("#c2-remove").press()
        await wait_for(lambda: len(form.sections) == 2, pilot)
        assert [s.number for s in form.sections] == [1, 2]
        assert form.preview is not None and len(form.preview.body) == 2


async def test_a_refusal_keeps_every_collection() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        transport.fail["/collections"] = 409
        await fill(pilot, **VALID, c1_wallets=W1)
        await pilot.press("ctrl+n")
        await fill(pilot, c2_name="Second", c2_blockchain="base", c2_contract=CONTRACT)
        await pilot.press("ctrl+s")
        await wait_for(lambda: "emulated failure" in status(form), pilot)
        assert form.text("c1-wallets") == W1 and form.text("c2-name") == "Second"
        assert len(app.rigged_emulator.collections) == 6


async def test_read_only_refuses() -> None:
    await assert_read_only_refuses("5")


async def test_typing_lays_the_form_out_only_when_a_line_comes_or_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each layout of a form of many collections costs tens of milliseconds: typing in a
    list or a name, as long as no line of the form comes or goes, needs none."""
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await pilot.press("ctrl+n", "ctrl+n")
        await wait_for(lambda: form.has_widget("c3-wallets"), pilot)
        layouts = 0
        lay_out = form._refresh_layout

        def counted(*args: Any, **kwargs: Any) -> None:
            nonlocal layouts
            layouts += 1
            lay_out(*args, **kwargs)

        monkeypatch.setattr(form, "_refresh_layout", counted)
        for field_id, typed in (("c1-wallets", W1), ("c2-name", "Founders of the north")):
            form.query_one(f"#{field_id}").focus()
            await pilot.pause()
            await pilot.press(*typed[:4])  # the first keys show a hint or a problem
            await pilot.pause(0.3)
            layouts = 0
            await pilot.press(*typed[4:])
            await pilot.pause(0.3)
            assert form.text(field_id) == typed
            assert layouts <= 2, (field_id, layouts)  # a line that appears or goes
            for line in form.query(".form-hint, .form-problem, #preview Static").results(Static):
                if line.display:  # each shows the whole of its text
                    assert line.size.height == line.visual.get_height(line.styles, line.size.width)
        area = form.query_one("#c1-wallets", TextArea)
        assert area.virtual_size.width == len(W1) + area.gutter_width + 1


async def test_a_line_wider_than_the_list_scrolls_it_sideways() -> None:
    app = demo()
    async with app.run_test(size=(80, 30)) as pilot:
        form = await open_form(app, pilot, "5")
        area = form.query_one("#c1-wallets", TextArea)
        area.focus()
        await pilot.pause()
        typed = "x" * (area.size.width + 10)
        layouts = area._layout_updates
        await pilot.press(*typed)
        await pilot.pause()
        assert area.text == typed
        assert area._layout_updates - layouts <= 2  # the scrollbar that appears; not each key
        assert area.show_horizontal_scrollbar
        assert area.max_scroll_x > 0
        assert area.scroll_x > 0  # the cursor, at the end, is in view
        await pilot.press("home")
        await pilot.pause()
        assert area.scroll_x == 0


async def test_ctrl_q_under_the_import_dialog_asks_about_the_form_below() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        form.query_one("#c1-wallets").focus()
        await pilot.press("ctrl+o")
        await wait_for(lambda: isinstance(app.screen, ImportListScreen), pilot)
        await pilot.press("ctrl+q")  # the form below holds what was typed
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.question == "Quit the app?"  # type: ignore[attr-defined]


async def test_a_form_served_to_a_browser_reads_no_file_of_the_serving_machine() -> None:
    # ctrl+o imported any file of the serving machine into the list, where its lines
    # showed: a browser tab could read the config file with its secrets.
    app = demo(served=True)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(app, pilot, "5")
        await pilot.press("ctrl+o")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ImportListScreen)
        assert all(not button.display for button in form.query(".import"))
        form._ask_import("c1-wallets")  # any other way in
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ImportListScreen)
        assert any("no file of the serving machine is read" in m for m in messages(app))
        # Nor does a list's placeholder offer ctrl+o.
        for area in form.query(SafeTextArea):
            assert "ctrl+o" not in str(area.placeholder), area.placeholder


async def test_the_whitelisted_switch_says_yes_or_no() -> None:
    app = demo()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot, "5")
        state = form.query_one("#c1-whitelisted-state", Static)
        assert str(state.render()) == "no"
        form.query_one("#c1-whitelisted").toggle()  # type: ignore[attr-defined]
        await pilot.pause()
        assert str(state.render()) == "yes"
