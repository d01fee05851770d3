"""A key moved with ``[keymap]`` behaves as the default did: in the footer, the help and refusals."""

from __future__ import annotations

import re

from tokensales_tui import config
from tokensales_tui.config import Overrides
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.keys import unknown_keymap_ids

from .apphelpers import loaded, screen_text, wait_for_screen

SIZE = (120, 40)


def demo(read_only: bool = False) -> TokenSalesApp:
    return TokenSalesApp(Launch(demo=True, overrides=Overrides(read_only=read_only or None)))


def messages(app: TokenSalesApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_moved_delete_key_answers_read_only_and_the_old_key_is_silent() -> None:
    config.save_config(config.ConfigFile(keymap={"delete": "x"}))
    app = demo(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        await pilot.press("d")
        assert not any("read-only" in m for m in messages(app))
        await pilot.press("x")
        assert "read-only profile: deleting is turned off" in messages(app)
        assert type(app.screen).__name__ == "BrowseScreen"


async def test_a_moved_key_opens_its_action_and_shows_in_footer_and_help() -> None:
    config.save_config(config.ConfigFile(keymap={"delete": "x", "new": "a"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("1")
        footer = screen_text(app).splitlines()[-1]
        assert "x Delete" in footer and "a New" in footer
        await pilot.press("d")
        assert type(app.screen).__name__ == "BrowseScreen"
        await pilot.press("x")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("escape")
        await pilot.press("question_mark")
        await wait_for_screen(app, pilot, "HelpScreen")
        text = screen_text(app)
        assert re.search(r"│  x +Delete ", text) and re.search(r"│  a +New ", text), text
        assert not re.search(r"│  d +Delete ", text)


async def test_the_service_refusal_follows_the_moved_key() -> None:
    config.save_config(config.ConfigFile(keymap={"delete": "x"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("4")  # payout definitions cannot be deleted
        await pilot.press("x")
        assert "The service offers no way to delete payouts" in messages(app)


async def test_help_in_a_read_only_session_leaves_out_the_form_keys() -> None:
    app = demo(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await wait_for_screen(app, pilot, "HelpScreen")
        text = screen_text(app)
        assert "Detail view" in text and "In a form" not in text and "Copy curl" not in text


async def test_an_unknown_keymap_id_is_reported_with_the_likely_one() -> None:
    config.save_config(config.ConfigFile(keymap={"delet": "x", "refresh": "f5"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        reported = [m for m in messages(app) if "keymap" in m]
        assert reported == ["[keymap] 'delet' is not a key binding id — did you mean 'delete'?"]


def test_unknown_keymap_ids_names_each_one() -> None:
    known = ["delete", "refresh", "detail.back"]
    assert unknown_keymap_ids({"refresh": "f5"}, known) == []
    assert unknown_keymap_ids({"detail.bak": "b", "zzz": "z"}, known) == [
        "[keymap] 'detail.bak' is not a key binding id — did you mean 'detail.back'?",
        "[keymap] 'zzz' is not a key binding id",
    ]


def test_the_readme_lists_every_binding_id() -> None:
    from pathlib import Path

    from tokensales_tui.ui.keys import every_binding_id

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Keymap", 1)[1].split("\n## ", 1)[0]
    table = section.split("| ids | where |", 1)[1].split("\n\n", 1)[0]  # the table alone
    listed = set(re.findall(r"`([a-z_.]+)`", table))
    listed |= {f"tab.{name}" for name in ("items", "assets", "payouts")}  # the "…" in between
    ours = {i for i in every_binding_id() if not i.startswith(("app.", "command_palette"))}
    assert ours - listed == set() and listed - ours == set()


def test_binding_ids_of_classes_outside_the_app_are_not_counted() -> None:
    from textual.binding import Binding
    from textual.widget import Widget

    from tokensales_tui.ui.keys import binding_ids, every_binding_id

    class Elsewhere(Widget):
        BINDINGS = [Binding("z", "zap", "Zap", id="elsewhere.zap")]

    assert "elsewhere.zap" in set(binding_ids([Elsewhere], packages=("tests.",)))
    assert "elsewhere.zap" not in every_binding_id()


async def test_the_palette_offers_every_action_of_the_main_screen() -> None:
    from tokensales_tui.ui.screens.browse import BrowseScreen

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        offered: set[str] = set()
        titles: set[str] = set()
        for tab in "12":  # Webhooks: new, edit, delete; Items: the go-to actions
            await pilot.press(tab)
            await pilot.pause()
            commands = list(app.get_system_commands(app.screen))
            titles |= {c.title for c in commands}
            offered |= {getattr(c.callback, "__name__", "") for c in commands}
        assert {"Reverse sort", "Open link", "Sort", "Switch profile", "Help"} <= titles
        assert {"Go to tab: Webhooks", "Go to tab: Collections", "Edit webhook"} <= titles
        for binding in BrowseScreen.BINDINGS:
            action = binding.action.split("(")[0].removeprefix("app.")  # type: ignore[union-attr]
            if action in ("show_tab", "escape", "quit"):
                continue  # tabs: "Go to tab: …"; escape and quit are keys, not commands
            assert f"action_{action}" in offered, action


def test_keys_no_terminal_sends_and_keys_two_actions_share_are_named() -> None:
    from tokensales_tui.ui.keys import clashing_keys, every_binding_id, untypable_keys

    every_binding_id()  # every screen's bindings imported
    assert untypable_keys({"refresh": "ctrl-r", "quit": "nosuchkey", "help": "f1,?"}) == [
        "[keymap] 'refresh': 'ctrl-r' is no key name (as in f5, ctrl+r, ?)",
        "[keymap] 'quit': 'nosuchkey' is no key name (as in f5, ctrl+r, ?)",
    ]
    for fine in ("f5", "ctrl+r", "shift+tab", "question_mark", "escape,backspace", "é", "+"):
        assert untypable_keys({"refresh": fine}) == []
    # Control goes with ASCII only: ^é showed in the footer, and no key gave it.
    for never in ("ctrl+é", "ctrl+latin_small_letter_e_with_acute"):
        assert untypable_keys({"refresh": never}) == [
            f"[keymap] 'refresh': '{never}' is no key name (as in f5, ctrl+r, ?)"
        ]
    assert untypable_keys({"refresh": "alt+r"}) == [
        "[keymap] 'refresh': 'alt+r' arrives as escape and 'r' (the terminal sends it as ESC"
        " and the key): choose another key"
    ]
    assert clashing_keys({"refresh": "q"}) == [
        "[keymap] 'refresh' takes q, which 'quit' has too: only one of them answers it"
    ]
    assert clashing_keys({"refresh": "f5", "quit": "ctrl+q"}) == []
    # A form's own key against the one it inherits (ctrl+s submits every form).
    assert clashing_keys({"form.empty_list": "ctrl+s"}) == [
        "[keymap] 'form.empty_list' takes ctrl+s, which 'form.submit' has too:"
        " only one of them answers it"
    ]


async def test_a_keymap_clash_is_said_at_start() -> None:
    # q refreshed, nothing said, and the help still listed "q Quit".
    config.save_config(config.ConfigFile(keymap={"refresh": "q", "refressh": "f5"}))
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        said = messages(app)
        assert any("'refresh' takes q, which 'quit' has too" in m for m in said), said
        assert any("'refressh' is not a key binding id" in m for m in said), said


def test_empty_keys_are_left_out_and_a_keymap_naming_no_key_is_refused() -> None:
    from tokensales_tui.ui.keys import usable_keymap

    keymap = {
        "refresh": "f5,",
        "help": ",",
        "quit": "   ",
        "detail.back": "escape , backspace",
        "delete": "",
        "new": "a",
    }
    usable, problems = usable_keymap(keymap)
    assert usable == {"refresh": "f5", "detail.back": "escape,backspace", "new": "a"}
    assert problems == [
        "[keymap] 'refresh' = 'f5,' has an empty key, left out: 'f5' is used"
        " (a space is written space, a comma comma)",
        "[keymap] 'help' = ',' names no key, so it keeps its own"
        " (a space is written space, a comma comma)",
        "[keymap] 'quit' = '   ' names no key, so it keeps its own"
        " (a space is written space, a comma comma)",
        "[keymap] 'delete' = '' names no key, so it keeps its own"
        " (a space is written space, a comma comma)",
    ]


async def test_a_keymap_with_empty_keys_is_reported_and_the_rest_applies() -> None:
    # "f5," crashed the app at start (Textual cannot bind an empty key); delete = "" was
    # ignored without a word.
    config.save_config(
        config.ConfigFile(
            keymap={"refresh": "f5,", "detail.back": " ", "delete": "", "new": "f6, ctrl+n"}
        )
    )
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        said = [m for m in messages(app) if "keymap" in m]
        assert len(said) == 3, said
        assert "'refresh' = 'f5,' has an empty key, left out: 'f5' is used" in said[0]
        assert "'detail.back' = ' ' names no key, so it keeps its own" in said[1]
        assert "'delete' = '' names no key, so it keeps its own" in said[2]
        await pilot.press("1")
        footer = screen_text(app).splitlines()[-1]
        assert "f5 Refresh" in footer and "d Delete" in footer, footer
        await pilot.press("ctrl+n")  # the key after ", " (Textual kept the space: " ctrl+n")
        await wait_for_screen(app, pilot, "WebhookForm")
