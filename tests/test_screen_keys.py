"""Every screen of the app answers the keys of every screen: tab and shift+tab move the
focus wherever there is more than one widget to focus, and its help names only keys
bound there."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.screen import Screen

from tokensales_tui import config
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.forms.collections import CollectionsForm
from tokensales_tui.ui.forms.import_list import ImportListScreen
from tokensales_tui.ui.forms.payout import PayoutForm
from tokensales_tui.ui.forms.webhook import WebhookForm
from tokensales_tui.ui.key_hints import spoken
from tokensales_tui.ui.keys import binding_classes, every_binding_id
from tokensales_tui.ui.palette import SafePalette
from tokensales_tui.ui.screens.base import ScreenKeys
from tokensales_tui.ui.screens.browse import BrowseScreen
from tokensales_tui.ui.screens.config_error import ConfigErrorScreen
from tokensales_tui.ui.screens.confirm import ConfirmScreen, DiscardScreen
from tokensales_tui.ui.screens.deliveries import DeliveriesScreen
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.screens.export import ExportScreen
from tokensales_tui.ui.screens.help import HelpScreen
from tokensales_tui.ui.screens.profiles import ProfileScreen
from tokensales_tui.ui.screens.setup import ProfileFormScreen, SetupScreen
from tokensales_tui.ui.screens.webhook_secret import WebhookSecretScreen

from .apphelpers import loaded, rigged_app, wait_for, wait_for_screen

SIZE = (120, 40)

Opener = Callable[[TokenSalesApp, Any], Awaitable[None]]


def pushing(make: Callable[[TokenSalesApp], Screen[Any]]) -> Opener:
    """Opens the screen ``make`` builds on top of the main screen."""

    async def open_it(app: TokenSalesApp, pilot: Any) -> None:
        await app.push_screen(make(app))

    return open_it


async def _deliveries(app: TokenSalesApp, pilot: Any) -> None:
    await pilot.press("v")  # the demo's deliveries


async def _export(app: TokenSalesApp, pilot: Any) -> None:
    table = app.browse.active_tab.table
    await app.push_screen(ExportScreen(app.browse.active_tab.resource, table.columns, []))


OPEN: dict[type[Screen[Any]], Opener] = {
    BrowseScreen: lambda app, pilot: pilot.pause(),  # there already
    ConfirmScreen: pushing(lambda app: ConfirmScreen("Delete this webhook?", "wh_1")),
    DiscardScreen: pushing(lambda app: DiscardScreen("Discard what you typed?", "New profile")),
    ConfigErrorScreen: pushing(lambda app: ConfigErrorScreen(config.ConfigError("no base_url"))),
    ExportScreen: _export,
    DeliveriesScreen: _deliveries,
    SetupScreen: pushing(lambda app: SetupScreen()),
    ProfileFormScreen: pushing(lambda app: ProfileFormScreen(config.ConfigFile())),
    ProfileScreen: pushing(lambda app: ProfileScreen([("work", "api.example.com")], None)),
    WebhookSecretScreen: pushing(lambda app: WebhookSecretScreen()),
    HelpScreen: pushing(lambda app: HelpScreen(app.browse.help_sections())),
    DetailScreen: pushing(
        lambda app: DetailScreen("Webhook", [("ID", "wh_1")], {"id": "wh_1"}, object_id="wh_1")
    ),
    WebhookForm: pushing(lambda app: WebhookForm(app.api)),
    PayoutForm: pushing(lambda app: PayoutForm(app.api, app.payout_add)),
    CollectionsForm: pushing(lambda app: CollectionsForm(app.api)),
    ImportListScreen: pushing(lambda app: ImportListScreen("Collection 1")),
}
"""How each screen class of the app is brought up for the walk."""

OWN_HELP = {"Main screen", "Tabs", "Commands", "Setup", "Profile", "Webhook deliveries"}
"""Sections of a help that list the keys of the screen it opened on (the main screen's
help lists the detail view's and the forms' too)."""


def _screen_classes() -> set[type[Screen[Any]]]:
    every_binding_id()  # imports every screen
    found = set(binding_classes([Screen], ("tokensales_tui.",)))  # type: ignore[arg-type]
    # Textual's command palette, its search field made safe: its keys are Textual's (it
    # is imported when first opened, so whether it is found depended on the tests run).
    return found - {SafePalette}


def test_every_screen_is_made_with_the_keys_of_every_screen() -> None:
    for cls in _screen_classes():
        assert issubclass(cls, ScreenKeys), cls
        actions = {
            key: {binding.action for binding in bindings}
            for key, bindings in cls._merged_bindings.key_to_bindings.items()
        }
        assert actions.get("tab") == {"app.focus_next"}, cls
        assert actions.get("shift+tab") == {"app.focus_previous"}, cls
        assert "ctrl+c" in actions, cls


def test_the_walk_brings_up_every_screen_of_the_app() -> None:
    assert _screen_classes() - {FormScreen} == set(OPEN)  # a form is one of the three


def _displays(screen: Screen[Any]) -> set[str]:
    """Every way the help may name a key bound on ``screen`` now."""
    shown: set[str] = set()
    for key, active in screen.active_bindings.items():
        if active.enabled:
            shown.add(screen.app.get_key_display(active.binding.with_key(key)))
            shown.add(spoken(key, active.binding))
    return shown


async def _bring_up(app: TokenSalesApp, pilot: Any, cls: type[Screen[Any]]) -> Screen[Any]:
    while len(app.screen_stack) > 2 or not isinstance(app.screen, BrowseScreen):
        app.pop_screen()
        await pilot.pause()
    await OPEN[cls](app, pilot)
    await wait_for_screen(app, pilot, cls.__name__)
    assert type(app.screen) is cls
    return app.screen


async def test_tab_and_shift_tab_move_the_focus_on_every_screen() -> None:
    # In the profile form tab went into the field as nothing ("abc", tab, "X" read
    # "abcX"), and in its "Discard …?" dialog it left the focus on Keep editing.
    app = TokenSalesApp(Launch(demo=True))
    stuck: list[str] = []
    walked: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for cls in sorted(OPEN, key=lambda cls: cls.__name__):
            screen = await _bring_up(app, pilot, cls)
            chain = screen.focus_chain
            if len(chain) < 2:
                continue
            walked.append(cls.__name__)
            if screen.focused is None:
                screen.set_focus(chain[0])
                await pilot.pause()
            start = screen.focused
            await pilot.press("tab")
            await pilot.pause()
            after_tab = screen.focused
            await pilot.press("shift+tab")
            await pilot.pause()
            if after_tab is start or screen.focused is not start:
                stuck.append(f"{cls.__name__}: {start} → tab {after_tab} → {screen.focused}")
    assert stuck == []
    assert {"ProfileFormScreen", "DiscardScreen", "SetupScreen", "WebhookForm"} <= set(walked)


async def test_the_help_of_each_screen_names_only_keys_bound_there() -> None:
    app = TokenSalesApp(Launch(demo=True))
    wrong: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for cls in sorted(OPEN, key=lambda cls: cls.__name__):
            screen = await _bring_up(app, pilot, cls)
            help_sections = getattr(screen, "help_sections", None)
            if help_sections is None:
                continue
            bound = _displays(screen)
            for heading, rows in help_sections(app.keymap):
                if heading not in OWN_HELP:
                    continue
                for keys, does in rows:
                    for key in keys.split(" / "):
                        if key not in bound:
                            wrong.append(f"{cls.__name__}: {key} {does}")
            if len(screen.focus_chain) > 1 and screen.focused is not None:
                # Where tab moves the focus, the help says so.
                said = [keys for _, rows in help_sections(app.keymap) for keys, _ in rows]
                if isinstance(screen, SetupScreen):
                    assert "tab / shift+tab" in said, cls
    assert wrong == []


async def test_tab_in_the_profile_form_goes_to_the_next_field() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("a")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        await pilot.press("a", "b", "c", "tab", "X")
        await wait_for(lambda: app.screen.query_one("#base-url").value == "X", pilot)  # type: ignore[attr-defined]
        assert app.screen.query_one("#profile").value == "abc"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "DiscardScreen")
        assert app.screen.focused is app.screen.query_one("#cancel")
        await pilot.press("tab")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#confirm")


async def test_ctrl_z_served_to_a_browser_says_it_cannot_suspend() -> None:
    # It did nothing and said nothing (a browser tab has no shell to go back to).
    app, _ = rigged_app(served=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+z")
        await wait_for(lambda: bool(app._notifications), pilot)
        said = [str(n.message) for n in app._notifications]
        assert any("Served to a browser" in m and "cannot be suspended" in m for m in said)


async def test_the_help_names_ctrl_z() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        rows = dict(row for _, rows in app.browse.help_sections() for row in rows)
        assert rows.get("^z") == "Suspend (fg resumes)"
