"""The footer of keys: drawn as Textual's ``Footer`` draws it, by one widget; its keys
answer the mouse as Textual's do."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from rich.cells import cell_len
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer, Static

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.widgets.footer import KeysFooter

from .apphelpers import loaded, screen_text, wait_for

BINDINGS = [
    Binding("a", "note('a')", "Add"),
    Binding("b", "off", "Off"),  # disabled: check_action says None
    Binding("c", "note('c')", "Hidden", show=False),
    Binding("d", "note('d')", "Delete"),
    Binding("D", "note('d')", "Delete too"),  # the same action: shown once
    Binding("question_mark", "help", "Help"),  # the key a narrow footer keeps
    Binding("f1", "note('f1')", ""),  # a key with no description
    *(Binding(f"ctrl+{k}", f"note({k!r})", f"Key {k} with a long description") for k in "uvw"),
]


class Keys(App[None]):
    BINDINGS = BINDINGS

    def __init__(self, footer: Widget) -> None:
        super().__init__()
        self.footer = footer
        self.noted: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield self.footer

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "off" else True

    def action_note(self, what: str) -> None:
        self.noted.append(what)

    def action_help(self) -> None:
        self.noted.append("?")


@asynccontextmanager
async def compact_footer(width: int) -> AsyncIterator[tuple[Keys, Any, KeysFooter]]:
    """The test app with a compact footer, drawn at ``width`` columns."""
    app = Keys(KeysFooter(compact=True))
    async with app.run_test(size=(width, 6)) as pilot:
        await pilot.pause()
        yield app, pilot, app.query_one(KeysFooter)


def svg(app: App[None]) -> str:
    """The screen as an SVG, with the names that differ from export to export made equal."""
    image = app.export_screenshot(title="keys")
    return re.sub(r"terminal-\d+", "terminal", image)


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("palette", [True, False])
async def test_the_keys_look_as_textual_draws_them(compact: bool, palette: bool) -> None:
    # Where every key fits. Where they do not, Textual cuts the last one where the line
    # ends (or under the palette's key): here whole keys are dropped (the next tests).
    width = 160
    images = []
    for footer in (
        Footer(compact=compact, show_command_palette=palette),
        KeysFooter(compact=compact, show_command_palette=palette),
    ):
        app = Keys(footer)
        async with app.run_test(size=(width, 6)) as pilot:
            await pilot.pause()
            await pilot.pause()
            images.append(svg(app))
    assert ("palette" in images[0]) is palette
    assert images[1] == images[0]  # every cell, character and style


async def test_a_click_presses_a_key_and_a_disabled_key_rings_the_bell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bells: list[int] = []
    async with compact_footer(160) as (app, pilot, footer):
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        plain = footer.render().plain
        await pilot.click(KeysFooter, offset=(plain.index("? Help") + 3, 0))
        await pilot.click(KeysFooter, offset=(plain.index("d Delete"), 0))
        await pilot.click(KeysFooter, offset=(plain.index("b Off"), 0))
        await pilot.click(KeysFooter, offset=(plain.index("a Add") + 5, 0))  # between keys
        await pilot.pause()
        assert app.noted == ["?", "d"]
        assert bells == [1]
        await pilot.click(KeysFooter, offset=(plain.index("^p palette") + 1, 0))
        await pilot.pause()
        assert app.screen.__class__.__name__ == "CommandPalette"  # a plain App: Textual's


async def test_the_key_under_the_pointer_is_highlighted_with_its_tooltip() -> None:
    async with compact_footer(160) as (_, pilot, footer):
        plain = footer.render().plain
        at = plain.index("a Add")
        drawn = footer.render()
        await pilot.hover(KeysFooter, offset=(at + 2, 0))
        await pilot.pause()
        highlighted = footer.render()
        assert highlighted.plain == drawn.plain
        assert highlighted.spans != drawn.spans
        assert footer.styles.pointer == "pointer"
        await pilot.hover(KeysFooter, offset=(plain.index("^p") + 1, 0))
        await pilot.pause()
        assert footer.tooltip is not None and "palette" in str(footer.tooltip).lower()
        await pilot.hover(Static)
        await pilot.pause()
        assert footer.render().spans == drawn.spans
        assert footer.tooltip is None and footer.styles.pointer == "default"
        await pilot.hover(KeysFooter, offset=(plain.index("^p") + 1, 0))
        await pilot.pause()
        assert footer.tooltip is not None
        footer.show_command_palette = False  # the key under the pointer goes
        await pilot.pause()
        assert footer.tooltip is None and footer.styles.pointer == "default"


def shown_keys(plain: str) -> list[str]:
    """The keys a compact footer line shows, each as "key description"."""
    described = [f"{key} {text}" for key, text in DRAWN]
    found = []
    for piece in plain.replace("▏", "  ").split("  "):
        words = piece.split()
        while words:  # the longest whole key at the start of what is left
            for size in range(len(words), 0, -1):
                if " ".join(words[:size]) in described or words[:size] == ["f1"]:
                    found.append(" ".join(words[:size]))
                    words = words[size:]
                    break
            else:
                raise AssertionError(f"a cut key in {plain!r}: {' '.join(words)!r}")
    return found


DRAWN = [
    ("a", "Add"),
    ("b", "Off"),
    ("d", "Delete"),
    ("?", "Help"),
    *((f"^{k}", f"Key {k} with a long description") for k in "uvw"),
    ("^p", "palette"),
]


async def test_a_narrow_footer_drops_whole_keys_from_the_end_and_keeps_the_help() -> None:
    # At 80 columns the main screen's footer ended "w Watch x Expor", the detail view's
    # "N Previou▏^p palette" with its "? Help" gone.
    app = Keys(KeysFooter(compact=True))
    async with app.run_test(size=(160, 6)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        everything = shown_keys(footer.render().plain)
        assert everything[:4] == ["a Add", "b Off", "d Delete", "? Help"]
        assert everything[-1] == "^p palette"
        for width in range(160, 7, -1):
            await pilot.resize_terminal(width, 6)
            await pilot.pause()
            plain = footer.render().plain
            assert footer.render().cell_length == width
            keys = shown_keys(plain)
            assert "? Help" in keys, width
            # The palette's key goes first, then the keys from the end: what is left is
            # the start of the list, in order, with the help's key.
            others = [key for key in keys if key != "? Help"]
            assert others == [key for key in everything if key != "? Help"][: len(others)]
            if "^p palette" in keys:
                assert keys == everything


async def test_the_wheel_brings_in_the_keys_dropped_and_the_help_key_stays() -> None:
    async with compact_footer(60) as (app, pilot, footer):
        first = footer.render().plain
        assert "Key w" not in first and "palette" not in first
        assert shown_keys(first)[:4] == ["a Add", "b Off", "d Delete", "? Help"]

        def wheel(down: bool) -> None:
            kind = events.MouseScrollDown if down else events.MouseScrollUp
            footer.post_message(kind(footer, 1, 0, 0, 1, 0, False, False, False))

        for _ in range(40):
            wheel(down=True)
        await pilot.pause()
        last = footer.render().plain
        keys = shown_keys(last)
        assert "^w Key w with a long description" in keys and "a Add" not in keys
        assert "? Help" in keys
        await pilot.click(KeysFooter, offset=(last.index("^w"), 0))
        await pilot.pause()
        assert app.noted == ["w"]
        for _ in range(40):
            wheel(down=False)
        await pilot.pause()
        assert footer.render().plain == first


class WideKeys(Keys, inherit_bindings=False):  # no help key, which would stay in view
    BINDINGS = [
        Binding(key, f"note({key!r})", description)
        for key, description in [
            ("a", "日本語日本語日本語"),
            ("b", "漢字漢字漢字漢字"),
            ("c", "Third key"),
        ]
    ]


async def test_a_key_after_wide_text_is_pressed_where_it_is_drawn() -> None:
    app = WideKeys(KeysFooter(compact=True, show_command_palette=False))
    async with app.run_test(size=(30, 6)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        footer.post_message(events.MouseScrollDown(footer, 1, 0, 0, 1, 0, False, False, False))
        await pilot.pause()
        plain = footer.render().plain
        assert plain.startswith("b 漢字")
        await pilot.click(KeysFooter, offset=(cell_len(plain[: plain.index("c Third")]), 0))
        await pilot.pause()
        assert app.noted == ["c"]


def test_every_screen_of_the_app_has_its_own_footer_of_keys() -> None:
    # A dialog without one shows the keys of the screen behind it, which do nothing
    # there (the import dialog showed the form's ctrl+s, ctrl+y and ctrl+l).
    import importlib
    import inspect
    import pkgutil

    from textual.screen import Screen

    import tokensales_tui

    for found in pkgutil.walk_packages(tokensales_tui.__path__, "tokensales_tui."):
        if not found.name.endswith("__main__"):  # which would run the command line
            importlib.import_module(found.name)
    screens: set[type[Screen[Any]]] = set()
    waiting: list[type[Any]] = [Screen]
    while waiting:
        for sub in waiting.pop().__subclasses__():
            waiting.append(sub)
            if sub.__module__.startswith("tokensales_tui."):
                screens.add(sub)
    assert len(screens) >= 10
    # Textual's command palette, with only its search field replaced (ui/palette.py):
    # a screen of Textual's, drawn over the keys of the screen it opened on.
    textuals = {"SafePalette"}
    footless = [
        cls.__qualname__
        for cls in screens
        if cls.__qualname__ not in textuals
        and not any(
            "KeysFooter(" in inspect.getsource(base)
            for base in cls.__mro__
            if base.__module__.startswith("tokensales_tui.")
        )
    ]
    assert footless == []


async def test_a_keymap_applied_without_the_app_s_focus_shows_once_a_key_brings_it_back() -> None:
    # A footer leaves its keys as they are while the app has not the focus; a key that
    # gives it back, with no widget to give the focus back to, refreshed nothing.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(app, pilot)
        app.screen.set_focus(None)
        await pilot.pause()
        app.app_focus = False  # as a terminal's "focus out" leaves it
        app.use_keymap({"refresh": "f5"})
        await pilot.pause()
        await pilot.press("f12")  # a key nothing binds gives the focus back
        assert app.app_focus
        await wait_for(lambda: "f5 Refresh" in screen_text(app).splitlines()[-1], pilot)
        shown = screen_text(app).splitlines()[-1]
        assert "r Refresh" not in shown, shown
