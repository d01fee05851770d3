"""Every dialog of the app fits a small terminal: its box on screen, its buttons whole."""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from textual.screen import ModalScreen
from textual.widgets import Button

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.confirm import ConfirmScreen, DiscardScreen
from tokensales_tui.ui.screens.webhook_secret import WebhookSecretScreen
from tokensales_tui.ui.widgets.button_row import ButtonRow
from tokensales_tui.ui.widgets.footer import KeysFooter

from .apphelpers import loaded, wait_for

LONG = "https://hooks.example.com/" + "very-long-path/" * 40

PUSHED = {
    "delete": lambda: ConfirmScreen("Delete this item?", "Item " + LONG, detail="id " + LONG),
    "overwrite": lambda: ConfirmScreen("Replace the existing file?", LONG, confirm_label="Replace"),
    "discard": lambda: DiscardScreen("Discard this new webhook?", "What you typed will be lost."),
    "webhook secret": WebhookSecretScreen,
}
"""Dialogs put up as the app puts them up."""

KEYED = {
    "export": ("x",),
    "profiles": ("p",),
    "webhook form": ("n",),
    "payout form": ("4", "n"),
    "collections form": ("5", "n"),
    "import list": ("5", "n", "ctrl+o"),
}
"""Dialogs opened by their keys."""


def check_fits(screen: ModalScreen[Any]) -> None:
    """The dialog's box lies on screen; its answers (a ButtonRow's buttons) show in it,
    and every button, there or in what scrolls, shows its whole label."""
    dialog = next(child for child in screen.children if not isinstance(child, KeysFooter))
    assert screen.region.contains_region(dialog.region), (dialog.region, screen.region)
    for answer in screen.query(ButtonRow):
        for button in answer.query(Button):
            assert dialog.region.contains_region(button.region), str(button.label)
    for button in screen.query(Button):
        if button.display:
            assert button.content_region.width >= cell_len(str(button.label)), str(button.label)


@pytest.mark.parametrize("name", [*PUSHED, *KEYED])
async def test_every_dialog_fits_40_by_15_its_buttons_whole_and_its_keys_working(
    name: str,
) -> None:
    # At 40x15 the delete confirmation's button read "Delet" and its lower border was
    # off the screen, the form's Submit button past the dialog's right edge.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(40, 15)) as pilot:
        await loaded(app, pilot)
        under = app.screen
        if name in PUSHED:
            app.push_screen(PUSHED[name]())
        else:
            await pilot.press(*KEYED[name])
        await wait_for(lambda: isinstance(app.screen, ModalScreen) and app.screen.is_mounted, pilot)
        if name == "import list":
            await wait_for(lambda: type(app.screen).__name__ == "ImportListScreen", pilot)
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        check_fits(screen)
        await pilot.press("escape")  # its keys work
        await wait_for(lambda: app.screen is not screen, pilot)
        assert name in ("import list", "payout form", "collections form") or app.screen is under
