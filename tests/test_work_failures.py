"""Background work that fails says so, and a name the system refuses is a message:
no screen stays on "Reading …" for good, no path or address typed ends the app."""

from __future__ import annotations

import asyncio
import gc
import importlib
import inspect
import pkgutil
import warnings
import webbrowser
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import WorkerState

from tokensales_tui import config, ui
from tokensales_tui.session import Launch
from tokensales_tui.ui import file_settings, links, screens
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.cancelling import wait_for_worker
from tokensales_tui.ui.forms import collections as collections_module
from tokensales_tui.ui.safe_app import GuardedApp
from tokensales_tui.ui.screens import setup as setup_screens
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.screens.setup import ProfileFormScreen, SetupScreen
from tokensales_tui.ui.tabs import ResourceTab

from .apphelpers import loaded, screen_text, wait_for, wait_for_screen
from .formhelpers import SIZE, demo, fill, open_form, status
from .source_lines import lines_matching
from .test_forms_collections import VALID, import_file
from .test_forms_payout import ADD, entered_on_submit, rigged_app
from .test_setup_screen import save_work

LATIN_1_REFUSAL = UnicodeEncodeError("latin-1", "/tmp/例え.csv", 5, 7, "ordinal not in range(256)")


class Working(GuardedApp[None]):
    """An app whose work fails: in the open, or with someone waiting for it."""

    def compose(self) -> ComposeResult:
        yield Static("working")

    async def fail(self) -> None:
        await asyncio.sleep(0)
        raise KeyError("the unforeseen")


async def test_a_failure_nobody_reads_is_said_in_a_toast() -> None:
    app = Working()
    async with app.run_test() as pilot:
        worker = app.run_worker(app.fail(), exit_on_error=False)
        await wait_for(lambda: worker.is_finished, pilot)
        await wait_for(lambda: bool(app._notifications), pilot)
        (toast,) = app._notifications
        assert (toast.title, toast.message) == ("Something failed", "KeyError: 'the unforeseen'")
        assert toast.severity == "error"


async def test_work_cancelled_before_it_began_leaves_no_coroutine_never_awaited() -> None:
    # A load replaced in the turn it was asked for (exclusive), a tab forgotten at once:
    # the worker ended before it ran, and its coroutine, dropped unstarted, printed
    # "coroutine … was never awaited" when collected.
    app = Working()
    ran: list[int] = []

    async def step(number: int) -> None:
        ran.append(number)

    async with app.run_test() as pilot:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = [app.run_worker(step(1), group="load", exclusive=True)]
            app.run_worker(step(2), group="load", exclusive=True)  # the first: cancelled
            await wait_for(lambda: ran == [2], pilot)
            await wait_for(lambda: first[0].state is WorkerState.CANCELLED, pilot)
            await pilot.pause()
            first.clear()  # the worker and its coroutine: collected
            gc.collect()
        assert never_awaited(caught) == []


def never_awaited(caught: list[warnings.WarningMessage]) -> list[str]:
    """The warnings of a coroutine dropped without being run."""
    return [str(w.message) for w in caught if "never awaited" in str(w.message)]


async def test_a_failure_its_waiter_reads_is_the_waiter_s() -> None:
    from tokensales_tui.ui.cancelling import awaited

    app = Working()
    async with app.run_test() as pilot:
        worker = awaited(app.run_worker(app.fail(), exit_on_error=False))
        with pytest.raises(Exception, match="the unforeseen"):
            await wait_for_worker(worker)
        await pilot.pause()
        assert not app._notifications


async def test_an_import_that_fails_unforeseen_says_so_instead_of_reading_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only ListFileError was caught: the status stayed "Reading …" for good.
    def refused(path: str, **_: Any) -> Any:
        raise LATIN_1_REFUSAL

    monkeypatch.setattr(collections_module, "load_list_file", refused)
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        form.query_one("#c1-wallets").focus()
        await import_file(pilot, tmp_path / "例え.csv")
        status = form.query_one("#form-status")
        await wait_for(lambda: "Failed" in str(status.render()), pilot)
        assert str(status.render()).startswith("Failed: UnicodeEncodeError: 'latin-1' codec")
        assert "Reading" not in screen_text(app)


@pytest.mark.parametrize("name", ["out\0.csv", "out-\ud800.csv"], ids=["nul", "surrogate"])
async def test_an_import_path_no_file_can_have_is_refused_in_words(
    tmp_path: Path, name: str
) -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        await fill(pilot, **VALID)
        form.query_one("#c1-wallets").focus()
        await import_file(pilot, tmp_path / name)
        status = form.query_one("#form-status")
        await wait_for(lambda: "Not imported" in str(status.render()), pilot)
        assert "a file name here cannot hold the character U+" in str(status.render())


