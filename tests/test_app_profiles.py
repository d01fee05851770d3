"""First run, profile switching and environment-only use, through the whole app."""

from __future__ import annotations

import gc
import warnings
from typing import Any

import pytest

from tokensales_tui import config
from tokensales_tui.api import ApiError, Secret
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.widgets.footer import KeysFooter

from .apphelpers import EMULATOR_URL, loaded, rigged_app, screen_text, wait_for, wait_for_screen
from .hung_files import hung

SIZE = (120, 40)


async def test_first_run_setup_saves_a_working_profile_and_opens_it() -> None:
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        for selector, value in (
            ("#profile", "local"),
            ("#base-url", EMULATOR_URL),
            ("#api-key", DEMO_API_KEY),
            ("#api-secret", DEMO_API_SECRET),
        ):
            widget = app.screen.query_one(selector)
            widget.value = value  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(lambda: app.session is not None and app.session.name == "local", pilot)
        await loaded(app, pilot)
        assert app.browse.tab("webhooks").table.total_count == 10  # type: ignore[attr-defined]
        saved = config.load_config()
        assert saved.default_profile == "local"
        assert saved.profiles["local"].api_secret == Secret(DEMO_API_SECRET)
        assert (config.config_path().stat().st_mode & 0o777) == 0o600
        assert DEMO_API_SECRET not in screen_text(app)


async def test_ctrl_q_on_the_first_run_setup_asks_only_once_something_is_typed() -> None:
    # It quit at once, losing a typed secret; the profile picker's form already asked.
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        app.screen.query_one("#api-secret").value = "typed"  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.question == "Quit the app?"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "SetupScreen")
        assert app.screen.query_one("#api-secret").value == "typed"  # type: ignore[attr-defined]
        app.screen.query_one("#api-secret").value = ""  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")  # nothing typed: nothing to ask
        await wait_for(lambda: not app.is_running, pilot)


async def test_first_run_can_open_the_demo_instead() -> None:
    app = TokenSalesApp(Launch())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        await pilot.click("#demo")
        await wait_for(lambda: app.session is not None and app.session.demo, pilot)
        await loaded(app, pilot)
        assert "DEMO" in screen_text(app).splitlines()[0]


async def test_at_80x24_the_setup_keeps_its_buttons_and_its_ways_out_in_view() -> None:
    # "Open demo instead" was below the fold, the footer named no way to quit or to the
    # demo, and the toast of ctrl+c covered the buttons.
    app = TokenSalesApp(Launch())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        screen = app.screen
        for button in screen.query("#buttons Button"):
            assert screen.region.contains_region(button.region), button.id
        footer = {(key.key, key.description) for key in screen.query_one(KeysFooter).keys}
        assert {("ctrl+o", "Open demo"), ("ctrl+q", "Quit")} <= footer
        assert [b.id for b in screen.query("#buttons Button")] == ["test", "demo", "save"]
        app.action_help_quit()
        await wait_for(lambda: bool(screen.query("Toast")), pilot)
        (toast,) = screen.query("Toast")
        assert not toast.region.overlaps(screen.query_one("#setup-actions").region)
        await pilot.press("ctrl+o")
        await wait_for(lambda: app.session is not None and app.session.demo, pilot)


async def test_environment_alone_is_enough() -> None:
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert not config.config_path().exists()
        assert app.session is not None and app.session.connection.base_url == EMULATOR_URL


async def test_p_switches_profile_without_restarting() -> None:
    profile = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    config.save_config(
        config.ConfigFile(
            default_profile="staging",
            profiles={
                "staging": profile,
                "prod": config.Profile(
                    base_url=EMULATOR_URL,
                    api_key=Secret(DEMO_API_KEY),
                    api_secret=Secret(DEMO_API_SECRET),
                    label="PRODUCTION",
                    read_only=True,
                ),
            },
        )
    )
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.session is not None and app.session.name == "staging"
        first_worker = app.api
        await pilot.press("p")
        assert type(app.screen).__name__ == "ProfileScreen"
        text = screen_text(app)
        assert "● staging  127.0.0.1" in text  # the current one is marked
        assert "prod     127.0.0.1:9 · PRODUCTION · READ-ONLY" in text
        await pilot.press("q")  # goes back, the session unchanged
        assert type(app.screen).__name__ == "BrowseScreen" and app.session.name == "staging"
        await pilot.press("p")
        await pilot.press("down", "enter")
        await wait_for(lambda: app.session is not None and app.session.name == "prod", pilot)
        await loaded(app, pilot)
        assert app.api is not first_worker
        header = screen_text(app).splitlines()[0]
        assert "PRODUCTION" in header and "READ-ONLY" in header
        assert "Delete" not in screen_text(app).splitlines()[-1]


