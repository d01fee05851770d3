"""The webhook form on the in-process emulator: create, edit, checks, failures, cancel."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx
from textual.widgets import Input, Static

from tokensales_tui.config import Overrides
from tokensales_tui.ui.forms import form_bindings
from tokensales_tui.ui.forms.webhook import WebhookForm, kept_as_stored
from tokensales_tui.ui.screens.confirm import ConfirmScreen

from .apphelpers import loaded, rigged_app, screen_text, wait_for, wait_for_screen
from .formhelpers import (
    SIZE,
    Case,
    assert_each_blocked,
    demo,
    fill,
    hint,
    messages,
    open_form,
    problem,
    status,
    submit_and_close,
)

SECRET = "whsec-Zq8xK41w"
CREATE = ("POST", "/v1/platform-webhooks")


async def test_create_sends_exactly_the_fields_and_highlights_the_new_row() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        assert isinstance(form, WebhookForm)
        assert app.focused is form.query_one("#url")
        before = set(app.emulator.webhooks)
        await fill(pilot, url="https://hooks.example.com/ts", events="item.sold,\npayment.failed")
        form.query_one("#secret", Input).value = SECRET
        await submit_and_close(app, pilot, form)
        (new_id,) = set(app.emulator.webhooks) - before
        stored = app.emulator.webhooks[new_id]
        assert {k: stored[k] for k in ("url", "events", "secret")} == {
            "url": "https://hooks.example.com/ts",
            "events": ["item.sold", "payment.failed"],
            "secret": SECRET,
        }
        tab = app.active_tab
        await wait_for(lambda: getattr(tab.highlighted, "id", None) == new_id, pilot)
        assert "Created webhook https://hooks.example.com/ts" in messages(app)
        assert all(SECRET not in m for m in messages(app))


async def test_no_secret_typed_means_no_secret_sent() -> None:
    app, transport = rigged_app()
    bodies: list[bytes] = []
    transport.hook = lambda r: bodies.append(r.content) if r.method == "POST" else None
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://a.example/h", events="item.sold")
        await submit_and_close(app, pilot, form)
    sent = [json.loads(b) for b in bodies if b and b"apiKey" not in b]
    assert sent == [{"url": "https://a.example/h", "events": ["item.sold"]}]


BLOCKING: list[Case] = [
    ({"url": ""}, "url", "enter an address starting with https:// (or http://)"),
    ({"url": "ftp://files.example/x"}, "url", "use https://"),
    ({"url": "example.com/hook"}, "url", "full address"),
    ({"events": ""}, "events", "at least one event name"),
    ({"events": "item.sold, item sold"}, "events", "no spaces"),
]


async def test_each_check_shows_under_its_field_and_blocks_the_submit() -> None:
    valid = {"url": "https://ok.example/h", "events": "item.sold"}
    await assert_each_blocked("1", valid, BLOCKING, CREATE)


async def test_the_refusal_counts_the_fields_left_and_goes_once_they_are_fixed() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="htp:/x", events="")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "fix the 2 marked fields" in status(form), pilot)
        await fill(pilot, url="https://ok.example/h")
        await wait_for(
            lambda: status(form) == "Nothing was sent: fix the marked field first", pilot
        )
        await fill(pilot, events="item.sold")
        await wait_for(lambda: status(form) == "", pilot)
        assert app.emulator.counts[CREATE] == 0


async def test_problems_show_as_you_type_not_before() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        assert problem(form, "url") == ""  # untouched: no scolding yet
        await pilot.press(*"htp:/x")
        assert "https://" in problem(form, "url")
        await pilot.press("tab")
        assert problem(form, "events") == ""


async def test_events_are_suggested_from_existing_webhooks() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        known = {e for w in app.emulator.webhooks.values() for e in w["events"]}
        assert "In use:" in hint(form, "events")
        await pilot.press("tab", *"payout.c")
        events = form.query_one("#events", Input)
        await wait_for(lambda: events._suggestion == "payout.completed", pilot)
        assert "payout.completed" in known
        await pilot.press("right")  # accepts the suggestion
        assert events.value == "payout.completed"
        await pilot.press(*", tok")
        assert "token.minted" in hint(form, "events")
        assert "payout.completed" not in hint(form, "events")  # already in the list
        events.value = "payout.completed, payout.completed"  # typed twice: in use, said once
        await pilot.pause()
        assert hint(form, "events") == "payout.completed is in the list already — it is sent once."
        events.value = "payout.completed, payout.compl"
        await pilot.pause()
        assert hint(form, "events") == "In use, and in the list already: payout.completed"


async def test_one_line_per_problem_and_the_url_words_agree_with_the_check_about_http() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        hint_line = form.query_one("#events-hint", Static)
        await fill(pilot, events="item.sold, item sold")
        assert "no spaces" in problem(form, "events")
        assert not hint_line.display  # not also "no webhook uses a name like that"
        await fill(pilot, events="")
        assert "at least one event name" in problem(form, "events") and not hint_line.display
        await fill(pilot, events="item.sold")
        assert problem(form, "events") == "" and hint_line.display
        for typed in ("example.com/hook", ""):
            await fill(pilot, url=typed)
            assert "http://" in problem(form, "url")  # the check takes plain http: said so
        await fill(pilot, url="http://hooks.example/h")
        assert problem(form, "url") == "" and form.preview is not None


async def test_a_pasted_list_of_lines_becomes_a_comma_list() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press("tab")
        events = form.query_one("#events", Input)
        from textual import events as textual_events

        events.post_message(textual_events.Paste("item.sold\npayment.failed\n"))
        await pilot.pause()
        assert events.value == "item.sold, payment.failed"


async def test_preview_shows_the_request_and_masks_the_secret() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://hooks.example.com/it's", events="item.sold")
        form.query_one("#secret", Input).value = SECRET
        await pilot.pause()
        preview = form.preview
        assert preview is not None
        assert preview.request_line == "POST http://demo.tokensales.invalid/v1/platform-webhooks"
        assert preview.body == {
            "url": "https://hooks.example.com/it's",
            "events": ["item.sold"],
            "secret": "********",
        }
        text = screen_text(app)
        assert "POST http://demo.tokensales.invalid/v1/platform-webhooks" in text
        assert '"secret": "********"' in text and SECRET not in text
        await pilot.press("ctrl+y")
        curl = app.clipboard
        assert curl.startswith("curl -X POST 'http://demo.tokensales.invalid/v1/platform-webhooks'")
        assert '"Authorization: Bearer $TOKENSALES_TOKEN"' in curl
        assert "it'\\''s" in curl  # the quote inside the single-quoted body
        assert SECRET not in curl and "masked" in messages(app)[-1]


async def test_the_server_refusing_keeps_every_value_and_shows_its_message() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        transport.fail["/v1/platform-webhooks"] = 422
        await fill(pilot, url="https://a.example/h", events="item.sold, token.minted")
        form.query_one("#secret", Input).value = SECRET
        await pilot.press("ctrl+s")
        await wait_for(lambda: "emulated failure" in status(form), pilot)
        assert "The server refused it" in status(form)
        assert form.is_attached and not form.sending
        assert form.text("url") == "https://a.example/h"
        assert form.text("events") == "item.sold, token.minted"
        assert form.text("secret") == SECRET
        assert not form.query_one("#form-body").disabled


async def test_a_broken_connection_mid_post_is_outcome_unknown_and_not_retried() -> None:
    app, transport = rigged_app()
    posts: list[str] = []

    def hook(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == "/v1/platform-webhooks":
            posts.append(request.url.path)
            raise httpx.ReadError("connection reset")

    transport.hook = hook
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://a.example/h", events="item.sold")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "outcome unknown" in status(form), pilot)
        assert "refresh to check" in status(form)
        assert posts == ["/v1/platform-webhooks"]  # sent once, never repeated
        assert form.text("url") == "https://a.example/h"


async def test_while_sending_the_form_is_disabled_and_escape_stops_waiting() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        transport.delay["/v1/platform-webhooks"] = 30
        await fill(pilot, url="https://a.example/h", events="item.sold")
        await pilot.press("ctrl+s")
        await wait_for(lambda: form.sending, pilot)
        assert form.query_one("#form-body").disabled
        assert "Sending POST /v1/platform-webhooks" in status(form)
        await pilot.press("ctrl+s")  # a second submit does nothing while one is out
        await pilot.press("escape")
        await wait_for(lambda: not form.sending, pilot)
        assert "outcome unknown" in status(form)
        assert form.is_attached and form.text("url") == "https://a.example/h"


async def test_stopping_while_the_token_is_awaited_says_nothing_was_sent() -> None:
    # The token expired; its request hangs. Escape ends the wait before the POST went:
    # "outcome unknown" would send the user to check for a change that never was.
    app, transport = rigged_app()
    posts: list[str] = []
    transport.hook = lambda r: posts.append(r.url.path) if r.method == "POST" else None
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        app.api._client.tokens.forget()  # type: ignore[union-attr]
        posts.clear()
        transport.delay["/auth/getAccessToken"] = 30
        await fill(pilot, url="https://a.example/h", events="item.sold")
        await pilot.press("ctrl+s")
        await wait_for(lambda: posts == ["/auth/getAccessToken"], pilot)
        await pilot.press("escape")
        await wait_for(lambda: not form.sending, pilot)
        assert "nothing was changed" in status(form)
        assert "outcome unknown" not in status(form)
        assert posts == ["/auth/getAccessToken"]  # the webhook's POST never went
        assert form.is_attached and form.text("url") == "https://a.example/h"


async def test_cancel_without_typing_closes_at_once() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press("escape")
        await wait_for(lambda: not form.is_attached, pilot)
        assert app.emulator.counts[CREATE] == 0


async def test_cancel_after_typing_asks_and_keeps_the_values_if_not_confirmed() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press(*"https://x.example")
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        # Asked right after escape was pressed to leave: "Cancel" read as leaving.
        await pilot.pause()
        text = screen_text(app)
        assert "Keep editing" in text and "Discard" in text and "Cancel" not in text
        await pilot.press("enter")  # Keep editing is the default
        assert app.screen is form and form.text("url") == "https://x.example"
        await pilot.press("escape", "right", "enter")  # Discard
        await wait_for(lambda: not form.is_attached, pilot)
        assert app.emulator.counts[CREATE] == 0


async def test_edit_sends_only_what_changed_and_shows_the_diff() -> None:
    app, transport = rigged_app()
    puts: list[bytes] = []
    transport.hook = lambda r: puts.append(r.content) if r.method == "PUT" else None
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhook = app.active_tab.highlighted
        form = await open_form(app, pilot, "1", key="e")
        assert form.text("url") == webhook.url
        assert form.text("events") == ", ".join(webhook.events)
        assert form.text("secret") == ""
        await fill(pilot, events="item.sold, collection.created")
        changes = str(form.query_one("#preview-changes").render())
        assert "events: + item.sold  + collection.created  − token.transferred" in changes
        await submit_and_close(app, pilot, form)
        stored = app.rigged_emulator.webhooks[webhook.id]
        assert stored["events"] == ["item.sold", "collection.created"]
        assert stored["url"] == webhook.url
        await wait_for(lambda: any("Updated webhook" in m for m in messages(app)), pilot)
    assert [json.loads(b) for b in puts] == [{"events": ["item.sold", "collection.created"]}]


async def test_a_key_typed_in_an_edit_form_as_it_opens_adds_to_the_value() -> None:
    # The first field's whole text was selected as the form opened: the first key typed
    # replaced the stored URL.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhook = app.active_tab.highlighted
        form = await open_form(app, pilot, "1", key="e")
        assert isinstance(form.focused, Input) and form.focused.id == "url"
        await pilot.press("X")
        assert form.text("url") == webhook.url + "X"


async def test_edit_with_a_new_secret_sends_it_masked_in_the_preview() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhook = app.active_tab.highlighted
        form = await open_form(app, pilot, "1", key="e")
        form.query_one("#secret", Input).value = SECRET
        await pilot.pause()
        assert form.preview is not None and form.preview.body == {"secret": "********"}
        assert "secret: replaced" in screen_text(app)
        await submit_and_close(app, pilot, form)
        assert app.emulator.webhooks[webhook.id]["secret"] == SECRET


async def test_edit_that_changes_nothing_sends_nothing() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhook = app.active_tab.highlighted
        form = await open_form(app, pilot, "1", key="e")
        # the same names in another order are no change either
        await fill(pilot, events=", ".join(reversed(webhook.events)) + ",")
        assert "Nothing changed" in screen_text(app)
        await submit_and_close(app, pilot, form)
        assert "Nothing changed — nothing was sent" in messages(app)
        assert app.emulator.counts[("PUT", "/v1/platform-webhooks/{id}")] == 0


async def test_read_only_profiles_never_open_the_forms() -> None:
    app = demo(overrides=Overrides(read_only=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for key in ("n", "e"):
            await pilot.press(key)
            await pilot.pause()
            assert not isinstance(app.screen, WebhookForm)
        assert "read-only profile: creating is turned off" in messages(app)
        assert "read-only profile: editing is turned off" in messages(app)
        footer = screen_text(app).splitlines()[-1]
        assert "New" not in footer and "Edit" not in footer
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "New webhook" not in titles and "Edit webhook" not in titles


async def test_forms_are_offered_where_the_service_allows_them() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "New webhook" in titles and "Edit webhook" in titles
        await pilot.press("2", "n")
        assert "The service offers no way to add items" in messages(app)
        await pilot.press("e")
        assert "The service offers no way to edit items" in messages(app)
        await pilot.press("4")
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "New payout definition" in titles and "Edit webhook" not in titles


async def test_server_text_in_an_edited_webhook_stays_literal_and_is_not_judged() -> None:
    app, _transport = rigged_app()
    stored = next(iter(app.rigged_emulator.webhooks.values()))
    stored["url"] = "not a url [b]bold[/b]"
    stored["events"] = ["[@click=app.quit]x[/]", "a[/]b", "esc\x1b[31mred"]
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        text = screen_text(app)
        assert "[@click=app.quit]x[/]" in text and "[b]bold[/b]" in text
        assert form.text("events") == "[@click=app.quit]x[/], a[/]b, esc␛[31mred"
        await fill(pilot, secret="new-secret")  # change only the secret
        assert problem(form, "url") == "" and problem(form, "events") == ""
        await submit_and_close(app, pilot, form)
        assert stored["secret"] == "new-secret"
        assert stored["events"][2] == "esc\x1b[31mred"  # untouched on the server


async def test_a_secret_typed_keeps_its_spaces_as_the_command_line_does() -> None:
    # The form sent it stripped, and the listen screen checked signatures with it
    # stripped, while `--secret-stdin` and `--secret-file` keep what they are given.
    app, _transport = rigged_app()
    stored = next(iter(app.rigged_emulator.webhooks.values()))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        await fill(pilot, secret="  new secret ")
        await submit_and_close(app, pilot, form)
        assert stored["secret"] == "  new secret "


async def test_adding_an_event_sends_the_untouched_stored_names_as_they_were() -> None:
    # The field shows stored names cleaned (a bidi override becomes a visible mark);
    # adding one event must send the others as the service stored them, not the marks.
    app, transport = rigged_app()
    puts: list[bytes] = []
    transport.hook = lambda r: puts.append(r.content) if r.method == "PUT" else None
    stored = next(iter(app.rigged_emulator.webhooks.values()))
    stored["events"] = ["item.\u202esold", "tab\there"]
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        shown = form.text("events")
        assert "\u202e" not in shown and "\t" not in shown
        await fill(pilot, events=shown + ", payment.succeeded")
        await submit_and_close(app, pilot, form)
    sent = [json.loads(b) for b in puts]
    assert sent == [{"events": ["item.\u202esold", "tab\there", "payment.succeeded"]}]


async def test_a_failure_outside_the_api_hierarchy_never_locks_the_form() -> None:
    # Any exception on the way (a bug, a broken transport) must end "Sending…" with a
    # message, keep what was typed, and let ctrl+s try again.
    app, transport = rigged_app()
    posts: list[httpx.Request] = []

    def hook(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == CREATE[1]:
            posts.append(request)
            if len(posts) == 1:
                raise RuntimeError("a transport bug")

    transport.hook = hook
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://hooks.example.com/ts", events="item.sold")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "failed unexpectedly" in status(form), pilot)
        assert not form.sending and form.text("url") == "https://hooks.example.com/ts"
        await submit_and_close(app, pilot, form)
    assert len(posts) == 2


def test_every_form_key_has_an_id_and_a_description() -> None:
    keys = form_bindings()
    assert {b.id for b in keys} >= {
        "form.submit",
        "form.cancel",
        "form.copy_curl",
        "form.import_list",
        "form.add_collection",
    }
    assert all(b.description and b.id for b in keys)


def test_the_forms_load_only_when_first_used() -> None:
    # Their checks (email-validator, Keccak) cost ~70 ms the first frame does not need;
    # so do Textual's text area (~20 ms, only the collections form has one) and httpx
    # (~50 ms, loaded with the first client).
    code = (
        "import sys, tokensales_tui.ui.app; "
        "print(sorted(m for m in ('email_validator', 'eth_hash', "
        "'tokensales_tui.ui.forms.base', 'textual.widgets._text_area', 'httpx') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_unencodable_text_names_the_field_and_sends_nothing() -> None:
    # A lone surrogate (as a broken paste can produce) cannot be sent as UTF-8.
    valid = {"url": "https://hooks.example.com/in", "events": "item.sold"}
    await assert_each_blocked(
        "1",
        valid,
        [
            ({"url": "https://hooks.example.com/\ud800"}, "url", "cannot be sent"),
            ({"events": "item.sold, pay\ud800ment"}, "events", "cannot be sent"),
        ],
        CREATE,
    )


async def test_ctrl_q_in_a_form_with_typed_values_asks_first() -> None:
    # It quit at once, what was typed gone; escape asks in that case.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await fill(pilot, url="https://a.example/h")
        await pilot.press("ctrl+q")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        assert app.screen.question == "Quit the app?"  # type: ignore[attr-defined]
        await pilot.press("escape")  # no: back to the form, as it was
        await wait_for(lambda: app.screen is form, pilot)
        assert form.text("url") == "https://a.example/h" and app.is_running
        await pilot.press("ctrl+q")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        await pilot.press("right", "enter")
        await wait_for(lambda: not app.is_running, pilot)


async def test_ctrl_c_says_which_key_quits_as_plain_text() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+c")  # not "Press [b]q[/b] to quit the app"
        said = [n.message for n in app._notifications if n.title == "Do you want to quit?"]
        assert said == ["Press q to quit the app"]


async def edit_first_webhook(stored: dict[str, Any]) -> tuple[Any, Any, list[Any]]:
    """A rigged app whose first webhook holds ``stored``, and the PUT bodies it will get."""
    app, transport = rigged_app()
    puts: list[Any] = []
    transport.hook = lambda r: puts.append(json.loads(r.content)) if r.method == "PUT" else None
    next(iter(app.rigged_emulator.webhooks.values())).update(stored)
    return app, transport, puts


def preview_changes(form: Any) -> str:
    return str(form.query_one("#preview-changes").render())


async def test_event_names_the_user_left_alone_are_never_rewritten() -> None:
    # A stored name holding a comma or spaces cannot come back out of the comma list as
    # it went in: the field unedited is no change, and edited keeps the stored names.
    events = ["a,b", "c", " padded"]
    app, _transport, puts = await edit_first_webhook({"events": events})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        assert form.preview is None and "Nothing changed" in screen_text(app)
        await fill(pilot, url="https://changed.example/h")
        assert "events" not in preview_changes(form)
        await submit_and_close(app, pilot, form)
        await pilot.press("e")
        await wait_for(lambda: isinstance(app.screen, WebhookForm), pilot)
        form = app.screen
        await fill(pilot, events=form.text("events") + ", mine.y")
        assert "+ mine.y" in preview_changes(form) and "−" not in preview_changes(form)
        await submit_and_close(app, pilot, form)
    assert puts == [{"url": "https://changed.example/h"}, {"events": [*events, "mine.y"]}]


async def test_an_event_list_edited_back_to_what_it_was_sends_nothing() -> None:
    app, _transport, puts = await edit_first_webhook({"events": ["a,b", "c"]})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        await fill(pilot, events="c, a, b")
        assert form.preview is None
        await submit_and_close(app, pilot, form)
        assert "Nothing changed — nothing was sent" in messages(app)
    assert puts == []


def test_stored_names_whose_parts_are_all_still_typed_go_back_as_stored() -> None:
    stored = ["a,b", " padded", "esc\x1b", ",", "gone"]
    typed = ["new", "a", "b", "padded", "esc␛"]
    assert kept_as_stored(typed, stored) == ["new", "a,b", " padded", "esc\x1b", ","]
    assert kept_as_stored(["a", "c"], stored) == ["a", "c", ","]  # b removed: a,b is gone


async def test_a_stored_url_with_spaces_around_it_is_sent_only_if_edited() -> None:
    url = " https://example.com/h5 "
    app, _transport, puts = await edit_first_webhook({"url": url, "events": ["c"]})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        assert form.preview is None and "Nothing changed" in screen_text(app)
        await fill(pilot, events="c, d")
        assert "url" not in preview_changes(form)
        await submit_and_close(app, pilot, form)
        assert next(iter(app.rigged_emulator.webhooks.values()))["url"] == url
    assert puts == [{"events": ["c", "d"]}]


async def test_an_edit_never_silently_overwrites_a_change_made_on_the_server_meanwhile() -> None:
    app, _transport, puts = await edit_first_webhook({"events": ["item.sold", "café.paid"]})
    stored = next(iter(app.rigged_emulator.webhooks.values()))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        stored["events"] = ["item.sold", "café.paid", "server.added"]  # someone else, meanwhile
        await fill(pilot, events=form.text("events") + ", mine.y")
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        asked = screen_text(app)
        assert "Overwrite a change made on the server?" in asked
        assert "server.added" in asked and "mine.y" in asked
        await pilot.press("enter")  # Cancel is the default: nothing sent
        await wait_for(lambda: app.screen is form and "Nothing was sent" in status(form), pilot)
        assert "server.added" in status(form) and not form.sending
        assert puts == []
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")  # overwrite, deliberately
        await wait_for(lambda: not form.is_attached, pilot)
    assert puts == [{"events": ["item.sold", "café.paid", "mine.y"]}]


async def test_an_edit_whose_webhook_is_unchanged_on_the_server_is_sent_without_a_question() -> (
    None
):
    app, _transport, puts = await edit_first_webhook({"events": ["item.sold"]})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        await fill(pilot, events="item.sold, mine.y")
        await submit_and_close(app, pilot, form)
    assert puts == [{"events": ["item.sold", "mine.y"]}]


async def test_at_80x24_the_form_takes_the_rows_down_to_the_footer() -> None:
    # Only the preview's top border showed before the buttons, three rows left empty
    # between the dialog and the footer.
    app = demo()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot, "1")
        frame = form.query_one("#form")
        assert frame.region.bottom == 23  # the footer's line is the 24th
        form.set_status("Nothing was sent: fix the 2 marked fields first", "error")
        await pilot.pause()
        assert frame.region.bottom == 23
        assert form.query_one("#form-submit").region.bottom <= 22


async def test_the_preview_marks_invisible_characters_and_the_request_keeps_them() -> None:
    # The field showed "pay⸱pal" and the preview "paypal.com": a ZWSP, raw, is nothing on
    # screen. A ZWJ emoji in an event name slid the preview's borders.
    url = "https://pay\u200bpal.com/hook"
    app, _transport, _puts = await edit_first_webhook({"events": ["team\u200d.sold"]})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        form = await open_form(app, pilot, "1", key="e")
        await fill(pilot, url=url, events="👨\u200d👩\u200d👧.sold")
        body = str(form.query_one("#preview-body").render())
        changes = preview_changes(form)
        assert "https://pay⸱pal.com/hook" in body
        assert "+ 👨⸱👩⸱👧.sold" in changes and "− team⸱.sold" in changes
        assert "pay⸱pal" in changes
        for shown in (body, changes, screen_text(app)):
            assert "\u200b" not in shown and "\u200d" not in shown
        assert form.preview is not None and form.preview.body is not None
        assert form.preview.body["url"] == url  # what is sent stays exact
        assert "pay\u200bpal" in form.preview.as_curl()
