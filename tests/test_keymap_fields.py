"""A keymap that moves a screen's key onto one its text fields take for themselves is named.

An input or a text area with the focus takes its own keys (ctrl+k, ctrl+a, the arrows,
home…) and every character typed before the screen's bindings see them: a form's action
moved there never ran, and nothing said so.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tokensales_tui import config
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.keys import binding_classes, every_binding_id, field_taken_keys, field_use
from tokensales_tui.ui.screens.browse import BrowseScreen
from tokensales_tui.ui.tabs import FilterInput, ResourceTab
from tokensales_tui.ui.widgets.safe_input import SafeInput
from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

from .apphelpers import loaded
from .screenwalk import screens_naming_fields, walk_screens_with_fields

SIZE = (120, 40)


@pytest.fixture(autouse=True, scope="module")
def every_screen_imported() -> None:
    every_binding_id()  # as the apps call it first


@pytest.mark.parametrize(
    ("keymap", "named"),
    [
        ({"form.empty_list": "ctrl+k"}, "'form.empty_list' takes ctrl+k, which a text field uses"),
        ({"form.add_collection": "ctrl+a"}, "'form.add_collection' takes ctrl+a"),
        ({"form.cancel": "left"}, "'form.cancel' takes left"),
        ({"form.cancel": "home"}, "'form.cancel' takes home"),
        ({"form.cancel": "x"}, "'form.cancel' takes x, which a text field uses itself (typed"),
        ({"form.import_list": "f6"}, "'form.import_list' takes f6, which a text area uses"),
        ({"detail.back": "backspace"}, "'detail.back' takes backspace"),
        ({"import.cancel": "ctrl+e"}, "'import.cancel' takes ctrl+e"),
        ({"setup.first_field": "ctrl+u"}, "'setup.first_field' takes ctrl+u"),
        ({"clear_filter": "x"}, "'clear_filter' takes x"),  # the filter's own escape
        ({"webhook_secret.cancel": "space"}, "'webhook_secret.cancel' takes space"),
    ],
)
def test_a_key_a_field_takes_is_named_with_the_action(keymap: dict[str, str], named: str) -> None:
    said = field_taken_keys(keymap)
    assert len(said) == 1 and named in said[0], said
    assert "never runs while one has the focus — choose another key" in said[0]


@pytest.mark.parametrize(
    "keymap",
    [
        {"form.submit": "ctrl+a"},  # a priority key: it comes before the field
        {"form.copy_curl": "ctrl+k"},
        {"form.empty_list": "ctrl+b"},
        {"refresh": "R"},  # the main screen's letters never worked in the filter
        {"detail.back_q": "b"},
        {"deliveries.replay": "ctrl+a"},  # the deliveries screen has no text field
        {"help.close": "ctrl+a"},
        # The filter answers its clear_filter (moved with the screen's) itself: ctrl+k
        # clears the filter there too, not Input's "delete to the end".
        {"clear_filter": "ctrl+k"},
    ],
)
def test_a_key_no_field_takes_first_is_not_named(keymap: dict[str, str]) -> None:
    assert field_taken_keys(keymap) == []


def test_the_default_keys_are_never_named() -> None:
    defaults = {}
    for cls in binding_classes([Widget], ("tokensales_tui.",)):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                defaults.setdefault(binding.id, binding.key)
    assert field_taken_keys(defaults) == []


def said(app: App[Any]) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_the_app_says_a_key_a_field_takes_at_start() -> None:
    config.save_config(config.ConfigFile(keymap={"form.empty_list": "ctrl+k"}))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert any("'form.empty_list' takes ctrl+k" in m for m in said(app)), said(app)


async def test_a_key_the_filter_answers_with_the_screen_s_action_is_not_said_taken() -> None:
    # The filter binds clear_filter itself, with the screen's id and action: moved to
    # ctrl+k it clears the filter, yet the app said at start that it never runs there.
    config.save_config(config.ConfigFile(keymap={"clear_filter": "ctrl+k"}))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        taken = [m for m in said(app) if "'clear_filter'" in m and "text field" in m]
        assert not taken
        tab = app.screen.query_one(ResourceTab)
        await pilot.press("slash", "a", "b")
        assert tab.filter_input.has_focus and tab.filter_input.value == "ab"
        await pilot.press("ctrl+k")
        await pilot.pause()
        assert tab.filter_input.value == ""
    screen = next(b for b in BrowseScreen.BINDINGS if getattr(b, "id", None) == "clear_filter")
    assert isinstance(screen, Binding)
    assert (
        field_use(FilterInput, {"clear_filter": "ctrl+k"}, "ctrl+k", own=False, of=screen) is None
    )
    assert field_use(FilterInput, {}, "ctrl+k", own=False, of=screen) == "Delete all to the right"


KEYS = [
    *("a", "question_mark", "space", "slash", "comma", "é", "N"),
    *("ctrl+k", "ctrl+a", "ctrl+e", "ctrl+u", "ctrl+w", "ctrl+l", "ctrl+o", "ctrl+n", "ctrl+b"),
    *("left", "right", "home", "end", "up", "down", "pageup", "pagedown"),
    *("enter", "escape", "backspace", "delete", "f5", "f6", "f7", "ctrl+z", "ctrl+y"),
]


class _Probe(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"hit({key!r})", key, id=f"probe.{index}") for index, key in enumerate(KEYS)
    ]

    def __init__(self, field: Widget) -> None:
        super().__init__()
        self.field = field
        self.hits: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.field

    def on_mount(self) -> None:
        self.field.focus()

    def action_hit(self, key: str) -> None:
        self.hits.append(key)


@pytest.mark.parametrize("field", [SafeInput, SafeTextArea])
async def test_the_keys_said_taken_are_those_a_real_field_takes(field: type[Widget]) -> None:
    # The check reads the fields' bindings and what they type: each key it says a field
    # takes never reaches the screen's binding, and each other key does.
    probe = _Probe(field())
    app: App[None] = App()
    async with app.run_test(size=(80, 10)) as pilot:
        await app.push_screen(probe)
        await pilot.pause()
        for key in KEYS:
            before = len(probe.hits)
            await pilot.press(key)
            await pilot.pause()
            reached = len(probe.hits) > before
            assert reached == (field_use(field, {}, key, own=False) is None), key
            probe.field.focus()


async def test_every_screen_names_the_text_fields_it_holds() -> None:
    # The check knows a screen's fields from its TEXT_FIELDS: each screen that holds
    # inputs or text areas is opened here, and what it holds compared.
    seen: dict[type[Any], set[type[Widget]]] = {}

    async def note(app: App[Any], pilot: Any, screen: Screen[Any]) -> None:
        seen[type(screen)] = {type(w) for w in [*screen.query(Input), *screen.query(TextArea)]}

    await walk_screens_with_fields(note)
    for screen, fields in seen.items():
        assert set(screen.TEXT_FIELDS) == fields, screen.__name__
    declaring = screens_naming_fields()
    assert declaring <= set(seen), declaring - set(seen)
