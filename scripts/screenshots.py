"""Save SVG screenshots of the demo to ``screenshots/``.

Run from the repository root::

    python scripts/screenshots.py

Each picture comes from a fresh demo app driven headless (no terminal, no network, no
config file read): it waits until every tab has loaded and the header shows the token,
presses the keys of the shot, waits for the screen to settle and saves the SVG. The
demo serves seed 0's fixed data, so the pictures change only when the app does. A
picture that shows the demo secret or anything token-like is an error.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tokensales_tui.emulator import DEMO_API_SECRET
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.deliveries import DeliveriesScreen
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.screens.help import HelpScreen
from tokensales_tui.ui.widgets.header import StatusHeader

OUT = Path(__file__).resolve().parent.parent / "screenshots"
TIMEOUT = 10.0
FORBIDDEN = (DEMO_API_SECRET, "eyJ")
"""Never in a picture: the demo secret, and the start of every JWT."""

Until = Callable[[TokenSalesApp], bool]


@dataclass(frozen=True)
class Shot:
    """One picture: the keys pressed on the demo, and what to wait for afterwards."""

    filename: str
    keys: tuple[str, ...]
    until: Until | None = None
    size: tuple[int, int] = (120, 40)
    mask: bool = False


def detail_fetched(app: TokenSalesApp) -> bool:
    screen = app.screen
    return isinstance(screen, DetailScreen) and not screen.query_one("#detail-status").display


def help_shown(app: TokenSalesApp) -> bool:
    return isinstance(app.screen, HelpScreen)


def deliveries_shown(app: TokenSalesApp) -> bool:
    screen = app.screen
    return isinstance(screen, DeliveriesScreen) and len(screen.delivery_list.rows) >= 2


SHOTS = (
    Shot("webhooks.svg", ("1",)),
    Shot("items.svg", ("2",)),
    Shot("assets.svg", ("3",)),
    Shot("payouts.svg", ("4",)),
    Shot("collections.svg", ("5",)),
    Shot("detail.svg", ("2", "enter"), detail_fetched),
    Shot("help.svg", ("question_mark",), help_shown),
    Shot("items-80x24.svg", ("2",), size=(80, 24)),
    Shot("collections-masked.svg", ("5",), mask=True),
    Shot("detail-masked.svg", ("5", "enter"), detail_fetched, mask=True),
    # The demo's webhook, then an item deleted in the Items tab: two events delivered.
    Shot(
        "deliveries.svg",
        ("v", "escape", "2", "d", "tab", "enter", "1", "v"),
        deliveries_shown,
    ),
    Shot("collections-80x24.svg", ("5",), size=(80, 24)),
)


async def wait_for(condition: Callable[[], bool], pilot: Pilot[Any], what: str) -> None:
    """Let the app run until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        await pilot.pause(0.02)


def tabs_loaded(app: TokenSalesApp) -> bool:
    """Every tab loaded, and the header showing the token (the app's clock sets it, up to
    a second after the token came: a busy machine took pictures before it)."""
    tabs = app.browse.tabs
    headers = list(app.query(StatusHeader))
    return (
        bool(tabs)
        and all(tab.loaded_once or tab.error for tab in tabs)
        and all(header.token.status != "none" for header in headers)
    )


async def take(shot: Shot, config_path: Path) -> Path:
    """Run a fresh demo for ``shot`` and save its SVG; returns the file written."""
    # A config path that does not exist: the user's keymap or profiles never show.
    app = TokenSalesApp(Launch(demo=True, config_path=config_path, mask=shot.mask))
    async with app.run_test(size=shot.size) as pilot:
        await wait_for(lambda: tabs_loaded(app), pilot, "the tabs to load")
        failed = [tab.resource.key for tab in app.browse.tabs if tab.error]
        if failed:
            raise RuntimeError(f"the demo failed to load: {', '.join(failed)}")
        header = app.query_one(StatusHeader)
        await wait_for(lambda: header.token.status == "valid", pilot, "the token")
        await pilot.press(*shot.keys)
        if shot.until is not None:
            until = shot.until
            await wait_for(lambda: until(app), pilot, f"the screen of {shot.filename}")
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a steady cursor, not half of a blink
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        written = app.save_screenshot(filename=shot.filename, path=str(OUT))
    return Path(written)


def check(path: Path) -> None:
    """Refuse a picture that shows a secret or a token."""
    svg = path.read_text(encoding="utf-8")
    for text in FORBIDDEN:
        if text in svg:
            path.unlink()
            raise RuntimeError(f"{path.name} showed a secret or token; deleted it")


async def write_all(
    shots: Any, take_one: Callable[[Any, Path], Awaitable[Path]], verify: Callable[[Path], None]
) -> int:
    """Take every shot with a config file that does not exist, verify it, say where it went."""
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        config_path = Path(folder) / "config.toml"
        for shot in shots:
            path = await take_one(shot, config_path)
            verify(path)
            print(f"wrote {path}")
    return 0


async def main(names: list[str]) -> int:
    """Every shot, or only those named (``python scripts/screenshots.py deliveries.svg``)."""
    shots = [shot for shot in SHOTS if not names or shot.filename in names]
    return await write_all(shots, take, check)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
