"""The signature verdicts, against each scheme's published test values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tokensales_tui.digits import ascii_int
from tokensales_tui.webhooks.signatures import (
    GITHUB,
    STANDARD,
    STRIPE,
    SeenIds,
    github_signature,
    resign,
    signing_key,
    standard_headers,
    standard_signature,
    stripe_signature,
    verify,
)

# The standard-webhooks libraries' own test values.
SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SW_TIME = 1614265330
SW_BODY = b'{"test": 2432232314}'
SW_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

# GitHub's "Validating webhook deliveries" example.
GH_SECRET = "It's a Secret to Everybody"
GH_BODY = b"Hello, World!"
GH_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

# Stripe publishes no fixed vector; its libraries' tests sign with "whsec_test_secret"
# used as raw text. This value was computed with `openssl dgst -sha256 -hmac`.
ST_SECRET = "whsec_test_secret"
ST_BODY = b'{"id":"evt_test_webhook","object":"event"}'
ST_HEADER = "t=1614265330,v1=3c5817089d739023dd6190f70a3757e04f7a2fd8b5dab12c2e000f51970dccff"


def sw_headers(**changes: str) -> dict[str, str]:
    headers = {
        "webhook-id": SW_ID,
        "webhook-timestamp": str(SW_TIME),
        "webhook-signature": SW_SIGNATURE,
    }
    headers.update(changes)
    return {k: v for k, v in headers.items() if v}


def test_standard_webhooks_signing_matches_the_published_vector() -> None:
    assert standard_signature(signing_key(SW_SECRET), SW_ID, SW_TIME, SW_BODY) == SW_SIGNATURE
    assert standard_headers(SW_SECRET, SW_ID, SW_TIME, SW_BODY)["webhook-signature"] == SW_SIGNATURE


@pytest.mark.parametrize("secret", [SW_SECRET, SW_SECRET.removeprefix("whsec_")])
def test_standard_webhooks_vector_is_valid_with_or_without_the_prefix(secret: str) -> None:
    verdict = verify(sw_headers(), SW_BODY, secret, now=SW_TIME + 10)
    assert (verdict.status, verdict.scheme) == ("valid", STANDARD)
    assert "base64" in verdict.reason
    assert verdict.ok


def test_standard_webhooks_with_several_signatures_matches_any() -> None:
    other = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    headers = sw_headers(**{"webhook-signature": f"{other} v2,abc {SW_SIGNATURE}"})
    assert verify(headers, SW_BODY, SW_SECRET, now=SW_TIME).status == "valid"


def test_one_changed_byte_of_signature_body_or_secret_is_invalid() -> None:
    bad_signature = sw_headers(**{"webhook-signature": SW_SIGNATURE[:-2] + "A="})
    assert verify(bad_signature, SW_BODY, SW_SECRET, now=SW_TIME).status == "invalid"
    assert verify(sw_headers(), SW_BODY + b" ", SW_SECRET, now=SW_TIME).status == "invalid"
    wrong = verify(sw_headers(), SW_BODY, "whsec_" + "A" * 32, now=SW_TIME)
    assert (wrong.status, wrong.scheme) == ("invalid", STANDARD)
    assert "wrong secret" in wrong.reason


@pytest.mark.parametrize("offset", [-301, 301, 3600])
def test_a_timestamp_outside_the_tolerance_is_refused(offset: int) -> None:
    verdict = verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME + offset)
    assert verdict.status == "invalid"
    assert "timestamp" in verdict.reason and "tolerance 5 min" in verdict.reason


def test_the_tolerance_can_be_widened() -> None:
    assert verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME + 3600, tolerance=4000).ok


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp"])
def test_a_missing_standard_header_is_named(missing: str) -> None:
    verdict = verify(sw_headers(**{missing: ""}), SW_BODY, SW_SECRET, now=SW_TIME)
    assert verdict.status == "invalid"
    assert verdict.reason == f"missing header {missing}"


def test_an_id_and_timestamp_without_a_signature_are_unsigned_not_invalid() -> None:
    # A sender that signs nothing (the emulator's webhook without a secret) sends them:
    # "invalid · missing header webhook-signature" had said something was wrong with it.
    headers = {k: v for k, v in sw_headers().items() if k != "webhook-signature"}
    verdict = verify(headers, SW_BODY, SW_SECRET, now=SW_TIME)
    assert (verdict.status, verdict.label()) == ("unsigned", "unsigned")
    assert verdict.reason.endswith("; webhook-id and webhook-timestamp came without one")
    assert verdict.delivery_id == headers["webhook-id"]


def test_a_timestamp_that_is_no_number_is_refused() -> None:
    verdict = verify(sw_headers(**{"webhook-timestamp": "hello"}), SW_BODY, SW_SECRET, now=SW_TIME)
    assert verdict.status == "invalid" and "not a number" in verdict.reason


def test_github_vector_is_valid_and_names_the_scheme() -> None:
    assert github_signature(GH_SECRET.encode(), GH_BODY) == GH_SIGNATURE
    verdict = verify({"X-Hub-Signature-256": GH_SIGNATURE}, GH_BODY, GH_SECRET, now=0)
    assert (verdict.status, verdict.scheme) == ("valid", GITHUB)
    assert (
        verify({"X-Hub-Signature-256": GH_SIGNATURE}, b"Hello, World?", GH_SECRET, now=0).status
        == "invalid"
    )


def test_a_signature_that_fails_is_never_outweighed_by_another_scheme_that_holds() -> None:
    # A valid Standard Webhooks signature beside a wrong X-Hub-Signature-256 was judged
    # valid: whoever forged one of them had the body in hand.
    key = signing_key(SW_SECRET)
    both = sw_headers(**{"X-Hub-Signature-256": github_signature(b"another key", SW_BODY)})
    verdict = verify(both, SW_BODY, SW_SECRET, now=SW_TIME)
    assert (verdict.status, verdict.scheme) == ("invalid", GITHUB)
    assert verdict.reason.endswith(f"(while its {STANDARD} holds)")
    both["X-Hub-Signature-256"] = github_signature(key, SW_BODY)
    assert verify(both, SW_BODY, SW_SECRET, now=SW_TIME).status == "valid"
    # A value shaped like a Stripe signature in a header that signs nothing is no second
    # signature: a trace context must not make a valid delivery invalid.
    traced = sw_headers(**{"X-Trace-Context": "t=1700000000,v1=abcd"})
    assert verify(traced, SW_BODY, SW_SECRET, now=SW_TIME).status == "valid"
    # The first scheme failing decides as before.
    bad = sw_headers(**{"webhook-signature": SW_SIGNATURE[:-2] + "A="})
    bad["X-Hub-Signature-256"] = github_signature(key, SW_BODY)
    assert verify(bad, SW_BODY, SW_SECRET, now=SW_TIME).scheme == STANDARD
    assert verify(bad, SW_BODY, SW_SECRET, now=SW_TIME).status == "invalid"


def test_stripe_style_header_is_valid_with_the_raw_secret() -> None:
    assert stripe_signature(ST_SECRET.encode(), 1614265330, ST_BODY) == ST_HEADER
    verdict = verify({"Stripe-Signature": ST_HEADER}, ST_BODY, ST_SECRET, now=1614265330)
    assert (verdict.status, verdict.scheme) == ("valid", STRIPE)
    assert verdict.reason == "secret read as raw text"
    stale = verify({"Stripe-Signature": ST_HEADER}, ST_BODY, ST_SECRET, now=1614265330 + 400)
    assert stale.status == "invalid" and "old" in stale.reason
    wrong = verify({"Stripe-Signature": ST_HEADER}, ST_BODY, "whsec_other", now=1614265330)
    assert wrong.status == "invalid"


def test_a_stripe_shaped_value_under_another_header_name_is_recognised() -> None:
    verdict = verify({"X-Signature": ST_HEADER}, ST_BODY, ST_SECRET, now=1614265330)
    assert (verdict.status, verdict.scheme) == ("valid", STRIPE)


def test_no_signature_header_is_unsigned_and_says_what_was_looked_for() -> None:
    verdict = verify({"content-type": "application/json"}, b"{}", "s", now=0)
    assert verdict.status == "unsigned" and verdict.scheme is None
    assert "webhook-signature" in verdict.reason and "X-Hub-Signature-256" in verdict.reason
    assert not verdict.ok


def test_without_a_secret_a_signed_delivery_is_unchecked() -> None:
    verdict = verify(sw_headers(), SW_BODY, None, now=SW_TIME)
    assert (verdict.status, verdict.scheme) == ("unchecked", STANDARD)


def test_a_repeated_delivery_id_is_flagged_even_when_the_signature_holds() -> None:
    seen = SeenIds(limit=2)
    first = verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME, seen=seen)
    again = verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME, seen=seen)
    assert first.ok and not first.repeated
    assert again.status == "valid" and again.repeated and not again.ok
    assert "repeated" in again.label()


def test_only_ids_whose_signature_held_are_remembered_and_junk_pushes_none_out() -> None:
    # 10,001 unsigned deliveries with ids of their own pushed out every id: a signed
    # delivery sent again within the tolerance was plain "valid", and relayed again.
    seen = SeenIds(limit=3, keep=600)
    first = verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME, seen=seen)
    for number in range(10):
        junk = {"webhook-id": f"junk_{number}", "webhook-timestamp": str(SW_TIME)}
        assert verify(junk, b"{}", SW_SECRET, now=SW_TIME, seen=seen).status == "unsigned"
        forged = sw_headers(**{"webhook-id": f"forged_{number}"})  # its signature fails
        assert verify(forged, SW_BODY, SW_SECRET, now=SW_TIME, seen=seen).status == "invalid"
    again = verify(sw_headers(), SW_BODY, SW_SECRET, now=SW_TIME + 299, seen=seen)
    assert first.ok and again.repeated and not again.ok
    # A copy with its body or signature altered is invalid, and flagged as a copy too.
    altered = verify(sw_headers(), SW_BODY + b" ", SW_SECRET, now=SW_TIME, seen=seen)
    assert altered.status == "invalid" and altered.repeated


def test_ids_are_kept_for_their_time_and_when_full_a_new_one_is_flagged_not_forgotten() -> None:
    seen = SeenIds(limit=2, keep=600)
    assert seen.remember("a", now=SW_TIME - 500) and seen.remember("b", now=SW_TIME - 499)
    # Full of ids still within their time: none is forgotten for a new one, which says so.
    headers = sw_headers(**{"webhook-id": "c"})
    headers["webhook-signature"] = standard_signature(signing_key(SW_SECRET), "c", SW_TIME, SW_BODY)
    verdict = verify(headers, SW_BODY, SW_SECRET, now=SW_TIME, seen=seen)
    assert verdict.status == "valid" and verdict.repeat_unknown and not verdict.ok
    assert verdict.label() == f"repeat unknown · valid · {STANDARD}"
    assert "a" in seen and "b" in seen and "c" not in seen
    # Past its time the oldest makes room.
    assert seen.remember("c", now=SW_TIME + 100.5) and "a" not in seen and "b" in seen


def test_hostile_header_values_never_raise() -> None:
    for value in ["\x1b]52;c;x\x07", "v1,\ud800", "t=" + "9" * 400 + ",v1=zz", "sha256=\x00"]:
        for name in ["webhook-signature", "Stripe-Signature", "X-Hub-Signature-256"]:
            verify({name: value, "webhook-id": "x", "webhook-timestamp": "1"}, b"", "s", now=1)


@pytest.mark.parametrize(
    "timestamp", ["²", "¹", "³", "1614265330²", "١٦١٤٢٦٥٣٣٠", "1_614_265_330", "+1614265330", "-1"]
)
def test_a_timestamp_in_anything_but_ascii_digits_is_no_number(timestamp: str) -> None:
    # "²".isdigit() is true but int("²") raises; int() reads Arabic-Indic digits.
    verdict = verify(
        sw_headers(**{"webhook-timestamp": timestamp}), SW_BODY, SW_SECRET, now=SW_TIME
    )
    assert (verdict.status, verdict.scheme) == ("invalid", STANDARD)
    assert "is not a number of seconds" in verdict.reason


@pytest.mark.parametrize("t", ["²", "1614265330²", "١٦١٤٢٦٥٣٣٠"])
def test_a_stripe_time_in_anything_but_ascii_digits_is_not_a_stripe_signature(t: str) -> None:
    header = ST_HEADER.replace("t=1614265330", f"t={t}")
    verdict = verify({"Stripe-Signature": header}, ST_BODY, ST_SECRET, now=1614265330)
    assert verdict.status == "unsigned"


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), (" 42\t", 42), ("²", None), ("١٢", None), ("1_0", None), ("+1", None), ("", None)],
)
def test_ascii_int_reads_ascii_digits_only(text: str, number: int | None) -> None:
    assert ascii_int(text, 15) == number
    assert ascii_int("9" * 16, 15) is None


def test_no_header_is_read_as_a_number_but_through_ascii_int() -> None:
    # isdigit/isdecimal/isnumeric accept superscripts and other scripts' digits, which
    # int() then refuses or reads: numbers from outside go through digits.ascii_int.
    package = Path(__file__).resolve().parent.parent / "tokensales_tui"
    allowed = {"digits.py", "mask.py"}  # mask.py classifies characters, it parses nothing
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.name not in allowed
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.is(digit|decimal|numeric)\(", text)
    ]
    assert found == []


def _pairs(**changes: str) -> list[tuple[str, str]]:
    return list(sw_headers(**changes).items())


OTHER_ID = "msg_other"
OTHER_TIME = str(SW_TIME + 1)
OTHER_SIGNATURE = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="


@pytest.mark.parametrize(
    ("headers", "scheme", "name"),
    [
        ([*_pairs(), ("webhook-id", OTHER_ID)], STANDARD, "webhook-id"),
        ([("webhook-id", OTHER_ID), *_pairs()], STANDARD, "webhook-id"),
        ([*_pairs(), ("Webhook-Id", SW_ID)], STANDARD, "webhook-id"),
        ([*_pairs(), ("webhook-timestamp", OTHER_TIME)], STANDARD, "webhook-timestamp"),
        ([*_pairs(), ("webhook-signature", OTHER_SIGNATURE)], STANDARD, "webhook-signature"),
        (
            [("X-Hub-Signature-256", GH_SIGNATURE), ("x-hub-signature-256", GH_SIGNATURE)],
            GITHUB,
            "x-hub-signature-256",
        ),
        (
            [("Stripe-Signature", ST_HEADER), ("X-Signature", ST_HEADER)],
            STRIPE,
            "a t=…,v1=… signature",
        ),
    ],
)
def test_a_repeated_signed_header_makes_the_delivery_invalid_and_is_named(
    headers: list[tuple[str, str]], scheme: str, name: str
) -> None:
    body, secret, now = {
        STANDARD: (SW_BODY, SW_SECRET, SW_TIME),
        GITHUB: (GH_BODY, GH_SECRET, 0),
        STRIPE: (ST_BODY, ST_SECRET, 1614265330),
    }[scheme]
    verdict = verify(headers, body, secret, now=now)
    assert (verdict.status, verdict.scheme) == ("invalid", scheme)
    assert verdict.reason == f"{name} comes 2 times (which one counts is ambiguous)"


@pytest.mark.parametrize(
    "headers",
    [
        [*_pairs(), ("webhook-id", OTHER_ID)],
        [("webhook-id", OTHER_ID), *_pairs()],
        [*_pairs(), ("webhook-timestamp", OTHER_TIME)],
        [("webhook-signature", OTHER_SIGNATURE), *_pairs()],
        _pairs(),
    ],
)
def test_what_is_judged_valid_is_what_a_replay_signs(headers: list[tuple[str, str]]) -> None:
    # Judging and signing again read repeated headers by the same rule: a replay of a
    # delivery judged valid is valid, and one judged invalid goes out as received.
    verdict = verify(headers, SW_BODY, SW_SECRET, now=SW_TIME)
    again, resigned = resign(headers, SW_BODY, SW_SECRET, verdict, now=SW_TIME + 3600)
    assert resigned == (verdict.status == "valid")
    replayed = verify(again, SW_BODY, SW_SECRET, now=SW_TIME + 3600)
    assert replayed.status == verdict.status
    if not resigned:
        assert again == headers


def test_a_standard_id_that_is_not_utf8_is_checked_over_the_bytes_received() -> None:
    # A sender signs the id's bytes as it sent them; listen reads bytes that are not UTF-8
    # as Latin-1 text (one character a byte), and must sign those bytes, not their UTF-8.
    import base64
    import hashlib
    import hmac

    from tokensales_tui.webhooks.headers import header_text

    received = b"msg_caf\xe9"
    signed = received + f".{SW_TIME}.".encode() + SW_BODY
    digest = hmac.new(signing_key(SW_SECRET), signed, hashlib.sha256).digest()
    headers = {
        "webhook-id": header_text(received),
        "webhook-timestamp": str(SW_TIME),
        "webhook-signature": "v1," + base64.b64encode(digest).decode(),
    }
    assert verify(headers, SW_BODY, SW_SECRET, now=SW_TIME).status == "valid"
    # A replay signs the same bytes, which it sends (header_bytes).
    key = signing_key(SW_SECRET)
    resigned = standard_signature(key, header_text(received), SW_TIME, SW_BODY)
    assert resigned == headers["webhook-signature"]
    utf8 = header_text("msg_café".encode())  # the same text sent as UTF-8 is another id
    assert verify({**headers, "webhook-id": utf8}, SW_BODY, SW_SECRET, now=SW_TIME).status == (
        "invalid"
    )
