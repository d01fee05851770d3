"""A screen closed is let go of: nothing the app keeps holds it or its widgets
(``ui/following.py``)."""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from tokensales_tui.ui.forms.collections import CollectionsForm
from tokensales_tui.ui.widgets.json_view import JsonView
from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

from .apphelpers import loaded, wait_for, wait_for_screen
from .formhelpers import SIZE, demo

TIMES = 4
"""Screens opened and closed: each one kept would leave one more alive."""


def alive(seen: list[weakref.ref[Any]]) -> int:
    """How many of the objects ``seen`` are alive once all garbage is collected (the app
    sets what is alive aside from collections now and then: it is walked again here)."""
    gc.unfreeze()
    gc.collect()
    return sum(ref() is not None for ref in seen)


def seen_in(screen: Any, kind: type[Widget]) -> list[weakref.ref[Any]]:
    """Weak references to ``screen`` and each of its widgets of ``kind``."""
    return [weakref.ref(screen), *(weakref.ref(widget) for widget in screen.query(kind))]


async def test_a_detail_view_closed_is_let_go_of() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        seen: list[weakref.ref[Any]] = []
        for _ in range(TIMES):
            await pilot.press("enter")
            await wait_for_screen(app, pilot, "DetailScreen")
            seen += seen_in(app.screen, JsonView)
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")
        assert len(seen) == 2 * TIMES
        assert alive(seen) <= 2  # the last one, at most


def key_colour(view: JsonView) -> object:
    """The colour the first key of ``view`` is drawn in now (the syntax theme's choice)."""
    for segment in view.render_line(1):
        if segment.text.startswith('"') and segment.style is not None:
            return segment.style.color
    raise AssertionError("no key drawn on the second line")


async def test_a_detail_view_still_follows_the_theme() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("enter")
        await wait_for_screen(app, pilot, "DetailScreen")
        view = app.screen.query_one(JsonView)
        dark = key_colour(view)
        app.theme = "textual-light"
        await wait_for(lambda: key_colour(view) != dark, pilot)


async def test_a_form_closed_is_let_go_of() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("5")
        seen: list[weakref.ref[Any]] = []
        for _ in range(TIMES):
            await pilot.press("n")
            await wait_for(lambda: isinstance(app.screen, CollectionsForm), pilot)
            await pilot.pause()
            seen += seen_in(app.screen, SafeTextArea)
            await pilot.press("escape")
            await wait_for_screen(app, pilot, "BrowseScreen")
        assert len(seen) == 3 * TIMES  # each form and its two lists
        assert alive(seen) <= 3


UI = Path(__file__).parent.parent / "tokensales_tui" / "ui"

LET_GO_NOTE = "# let go: "
"""A call under a comment that starts with this, and says why, passes: a reviewed
exception."""


def _noted(lines: list[str], number: int) -> bool:
    """Whether the comment right above line ``number`` (counted from 1) starts with the note."""
    above = number - 2
    while above >= 0 and lines[above].strip().startswith("#"):
        if lines[above].strip().startswith(LET_GO_NOTE):
            return True
        above -= 1
    return False


def held_past_unmount(source: str, filename: str) -> list[str]:
    """Every subscription to a signal, and every watch of another object than the node
    itself, in ``source`` that does not go through ``Following.follow``."""
    found: list[str] = []
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source, filename)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if _noted(lines, node.lineno):
            continue
        where = f"{filename}:{node.lineno}"
        if node.func.attr == "subscribe":
            found.append(f"{where}: a subscription not dropped on unmount: use self.follow")
        elif node.func.attr == "watch" and not (
            node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"
        ):
            found.append(f"{where}: a watch of another object: follow its signal instead")
    return found


def test_every_signal_is_followed_through_the_one_way_that_lets_go() -> None:
    found: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        if path.name != "following.py":
            found += held_past_unmount(path.read_text(encoding="utf-8"), path.name)
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        'self.watch(self.app, "theme", self._theme_changed, init=False)',
        'self.watch(self.screen, "focused", show)',
        "self.app.mask_changed_signal.subscribe(self, self.show_masking)",
        "signal.subscribe(self, lambda _on: self.refresh())",
    ],
)
def test_each_way_to_be_held_past_unmount_is_refused(source: str) -> None:
    assert held_past_unmount(source, "example.py")


@pytest.mark.parametrize(
    "source",
    [
        "self.follow(self.app.theme_changed_signal, self._theme_changed)",
        'self.watch(self, "theme", self._save_theme, init=False)',
        "# let go: dropped by hand, see below\nnode.message_signal.subscribe(self, f)",
    ],
)
def test_the_ways_that_let_go_pass(source: str) -> None:
    assert held_past_unmount(source, "example.py") == []
