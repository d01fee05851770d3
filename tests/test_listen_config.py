"""``listen`` follows the config file as the app does: its keymap, its checks and its theme."""

from __future__ import annotations

import pytest

from tokensales_tui import config
from tokensales_tui.ui import listen_app
from tokensales_tui.ui.listen_app import ListenApp
from tokensales_tui.webhooks.listen import Listening, ListenOptions

from .apphelpers import screen_text, wait_for


def messages(app: ListenApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def footer(app: ListenApp) -> str:
    return screen_text(app).splitlines()[-1]  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_listen_moves_its_keys_and_shows_the_theme_as_the_config_file_says(
    size: tuple[int, int],
) -> None:
    # listen drew the default keys and theme, whatever the file said.
    config.save_config(
        config.ConfigFile(
            theme="nord",
            keymap={
                "deliveries.help": "f1",
                "deliveries.copy_body": "b",
                "deliveries.down": "ctrl+n",
                "detail.search": "f",
                "refresh": "f5",  # the main screen's: no word about it here
            },
        )
    )
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=size) as pilot:
            await wait_for(lambda: app.theme == "nord", pilot)
            # The footer shows the keymap after the theme: one pause did not always wait
            # for it.
            await wait_for(lambda: "b Copy body" in footer(app), pilot)
            shown = footer(app)
            assert "c Copy body" not in shown, shown
            assert not [m for m in messages(app) if "keymap" in m], messages(app)
            await pilot.press("question_mark")  # no longer the help's key: says nothing
            await pilot.press("f1")
            await wait_for(lambda: any("b copy body" in m for m in messages(app)), pilot)
            helps = [m for m in messages(app) if "b copy body" in m]
            assert len(helps) == 1, helps  # f1's, none of ?'s before it
            said = helps[0]
            assert "in a delivery: f search" in said, said
            assert "ctrl+n/k/g/G move" in said, said


async def test_the_footer_shows_a_keymap_applied_while_the_app_had_not_the_focus() -> None:
    # listen applies the file's keymap once it is read, after the screen shows. Without
    # the app's focus then (another tmux pane), the footer left its keys as they were,
    # and a key that gave the focus back did not refresh them: the header said "o opens
    # one", the footer "⏎ Open", until a delivery was opened and left.
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(lambda: "Help" in footer(app), pilot)
            app.screen.set_focus(None)  # nothing to give the focus back to: no refresh
            await pilot.pause()
            app.app_focus = False  # as a terminal's "focus out" leaves it
            app.use_keymap({"deliveries.open": "o", "deliveries.help": "f1"})
            await pilot.pause()
            await pilot.press("f12")  # a key gives the focus back (no "focus in")
            await wait_for(lambda: app.app_focus, pilot)
            await wait_for(lambda: "f1 Help" in footer(app), pilot)
            assert "o Open" in footer(app) and "⏎ Open" not in footer(app), footer(app)


async def test_listen_says_what_in_the_keymap_cannot_work_as_the_app_does() -> None:
    config.save_config(
        config.ConfigFile(
            keymap={
                "deliveries.replai": "f6",
                "deliveries.copy_body": "y",
                "deliveries.open": "ctrl-o",
            }
        )
    )
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(lambda: len([m for m in messages(app) if "[keymap]" in m]) >= 3, pilot)
            said = messages(app)
            assert any("'deliveries.replai' is not a key binding id" in m for m in said), said
            assert any("'deliveries.open': 'ctrl-o' is no key name" in m for m in said), said
            assert any("'deliveries.copy_body' takes y" in m for m in said), said


async def test_a_config_file_listen_cannot_read_is_said_and_listen_goes_on() -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('theme = "nord"\n[keymap]\n"deliveries.copy_body" = \n', encoding="utf-8")
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(lambda: any("not valid TOML" in m for m in messages(app)), pilot)
            assert "c Copy body" in footer(app)
            assert app.theme != "nord"
            assert app.is_running
            await pilot.press("escape")
            await pilot.pause()
        assert app.return_code in (0, None)
    assert '"deliveries.copy_body" = \n' in path.read_text(encoding="utf-8")  # left as it was


async def test_a_read_of_the_config_file_that_fails_is_said_as_what_it_is_not_a_time_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A failure other than a ConfigError was left in the reading thread: listen waited
    # the whole CONFIG_WAIT, then said "the config file was not read within 5 s".
    from tokensales_tui.ui.file_settings import read_config_within

    def fails(path: object = None) -> config.ConfigFile:
        raise MemoryError("no room")

    monkeypatch.setattr(config, "load_config", fails)
    with pytest.raises(MemoryError, match="no room"):
        await read_config_within(None, 60)


@pytest.mark.parametrize("stuck", ["the read", "its file system"])
async def test_a_config_file_that_is_never_read_is_said_in_a_bounded_time(
    monkeypatch: pytest.MonkeyPatch, stuck: str
) -> None:
    # A home on a network gone away: reading the file never returns. Where the read gave
    # up on its own (its file system left a step unanswered), listen took it for a file
    # that cannot be read, and went on to save a theme chosen over a file it never read.
    from tokensales_tui import files

    from .hung_files import hung

    config.save_config(config.ConfigFile(keymap={"deliveries.copy_body": "b"}))
    with hung(monkeypatch, config.config_path()) as answering:
        if stuck == "the read":
            load = config.load_config

            def hangs(path: object = None) -> config.ConfigFile:
                answering.wait(30)
                return load()

            monkeypatch.setattr(config, "load_config", hangs)
            monkeypatch.setattr(listen_app, "CONFIG_WAIT", 0.3)
            said = "not read within 0.3 s"
        else:
            monkeypatch.setattr(files, "FILE_WAIT", 0.3)
            said = "did not answer within 0.3 s"
        async with Listening(ListenOptions()) as listening:
            app = ListenApp(listening)
            async with app.run_test(size=(120, 40)) as pilot:
                await wait_for(lambda: any(said in m for m in messages(app)), pilot, timeout=10)
                assert any("saves no theme chosen" in m for m in messages(app))
                assert "c Copy body" in footer(app)
                answering.set()  # the file system is back
                app.theme = "gruvbox"  # as the palette's "Change theme" does
                await pilot.pause()
                await app.workers.wait_for_complete()
                await pilot.press("escape")  # and the app ends
                await pilot.pause()
    assert config.load_config().theme is None


async def test_a_theme_chosen_in_listen_is_saved_for_the_next_start() -> None:
    config.save_config(config.ConfigFile(theme="nord", keymap={"refresh": "f5"}))
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(lambda: app.theme == "nord", pilot)
            app.theme = "gruvbox"  # as the palette's "Change theme" does
            await wait_for(lambda: config.load_config().theme == "gruvbox", pilot)
    assert config.load_config().keymap == {"refresh": "f5"}
