"""Helpers for Pilot tests of the create/edit forms on the in-process emulator."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Select, Static, Switch, TextArea

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms.base import FormScreen

from .apphelpers import loaded, wait_for

SIZE = (120, 40)


def demo(**kwargs: Any) -> TokenSalesApp:
    """The app on the demo service."""
    return TokenSalesApp(Launch(demo=True, **kwargs))


async def open_form(app: TokenSalesApp, pilot: Any, tab: str, key: str = "n") -> FormScreen:
    """Wait for the tabs, switch to ``tab`` (its number key) and open its form with ``key``."""
    await loaded(app, pilot)
    await pilot.press(tab, key)
    await wait_for(lambda: isinstance(app.screen, FormScreen), pilot)
    await pilot.pause()
    form = app.screen
    assert isinstance(form, FormScreen)
    return form


async def fill(pilot: Any, **values: Any) -> None:
    """Set fields by id (``c1_name`` → ``#c1-name``) as typing would, then let the form react."""
    screen = pilot.app.screen
    for name, value in values.items():
        widget = screen.query_one(f"#{name.replace('_', '-')}")
        if isinstance(widget, TextArea):
            widget.load_text(value)
        elif isinstance(widget, Select) and value is None:
            widget.clear()
        elif isinstance(widget, Input | Switch | Select):
            widget.value = value
        else:  # pragma: no cover - a typo in a test
            raise TypeError(f"cannot fill {widget!r}")
        await pilot.pause()
    await pilot.pause()


def problem(form: FormScreen, field_id: str) -> str:
    """The problem line shown under a field ('' when none is shown)."""
    line = form.query_one(f"#{field_id}-problem", Static)
    return str(line.render()) if line.has_class("-shown") else ""


def hint(form: FormScreen, field_id: str) -> str:
    """The hint line under a field."""
    return str(form.query_one(f"#{field_id}-hint", Static).render())


def status(form: FormScreen) -> str:
    """The status line above the buttons."""
    line = form.query_one("#form-status", Static)
    return str(line.render()) if line.display else ""


def messages(app: TokenSalesApp) -> list[str]:
    """Every notification's text so far."""
    return [n.message for n in app._notifications]


async def submit_and_close(app: TokenSalesApp, pilot: Any, form: FormScreen) -> None:
    """Press ctrl+s and wait until the form has closed."""
    await pilot.press("ctrl+s")
    await wait_for(lambda: not form.is_attached, pilot)


Case = tuple[dict[str, Any], str, str]
"""Values that break one rule, the field that must be flagged, words of its message."""


async def assert_each_blocked(
    tab: str, valid: dict[str, Any], cases: list[Case], request: tuple[str, str]
) -> None:
    """For each case, fill ``valid | values`` into the form of ``tab`` and submit.

    The field must show a problem with the words, focus must move there, the form must
    stay open, and after all cases the emulator must not have seen ``request``. One app
    runs every case, as a person fixing one mistake after another would.
    """
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, tab)
        for values, field, words in cases:
            await fill(pilot, **(valid | values))
            form.set_status("", "")
            await pilot.press("ctrl+s")
            await wait_for(lambda: "fix the" in status(form), pilot)
            assert words in problem(form, field), (values, problem(form, field))
            assert app.focused is form.query_one(f"#{field}"), (values, app.focused)
        assert form.is_attached
        assert app.emulator.counts[request] == 0


async def assert_read_only_refuses(tab: str) -> None:
    """In a read-only session, ``n`` on ``tab`` opens no form and says why."""
    from tokensales_tui.config import Overrides

    app = demo(overrides=Overrides(read_only=True))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press(tab, "n")
        await pilot.pause()
        assert not isinstance(app.screen, FormScreen)
        assert "read-only profile: creating is turned off" in messages(app)