async def test_a_switch_forgets_what_the_last_reload_changed() -> None:
    profile = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    config.save_config(
        config.ConfigFile(default_profile="one", profiles={"one": profile, "two": profile})
    )
    app, transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        count = lambda: str(tab.query_one(".count").render())  # noqa: E731
        transport.edit_json["/v1/platform-webhooks"] = lambda listed: [
            *listed,
            dict(listed[0], id="wh_new"),
        ]
        await pilot.press("r")
        await wait_for(lambda: "+1" in count(), pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("down", "enter")
        await wait_for(lambda: app.session is not None and app.session.name == "two", pilot)
        await loaded(app, pilot)
        await wait_for(lambda: count().startswith("11 webhooks"), pilot)
        assert "+1" not in count()


async def test_a_retry_of_the_profile_left_is_not_shown_in_the_one_chosen() -> None:
    # "Retrying — the connection to 127.0.0.1:9456 broke …" showed under the new profile.
    from tokensales_tui.api import RetryNotice
    from tokensales_tui.ui.worker import ApiRetrying

    profile = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    config.save_config(
        config.ConfigFile(default_profile="one", profiles={"one": profile, "two": profile})
    )
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        old = app.api
        assert old is not None
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("down", "enter")
        await wait_for(lambda: app.session is not None and app.session.name == "two", pilot)
        notice = RetryNotice("POST", "/auth/getAccessToken", 1, 1.0, "the connection broke")
        old._on_retry(notice)  # ended: says nothing
        app.post_message(ApiRetrying(notice, old))  # posted just before it ended
        await pilot.pause(0.1)
        assert not [n for n in app._notifications if n.title == "Retrying"]


async def test_the_picker_marks_the_demo_when_it_is_in_use() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        assert "● demo  embedded demo service" in screen_text(app)


async def test_the_picker_lines_its_addresses_up_and_says_esc_as_its_footer_does() -> None:
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        text = screen_text(app)
        rows = [row for row in text.splitlines() if "● staging" in row or "embedded" in row]
        starts = {
            row.index(word) for row, word in zip(rows, ("127.0.0.1", "embedded"), strict=True)
        }
        assert len(starts) == 1, rows
        assert "esc to close" in text and "q to stay" not in text
        assert ("escape", "Close") in [
            (k.key, k.description) for k in app.screen.query_one(KeysFooter).keys
        ]
        await pilot.press("e")  # staging: its form's buttons are the forms' (main one last)
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        buttons = list(app.screen.query("#buttons Button"))
        assert [b.id for b in buttons] == ["test", "cancel", "save"]
        assert buttons[-1].region.right >= app.screen.query_one("#buttons").content_region.right - 1
        footer = [k.key for k in app.screen.query_one(KeysFooter).keys]
        assert "ctrl+o" not in footer  # the first run's way to the demo is not the picker's


async def test_a_switch_clears_the_old_rows_before_the_new_server_answers() -> None:
    # The new profile's server fails: the old profile's rows must not stay on screen,
    # and nothing of them may be deleted on the new server.
    good = config.Profile(
        base_url=EMULATOR_URL, api_key=Secret(DEMO_API_KEY), api_secret=Secret(DEMO_API_SECRET)
    )
    broken = config.Profile(
        base_url="http://127.0.0.1:8/", api_key=Secret("k"), api_secret=Secret("s")
    )
    config.save_config(
        config.ConfigFile(default_profile="good", profiles={"good": good, "broken": broken})
    )
    app, transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        old_worker = app.api
        assert app.active_tab.table.total_count == 10
        transport.fail["/auth/getAccessToken"] = 503  # the new session gets no token
        transport.fail["/v1/platform-webhooks"] = 503
        await pilot.press("p")
        await wait_for(lambda: type(app.screen).__name__ == "ProfileScreen", pilot)
        await pilot.press("down", "enter")
        await wait_for(lambda: app.session is not None and app.session.name == "broken", pilot)
        assert app.active_tab.table.total_count == 0
        await loaded(app, pilot)
        assert app.active_tab.table.total_count == 0 and app.active_tab.error is not None
        deletes: list[str] = []
        transport.hook = lambda r: deletes.append(str(r.url)) if r.method == "DELETE" else None
        await pilot.press("d")
        await pilot.pause()
        assert type(app.screen).__name__ == "BrowseScreen"
        with pytest.raises(ApiError, match="ended"):  # a late caller of the old session
            await old_worker.call(lambda client: client.list_webhooks())
    assert deletes == []


async def test_corrupt_config_shows_where_and_offers_the_demo() -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b'default_profile = "a\n')
    before = path.read_bytes()
    app = TokenSalesApp(Launch())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "ConfigErrorScreen")
        await wait_for(lambda: "could not be read" in screen_text(app), pilot)
        assert "config.toml:1:21" in "".join(screen_text(app).split())  # the long path may wrap
        await pilot.press("d")
        await wait_for(lambda: app.session is not None and app.session.demo, pilot)
    assert path.read_bytes() == before