async def export_to(app: TokenSalesApp, pilot: Any, typed: str) -> None:
    await loaded(app, pilot)
    await pilot.press("x")
    await wait_for_screen(app, pilot, "ExportScreen")
    app.screen.query_one("#path", Input).value = typed
    await pilot.press("enter")


@pytest.mark.parametrize("name", ["out\0.csv", "out-\ud800.csv"], ids=["nul", "surrogate"])
async def test_an_export_path_no_file_can_have_is_refused_in_words(
    tmp_path: Path, name: str
) -> None:
    # path.stat() raised ValueError (UnicodeEncodeError under a Latin-1 locale): the app ended.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await export_to(app, pilot, str(tmp_path / name))
        await pilot.pause()
        assert type(app.screen).__name__ == "ExportScreen"
        said = str(app.screen.query_one(".status").render())
        assert said.startswith("Not a file name: a file name here cannot hold the character U+")
        assert app.focused is app.screen.query_one("#path")
    assert list(tmp_path.iterdir()) == [tmp_path / "home"]


async def test_an_export_that_fails_unforeseen_opens_the_dialog_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any, **__: Any) -> None:
        raise KeyError("column")

    monkeypatch.setattr(screens.export, "export_rows", broken)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await export_to(app, pilot, str(tmp_path / "out.csv"))
        await wait_for(lambda: "Not exported" in screen_text(app), pilot)
        said = str(app.screen.query_one(".status").render())
        assert said == "Not exported: KeyError: 'column'"
        assert app.focused is app.screen.query_one("#path")
        assert not app.screen.query_one("#path", Input).disabled


async def test_an_address_the_system_cannot_hand_to_a_browser_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # webbrowser raised UnicodeEncodeError from the locale's charset: the app ended.
    # (Starting the browser's program raises it now, off the event loop.)
    def refused(url: str, *_: Any, **__: Any) -> bool:
        raise UnicodeEncodeError("latin-1", url, 8, 10, "ordinal not in range(256)")

    monkeypatch.setattr(webbrowser, "open", refused)
    monkeypatch.setattr(links, "start_browser", refused)
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("G", "o")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        await wait_for(lambda: bool(app._notifications), pilot)
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("Not opened: it holds a character") for m in messages), messages
        assert app.is_running


