"""Every key of the main screen, on every tab, does something or says why not; a list
whose load failed says so rather than looking empty."""

from __future__ import annotations

from typing import Any

from tokensales_tui import config
from tokensales_tui.api import Secret
from tokensales_tui.emulator import DEMO_API_KEY
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.keys import key_names
from tokensales_tui.ui.resources import RESOURCES
from tokensales_tui.ui.screens.browse import BrowseScreen

from .apphelpers import EMULATOR_URL, emulator_env, loaded, rigged_app, screen_text, wait_for

SIZE = (120, 40)

SILENT_WHERE_NOTHING_IS_OPEN = {"escape"}
"""Backs out of what is open (a filter, a load, a drill-down): with nothing open there
is nothing to back out of, and a word at each press would be noise."""

NOT_PRESSED = {
    "quit": "ends the app (test_app_browse)",
    "listen": "on Webhooks it listens on a port (test_listen_screen); refused elsewhere, below",
}


def _state(app: TokenSalesApp) -> tuple[Any, ...]:
    """What a person could notice: the screen, the stack, the toasts, the focus, a load."""
    tab = app.browse.active_tab
    return (
        screen_text(app),
        tuple(type(screen).__name__ for screen in app.screen_stack),
        len(app._notifications),
        app.screen.focused,
        app.browse.active_tab.resource.key,
        tab._tried_at,  # a reload that changed nothing on screen ended all the same
    )


async def _back_to(app: TokenSalesApp, pilot: Any, key: str) -> None:
    """The main screen again, on tab ``key``, the table focused, nothing said or watched."""
    for _ in range(5):
        if isinstance(app.screen, BrowseScreen):
            break
        await pilot.press("escape")
        await pilot.pause()
    assert isinstance(app.screen, BrowseScreen)
    app.browse.action_show_tab(key)
    tab = app.browse.active_tab
    if tab.watching:
        tab.toggle_watch()
    app.clear_notifications()
    await wait_for(lambda: not tab.load_running, pilot)
    app.browse.set_focus(tab.table)
    await pilot.pause()


async def test_every_key_of_the_main_screen_answers_on_every_tab() -> None:
    # f and a on Assets, Collections and Webhooks and l on Assets and Items did nothing
    # at all, while d, n and e said why not.
    app = TokenSalesApp(Launch(demo=True))
    silent = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        for number, resource in enumerate(RESOURCES, start=1):
            for binding in app.bound(BrowseScreen.BINDINGS):
                action = binding.action.split("(")[0].rpartition(".")[2]
                if action in NOT_PRESSED and not (
                    action == "listen" and resource.key != "webhooks"
                ):
                    continue
                if binding.key in SILENT_WHERE_NOTHING_IS_OPEN:
                    continue
                if binding.action == f"show_tab('{resource.key}')":
                    continue  # the tab it shows is in view already
                await _back_to(app, pilot, resource.key)
                key = sorted(key_names(binding))[0]
                before = _state(app)
                await pilot.press(key)
                try:
                    await wait_for(lambda b=before: _state(app) != b, pilot, timeout=3)
                except AssertionError:
                    silent.append(f"{key} on tab {number} {resource.title}")
    assert silent == []


async def test_the_go_to_and_listen_keys_say_where_they_work() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("3", "f", "a", "l")
        said = [str(n.message) for n in app._notifications]
        assert any(
            "from an item to its payout setting" in m and "not from assets" in m for m in said
        )
        assert any("from an item to the asset of its chain" in m for m in said)
        assert any("Webhooks tab" in m for m in said)


async def test_a_item_naming_no_chain_says_so() -> None:
    app, transport = rigged_app()

    def chainless(body: Any) -> Any:
        for item in body if isinstance(body, list) else body.get("items", []):
            item.pop("payout", None)
            item.pop("contractFunction", None)
        return body

    transport.edit_json["/v1/items"] = chainless
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "a")
        said = [str(n.message) for n in app._notifications]
        assert any("names no chain" in m for m in said), said
        assert not any("“”" in m for m in said)


async def test_a_list_that_failed_to_load_shows_no_count_and_no_empty_list() -> None:
    wrong = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret("wrong")
    )
    config.save_config(config.ConfigFile(default_profile="emu", profiles={"emu": wrong}))
    app, _ = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.browse.tab("webhooks")
        assert tab.error is not None and tab.count_unknown
        text = screen_text(app)
        assert "Loading webhooks failed" in text
        assert "0 webhooks" not in text and "Nothing here yet" not in text
        assert "Webhooks not loaded — the line above says why" in text
        # Where to fix it, with the keys that lead there.
        assert "p opens the profiles, e edits the highlighted one" in text


async def test_credentials_given_by_variables_are_not_sent_to_the_profiles() -> None:
    app, _ = rigged_app(env={**emulator_env(), "TOKENSALES_API_SECRET": "wrong"})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        text = screen_text(app)
        assert "check TOKENSALES_API_KEY and TOKENSALES_API_SECRET" in text
        assert "opens the profiles" not in text


async def test_rows_loaded_before_a_failed_reload_stay_with_their_count() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.browse.tab("webhooks")
        count = tab.table.total_count
        assert count
        transport.fail["/v1/platform-webhooks"] = 400
        await pilot.press("r")
        await wait_for(lambda: tab.error is not None and not tab.load_running, pilot)
        text = screen_text(app)
        assert "Loading webhooks failed" in text and not tab.count_unknown
        assert tab.resource.counted(count) in text and "not loaded" not in text
