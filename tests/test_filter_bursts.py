"""A burst of keys in the filter (a buffer pasted as keys) is looked for once it is typed,
not at each key; the filter is bounded, so a huge paste cannot slow each frame."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.widgets import TabbedContent

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.table.model import TableView
from tokensales_tui.ui.tabs import FILTER_MAX_LENGTH

from .apphelpers import burst, loaded, wait_for

SIZE = (120, 40)
WORDS = ("gold", "sword", "x1", "blue", "rare")


def demo() -> TokenSalesApp:
    return TokenSalesApp(Launch(demo=True))


def words(length: int) -> str:
    text = " ".join(WORDS[i % len(WORDS)] + str(i % 7) for i in range(length))
    return text[:length]


def type_at_once(app: TokenSalesApp, text: str) -> None:
    """Queue the keys of ``text`` at once, as a terminal sends a buffer pasted as keys."""
    for ch in text:
        event = events.Key("space" if ch == " " else ch, ch)
        event.set_sender(app)
        assert app.post_message(event)


def messages(app: TokenSalesApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_burst_typed_into_the_filter_is_looked_for_once_it_has_come(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each key looked for the whole text again: N keys, N filters of up to N characters
    # (2,500 characters sent by tmux froze the app 10 s, 10,000 for 91 s).
    filtered: list[str] = []
    set_filter = TableView.set_filter

    def counted(self: TableView, text: str) -> bool:
        filtered.append(text)
        return set_filter(self, text)

    monkeypatch.setattr(TableView, "set_filter", counted)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        tab = app.browse.tab("items")
        text = words(300)
        filtered.clear()
        type_at_once(app, text)
        await wait_for(lambda: tab.filter_input.value == text, pilot)
        await pilot.pause()
        assert tab.table.filter_text == text
        assert filtered[-1] == text
        assert len(filtered) < 30, len(filtered)  # about one each quarter second


async def test_keys_after_a_burst_see_the_rows_of_the_whole_text() -> None:
    # enter leaves the filter before the table has followed the last of the burst:
    # the rows the keys after it move through are those of the whole text.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        tab = app.browse.tab("items")
        type_at_once(app, "zzz no such item")
        burst(app, "enter", "j")
        await wait_for(lambda: app.focused is tab.table, pilot)
        await pilot.pause()
        assert tab.table.filter_text == "zzz no such item"
        assert len(tab.table.model.view) == 0


async def test_a_huge_paste_is_cut_to_the_filters_bound_and_keys_after_it_keep_their_order() -> (
    None
):
    # A megabyte pasted took each frame 0.6 s: enter and 1 typed after it were passed
    # over, "1" landed in the filter and the tab never switched.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        tab = app.browse.tab("items")
        paste = events.Paste("a" * 1_000_000)
        paste.set_sender(app)
        app.post_message(paste)
        burst(app, "enter", "1")
        tabs = app.browse.query_one(TabbedContent)
        await wait_for(lambda: tabs.active == "webhooks", pilot)
        assert tab.filter_input.value == "a" * FILTER_MAX_LENGTH
        assert tab.table.filter_text == "a" * FILTER_MAX_LENGTH
        said = [m for m in messages(app) if "filter holds" in m]
        assert said == ["The filter holds 10,000 characters at most: the rest was left out"]


async def test_keys_past_the_bound_are_refused_with_one_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bells: list[Any] = []
    app = demo()
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "slash")
        tab = app.browse.tab("items")
        tab.filter_input.value = "b" * (FILTER_MAX_LENGTH - 2)
        burst(app, *"cdefg")
        await wait_for(lambda: len(messages(app)) > 0, pilot)
        await pilot.pause()
        assert tab.filter_input.value == "b" * (FILTER_MAX_LENGTH - 2) + "cd"
        assert [m for m in messages(app) if "filter holds" in m] and not bells
