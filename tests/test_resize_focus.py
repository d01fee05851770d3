"""The focused field stays in view when the terminal is made smaller."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

from .apphelpers import rigged_app, wait_for_screen
from .formhelpers import SIZE, demo, open_form


def in_view(app: Any, widget: Widget) -> bool:
    """Whether ``widget`` is on the screen, whole, and where the terminal shows it."""
    screen = app.screen
    return bool(
        screen.can_view_entire(widget)
        and widget.region.bottom <= screen.size.height
        and widget.region.right <= screen.size.width
    )


async def test_a_forms_focused_field_is_scrolled_into_view_when_the_terminal_shrinks() -> None:
    # The form showed its top (URL, Events, buttons) while the Secret field, out of view,
    # kept the focus and took the keys.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press("tab", "tab")
        secret = form.focused
        assert secret is not None and secret.id == "secret", secret
        await pilot.press("s", "e", "c")
        await pilot.resize_terminal(80, 16)
        await pilot.pause(0.3)
        assert form.focused is secret and in_view(app, secret)
        await pilot.press("r", "e", "t")
        assert secret.value == "secret"  # type: ignore[attr-defined]


async def test_the_setup_screens_focused_field_is_scrolled_into_view_when_it_shrinks() -> None:
    app, _transport = rigged_app(env={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        secret = app.screen.query_one("#api-secret")
        secret.focus()
        await pilot.press("s", "e", "c")
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        assert app.screen.focused is secret and in_view(app, secret)
        await pilot.resize_terminal(80, 12)
        await pilot.pause(0.3)
        assert app.screen.focused is secret and in_view(app, secret)
