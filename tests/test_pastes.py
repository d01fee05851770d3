"""A paste goes into a field once, whole, cleaned the way that field says.

Textual hands a paste to every class of a widget that handles it, unless one prevents
the rest: the webhook form's events field handled it and called Input's handler, which
Textual then called again, and ``abc.sold, item.sold`` showed twice.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from textual import events
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tokensales_tui.ui.widgets.pasting import TakesPastes

from .apphelpers import wait_for
from .formhelpers import SIZE, demo, open_form
from .screenwalk import every_ui_module, screens_naming_fields, walk_screens_with_fields

ONE = "abc.sold, item.sold"
MANY = "first one\r\nsecond\rthird\n"
"""Lines as terminals paste them (CR), and as a Windows clipboard holds them (CR LF)."""


def _value(field: Widget) -> str:
    return field.text if isinstance(field, TextArea) else field.value  # type: ignore[attr-defined]


def _set_value(field: Widget, value: str) -> None:
    if isinstance(field, TextArea):
        field.load_text(value)
        field.move_cursor(field.document.end)
    else:
        assert isinstance(field, Input)
        field.value = value
        field.cursor_position = len(value)


async def _paste(app: App[Any], pilot: Any, field: Widget, text: str) -> None:
    """Paste ``text`` as the terminal gives it: to the app, which hands it to the field
    with the focus (a field that cannot have it now, such as a hidden tab's filter, gets
    it itself)."""
    before = _value(field)
    paste = events.Paste(text)
    if app.focused is field:
        paste.set_sender(app)
        app.post_message(paste)
    else:
        field.post_message(paste)
    await wait_for(lambda: _value(field) != before, pilot)
    await pilot.pause()


async def test_every_field_of_every_screen_takes_a_paste_once() -> None:
    pasted_into: list[str] = []

    async def paste_into_each_field(app: App[Any], pilot: Any, screen: Screen[Any]) -> None:
        focused = app.focused
        fields = [*screen.query(Input), *screen.query(TextArea)]
        for field in fields:
            if field.disabled:
                continue
            where = f"{type(screen).__name__} #{field.id} ({type(field).__name__})"
            assert isinstance(field, TakesPastes), f"{where} takes pastes its own way"
            kept = _value(field)
            field.focus()
            await pilot.pause()
            _set_value(field, "")
            await _paste(app, pilot, field, ONE)
            assert _value(field) == ONE, where
            await _paste(app, pilot, field, MANY)
            value = _value(field)
            assert value == ONE + field.pasted(MANY), where
            for line in ("first one", "second", "third"):
                assert value.count(line) == 1, (where, value)
            pasted_into.append(where)
            _set_value(field, kept)
            await pilot.pause()
        if focused is not None:
            focused.focus()
        await pilot.pause()

    seen = await walk_screens_with_fields(paste_into_each_field)
    assert screens_naming_fields() <= seen, screens_naming_fields() - seen
    # The ones people paste into most, named: the form's events, the filter, the
    # detail view's search, the export's file name, the profile form, a list.
    for where in (
        "WebhookForm #events (ListInput)",
        "BrowseScreen #webhooks-filter (FilterInput)",
        "DetailScreen #detail-search (SafeInput)",
        "ExportScreen #path (SafeInput)",
        "ProfileFormScreen #profile (SafeInput)",
        "CollectionsForm #c1-wallets (SafeTextArea)",
        "SetupScreen #api-secret (SecretInput)",
    ):
        assert where in pasted_into, (where, pasted_into)


def test_each_field_says_what_a_paste_of_lines_becomes() -> None:
    from tokensales_tui.ui.forms.inputs import ListInput
    from tokensales_tui.ui.widgets.safe_input import SafeInput
    from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

    # One line: the line breaks at its ends left out, each run inside one space.
    assert SafeInput().pasted("\r\nhttps://a.example/x\r\n") == "https://a.example/x"
    assert SafeInput().pasted(MANY) == "first one second third"
    # A list: one entry a line, comma-separated; one line as it is.
    assert ListInput().pasted(MANY) == "first one, second, third"
    assert ListInput().pasted(" a , b ") == " a , b "
    # A text area: its lines, each break as "\n".
    assert SafeTextArea().pasted(MANY) == "first one\nsecond\nthird\n"


async def test_ctrl_v_pastes_the_apps_clipboard_as_a_paste_is_taken() -> None:
    # Textual's put the clipboard as it is: lines of a copied object in a one-line field.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        url = form.query_one("#url", Input)
        app.copy_to_clipboard("https://hooks.example/a\nsecond line\n")
        await pilot.press("ctrl+v")
        await wait_for(lambda: url.value != "", pilot)
        assert url.value == "https://hooks.example/a second line"


async def test_a_paste_past_the_filters_bound_keeps_what_fits_once() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        from tokensales_tui.ui.tabs import FILTER_MAX_LENGTH

        from .apphelpers import loaded

        await loaded(app, pilot)
        await pilot.press("slash")
        field = app.focused
        assert isinstance(field, Input)
        await _paste(app, pilot, field, "ab" * FILTER_MAX_LENGTH)
        assert field.value == "ab" * (FILTER_MAX_LENGTH // 2)
        said = [str(n.message) for n in app._notifications]
        assert sum("holds 10,000 characters at most" in m for m in said) == 1, said


async def test_a_paste_too_long_and_refused_rings_the_bell_once() -> None:
    # The field cut the paste to its bound and rang, then refused the rest (not digits)
    # and rang again: two bells for one paste.
    from textual.app import ComposeResult

    from tokensales_tui.ui.widgets.safe_input import SafeInput

    class Bounded(App[None]):
        bells = 0

        def compose(self) -> ComposeResult:
            yield SafeInput(max_length=4, restrict=r"[0-9]*")

        def bell(self) -> None:
            self.bells += 1

    app = Bounded()
    async with app.run_test() as pilot:
        field = app.query_one(SafeInput)
        field.focus()
        await pilot.pause()
        field.take_paste("abcdefgh")  # too long, and refused
        assert (field.value, app.bells) == ("", 1)
        field.take_paste("123456")  # too long: what fits is kept
        assert (field.value, app.bells) == ("1234", 2)
        field.take_paste("x")  # refused
        assert app.bells == 3


async def test_a_paste_into_the_command_palette_is_one_line_of_text() -> None:
    # Textual's palette put a paste's first line in its search field as it was (an ESC
    # went to the terminal), and a first line blank put nothing, without a word.
    from textual.command import CommandInput, CommandPalette

    from .apphelpers import loaded

    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.focused, CommandInput), pilot)
        field = app.focused
        assert isinstance(field, CommandInput)
        await _paste(app, pilot, field, "\r\nRefresh\nExport\n")
        assert field.value == "Refresh"  # the first line that is not blank; nothing ran
        assert isinstance(app.screen, CommandPalette)
        said = [str(n.message) for n in app._notifications]
        assert any("first was pasted, 1 more left out" in m for m in said), said
        _set_value(field, "")
        await _paste(app, pilot, field, "\x1b[31mRef\x07resh")
        assert field.value == "\x1b[31mRef\x07resh"  # held as pasted, matching no command
        drawn = app.export_screenshot()
        assert "␛[31mRef␇resh" in drawn and "\x1b[31m" not in drawn


# --- the mechanism ------------------------------------------------------------------


def _handler_names() -> set[str]:
    """The names Textual calls a handler of a message by (``on_paste``, ``on_mount``…),
    the entry points every event goes through (``on_event``) left out."""
    every_ui_module()
    names: set[str] = set()
    pending: list[type[Message]] = [Message]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        names.add(getattr(cls, "handler_name", "on_message"))
    return names - {"on_event", "on_message"}


def test_no_handler_calls_the_one_textual_calls_after_it() -> None:
    # Textual calls a message's handler of each class of the widget in turn: one that
    # also calls its base's runs that one twice (a paste inserted twice, a form's
    # on_mount run twice).
    names = _handler_names()
    twice: list[str] = []
    for module in every_ui_module():
        tree = ast.parse(inspect.getsource(module))
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            for method in cls.body:
                if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                if method.name.lstrip("_") not in names:
                    continue
                for call in ast.walk(method):
                    if (
                        isinstance(call, ast.Attribute)
                        and call.attr == method.name
                        and isinstance(call.value, ast.Call)
                        and isinstance(call.value.func, ast.Name)
                        and call.value.func.id == "super"
                    ):
                        twice.append(f"{module.__name__}.{cls.name}.{method.name}")
    assert twice == []


def test_only_the_one_paste_handler_handles_a_paste() -> None:
    # A field says how it cleans a paste (``pasted``), never by taking the event itself.
    handling: list[str] = []
    for module in every_ui_module():
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or cls is TakesPastes:
                continue
            for name in ("on_paste", "_on_paste"):
                if name in cls.__dict__:
                    handling.append(f"{cls.__qualname__}.{name}")
            for handlers in cls.__dict__.get("_decorated_handlers", {}).get(events.Paste, []):
                handling.append(f"{cls.__qualname__}.{handlers[0].__name__}")
    assert handling == []