async def test_a_config_nested_too_deep_shows_the_config_error_screen() -> None:
    # The TOML reader's RecursionError left the main screen empty (r did nothing), then
    # ended the app with a traceback.
    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x = " + b"[" * 600 + b"]" * 600 + b"\n")
    app = TokenSalesApp(Launch())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "ConfigErrorScreen")
        await wait_for(lambda: "too deep for the TOML reader" in screen_text(app), pilot)
        assert "config.toml:1:604" in "".join(screen_text(app).split())
        await pilot.press("d")
        await wait_for(lambda: app.session is not None and app.session.demo, pilot)


async def test_a_config_file_whose_file_system_does_not_answer_is_said_and_offers_the_demo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A home on a network gone away: the app waited for its config file for good, its
    # main screen drawn and empty, and quitting waited for the read too.
    from tokensales_tui import files

    monkeypatch.setattr(files, "FILE_WAIT", 0.3)
    config.save_config(config.ConfigFile(theme="nord"))
    app = TokenSalesApp(Launch())
    with hung(monkeypatch, config.config_path()):
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_screen(app, pilot, "ConfigErrorScreen")
            await wait_for(lambda: "did not answer within 0.3 s" in screen_text(app), pilot)
            assert "could not be read" in screen_text(app)
            await pilot.press("d")
            await wait_for(lambda: app.session is not None and app.session.demo, pilot)
            assert app.theme != "nord"


async def test_the_theme_chosen_is_saved_and_used_at_the_next_start() -> None:
    config.save_config(config.ConfigFile(theme="nord"))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.theme == "nord"
        app.theme = "gruvbox"  # as the palette's "Change theme" does
        await wait_for(lambda: config.load_config().theme == "gruvbox", pilot)
    assert (config.config_path().stat().st_mode & 0o777) == 0o600
    again = TokenSalesApp(Launch(demo=True))
    async with again.run_test(size=SIZE) as pilot:
        await loaded(again, pilot)
        assert again.theme == "gruvbox"


async def test_an_unknown_saved_theme_is_named_and_the_default_kept() -> None:
    config.save_config(config.ConfigFile(theme="no-such-theme"))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.theme == "textual-dark"
        assert any("no-such-theme" in n.message for n in app._notifications)


