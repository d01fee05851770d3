"""Snapshot tests: what a person sees on each screen of the demo, pinned as SVG.

Regenerate after an intended visual change with
``pytest tests/test_snapshots.py --snapshot-update -n0`` and look at the result.

The pictures are deterministic: the demo serves seed 0's fixed data, every test waits
until the tabs have loaded and the header shows the token ("token: valid 60 min" stays
true for the first minute of a fresh one-hour token), and Input cursors are made
steady instead of blinking.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tokensales_tui.emulator import DEMO_API_SECRET
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.confirm import ConfirmScreen
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.screens.help import HelpScreen
from tokensales_tui.ui.screens.setup import SetupScreen
from tokensales_tui.ui.widgets.header import StatusHeader

from .apphelpers import loaded, wait_for

SIZE = (120, 40)
ROOT = Path(__file__).resolve().parent.parent
SVG_FOLDERS = (ROOT / "tests" / "__snapshots__", ROOT / "screenshots")
NO_CONFIG = Path("/nonexistent/.config/tokensales-tui/config.toml")
"""A config path that never exists, so the setup screen shows the same path on every run."""

SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


def demo() -> TokenSalesApp:
    return TokenSalesApp(Launch(demo=True))


def steady_cursors(pilot: Pilot[Any]) -> None:
    """Stop every Input cursor on screen from blinking (the snapshot plugin does not)."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


async def ready(pilot: Pilot[Any]) -> None:
    """Wait until every tab has loaded and the header shows the fresh token."""
    app = pilot.app
    assert isinstance(app, TokenSalesApp)
    await loaded(app, pilot)
    header = app.query_one(StatusHeader)
    await wait_for(lambda: header.token.status == "valid", pilot)
    assert header.token.expires_in is not None and header.token.expires_in > 3540


def after(*keys: str, until: Callable[[Pilot[Any]], bool] | None = None) -> RunBefore:
    """A ``run_before`` that waits for the demo, presses ``keys`` and waits for ``until``."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press(*keys)
        if until is not None:
            await wait_for(lambda: until(pilot), pilot)
        steady_cursors(pilot)

    return run_before


def detail_fetched(pilot: Pilot[Any]) -> bool:
    screen = pilot.app.screen
    return isinstance(screen, DetailScreen) and not screen.query_one("#detail-status").display


@pytest.mark.parametrize(
    "key", ["1", "2", "3", "4", "5"], ids=["webhooks", "items", "assets", "payouts", "collections"]
)
def test_tab(snap_compare: SnapCompare, key: str) -> None:
    assert snap_compare(demo(), terminal_size=SIZE, run_before=after(key))


def test_item_detail(snap_compare: SnapCompare) -> None:
    assert snap_compare(
        demo(), terminal_size=SIZE, run_before=after("2", "enter", until=detail_fetched)
    )


def test_collections_masked(snap_compare: SnapCompare) -> None:
    masked = TokenSalesApp(Launch(demo=True, mask=True))
    assert snap_compare(masked, terminal_size=SIZE, run_before=after("5"))


def test_collection_detail_masked(snap_compare: SnapCompare) -> None:
    masked = TokenSalesApp(Launch(demo=True, mask=True))
    run_before = after("5", "enter", until=detail_fetched)
    assert snap_compare(masked, terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare: SnapCompare) -> None:
    shown = after("question_mark", until=lambda pilot: isinstance(pilot.app.screen, HelpScreen))
    assert snap_compare(demo(), terminal_size=SIZE, run_before=shown)


def test_delete_confirmation(snap_compare: SnapCompare) -> None:
    asked = after("1", "d", until=lambda pilot: isinstance(pilot.app.screen, ConfirmScreen))
    assert snap_compare(demo(), terminal_size=SIZE, run_before=asked)


def test_items_small_terminal(snap_compare: SnapCompare) -> None:
    assert snap_compare(demo(), terminal_size=(80, 24), run_before=after("2"))


def test_first_run_setup(snap_compare: SnapCompare) -> None:
    # No config file and no TOKENSALES_* variable (the autouse fixture clears them).
    app = TokenSalesApp(Launch(config_path=NO_CONFIG))

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(lambda: isinstance(pilot.app.screen, SetupScreen), pilot)
        steady_cursors(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def svg_text(svg: str) -> str:
    """The text an SVG screenshot shows, one line per screen row, entities decoded.

    Textual writes a row as several ``<text>`` elements (one per style run), so a
    string can span elements; joining them per row finds it anyway.
    """
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text[^>]*\bx="([\d.]+)"[^>]*\by="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, body = match.groups()
        rows.setdefault(float(y), []).append((float(x), html.unescape(body)))
    return "\n".join(
        "".join(text for _, text in sorted(parts)) for _, parts in sorted(rows.items())
    ).replace("\xa0", " ")


def test_svgs_never_show_a_secret() -> None:
    svgs = [path for folder in SVG_FOLDERS for path in sorted(folder.rglob("*.svg"))]
    assert svgs, "no SVG screenshots found"
    for path in svgs:
        svg = path.read_text(encoding="utf-8")
        for text in (svg, svg_text(svg)):
            assert DEMO_API_SECRET not in text, path
            assert "eyJ" not in text, path


def test_svg_text_joins_a_row() -> None:
    svg = (
        '<text class="a" x="0" y="20" textLength="24" clip-path="url(#c)">ab&#160;</text>'
        '<text class="b" x="24" y="20" textLength="8" clip-path="url(#c)">c&amp;</text>'
        '<text class="a" x="0" y="44.4" textLength="8" clip-path="url(#c)">z</text>'
    )
    assert svg_text(svg) == "ab c&\nz"
