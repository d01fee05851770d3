"""Saves of the config file while another program changes it or holds its lock, through
the whole app: the setup form, the picker's form and the theme."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest

import tokensales_tui.files
import tokensales_tui.ui.screens.setup
from tokensales_tui import config
from tokensales_tui.api import Secret
from tokensales_tui.config import store as config_store
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.files import locked
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.confirm import ConfirmScreen

from .apphelpers import (
    EMULATOR_URL,
    calls_held,
    loaded,
    rigged_app,
    screen_text,
    wait_for,
    wait_for_screen,
)
from .test_app_profiles import open_profile_form, two_profiles

SIZE = (120, 40)

ANOTHER_PROGRAMS = config.ConfigFile(
    default_profile="staging",
    profiles={
        "staging": config.Profile(base_url="https://staging.example"),
        "prod": config.Profile(
            base_url="https://prod.example",
            api_key=Secret("their-key"),
            api_secret=Secret("their-secret"),
            read_only=True,
            label="PRODUCTION",
        ),
    },
)


def fill(app: TokenSalesApp, **values: str) -> None:
    """Set the form's fields by id (``base_url`` is ``#base-url``)."""
    for name, value in values.items():
        app.screen.query_one(f"#{name.replace('_', '-')}").value = value  # type: ignore[attr-defined]


def field(app: TokenSalesApp, name: str) -> str:
    return app.screen.query_one(f"#{name.replace('_', '-')}").value  # type: ignore[attr-defined, no-any-return]


def another_program_edits(name: str, **fields: Any) -> None:
    """What a second app saving its form does to the file: a profile's fields changed."""
    read = config.load_config()
    read.profiles[name] = msgspec.structs.replace(read.profiles[name], **fields)
    config.save_config(read)


