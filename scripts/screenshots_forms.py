"""Save SVG screenshots of the create/edit forms to ``screenshots/form-*.svg``.

Run from the repository root::

    python scripts/screenshots_forms.py

Like ``scripts/screenshots.py`` (whose helpers it uses): a fresh demo app driven headless,
fixed seed data, no config file read. Each shot opens a form, fills it as a person would
and saves the SVG once the form has checked what was typed. A picture that shows the
webhook secret typed here, the demo secret or anything token-like is an error.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select, Switch, TextArea

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import OUT, check, tabs_loaded, wait_for, write_all
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.forms.collections import CollectionsForm

SECRET = "whsec-typed-for-the-picture"
W1 = "0x39e61A1Ea7BC4554B59455b94AcC848F13AaD484"
W2 = "0xBE5E7d3D8d9428050fFEE666C84c8B6fEF426716"
CONTRACT = "0x7241369492Ea20ED060fa4160015A77F2e8C33F2"

Fill = Callable[[FormScreen, Pilot[Any]], Awaitable[None]]


@dataclass(frozen=True)
class Shot:
    """One picture: the keys that open the form, and how it is filled."""

    filename: str
    keys: tuple[str, ...]
    values: dict[str, Any]
    size: tuple[int, int] = (120, 40)


SHOTS = (
    Shot(
        "form-webhook.svg",
        ("1", "n"),
        {
            "url": "https://hooks.example.com/tokensales",
            "events": "item.sold, payment.succeeded",
            "secret": SECRET,
        },
    ),
    Shot("form-webhook-edit.svg", ("1", "down", "e"), {"events": "item.sold, payment.failed"}),
    Shot(
        "form-payout.svg",
        ("4", "n"),
        {
            "name": "USDC on Polygon",
            "type": "stablecoin",
            "detail-blockchainId": "polygon",
            "detail-tokenId": "ast_usdc_polygon",
            "detail-spender": W1,
        },
    ),
    Shot(
        "form-collections.svg",
        ("5", "n"),
        {
            "c1-name": "Founders Pass",
            "c1-blockchain": "polygon",
            "c1-contract": CONTRACT,
            "c1-whitelisted": True,
            "c1-wallets": f"{W1}\n{W2}\n0x12ab\n{W1.lower()}",
            "c1-emails": "anna@example.de\nops@aurora-games.io",
        },
    ),
)


async def fill(form: FormScreen, pilot: Pilot[Any], values: dict[str, Any]) -> None:
    """Set each field as typing would and let the form react."""
    for field_id, value in values.items():
        widget = form.query_one(f"#{field_id}")
        if isinstance(widget, TextArea):
            widget.load_text(value)
        elif isinstance(widget, Input | Select | Switch):
            widget.value = value
        await pilot.pause()
    if isinstance(form, CollectionsForm):
        for field_id in ("c1-wallets", "c1-emails"):
            await wait_for(
                lambda f=field_id: form._fresh(f, "c1") is not None, pilot, f"{field_id} checked"
            )
    await pilot.pause()


async def take(shot: Shot, config_path: Path) -> Path:
    """Run a fresh demo for ``shot`` and save its SVG; returns the file written."""
    app = TokenSalesApp(Launch(demo=True, config_path=config_path))
    async with app.run_test(size=shot.size) as pilot:
        await wait_for(lambda: tabs_loaded(app), pilot, "the tabs to load")
        await pilot.press(*shot.keys)
        await wait_for(lambda: isinstance(app.screen, FormScreen), pilot, "the form")
        form = app.screen
        assert isinstance(form, FormScreen)
        await fill(form, pilot, shot.values)
        first = next(iter(form.fields()))
        first.focus()
        for field in form.query(Input):
            field.cursor_blink = False
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        written = app.save_screenshot(filename=shot.filename, path=str(OUT))
    return Path(written)


def check_secret(path: Path) -> None:
    """Refuse a picture that shows the webhook secret typed for it (or a token, via ``check``)."""
    check(path)
    if SECRET in path.read_text(encoding="utf-8"):
        path.unlink()
        raise RuntimeError(f"{path.name} showed the webhook secret; deleted it")


async def main() -> int:
    return await write_all(SHOTS, take, check_secret)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
