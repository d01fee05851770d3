"""Server strings are shown as literal text: never markup, never terminal escapes."""

from __future__ import annotations

import pytest

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import (
    loaded,
    rigged_app,
    screen_segments,
    screen_text,
    wait_for,
    wait_for_screen,
)
from .tripwire import Tripwire

SIZE = (120, 40)
CLICK = "[@click=app.quit]x[/]"
CLOSING = "a [/] b"
OSC52 = "\x1b]52;c;SGVsbG8=\x07pwned"


async def app_with_item_title(title: str) -> tuple[TokenSalesApp, str]:
    app = TokenSalesApp(Launch(demo=True))
    return app, title


async def show_item(app: TokenSalesApp, pilot, title: str) -> str:  # type: ignore[no-untyped-def]
    await loaded(app, pilot)
    item_id = next(iter(app.emulator.items))
    app.emulator.items[item_id] = dict(app.emulator.items[item_id], title=title, description=title)
    await pilot.press("2", "r")
    await wait_for(lambda: any(r.title == title for r in app.active_tab.table.rows), pilot)
    app.active_tab.table.move_cursor_to(lambda r: r.id == item_id)
    await pilot.pause()
    return item_id


def no_actions_or_escapes(app: TokenSalesApp) -> None:
    for segment in screen_segments(app):
        assert "\x1b" not in segment.text and "\x07" not in segment.text
        style = segment.style
        if style is not None and style.meta:
            assert "@click" not in style.meta, style.meta


