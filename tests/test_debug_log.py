"""The opt-in debug log: requests with method, URL, status and timing; never a secret."""

from __future__ import annotations

import stat
from pathlib import Path

from tokensales_tui.api.client import redact_url
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import loaded


async def test_log_file_is_private_and_holds_requests_but_no_secret(tmp_path: Path) -> None:
    log = tmp_path / "debug.log"
    app = TokenSalesApp(Launch(demo=True, log_file=str(log)))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "r")
        await loaded(app, pilot)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text()
    assert "GET http://demo.tokensales.invalid/v1/items → 200" in text
    assert "POST http://demo.tokensales.invalid/auth/getAccessToken → 200" in text
    for forbidden in (DEMO_API_SECRET, DEMO_API_KEY, "eyJ", "Bearer", "Authorization"):
        assert forbidden not in text


def test_query_strings_and_user_info_are_masked_in_logged_urls() -> None:
    url = "https://user:pw@api.example.com/v1/items?api_key=abc&page=2&token"
    assert redact_url(url) == "https://api.example.com/v1/items?api_key=***&page=***&token"

