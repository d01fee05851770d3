"""Keys that arrive in one read of the terminal reach the widget the keys before them
left the focus on (tokensales_tui/ui/key_order.py).

The bursts are put in the app's queue whole, before it handles any, as a fast typist's
keys over SSH or tmux's ``send-keys`` arrive (see test_keys_while_loading.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.key_order import KEY_WAIT
from tokensales_tui.ui.safe_app import GuardedApp
from tokensales_tui.ui.screens.confirm import ConfirmScreen
from tokensales_tui.ui.screens.setup import SetupScreen

from .apphelpers import loaded, wait_for
from .formhelpers import SIZE, demo, open_form
from .test_keys_while_loading import burst


class Opened(Screen[None]):
    AUTO_FOCUS = "#opened"

    def compose(self) -> ComposeResult:
        yield Input(id="opened")


class Fields(GuardedApp[None]):
    """Two fields; tab moves between them (the screen's binding); `ctrl+o` opens a screen
    with a field of its own."""

    BINDINGS = [Binding("ctrl+o", "open", "Open")]

    def compose(self) -> ComposeResult:
        yield Input(id="first", select_on_focus=False)
        yield Input(id="second", select_on_focus=False)

    def action_open(self) -> None:
        self.push_screen(Opened())


def value(app: Any, selector: str) -> str:
    field: Input = app.screen.query_one(selector, Input)
    return field.value


async def test_characters_after_a_tab_go_to_the_next_field() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        assert app.focused is app.query_one("#first")
        burst(app, "a", "b", "tab", "c", "d", "shift+tab", "e")
        await wait_for(lambda: value(app, "#second") == "cd" and not app.keys_held, pilot)
        await pilot.pause()
        assert value(app, "#first") == "abe"


async def test_characters_after_a_key_that_opens_a_screen_go_to_its_field() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        burst(app, "x", "ctrl+o", "h", "i")
        await wait_for(lambda: isinstance(app.screen, Opened) and not app.keys_held, pilot)
        await pilot.pause()
        assert value(app, "#opened") == "hi"
        app.pop_screen()
        await pilot.pause()
        assert value(app, "#first") == "x"


async def test_a_key_held_up_by_a_busy_widget_holds_the_keys_after_it_a_bounded_time() -> None:
    gate = asyncio.Event()

    class Slow(Input):
        async def on_key(self, event: events.Key) -> None:
            if event.key == "x":
                await gate.wait()

    class SlowApp(GuardedApp[None]):
        def compose(self) -> ComposeResult:
            yield Slow(id="slow")

    app = SlowApp()
    async with app.run_test() as pilot:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            burst(app, "x", "y", "z")
            # Pilot's pauses wait for every widget to be idle: plain sleeps here.
            while not app.keys_held and loop.time() < start + 5:
                await asyncio.sleep(0.01)
            assert app.keys_held
            while app.keys_held and loop.time() < start + 5:
                await asyncio.sleep(0.01)
            assert not app.keys_held
            assert loop.time() - start >= KEY_WAIT * 0.9
            assert value(app, "#slow") == ""  # sent on while the first key is still handled
        finally:
            gate.set()
        await wait_for(lambda: value(app, "#slow") == "xyz", pilot)


async def test_a_form_field_then_tab_then_the_next_field_in_one_burst() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        url = form.query_one("#url", Input)
        assert app.focused is url
        burst(app, "h", "t", "tab", "i", "t", "e", "m")
        await wait_for(lambda: form.query_one("#events", Input).value == "item", pilot)
        assert url.value == "ht"


async def test_enter_in_a_form_field_moves_the_characters_after_it_on() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        burst(app, "h", "enter", "i")
        await wait_for(lambda: form.query_one("#events", Input).value == "i", pilot)
        assert form.query_one("#url", Input).value == "h"


async def test_the_new_key_then_a_url_in_one_burst_fills_the_new_form() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        burst(app, "n", "h", "t", "t", "p")
        await wait_for(lambda: isinstance(app.screen, FormScreen) and not app.keys_held, pilot)
        await wait_for(lambda: app.screen.query_one("#url", Input).value == "http", pilot)
        assert app.active_tab.table.sort_column is None  # no key reached the table


async def test_escape_then_characters_leave_the_form_as_it_was() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press("x")
        burst(app, "escape", "z", "tab")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen) and not app.keys_held, pilot)
        await pilot.pause()
        assert form.query_one("#url", Input).value == "x"


async def test_delete_then_enter_in_one_burst_is_answered_by_the_dialog() -> None:
    # Enter typed right behind `d` is the dialog's, whose focus starts on Cancel: typed
    # ahead, it deletes nothing and opens no detail view behind the dialog.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        row = tab.highlighted
        stack = list(app.screen_stack)
        taken = app._keys_taken
        burst(app, "d", "enter")
        await wait_for(lambda: app._keys_taken == taken + 2 and not app.keys_held, pilot)
        await pilot.pause()
        await pilot.pause()
        assert app.screen_stack == stack  # the dialog answered, no detail view behind it
        assert row.id in app.emulator.webhooks


async def test_a_paste_right_after_a_key_that_opens_a_screen_goes_to_its_field() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        burst(app, "ctrl+o")
        paste = events.Paste("https://example.com/hook")
        paste.set_sender(app)
        app.post_message(paste)
        await wait_for(lambda: isinstance(app.screen, Opened) and not app.keys_held, pilot)
        await wait_for(lambda: value(app, "#opened") == "https://example.com/hook", pilot)
        app.pop_screen()
        await pilot.pause()
        assert value(app, "#first") == ""


async def test_a_secret_typed_before_a_save_that_fails_stays_in_the_secret_field(
    tmp_path: Path,
) -> None:
    # ctrl+s (a priority binding) moves the focus to the first empty field, in a turn of
    # the app's: the secret's characters typed before it are the secret field's, never a
    # plain field's, and those typed after it go where it moved the focus.
    class Host(GuardedApp[None]):
        def on_mount(self) -> None:
            self.push_screen(
                SetupScreen(
                    transport_factory=lambda: httpx.MockTransport(print),
                    config_path=tmp_path / "c.toml",
                )
            )

    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, SetupScreen), pilot)
        await pilot.pause()
        secret = app.screen.query_one("#api-secret", Input)
        secret.focus()
        await pilot.pause()
        burst(app, "s", "3", "c", "ctrl+s", "k")
        await wait_for(lambda: not app.keys_held and app.focused is not secret, pilot)
        await pilot.pause()
        assert secret.value == "s3c"
        first_wrong = app.screen.query_one("#base-url", Input)  # empty, required
        assert app.focused is first_wrong
        assert first_wrong.value == "k"
        assert not (tmp_path / "c.toml").exists()
