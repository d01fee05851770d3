"""The header's token line copes with any lifetime a server claims."""

from __future__ import annotations

import pytest

from tokensales_tui.api.auth import TokenState
from tokensales_tui.ui.widgets.header import describe_token


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
