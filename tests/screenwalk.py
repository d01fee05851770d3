"""Every screen of the apps that holds a text field, opened one after the other.

A test that must hold for every input and text area (the keys they take, what a paste
puts into them) walks them here, and checks afterwards that every screen naming text
fields (``TEXT_FIELDS``) was seen (:func:`screens_naming_fields`): a new screen with a
field must be added to the walk.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

from textual.app import App
from textual.screen import Screen

import tokensales_tui.ui
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.keys import binding_classes
from tokensales_tui.ui.listen_app import ListenApp
from tokensales_tui.ui.screens.base import ScreenKeys
from tokensales_tui.webhooks.listen import Listening, ListenOptions

from .apphelpers import loaded, wait_for, wait_for_screen

SIZE = (120, 40)

Visit = Callable[[App[Any], Any, Screen[Any]], Awaitable[None]]
"""Called with the app, its pilot and each screen once it is shown; it must leave the
screen as it found it (its fields' values, the focus) for the walk to go on."""


async def walk_screens_with_fields(visit: Visit) -> set[type[Screen[Any]]]:
    """Open every screen of the apps that holds an input or a text area, and ``visit``
    each: the main screen, each form (and the collections form's import dialog), the
    export dialog, the detail view, the profile form, the setup and listen's secret
    dialog. Returns the classes of the screens visited."""
    seen: set[type[Screen[Any]]] = set()

    async def note(app: App[Any], pilot: Any) -> None:
        seen.add(type(app.screen))
        await visit(app, pilot, app.screen)

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:

        async def opened(keys: tuple[str, ...], name: str, back_to: str = "BrowseScreen") -> None:
            """Press ``keys``, visit screen ``name``, and go back with escape."""
            await pilot.press(*keys)
            await wait_for_screen(app, pilot, name)
            await note(app, pilot)
            if name == "CollectionsForm":
                await opened(("ctrl+o",), "ImportListScreen", back_to=name)
            await pilot.press("escape")
            await wait_for_screen(app, pilot, back_to)

        await loaded(app, pilot)
        await note(app, pilot)
        await opened(("1", "n"), "WebhookForm")
        await opened(("4", "n"), "PayoutForm")
        await opened(("5", "n"), "CollectionsForm")
        await opened(("1", "e"), "WebhookForm")  # editing one
        await opened(("2", "x"), "ExportScreen")
        await opened(("enter",), "DetailScreen")
        await pilot.press("p", "a")
        await wait_for_screen(app, pilot, "ProfileFormScreen")
        await note(app, pilot)
    app = TokenSalesApp(Launch())  # no profile anywhere: the setup
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(app, pilot, "SetupScreen")
        await note(app, pilot)
    async with Listening(ListenOptions()) as listening:
        listen = ListenApp(listening)
        async with listen.run_test(size=SIZE) as pilot:
            await pilot.press("s")
            await wait_for(lambda: type(listen.screen).__name__ == "WebhookSecretScreen", pilot)
            await note(listen, pilot)
    return seen


def every_ui_module() -> list[ModuleType]:
    """Every module of ``tokensales_tui.ui``, imported (the app imports some only on use)."""
    package = tokensales_tui.ui
    return [package] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]


def screens_naming_fields() -> set[type[Any]]:
    """Every screen of the package that names text fields (``TEXT_FIELDS``)."""
    every_ui_module()
    return {
        cls
        for cls in binding_classes([Screen], ("tokensales_tui.",))
        if isinstance(cls, type) and issubclass(cls, ScreenKeys) and cls.TEXT_FIELDS
    }
