"""Which addresses may be opened, and when a browser may be launched."""

from __future__ import annotations

import pytest

from tokensales_tui.ui.links import can_launch_browser, link_problem


@pytest.mark.parametrize("url", ["https://cdn.example.com/a.png", "http://127.0.0.1:8765/x"])
def test_http_addresses_may_open(url: str) -> None:
    assert link_problem(url) is None


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("javascript:alert(1)", "not javascript"),
        ("file:///etc/passwd", "not file"),
        ("data:text/html,hi", "not data"),
        ("ipfs://bafy", "not ipfs"),
        ("cdn.example.com/a.png", "not no scheme"),
        ("https://", "no host"),
        ("https://a.example/\x1b]52;c;x\x07", "control characters"),
    ],
)
def test_other_addresses_never_open(url: str, fragment: str) -> None:
    problem = link_problem(url)
    assert problem is not None and fragment in problem


def test_no_browser_over_ssh_or_without_a_display() -> None:
    assert not can_launch_browser({"SSH_CONNECTION": "1 2 3 4", "DISPLAY": ":0"}, "linux")
    assert not can_launch_browser({}, "linux")
    assert can_launch_browser({"DISPLAY": ":0"}, "linux")
    assert can_launch_browser({}, "darwin")
    assert not can_launch_browser({"SSH_TTY": "/dev/pts/1"}, "darwin")