async def test_setup_opens_at_its_top_and_its_help_lists_its_own_keys() -> None:
    app = TokenSalesApp(Launch(config_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        scroller = app.screen.query_one("VerticalScroll")
        assert scroller.scroll_y == 0
        assert "Welcome to tokensales-tui" in screen_text(app)
        assert app.screen.focused is app.screen.query_one("#profile")
        (command,) = [c for c in app.get_system_commands(app.screen) if c.title == "Help"]
        command.callback()
        await wait_for_screen(app, pilot, "HelpScreen")
        text = screen_text(app)
        assert "Save" in text and "First field" in text and "Quit" in text
        assert "Refresh" not in text and "Go to tab" not in text
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert not any(t.startswith(("Go to tab", "Switch profile")) for t in titles)


async def test_incomplete_variables_without_a_file_name_the_missing_one() -> None:
    app = TokenSalesApp(Launch(env={"TOKENSALES_BASE_URL": EMULATOR_URL}))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "ConfigErrorScreen")
        text = screen_text(app)
        assert "The settings are incomplete" in text
        assert "TOKENSALES_API_KEY is not set" in text
        assert "config file could not be read" not in text and "left unchanged" not in text
    assert not config.config_path().exists()


async def test_variables_overriding_a_profile_of_the_file_show_in_the_header() -> None:
    config.save_config(
        config.ConfigFile(
            default_profile="prod",
            profiles={
                "prod": config.Profile(
                    base_url="https://api.example.com",
                    api_key=Secret(DEMO_API_KEY),
                    api_secret=Secret(DEMO_API_SECRET),
                    label="PRODUCTION",
                    read_only=True,
                )
            },
        )
    )
    app, _transport = rigged_app(env={"TOKENSALES_BASE_URL": EMULATOR_URL})
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        header = screen_text(app).splitlines()[0]
        assert "PRODUCTION" in header and "127.0.0.1:9" in header
        assert "overridden by TOKENSALES_BASE_URL" in header


async def test_a_profile_from_the_environment_alone_shows_no_override() -> None:
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert "overridden" not in screen_text(app).splitlines()[0]


def two_profiles() -> None:
    config.save_config(
        config.ConfigFile(
            default_profile="staging",
            profiles={
                "staging": config.Profile(
                    base_url=EMULATOR_URL,
                    api_key=Secret(DEMO_API_KEY),
                    api_secret=Secret(DEMO_API_SECRET),
                    label="STAGING",
                ),
                "prod": config.Profile(
                    base_url="https://api.example.com",
                    api_key=Secret("mk_prod_key"),
                    api_secret=Secret("prod-secret-kept"),
                    label="PRODUCTION",
                    read_only=True,
                ),
            },
        )
    )


def saved_files() -> list[str]:
    return sorted(p.name for p in config.config_path().parent.iterdir())


async def open_profile_form(app: Any, pilot: Any, *keys: str) -> None:
    """From the loaded main screen: the picker (``p``), then ``keys`` to its form."""
    await loaded(app, pilot)
    await pilot.press("p")
    await wait_for_screen(app, pilot, "ProfileScreen")
    await pilot.press(*keys)
    await wait_for_screen(app, pilot, "ProfileFormScreen")


async def test_the_picker_adds_a_profile_with_the_setup_form() -> None:
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "a")
        assert "New profile" in screen_text(app) and "Open demo instead" not in screen_text(app)
        for selector, value in (
            ("#profile", "staging"),  # taken: refused, nothing typed is lost
            ("#base-url", EMULATOR_URL),
            ("#api-key", DEMO_API_KEY),
            ("#api-secret", "a-new-secret"),
        ):
            app.screen.query_one(selector).value = value  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(lambda: "exists already" in screen_text(app), pilot)
        assert app.screen.query_one("#base-url").value == EMULATOR_URL  # type: ignore[attr-defined]
        app.screen.query_one("#profile").value = "local"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ProfileScreen")
        text = screen_text(app)
        assert "local    127.0.0.1:9" in text and "● staging" in text
        assert "a-new-secret" not in text
        saved = config.load_config()
        assert saved.profiles["local"].api_secret == Secret("a-new-secret")
        assert saved.default_profile == "staging"  # adding does not change the default
        assert saved.profiles["prod"].api_secret == Secret("prod-secret-kept")
        assert (config.config_path().stat().st_mode & 0o777) == 0o600
        assert saved_files() == ["config.toml"]  # written atomically: no temporary left
        await pilot.press("enter")  # the new profile is highlighted: enter switches to it
        await wait_for(lambda: app.session is not None and app.session.name == "local", pilot)


async def test_editing_a_profile_keeps_its_secret_unless_retyped() -> None:
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "down", "e")  # prod
        form = app.screen
        text = screen_text(app)
        assert "Edit profile prod" in text and "https://api.example.com" in text
        assert "prod-secret-kept" not in text and "mk_prod_key" not in text
        assert form.query_one("#profile").disabled  # type: ignore[attr-defined]
        form.query_one("#base-url").value = "https://api2.example.com"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ProfileScreen")
        assert "prod     api2.example.com · PRODUCTION · READ-ONLY" in screen_text(app)
        prod = config.load_config().profiles["prod"]
        assert prod.base_url == "https://api2.example.com"
        assert prod.api_secret == Secret("prod-secret-kept")
        assert prod.api_key == Secret("mk_prod_key")
        assert prod.label == "PRODUCTION" and prod.read_only  # the other settings stay
        await pilot.press("e")  # the edited one is highlighted
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        app.screen.query_one("#api-secret").value = "retyped"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ProfileScreen")
        assert config.load_config().profiles["prod"].api_secret == Secret("retyped")
        assert (config.config_path().stat().st_mode & 0o777) == 0o600
        await pilot.press("e")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        await pilot.press("escape")  # nothing typed: back to the picker, nothing written
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("a")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        app.screen.query_one("#profile").value = "typed"  # type: ignore[attr-defined]
        await pilot.press("escape")  # something typed: asked first, and kept on "Cancel"
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        assert app.screen.query_one("#profile").value == "typed"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        app.screen.query_one("#confirm").press()
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("q")
        assert app.session is not None and app.session.name == "staging"
    assert saved_files() == ["config.toml"]


