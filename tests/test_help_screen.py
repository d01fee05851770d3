"""The help modal and building its sections from real bindings."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.binding import Binding

from tokensales_tui.ui.screens.help import (
    HelpPanel,
    HelpRows,
    HelpScreen,
    key_display,
    sections_from_bindings,
)

SECTIONS = [
    ("Anywhere", [("1–5", "Switch tab"), ("?", "This help")]),
    ("Detail view", [("esc", "Back"), ("[b]y[/]", "Copy JSON")]),
]


class Host(App[None]):
    """An app whose "r" binding a keymap may move, and that shows the help on mount."""

    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="demo.refresh"),
        Binding("ctrl+x", "hidden", ""),
    ]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        self.push_screen(HelpScreen(SECTIONS))


def screen_text(app: App[object]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_sections_render_and_escape_closes() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for heading, rows in SECTIONS:
            assert heading in text
            for key, description in rows:
                assert key in text and description in text
        assert "Keys" in text and "esc, ? or q closes" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("key", ["question_mark", "q"])
async def test_question_mark_and_q_close(key: str) -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(key)
        assert not isinstance(app.screen, HelpScreen)


async def test_the_border_names_the_keys_that_close_it_as_a_keymap_has_them() -> None:
    # It said "escape or ? closes" whatever the keymap: with help.close on f3, neither did.
    app = Host(keymap={"help.close": "f3,ctrl+w"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "f3 or ^w closes" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f3")
        assert not isinstance(app.screen, HelpScreen)


async def test_a_remapped_binding_shows_its_new_key() -> None:
    app = Host({"demo.refresh": "f5"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bindings = [active.binding for active in app.screen_stack[0].active_bindings.values()]
        sections = sections_from_bindings([("App", bindings)], app=app)
        assert sections[0][0] == "App"
        rows = dict((description, key) for key, description in sections[0][1])
        assert rows["Refresh"] == "f5"
        assert "" not in rows  # bindings without a description are left out
        await app.push_screen(HelpScreen(sections))
        await pilot.pause()
        assert "f5" in screen_text(app)


def test_rows_join_keys_and_drop_undescribed_bindings() -> None:
    bindings = [
        Binding("escape,q", "back", "Back"),
        Binding("ctrl+r", "refresh", "Refresh"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("x", "secret", ""),
        Binding("question_mark", "help", "Help"),
        Binding("b", "back", "Back"),  # e.g. a second key from a keymap
    ]
    assert sections_from_bindings([("Here", bindings), ("Empty", [])]) == [
        (
            "Here",
            [("esc / q / b", "Back"), ("^r", "Refresh"), ("/", "Search"), ("?", "Help")],
        )
    ]
    assert key_display(Binding("shift+tab", "x", "X")) == "shift+tab"


class ManyKeys(App[None]):
    SECTIONS = [
        (f"Section {s}", [(f"ctrl+{s}{n}", f"Action {n}") for n in range(40)]) for s in "abc"
    ]

    def on_mount(self) -> None:
        self.push_screen(HelpScreen(self.SECTIONS))


async def test_a_section_is_two_texts_however_many_keys_it_has() -> None:
    """A widget per key took a few hundred milliseconds to lay out before the help showed."""
    app = ManyKeys()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        help_panel = app.screen.query_one("#help-panel")
        assert len(list(help_panel.walk_children())) < 8 * len(ManyKeys.SECTIONS)
        text = screen_text(app)
        assert "ctrl+a0" in text and "Action 0" in text
        # Each key is on the line of its own description.
        row = next(line for line in text.splitlines() if "ctrl+a7 " in line)
        assert "Action 7" in row.split("ctrl+a7", 1)[1].split("ctrl+", 1)[0]


@contextlib.asynccontextmanager
async def apps_help(size: tuple[int, int]) -> AsyncIterator[tuple[Any, Any, HelpScreen]]:
    """The demo app at ``size``, its help shown: the app, its pilot and the help."""
    from tokensales_tui.session import Launch
    from tokensales_tui.ui.app import TokenSalesApp

    from .apphelpers import loaded

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=size) as pilot:
        await loaded(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        yield app, pilot, app.screen


@pytest.mark.parametrize(("size", "stacked"), [((80, 24), True), ((120, 40), False)])
async def test_the_apps_help_is_read_whole_at_80_columns(
    size: tuple[int, int], stacked: bool
) -> None:
    # Two columns side by side cut every description at 80 columns (the filter's syntax
    # to a word or two), with no way to scroll sideways: there they go one below the other.
    async with apps_help(size) as (app, pilot, screen):
        assert screen.query_one(".help--columns").has_class("-stacked") is stacked
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "in that column (!column:word too)" in text
        assert "Command palette: every action and tab" in text


async def test_a_comma_among_the_keys_that_close_the_help_is_said_as_a_word() -> None:
    # "space, , or f3 closes": the comma key read as the list's own comma.
    app = Host(keymap={"help.close": "space,comma,f3"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "space, comma or f3 closes" in screen_text(app)


async def test_the_help_scrolls_with_the_detail_views_keys_and_says_so() -> None:
    # Only the arrows, pgdn and end scrolled it; its footer said "esc Close" alone, and
    # at 80x24 nothing said most of it was below.
    from tokensales_tui.ui.widgets.footer import KeysFooter
    from tokensales_tui.ui.widgets.json_view import JsonView

    app = ManyKeys()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        panel = app.screen.query_one(HelpPanel)
        assert app.screen.focused is panel
        assert "space or j scroll" in str(panel.border_subtitle)
        footer = app.screen.query_one(KeysFooter)
        assert ("space", "Page down") in [(k.key, k.description) for k in footer.keys]
        for key, moved in (("j", 1), ("k", 0), ("space", None), ("G", panel.max_scroll_y)):
            await pilot.press(key)
            await pilot.pause()
            if moved is None:
                assert panel.scroll_y > 1
            else:
                assert panel.scroll_y == moved, key
        await pilot.press("g")
        await pilot.pause()
        assert panel.scroll_y == 0
    # One set of keys for both views (a keymap moves each with its own ids).
    strip = [(b.key, b.action) for b in JsonView.BINDINGS]  # type: ignore[union-attr]
    assert strip == [(b.key, b.action) for b in HelpPanel.BINDINGS]  # type: ignore[union-attr]


def lines_of(app: App[object], panel: HelpPanel, rows: HelpRows) -> list[str]:
    """The lines of ``rows`` shown in the help panel (above and below it: none)."""
    inside = panel.scrollable_content_region
    shown = rows.region.intersection(inside)
    strips = app.screen._compositor.render_strips()
    return [
        strips[y].crop(shown.x, shown.right).text.rstrip() for y in range(shown.y, shown.bottom)
    ]


@pytest.mark.parametrize(
    ("size", "how"),
    [
        ((120, 40), "wheel"),
        ((80, 24), "pagedown"),
        ((60, 20), "G"),
        ((40, 15), "end"),
        ((40, 15), "space"),
        ((40, 15), "wheel"),
    ],
)
async def test_every_description_is_read_whole_down_to_the_last_line_at_any_size(
    size: tuple[int, int], how: str
) -> None:
    # Descriptions wider than the panel were cut at its edge, with neither an ellipsis
    # nor a way to scroll sideways: at 60x20 the last line ended "every action and",
    # at 40x15 the filter's first word read "in any field, sh". They wrap, under
    # themselves, and every way down reaches the last line.
    from textual import events

    async with apps_help(size) as (app, pilot, screen):
        panel = screen.query_one(HelpPanel)
        inside = panel.scrollable_content_region
        for rows in panel.query(HelpRows):  # nothing drawn past the panel's right edge
            assert rows.region.right <= inside.right
            drawn = rows.render().plain.splitlines()
            assert all(cell_len(text) <= rows.size.width for text in drawn)
        for _ in range(200):
            if how == "wheel":
                panel.post_message(
                    events.MouseScrollDown(panel, 5, 5, 0, 0, 0, False, False, False)
                )
            else:
                await pilot.press(how)
            await pilot.pause()
            if panel.scroll_y >= panel.max_scroll_y:
                break
        await pilot.pause()
        assert panel.scroll_y == panel.max_scroll_y
        # The last row, whole, on the last lines shown: its key, then its description.
        shown = lines_of(app, panel, list(panel.query(HelpRows))[-1])
        key, description = screen._sections[-1][1][-1]
        last = max(i for i, text in enumerate(shown) if text.startswith(key))
        said = " ".join(text.removeprefix(key).strip() for text in shown[last:])
        assert said == description