async def test_click_markup_in_a_title_is_text_and_clicking_it_does_nothing() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await show_item(app, pilot, CLICK)
        assert CLICK in screen_text(app)
        no_actions_or_escapes(app)
        table = app.active_tab.table
        y = 1 + table.cursor_row  # the header is line 0
        await pilot.click("#items-table", offset=(table._starts[1] + 1, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None


@pytest.mark.parametrize("title", [CLOSING, "[b]b[/b] [link=x]y[/link]", "[/]"])
async def test_markup_like_titles_show_literally_everywhere(title: str) -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await show_item(app, pilot, title)
        assert title in screen_text(app)
        await pilot.press("enter")  # detail view
        await wait_for_screen(app, pilot, "DetailScreen")
        await wait_for(lambda: title in screen_text(app), pilot)
        no_actions_or_escapes(app)
        await pilot.press("escape", "d")  # the delete confirmation names the item
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert title in screen_text(app)
        await pilot.press("right", "enter")
        await wait_for(lambda: any("Deleted item" in n.message for n in app._notifications), pilot)
        assert any(title in n.message for n in app._notifications)
        assert app.is_running


INVISIBLE = "pay\u200bpal 👨\u200d👩\u200d👧 a\u2060b\u00adc\ufeffd"
"""A title holding ZWSP, ZWJ, the word joiner, a soft hyphen and a BOM."""
MARKED = "pay⸱pal 👨⸱👩⸱👧 a⸱b⸱c⸱d"


async def test_invisible_characters_show_as_marks_everywhere_a_title_is_shown() -> None:
    # The table and the detail fields marked them; the detail's title (the id), the
    # delete question naming the row and the toast after it showed them raw.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        first = next(iter(app.emulator.items.values()))
        item_id = "itm_\u200bhidden"
        app.emulator.items[item_id] = dict(first, id=item_id, title=INVISIBLE)
        await pilot.press("2", "r")
        await wait_for(lambda: any(r.id == item_id for r in app.active_tab.table.rows), pilot)
        app.active_tab.table.move_cursor_to(lambda r: r.id == item_id)
        await pilot.pause()
        assert MARKED in screen_text(app)
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        await wait_for(lambda: MARKED in screen_text(app), pilot)
        assert "itm_⸱hidden" in str(app.screen.query_one("#detail-title").render())
        await pilot.press("escape", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert MARKED in screen_text(app) and "itm_⸱hidden" in screen_text(app)
        await pilot.press("right", "enter")
        await wait_for(lambda: any("Deleted item" in n.message for n in app._notifications), pilot)
        (toast,) = [n for n in app._notifications if "Deleted item" in n.message]
        assert MARKED in toast.message
        for shown in (screen_text(app), toast.message):
            assert not any(c in shown for c in "\u200b\u200d\u2060\u00ad\ufeff")
        assert item_id not in app.emulator.items  # the DELETE named the id exactly


async def test_c_copies_an_id_exactly_or_says_how_it_was_escaped(
    terminal_tripwire: Tripwire,
) -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        first = next(iter(app.emulator.items.values()))
        plain_id, bidi_id = "itm_\u200bzw", "itm_\u202eevil\u202c\n"
        for item_id in (plain_id, bidi_id):
            app.emulator.items[item_id] = dict(first, id=item_id)
        await pilot.press("2", "r")
        table = app.active_tab.table
        await wait_for(lambda: any(r.id == bidi_id for r in table.rows), pilot)
        said = []
        for item_id in (plain_id, bidi_id):
            table.move_cursor_to(lambda r, item_id=item_id: r.id == item_id)
            await pilot.press("c")
            await pilot.pause()
            said.append(list(app._notifications)[-1].message)
        # Invisible but inert: copied as it is, the toast saying nothing more.
        assert terminal_tripwire.clipboard[0] == plain_id
        assert said[0] == "Copied the item id"
        # A bidi control or a newline could hide or end what a paste holds: escaped, and said.
        assert terminal_tripwire.clipboard[1] == "itm_\\u202eevil\\u202c\\u000a"
        assert said[1] == (
            "Copied the item id\nEscaped, so not exact: 3 characters a paste could act on or"
            " hide text behind are written as \\u202e \\u202c \\u000a"
        )


async def test_osc52_in_a_field_sends_no_escape_to_the_terminal() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await show_item(app, pilot, OSC52)
        text = screen_text(app)
        assert "\x1b" not in text and "␛]52;c;SGVsbG8=" in text
        no_actions_or_escapes(app)
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        await wait_for(lambda: "pwned" in screen_text(app), pilot)
        no_actions_or_escapes(app)


async def test_bidi_override_and_c1_are_replaced() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await show_item(app, pilot, "abc\u202edcba\x9b31m")
        text = screen_text(app)
        assert "\u202e" not in text and "\x9b" not in text
        assert "abc�dcba�31m" in text


ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x9b31m"


async def test_a_hostile_column_name_in_the_count_line_after_a_sort_stays_inert() -> None:
    # Asset columns come from the data: a JSON key is a label, and the count line names
    # the sort column ("12 assets · by <name>"). The tripwire fails the test on a leak.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        key = f"zz{ESCAPES}name"
        for asset_id, asset in list(app.emulator.assets.items()):
            kept = {k: v for k, v in asset.items() if k not in ("symbol", "decimals")}
            app.emulator.assets[asset_id] = {**kept, key: "v"}
        await pilot.press("3", "r")
        await wait_for(lambda: any(key in c.key for c in app.active_tab.table.columns), pilot)
        table = app.active_tab.table
        while not (table.sort_column and key in table.sort_column):
            await pilot.press("s")
        await pilot.pause()
        assert "␛]52" in screen_text(app), screen_text(app)


async def test_a_hostile_error_message_in_the_delete_failed_toast_stays_inert() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        row = app.active_tab.highlighted
        path = f"/v1/platform-webhooks/{row.id}"
        transport.fail[path] = 409
        transport.fail_body[path] = {"message": f"refused {ESCAPES} [b]x[/b]"}
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        await wait_for(lambda: any("Delete failed" in n.title for n in app._notifications), pilot)
        await pilot.pause()
        (toast,) = [n for n in app._notifications if n.title == "Delete failed"]
        assert "\x1b" not in toast.message and "␛]0;title" in toast.message


@pytest.mark.parametrize("bad_id", [".", ".."])
async def test_an_id_no_request_can_carry_is_refused_before_the_confirmation(bad_id: str) -> None:
    # Dot segments are removed from paths: DELETE /v1/platform-webhooks/.. would address
    # the collection. Nothing is asked and nothing is sent.
    app, transport = rigged_app()
    deletes: list[str] = []
    transport.hook = lambda r: deletes.append(str(r.url)) if r.method == "DELETE" else None
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhook_id = next(iter(app.rigged_emulator.webhooks))
        app.rigged_emulator.webhooks[bad_id] = {
            **app.rigged_emulator.webhooks[webhook_id],
            "id": bad_id,
        }
        await pilot.press("r")
        await wait_for(lambda: any(r.id == bad_id for r in app.active_tab.table.rows), pilot)
        app.active_tab.table.move_cursor_to(lambda r: r.id == bad_id)
        await pilot.press("d")
        await wait_for(
            lambda: any("cannot be deleted" in n.message for n in app._notifications), pilot
        )
        assert type(app.screen).__name__ == "BrowseScreen"
    assert deletes == []