async def test_a_key_typed_in_the_profile_form_as_it_opens_keeps_the_address() -> None:
    # Came to fix the secret after a 401: the base URL was selected, the first key typed
    # replaced it, and the message quoted what was left with straight quotes.
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "down", "e")  # prod
        field = app.screen.query_one("#base-url")
        assert app.screen.focused is field
        await pilot.press("X")
        assert field.value == "https://api.example.comX"  # type: ignore[attr-defined]
        field.value = "X\x1b[31m"  # type: ignore[attr-defined]
        await pilot.pause()
        error = str(app.screen.query_one("#base-url-error").render())
        assert error.startswith("base URL “X␛[31m” needs a scheme and host"), error


async def test_the_demo_has_nothing_to_edit_and_the_form_help_lists_its_keys() -> None:
    two_profiles()
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        await pilot.press("e")  # the demo is highlighted
        await wait_for(lambda: any("no settings" in n.message for n in app._notifications), pilot)
        assert type(app.screen).__name__ == "ProfileScreen"
        await pilot.press("a")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        app.action_help()
        await wait_for_screen(app, pilot, "HelpScreen")
        text = screen_text(app)
        assert "Save" in text and "Cancel" in text and "Refresh" not in text


async def test_test_connection_of_an_edited_profile_uses_the_stored_secret() -> None:
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "e")  # staging, the current one
        app.screen.query_one("#test").press()  # type: ignore[attr-defined]
        await wait_for(lambda: "Connected" in screen_text(app), pilot)
        assert DEMO_API_SECRET not in screen_text(app) and DEMO_API_KEY not in screen_text(app)
        app.screen.query_one("#api-secret").value = "wrong"  # type: ignore[attr-defined]
        status = app.screen.query_one("#status")
        before = str(status.render())
        app.screen.query_one("#test").press()  # type: ignore[attr-defined]
        # The typed secret is used: the answer is a refusal (the same "Connected" would time out).
        await wait_for(
            lambda: (
                str(status.render()) not in (before, "") and "Testing" not in str(status.render())
            ),
            pilot,
        )
        assert "Connected" not in str(status.render())


async def test_ctrl_q_in_a_profile_form_with_something_typed_asks_first() -> None:
    # It quit at once; escape on the same form asks before losing what was typed.
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "a")
        app.screen.query_one("#profile").value = "lab"  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.question == "Quit the app?"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        assert app.is_running


async def test_an_app_served_to_a_browser_stays_on_its_profile_and_writes_nothing() -> None:
    # A browser tab could open the profile form, point "Test connection" at its own
    # server and receive the stored key and secret, rewrite the serving machine's
    # config file, and switch to any other profile of it.
    two_profiles()
    written = config.config_path().read_bytes()
    app, _transport = rigged_app(env={}, served=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await pilot.pause(0.2)
        assert app.screen is app.browse and "Profile" not in screen_text(app).splitlines()[-1]
        await app.action_switch_profile()  # the palette's way in
        await pilot.pause(0.1)
        assert app.screen is app.browse
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Switch profile" not in titles
        app.theme = "nord"  # the browser's choice, for its tab alone
        delivered: list[str] = []
        app.deliver_screenshot = lambda *a, **k: delivered.append("svg")  # type: ignore[method-assign]
        app.save_screenshot_file()
        assert delivered == ["svg"]
        assert app._payout_record is not None and app._payout_record.path is None  # memory
        await pilot.pause(0.3)
    assert config.config_path().read_bytes() == written


@pytest.mark.parametrize("served", [False, True])
async def test_a_config_others_may_read_is_said_in_the_terminal_not_in_a_browser_tab(
    served: bool,
) -> None:
    # A browser tab said the serving machine's config path and a chmod to run there.
    two_profiles()
    config.config_path().parent.chmod(0o755)
    app, _transport = rigged_app(env={}, served=served)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        said = [n.message for n in app._notifications]
        titles = {c.title: c.help for c in app.get_system_commands(app.browse)}
    assert any("other users" in message for message in said) is not served
    assert titles["Screenshot"].startswith("Download") is served


async def test_an_app_served_without_a_profile_shows_the_problem_not_the_setup_form() -> None:
    app, _transport = rigged_app(env={}, served=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "ConfigErrorScreen")
    assert not config.config_path().exists()


async def test_a_session_start_that_never_runs_leaves_no_coroutine_unawaited() -> None:
    # A start cancelled before its worker ran (another start right after it, or the app
    # ending as it starts) left "coroutine '_replace_session' was never awaited" on the
    # app's stderr, which `serve` reported as a failed app.
    app, _transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            app.start_demo()
            app.start_demo()  # exclusive: the first is cancelled before it runs
            await wait_for(lambda: app.session is not None and app.session.demo, pilot)
            gc.collect()
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == []
