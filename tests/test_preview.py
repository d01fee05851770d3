"""Request previews: what a form shows and copies before it sends."""

from __future__ import annotations

import shlex
import subprocess

import msgspec
import pytest

from tokensales_tui.api import Connection, Secret
from tokensales_tui.api.endpoints import Endpoint, url_of, webhook_endpoint
from tokensales_tui.api.models import (
    NewCollection,
    PayoutDefinition,
    StablecoinDetails,
    WebhookCreate,
    WebhookUpdate,
    encode,
)
from tokensales_tui.api.preview import Change, RequestPreview, shell_quote

CONNECTION = Connection(
    base_url="https://api.example.com/",
    auth_url="https://auth.example.com",
    console_url="https://console.example.com/root",
    api_key=Secret("key-abc"),
    api_secret=Secret("secret-xyz"),
)
SECRET = "whsec_do-not-show"


def test_urls_use_the_address_of_each_endpoint() -> None:
    assert url_of(CONNECTION, Endpoint("GET", "base", "/v1/items")) == (
        "https://api.example.com/v1/items"
    )
    assert url_of(CONNECTION, Endpoint("POST", "console", "/collections")) == (
        "https://console.example.com/root/collections"
    )
    assert url_of(CONNECTION, webhook_endpoint("PUT", "a/b")) == (
        "https://api.example.com/v1/platform-webhooks/a%2Fb"
    )


def test_the_body_is_what_is_sent_with_the_secret_masked() -> None:
    body = WebhookCreate(url="https://h.example/x", events=["a", "b"], secret=Secret(SECRET))
    preview = RequestPreview.build(
        Endpoint("POST", "base", "/v1/platform-webhooks"), CONNECTION, body
    )
    sent = msgspec.json.decode(encode(body))
    assert sent["secret"] == SECRET
    assert preview.body == {**sent, "secret": "********"}
    assert list(preview.body) == list(sent)  # same fields, same order
    assert SECRET not in preview.as_text() and SECRET not in preview.as_curl()


def test_as_text_holds_the_request_line_the_changes_and_the_body() -> None:
    update = WebhookUpdate(events=["item.sold"])
    preview = RequestPreview.build(
        webhook_endpoint("PUT", "wh_1"),
        CONNECTION,
        update,
        changes=[Change("events", ["item.created"], ["item.sold"])],
    )
    assert preview.as_text() == (
        "PUT https://api.example.com/v1/platform-webhooks/wh_1\n\n"
        "events: + item.sold  − item.created\n\n"
        '{\n  "events": ["item.sold"]\n}'
    )


def test_long_lists_spread_over_lines_and_the_start_can_be_shown_alone() -> None:
    wallets = [f"0x{i:040x}" for i in range(10_000)]
    body = [
        NewCollection.build(
            name="big", blockchain="base", contract_address="0x", whitelisted=False, wallets=wallets
        )
    ]
    preview = RequestPreview.build(Endpoint("POST", "console", "/collections"), CONNECTION, body)
    text = preview.body_json()
    assert msgspec.json.decode(text) == msgspec.to_builtins(body)
    assert max(map(len, text.splitlines())) <= 88
    assert '    "whitelistingInfo": {\n      "emails": [],\n      "list": {' in text
    start, more = preview.body_start(20)
    assert more and start == "\n".join(text.splitlines()[:20])
    assert preview.body_start(len(text.splitlines())) == (text, False)


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (Change("url", "https://a", "https://b"), "url: https://a → https://b"),
        (Change("events", ["a", "b"], ["b", "c"]), "events: + c  − a"),
        (Change("events", ["a", "b"], ["b", "a"]), "events: same names, new order"),
        (
            Change("secret", None, None, secret=True),
            "secret: replaced (the new value is not shown)",
        ),
        (Change("name", None, "x"), "name: (none) → x"),
    ],
)
def test_changes_read_as_before_and_after(change: Change, line: str) -> None:
    assert change.describe() == line


def test_curl_reads_the_token_from_the_environment_and_quotes_for_the_shell() -> None:
    body = PayoutDefinition(
        type="stablecoin",
        name='it\'s $HOME `x` "q"',
        stablecoin_details=StablecoinDetails(blockchain_id="polygon"),
    )
    preview = RequestPreview.build(Endpoint("POST", "base", "/v1/payouts/add"), CONNECTION, body)
    curl = preview.as_curl()
    assert curl.startswith("curl -X POST 'https://api.example.com/v1/payouts/add' ")
    assert '-H "Authorization: Bearer $TOKENSALES_TOKEN"' in curl
    assert "-H 'Content-Type: application/json'" in curl
    assert "key-abc" not in curl and "secret-xyz" not in curl
    words = shlex.split(curl)
    data = words[words.index("--data") + 1]
    assert msgspec.json.decode(data) == msgspec.to_builtins(body)


def test_a_real_shell_expands_the_token_and_nothing_else() -> None:
    body = [
        NewCollection.build(
            name="a'b $(x)", blockchain="base", contract_address="0x", whitelisted=True
        )
    ]
    curl = RequestPreview.build(
        Endpoint("POST", "console", "/collections"), CONNECTION, body
    ).as_curl()
    script = 'curl() { for a in "$@"; do printf \'%s\\n\' "$a"; done; }; ' + curl
    out = subprocess.run(
        ["sh", "-c", script],
        env={"TOKENSALES_TOKEN": "tok123", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert "Authorization: Bearer tok123" in out
    data = msgspec.json.decode(out[out.index("--data") + 1])
    assert data[0]["name"] == "a'b $(x)"


def test_a_request_without_body_has_no_data() -> None:
    preview = RequestPreview.build(webhook_endpoint("DELETE", "wh_1"), CONNECTION)
    assert preview.body is None and preview.body_json() == ""
    assert preview.as_text() == "DELETE https://api.example.com/v1/platform-webhooks/wh_1"
    assert "--data" not in preview.as_curl() and "Content-Type" not in preview.as_curl()


@pytest.mark.parametrize("text", ["", "plain", "it's", "''", "a\nb", "$x `y`"])
def test_shell_quote_round_trips(text: str) -> None:
    assert shlex.split(shell_quote(text)) == [text]
