"""The header's token line copes with any lifetime a server claims, and keeps its width
as the first token comes."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tokensales_tui.api.auth import TokenState
from tokensales_tui.ui.widgets.header import StatusHeader, describe_token

from .apphelpers import screen_text


@pytest.mark.parametrize(
    ("expires_in", "shown"),
    [
        (float("inf"), "token: valid"),
        (1.7e308, "token: valid"),
        (float("nan"), "token: valid"),
        (1e300, "token: valid"),
        (0.0, "token: expired — renewed on the next request"),
        (-5.0, "token: expired — renewed on the next request"),
        (-float("inf"), "token: expired — renewed on the next request"),
        (61.0, "token: valid 1:01"),
        (3600.0, "token: valid 60 min"),
        (86400.0 * 30, "token: valid 720 h"),
    ],
)
def test_any_lifetime_is_described_without_failing(expires_in: float, shown: str) -> None:
    assert describe_token(TokenState("valid", expires_in=expires_in)) == shown


async def test_the_token_line_keeps_its_width_as_the_first_token_comes() -> None:
    # A new width lays the whole screen out (15-30 ms), and the first token comes as the
    # first list loads, when someone may be typing a filter.
    class HeaderApp(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusHeader()

    app = HeaderApp()
    async with app.run_test(size=(100, 5)) as pilot:
        header = app.query_one(StatusHeader)
        token = header.query_one(".token")
        widths = [token.size.width]
        for state in (
            TokenState("refreshing"),
            TokenState("valid", expires_in=3600.0),
            TokenState("valid", expires_in=200.0),
            TokenState("none"),
        ):
            header.token = state
            await pilot.pause()
            widths.append(token.size.width)
            assert str(token.render()) == describe_token(state)
        assert len(set(widths)) == 1


@pytest.mark.parametrize(
    ("profile", "host", "label", "read_only"),
    [
        ("ro", "127.0.0.1:9103", "PRODUCTION", True),
        ("../../../../../../tmp/a-very-long-profile-name", "api.example.com:8443", None, False),
        # All at once: the token had been cut ("valid 6"), the host gone.
        (
            "production-eu-west-1-payments-team-account",
            "api.eu.example.com",
            "PRODUCTION — be careful",
            True,
        ),
    ],
)
async def test_a_header_too_narrow_for_all_of_it_marks_what_it_cuts(
    profile: str, host: str, label: str | None, read_only: bool
) -> None:
    # At 80 columns the port went missing without a sign ("127.0.0.1:"), or a long
    # profile name left "1" of the host: both read as whole, and wrong.
    from tokensales_tui.ui.widgets.header import HeaderInfo

    class HeaderApp(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusHeader()

    app = HeaderApp()
    async with app.run_test(size=(80, 5)) as pilot:
        header = app.query_one(StatusHeader)
        header.info = HeaderInfo(
            profile=profile, host=host, label=label, read_only=read_only, demo=False, overridden=()
        )
        header.token = TokenState("valid", expires_in=3600.0)
        await pilot.pause()
        row = screen_text(app).splitlines()[0]  # type: ignore[arg-type]
        host_shown = row.split("token:")[0]
        assert host in host_shown or "…" in host_shown, row
        assert "token: valid 60 min" in row
