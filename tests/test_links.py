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


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        # A browser reads "\" as "/" in an http(s) address: it visits evil.example, where
        # urlsplit names bank.example.com.
        ("https://evil.example\\@bank.example.com/login", "\\ before its query"),
        ("https://bank.example.com\\.evil.example/", "\\ before its query"),
        ("http://evil.example\\@127.0.0.1/", "\\ before its query"),
        # What a browser drops without a word.
        ("https://evil.exa\tmple/", "tab or line break"),
        ("https://bank.example.com\n@evil.example/", "tab or line break"),
        ("\x01https://a.example/", "around it"),
        ("https://a.example/ ", "around it"),
        # Hosts a browser reads as another name or address.
        ("https://evil%2Eexample/", "decode"),
        ("https://evil\u3002example/", "full stop"),
        ("https://evil\ufe52example/", "map to others"),  # a small full stop
        ("https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com/", "map to others"),  # fullwidth
        ("http://0x7f.1/", "number"),
        ("http://2130706433/", "number"),
    ],
)
def test_an_address_whose_host_a_browser_reads_otherwise_never_opens(
    url: str, fragment: str
) -> None:
    problem = link_problem(url)
    assert problem is not None and fragment in problem


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://cdn.example.com/a.png?x=a\\b", "cdn.example.com"),  # "\" in a query stays
        ("https://cdn.example.com/a.png#a\\b", "cdn.example.com"),
        ("http://127.0.0.1:8765/x", "127.0.0.1"),
        ("https://[::1]:8443/", "::1"),
        ("HTTPS://EX.COM", "ex.com"),
        ("https://user@bank.example.com/", "bank.example.com"),
    ],
)
def test_the_host_named_is_the_host_a_browser_visits(url: str, host: str) -> None:
    from tokensales_tui.web_urls import web_host

    assert link_problem(url) is None
    assert web_host(url) == host


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example\\@bank.example.com/hook",
        "https://evil\u3002example/hook",
    ],
)
def test_every_check_of_a_host_refuses_what_a_browser_reads_otherwise(url: str) -> None:
    from tokensales_tui.checks import check_http_url
    from tokensales_tui.config import ConfigError
    from tokensales_tui.config.schema import validate_proxy, validate_url
    from tokensales_tui.local import local_target
    from tokensales_tui.webhooks.receiver import TargetError, check_target

    assert (check_http_url(url) or "") == link_problem(url)
    with pytest.raises(ConfigError, match="browsers"):
        validate_url(url, field="base_url", allow_insecure_http=False)
    with pytest.raises(ConfigError, match="browsers"):
        validate_proxy(url, field="proxy")
    local = url.replace("bank.example.com", "127.0.0.1").replace(
        "evil\u3002example", "127.0.0.1\u3002"
    )
    assert local_target(local) is None
    with pytest.raises(TargetError, match="browsers"):
        check_target(local)