@pytest.mark.parametrize("bulk", [False, True], ids=["one", "marked"])
async def test_a_delete_that_fails_unforeseen_leaves_no_row_marked_as_being_deleted(
    monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    # The marks were taken off in the worker's own `finally`: failed before it (or in
    # it), the rows kept "⌫" and the count line "deleting …" for good, and every later
    # delete of them was refused as "being deleted already".
    def broken(*_: Any, **__: Any) -> str:
        raise KeyError("the unforeseen")

    if bulk:
        monkeypatch.setattr(ResourceTab, "show_progress", broken)
    else:
        monkeypatch.setattr(screens.browse, "_named", broken)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        if bulk:
            await pilot.press("space", "space")  # two marked: the first and the second
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("tab", "enter")
        await wait_for(
            lambda: any(n.title == "Something failed" for n in app._notifications), pilot
        )
        await wait_for(lambda: not tab.deleting, pilot)
        await pilot.pause()
        assert "⌫" not in screen_text(app) and "deleting" not in screen_text(app)
        assert app.browse._bulk is None  # escape stops no delete that is over


def screens_that_start_work() -> list[type[Screen[Any]]]:
    """Every screen of the app whose own code starts a worker (none ends the app)."""
    for found in pkgutil.walk_packages(ui.__path__, f"{ui.__name__}."):
        importlib.import_module(found.name)
    classes: list[type[Screen[Any]]] = []
    unseen: list[type[Screen[Any]]] = [Screen]
    while unseen:
        for subclass in unseen.pop().__subclasses__():
            unseen.append(subclass)
            source = inspect.getsource(subclass)
            if subclass.__module__.startswith(f"{ui.__name__}.") and (
                "run_worker(" in source or "@work" in source
            ):
                classes.append(subclass)
    return classes


def test_every_screen_that_starts_work_which_may_fail_says_what_becomes_of_its_failures() -> None:
    # The setup screen had no handler: a save failing unforeseen said "Saving…" for good.
    # The detail view's refresh said "Fetching the current version…" for good.
    screens = screens_that_start_work()
    names = {screen.__name__ for screen in screens}
    assert {
        "SetupScreen",
        "FormScreen",
        "ExportScreen",
        "BrowseScreen",
        "DetailScreen",
        "DeliveriesScreen",
    } <= names
    assert [screen.__name__ for screen in screens if not hasattr(screen, "on_work_failed")] == []


async def unforeseen() -> None:
    await asyncio.sleep(0)
    raise KeyError("the unforeseen")


class Hosting(GuardedApp[None]):
    """Shows one screen."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.first = screen

    def on_mount(self) -> None:
        self.push_screen(self.first)


@pytest.mark.parametrize("form", ["setup", "profile"])
async def test_a_save_that_fails_unforeseen_says_so_instead_of_saving_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    # The status said "Saving…" for good (a toast said "Something failed").
    async def broken(*_: Any, **__: Any) -> Any:
        await unforeseen()

    monkeypatch.setattr(setup_screens, "save_config_change", broken)
    path = tmp_path / "config.toml"
    screen = (
        SetupScreen(config_path=path)
        if form == "setup"
        else ProfileFormScreen(config.ConfigFile(), config_path=path)
    )
    app = Hosting(screen)
    async with app.run_test(size=SIZE) as pilot:
        await save_work(pilot)
        said = str(screen.query_one("#status").render())
        assert said == "not saved: KeyError: 'the unforeseen'"
        assert not screen.query_one("#status").has_class("-busy")
        assert not app._notifications
        await save_work(pilot)
        assert str(screen.query_one("#status").render()) == said
    assert not path.exists()


async def test_other_work_of_a_form_failing_while_it_sends_leaves_it_waiting_for_the_answer() -> (
    None
):
    # Any failed work of the form (a check, an import) took it out of sending: Submit
    # came back with the request still out, and pressed it stopped that wait and could
    # send the request twice.
    app, transport = rigged_app()
    transport.held[ADD[1]] = release = asyncio.Event()
    async with app.run_test(size=SIZE) as pilot:
        form = await entered_on_submit(app, pilot, "Held")
        form.run_worker(unforeseen(), exit_on_error=False)
        await wait_for(
            lambda: any(n.title == "Something failed" for n in app._notifications), pilot
        )
        assert form.sending and form.query_one("#form-submit").disabled
        assert "Sending" in status(form)
        release.set()
        await wait_for(lambda: not form.is_attached, pilot)
    assert len(app.rigged_emulator.payouts) == 1


class Idle(GuardedApp[None]):
    """An app whose work fails, started as Textual starts work by default."""

    def compose(self) -> ComposeResult:
        yield Static("idle")

    @work(group="decorated")
    async def fail_decorated(self) -> None:
        await unforeseen()

    @work(thread=True, group="decorated")
    def fail_in_a_thread(self) -> None:
        raise KeyError("the unforeseen")


@pytest.mark.parametrize("how", ["coroutine", "function", "decorated", "thread"])
async def test_no_work_of_the_app_ends_it_whatever_it_was_started_with(how: str) -> None:
    # Textual's default (exit_on_error=True) ended the app with a traceback: a replay,
    # the detail view's refresh, the app's theme save, profile switch and quit.
    app = Idle()
    async with app.run_test() as pilot:
        if how == "coroutine":
            worker = app.run_worker(unforeseen())
        elif how == "function":
            worker = app.run_worker(unforeseen)
        elif how == "decorated":
            worker = app.fail_decorated()
        else:
            worker = app.fail_in_a_thread()
        await wait_for(lambda: worker.is_finished, pilot)
        await wait_for(lambda: bool(app._notifications), pilot)
        (toast,) = app._notifications
        assert (toast.title, toast.message) == ("Something failed", "KeyError: 'the unforeseen'")
        assert app.is_running and app.return_code is None


def test_textual_s_own_work_keeps_what_textual_started_it_with() -> None:
    from textual.suggester import SuggestFromList
    from textual.widgets import DirectoryTree

    from tokensales_tui.ui.work_failures import written_by_textual

    suggesting = SuggestFromList(["a"])._get_suggestion(Input(), "a")
    ours = unforeseen()
    try:
        assert written_by_textual(suggesting)
        assert not written_by_textual(ours)
    finally:
        suggesting.close()
        ours.close()
    assert written_by_textual(partial(DirectoryTree._load_directory, None))
    assert not written_by_textual(partial(partial(unforeseen)))
    assert not written_by_textual(Idle.fail_in_a_thread)


def test_every_worker_of_the_app_is_made_by_its_manager() -> None:
    # A worker made any other way than by run_worker or @work (Worker(...) then
    # add_worker) would keep Textual's exit_on_error, and could end the app.
    made_apart = lines_matching(
        r"(?<!\w)Worker\(|\badd_worker\(|\b_new_worker\(", except_in="work_failures.py"
    )
    assert made_apart == []


def something_failed(app: TokenSalesApp) -> list[str]:
    return [n.message for n in app._notifications if n.title == "Something failed"]


async def test_a_replay_that_fails_unforeseen_is_said_and_the_app_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The replay's worker ended the app with a traceback.
    async def broken(delivery: Any) -> Any:
        await unforeseen()

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("v")
        await wait_for_screen(app, pilot, "DeliveriesScreen")
        receiver = app.screen.source
        await wait_for(lambda: bool(receiver.deliveries), pilot)
        # The demo's deliveries have nowhere to replay to: this one has.
        monkeypatch.setattr(receiver, "replay_refusal", lambda delivery: None)
        monkeypatch.setattr(receiver, "target_for", lambda event_type: "http://127.0.0.1:10110/")
        monkeypatch.setattr(receiver, "replay", broken)
        app.screen.action_replay()
        await wait_for(lambda: bool(something_failed(app)), pilot)
        assert something_failed(app) == ["KeyError: 'the unforeseen'"]
        assert app.is_running and type(app.screen).__name__ == "DeliveriesScreen"
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "BrowseScreen")


async def test_a_detail_refresh_that_fails_unforeseen_says_so_instead_of_fetching_for_good(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The refresh's worker ended the app with a traceback.
    def broken(fields: Any) -> Any:
        raise KeyError("the unforeseen")

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")  # the assets: the API fetches one alone
        await loaded(app, pilot)
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        detail = app.screen
        status = detail.query_one("#detail-status", Static)
        await wait_for(  # the first fetch is over
            lambda: detail.is_mounted and not any(w.node is detail for w in app.workers), pilot
        )
        monkeypatch.setattr(DetailScreen, "_field_cells", staticmethod(broken))
        await pilot.press("r")
        await wait_for(lambda: "Could not" in str(status.render()), pilot)
        said = str(status.render())
        assert said == "Could not fetch the current version: KeyError: 'the unforeseen'"
        assert status.has_class("-error")
        assert app.is_running and app.screen is detail
        assert not something_failed(app)  # said once: on the screen
        await pilot.press("escape")
        await wait_for_screen(app, pilot, "BrowseScreen")


async def test_a_theme_save_that_fails_unforeseen_is_said_and_the_app_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The theme's saving ended the app with a traceback.
    async def broken(*_: Any, **__: Any) -> Any:
        await unforeseen()

    monkeypatch.setattr(file_settings, "save_config_change", broken)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.theme = "gruvbox"  # as the palette's "Change theme" does
        await wait_for(lambda: bool(something_failed(app)), pilot)
        assert something_failed(app) == ["KeyError: 'the unforeseen'"]
        assert app.is_running and app.theme == "gruvbox"


async def test_a_quit_that_fails_unforeseen_is_said_and_quit_again_ends_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Waiting for the changes sent failed: the app ended with a traceback.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        monkeypatch.setattr(app, "_changes_over", unforeseen)
        app._quit_in_worker()  # as quitting with a change awaited
        await wait_for(lambda: bool(something_failed(app)), pilot)
        assert app.is_running and app.return_code is None
        await pilot.press("ctrl+q")
        await wait_for(lambda: not app.is_running, pilot)
    assert app.return_code == 0


async def test_a_session_that_fails_to_start_ends_the_app_with_its_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without a session the app can do nothing: once every worker was kept from ending
    # the app, a session that failed to start held the keys with no client, a toast
    # said it, and neither the tabs nor ctrl+q did anything for 10 s.
    from tokensales_tui.payouts import PayoutRecord

    def failing(cls: type[PayoutRecord]) -> PayoutRecord:
        raise KeyError("unforeseen")

    monkeypatch.setattr(PayoutRecord, "in_memory", classmethod(failing))
    app = TokenSalesApp(Launch(demo=True))
    with pytest.raises(Exception, match="unforeseen"):
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):  # bounded: ended at once when it works
                if not app.is_running:
                    break
                await pilot.pause(0.05)
    assert not app.is_running and app.session is not None


async def test_a_failure_that_names_a_secret_is_said_and_logged_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from tokensales_tui.emulator import DEMO_API_SECRET

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(app, pilot)
        token = app.api.secrets_in_use()[0]

        async def explode() -> None:
            raise RuntimeError(f"exploded holding {token} and {DEMO_API_SECRET}")

        worker = app.run_worker(explode())
        await wait_for(lambda: worker.is_finished, pilot)
        await wait_for(lambda: any("exploded" in n.message for n in app._notifications), pilot)
        said = [n.message for n in app._notifications if "exploded" in n.message]
        logged = caplog.text
    assert "exploded holding" in said[0] and "exploded holding" in logged
    for secret in (token, DEMO_API_SECRET):
        assert secret not in said[0] and secret not in logged