@contextlib.contextmanager
def lock_held() -> Iterator[None]:
    """The config file's lock, held as another process holding it would (for 20 s at most)."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locked(config.config_path()):
            taken.set()
            release.wait(20)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10)
        yield
    finally:
        release.set()
        holder.join(30)


@contextlib.asynccontextmanager
async def setup_saved(name: str) -> AsyncIterator[tuple[TokenSalesApp, Any]]:
    """First-run setup filled as profile ``name``, the other program's file written
    meanwhile, and ctrl+s pressed."""
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        fill(app, profile=name, base_url=EMULATOR_URL, api_key=DEMO_API_KEY)
        fill(app, api_secret=DEMO_API_SECRET)
        config.save_config(ANOTHER_PROGRAMS)  # while the form was open
        await pilot.press("ctrl+s")
        yield app, pilot


async def test_first_run_setup_refuses_a_profile_that_appeared_in_the_file_meanwhile() -> None:
    # It replaced the other program's prod, dropped its read_only and label, and made
    # itself the default.
    async with setup_saved("prod") as (app, pilot):
        await wait_for(lambda: "exists already" in screen_text(app), pilot)
        assert type(app.screen).__name__ == "SetupScreen"
        assert field(app, "base_url") == EMULATOR_URL  # nothing typed is lost
        assert config.load_config() == ANOTHER_PROGRAMS  # its key, read_only, label, default
        assert not config.config_path().with_name("config.toml.bak").exists()


async def test_first_run_setup_asks_before_replacing_a_default_the_file_gained() -> None:
    async with setup_saved("local") as (app, pilot):
        await wait_for_screen(app, pilot, "ConfirmScreen")
        dialog: Any = app.screen
        assert dialog.question == "Overwrite a change made in the config file?"
        assert dialog.subject == (
            "Since this form opened, another program changed the config file:"
            " default_profile is now “staging”"
        )
        await pilot.press("escape")  # Cancel: nothing written
        await wait_for_screen(app, pilot, "SetupScreen")
        await wait_for(lambda: "then Overwrite" in screen_text(app), pilot)
        assert config.load_config() == ANOTHER_PROGRAMS
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        app.screen.query_one("#confirm").press()  # type: ignore[attr-defined]
        await wait_for(lambda: app.session is not None and app.session.name == "local", pilot)
        saved = config.load_config()
        assert saved.default_profile == "local"
        assert saved.profiles["prod"] == ANOTHER_PROGRAMS.profiles["prod"]


@contextlib.asynccontextmanager
async def prod_saved(
    theirs: dict[str, Any], mine: dict[str, str]
) -> AsyncIterator[tuple[TokenSalesApp, Any]]:
    """The picker's form on prod, ``theirs`` saved by another program meanwhile, ``mine``
    typed and ctrl+s pressed."""
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await open_profile_form(app, pilot, "down", "e")  # prod
        another_program_edits("prod", **theirs)
        fill(app, **mine)
        await pilot.press("ctrl+s")
        yield app, pilot


async def test_an_edit_keeps_a_change_made_meanwhile_to_another_field() -> None:
    # Two apps edit one profile: the second's save undid the first's new URL, unsaid.
    theirs = {"base_url": "https://api2.example.com"}
    async with prod_saved(theirs, {"api_key": "mk_new_key"}) as (app, pilot):
        await wait_for_screen(app, pilot, "ProfileScreen")
        prod = config.load_config().profiles["prod"]
        assert prod.base_url == "https://api2.example.com"  # theirs
        assert prod.api_key == Secret("mk_new_key")  # mine
        assert prod.api_secret == Secret("prod-secret-kept") and prod.read_only


async def test_a_field_changed_in_the_file_and_in_the_form_is_asked_about() -> None:
    theirs = {"base_url": "https://theirs.example"}
    async with prod_saved(theirs, {"base_url": "https://mine.example"}) as (app, pilot):
        await wait_for_screen(app, pilot, "ConfirmScreen")
        dialog: Any = app.screen
        assert dialog.subject.endswith("profile prod's base_url is now “https://theirs.example”")
        assert dialog.detail == "Yours: profile prod's base_url “https://mine.example”"
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        await wait_for(
            lambda: "not saved (ctrl+s again, then Overwrite)" in screen_text(app), pilot
        )
        assert field(app, "base_url") == "https://mine.example"
        assert config.load_config().profiles["prod"].base_url == "https://theirs.example"
        await pilot.press("ctrl+s")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        app.screen.query_one("#confirm").press()  # type: ignore[attr-defined]
        await wait_for_screen(app, pilot, "ProfileScreen")
        prod = config.load_config().profiles["prod"]
        assert prod.base_url == "https://mine.example" and prod.label == "PRODUCTION"


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_held_lock_never_freezes_the_form(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # flock <lock> sleep 40: the app froze for 40 s, escape and ctrl+q unanswered.
    monkeypatch.setattr(tokensales_tui.files, "LOCK_WAIT", 2.0)
    two_profiles()
    written = config.config_path().read_bytes()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=size) as pilot:
        await open_profile_form(app, pilot, "down", "e")  # prod
        fill(app, base_url="https://mine.example")
        with lock_held():
            await pilot.press("ctrl+s")
            await wait_for(lambda: "waiting for the config file's lock" in screen_text(app), pilot)
            await pilot.press("escape")  # stops waiting; the form stays as typed
            await wait_for(lambda: "not saved: stopped" in screen_text(app), pilot)
            assert type(app.screen).__name__ == "ProfileFormScreen"
            assert field(app, "base_url") == "https://mine.example"
            await pilot.press("ctrl+s")  # waited for a bounded time, then said
            await wait_for(lambda: "lock for 2 s" in screen_text(app), pilot)
            assert field(app, "base_url") == "https://mine.example"
            assert config.config_path().read_bytes() == written
            await pilot.press("ctrl+s")
            await wait_for(lambda: "waiting for the config file's lock" in screen_text(app), pilot)
            await pilot.press("ctrl+q")  # asks, as with anything typed
            await wait_for_screen(app, pilot, "ConfirmScreen")
            app.screen.query_one("#confirm").press()  # type: ignore[attr-defined]
            await wait_for(lambda: not app.is_running, pilot)
    assert config.config_path().read_bytes() == written


@contextlib.asynccontextmanager
async def escaped_while_held(
    monkeypatch: pytest.MonkeyPatch, call: str = "_write"
) -> AsyncIterator[tuple[TokenSalesApp, Any, threading.Event]]:
    """The app on two profiles: a change of prod saved from the picker's form, and escape
    pressed once the save is in ``call`` of the config store (``_write``: the file is
    being written), held there in its thread until the test lets it go: (the app, its
    pilot, let the call go)."""
    two_profiles()
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        with calls_held(monkeypatch, config_store, call) as (begun, release):
            await open_profile_form(app, pilot, "down", "e")  # prod
            fill(app, base_url="https://mine.example")
            await pilot.press("ctrl+s")
            await wait_for(begun.is_set, pilot)
            await pilot.press("escape")
            yield app, pilot, release


async def test_escape_while_the_profile_is_written_waits_for_it_and_says_it_was_saved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Escape cancelled the save and said "not saved: stopped waiting for the config file's
    # lock" while its thread, past the lock, went on and wrote the profile.
    async with escaped_while_held(monkeypatch) as (app, pilot, release):
        await wait_for(lambda: "too late to stop" in screen_text(app), pilot)
        assert "not saved" not in screen_text(app)
        assert type(app.screen).__name__ == "ProfileFormScreen"
        release.set()
        await wait_for_screen(app, pilot, "ProfileScreen")  # saved, as any save ends
        assert any("Profile prod saved" in n.message for n in app._notifications)
    assert config.load_config().profiles["prod"].base_url == "https://mine.example"


async def test_escape_before_the_profile_is_written_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stop is honoured up to the write itself, the lock taken or not.
    # The save waits in its read of the file: the lock is held from there, nothing written.
    async with escaped_while_held(monkeypatch, "read_local_file") as (app, pilot, go_on):
        written = config.config_path().read_bytes()
        await wait_for(lambda: "not saved: stopped" in screen_text(app), pilot)
        go_on.set()
        await pilot.pause(0.3)
        assert type(app.screen).__name__ == "ProfileFormScreen"
        assert field(app, "base_url") == "https://mine.example"
    assert config.config_path().read_bytes() == written


async def test_a_save_stopped_while_it_writes_for_too_long_is_said_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokensales_tui.ui.screens.setup, "WRITE_WAIT", 0.2)
    async with escaped_while_held(monkeypatch) as (app, pilot, _release):
        await wait_for(lambda: "outcome unknown" in screen_text(app), pilot)
        # As read, whatever line the temporary folder's length ends at.
        shown = " ".join(screen_text(app).split())
        assert "— check it" in shown and "not saved" not in shown


async def test_a_theme_another_program_saved_meanwhile_is_written_over_only_once_asked() -> None:
    config.save_config(config.ConfigFile(theme="nord"))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(app, pilot)
        config.save_config(config.ConfigFile(theme="gruvbox"))  # another program
        app.theme = "dracula"
        await wait_for_screen(app, pilot, "ConfirmScreen")
        assert app.screen.subject.endswith("theme is now “gruvbox”")  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for(
            lambda: any("theme is now “gruvbox”" in n.message for n in app._notifications), pilot
        )
        assert config.load_config().theme == "gruvbox"
        app.theme = "monokai"  # chosen again, once told: saved
        await wait_for(lambda: config.load_config().theme == "monokai", pilot)
        config.save_config(config.ConfigFile(theme="nord"))
        app.theme = "dracula"
        await wait_for_screen(app, pilot, "ConfirmScreen")
        app.screen.query_one("#confirm").press()  # type: ignore[attr-defined]
        await wait_for(lambda: config.load_config().theme == "dracula", pilot)


async def test_a_theme_save_given_up_removes_its_question_even_under_another_screen() -> None:
    # The question of a save given up (a newer theme chosen) while the command palette
    # covered it stayed under it: answered later, nothing was saved and nothing said.
    config.save_config(config.ConfigFile(theme="nord"))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(app, pilot)
        config.save_config(config.ConfigFile(theme="monokai"))  # another program
        app.theme = "gruvbox"
        await wait_for_screen(app, pilot, "ConfirmScreen")
        asked = app.screen
        await pilot.press("ctrl+p")
        await wait_for(lambda: type(app.screen).__name__ == "SafePalette", pilot)
        app.theme = "dracula"  # picked there: the gruvbox save is given up
        await wait_for(  # up and its Cancel focused, as a user sees it before a key
            lambda: (
                app.screen is not asked
                and isinstance(app.screen, ConfirmScreen)
                and app.screen.focused is not None
            ),
            pilot,
        )
        await pilot.press("escape")  # the dracula save: not over monokai
        await wait_for(
            lambda: any("theme is now “monokai”" in n.message for n in app._notifications), pilot
        )
        while len(app.screen_stack) > 1 and not isinstance(app.screen, ConfirmScreen):
            await pilot.press("escape")  # the palette
            await pilot.pause()
        await wait_for(lambda: not any(s is asked for s in app.screen_stack), pilot)
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        assert config.load_config().theme == "monokai"


async def test_what_a_theme_save_given_up_wrote_is_never_asked_about(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A second theme chosen at once gave up the first save while its thread held the lock:
    # the thread wrote all the same, and the second save asked about "another program's"
    # change, the app's own.
    config.save_config(config.ConfigFile(theme="nord"))
    written, release = threading.Event(), threading.Event()
    real = config.update_config

    def slow_after_writing(*args: Any, **kwargs: Any) -> config.Saved:
        saved = real(*args, **kwargs)
        if not written.is_set():
            written.set()
            release.wait(20)  # the write is done; its answer comes after the give-up
        return saved

    monkeypatch.setattr(config, "update_config", slow_after_writing)
    app = TokenSalesApp(Launch(demo=True))
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await loaded(app, pilot)
            app.theme = "gruvbox"
            await wait_for(written.is_set, pilot)
            assert config.load_config().theme == "gruvbox"
            app.theme = "dracula"
            await wait_for(lambda: config.load_config().theme == "dracula", pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            assert not [n for n in app._notifications if "not saved" in n.message]
            release.set()
    finally:
        release.set()
