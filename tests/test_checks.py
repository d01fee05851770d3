"""Tests for the form checks and list parsers in ``tokensales_tui.checks``."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tokensales_tui.checks import (
    DETAIL_FIELDS,
    KNOWN_CHAINS,
    PAYOUT_TYPES,
    ListFileError,
    b58decode,
    chain_family,
    check_address,
    check_collection_name,
    check_email,
    check_events,
    check_http_url,
    check_list,
    check_payout_type,
    check_text,
    detail_fields,
    find_duplicates,
    load_list_file,
    parse_events,
    parse_lines,
    suggest_events,
    to_checksum_address,
)
from tokensales_tui.checks import lists as v

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58encode(data: bytes) -> str:
    """Reference encoder, written independently of the decoder under test."""
    number = int.from_bytes(data, "big")
    out = ""
    while number:
        number, digit = divmod(number, 58)
        out = B58[digit] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def flip_case(address: str, index: int) -> str:
    ch = address[index]
    return address[:index] + (ch.lower() if ch.isupper() else ch.upper()) + address[index + 1 :]


# --------------------------------------------------------------------------- EVM addresses

EIP55_MIXED = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
]
EIP55_SINGLE_CASE = [
    "0x52908400098527886E0F7030069857D2E4169EE7",
    "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
    "0xde709f2102306220921060314715629080e2fb77",
    "0x27b1fdb04752bbc536007a920d24acb045561c26",
]


@pytest.mark.parametrize("address", EIP55_MIXED + EIP55_SINGLE_CASE)
def test_eip55_vectors_are_accepted_and_reproduced(address: str) -> None:
    assert check_address(address, "ethereum") is None
    assert to_checksum_address(address.lower()) == address
    assert to_checksum_address(address) == address


@pytest.mark.parametrize("address", EIP55_MIXED)
def test_one_letter_case_flip_breaks_the_checksum(address: str) -> None:
    index = next(i for i, ch in enumerate(address) if i > 1 and ch.isalpha())
    message = check_address(flip_case(address, index), "ethereum")
    assert message is not None
    assert message.startswith("checksum does not match")
    assert address in message  # the message offers the correct form


@pytest.mark.parametrize("address", EIP55_MIXED)
def test_single_case_forms_are_accepted(address: str) -> None:
    assert check_address(address.lower(), "polygon") is None
    assert check_address("0x" + address[2:].upper(), "base") is None


def test_all_digit_address_is_accepted() -> None:
    assert check_address("0x" + "0" * 40, "ethereum") is None


@given(st.binary(min_size=20, max_size=20), st.data())
def test_random_checksummed_addresses_pass_and_any_case_flip_fails(
    raw: bytes, data: st.DataObject
) -> None:
    address = to_checksum_address("0x" + raw.hex())
    assert check_address(address, "eth") is None
    letters = [i for i, ch in enumerate(address) if i > 1 and ch.isalpha()]
    assume(letters)
    flipped = flip_case(address, data.draw(st.sampled_from(letters)))
    body = flipped[2:]
    assume(body not in (body.lower(), body.upper()))  # a single-case result carries no checksum
    assert check_address(flipped, "eth") == (
        "checksum does not match — check for a typo; the checksummed form is " + address
    )


def test_evm_messages_say_what_is_wrong() -> None:
    good = EIP55_MIXED[0]
    assert "missing the 0x prefix" in (check_address(good[2:], "ethereum") or "")
    assert check_address(good[:-1], "ethereum") == (
        "the address has 39 characters after 0x, expected 40 hex digits"
    )
    assert "41 characters" in (check_address(good + "a", "ethereum") or "")
    non_hex = check_address(good[:10] + "g" + good[11:], "ethereum") or ""
    assert "'g' (position 11) is not a hex digit" in non_hex
    assert "lower-case 0x" in (check_address("0X" + good[2:], "ethereum") or "")
    assert "Solana" in (check_address("So11111111111111111111111111111111111111112", "eth") or "")
    assert check_address("   ", "ethereum") == "enter an address"
    assert check_address(f"  {good}  ", "ethereum") is None


def test_to_checksum_address_rejects_malformed_input() -> None:
    with pytest.raises(ValueError):
        to_checksum_address("0x1234")


# --------------------------------------------------------------------------- Solana addresses


def test_solana_valid_addresses() -> None:
    assert b58decode("1" * 32) == bytes(32)
    assert check_address("1" * 32, "solana") is None
    assert check_address("So11111111111111111111111111111111111111112", "solana") is None
    assert len(b58decode("So11111111111111111111111111111111111111112")) == 32


@pytest.mark.parametrize("bad", ["0", "O", "I", "l"])
def test_solana_invalid_character_is_named_with_position(bad: str) -> None:
    address = "So111" + bad + "1111111111111111111111111111111111112"
    message = check_address(address, "solana")
    assert message is not None
    assert f"'{bad}' (position 6)" in message


def test_solana_wrong_length_reports_decoded_size() -> None:
    message = check_address("So1111111111111111111111111111111111111111", "sol")
    assert message is not None
    assert "decodes to 31 bytes, expected 32" in message
    assert "33 bytes" in (check_address("1" * 33, "solana") or "")


def test_solana_chain_rejects_an_evm_address() -> None:
    assert "EVM" in (check_address(EIP55_MIXED[0], "solana-devnet") or "")


@given(st.binary(min_size=32, max_size=32))
def test_any_32_bytes_encoded_in_base58_is_a_valid_solana_address(raw: bytes) -> None:
    encoded = b58encode(raw)
    assert b58decode(encoded) == raw
    assert check_address(encoded, "solana") is None


@given(st.binary(max_size=40))
def test_b58decode_round_trips(raw: bytes) -> None:
    assert b58decode(b58encode(raw)) == raw


def test_other_chains_only_need_a_value() -> None:
    assert check_address("tz1anything", "tezos") is None
    assert check_address("", "tezos") == "enter an address"


# --------------------------------------------------------------------------- chains


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("ethereum", "evm"),
        ("ETH", "evm"),
        ("matic", "evm"),
        ("Polygon", "evm"),
        ("bnb", "evm"),
        ("BNB Smart Chain", "evm"),
        ("avax", "evm"),
        ("arb", "evm"),
        ("arbitrum-one", "evm"),
        ("op", "evm"),
        ("sepolia", "evm"),
        ("amoy", "evm"),
        ("base-sepolia", "evm"),
        ("immutable-zkevm", "evm"),
        ("eip155:137", "evm"),
        ("solana", "solana"),
        ("SOL", "solana"),
        ("solana-devnet", "solana"),
        ("tezos", "other"),
        ("", "other"),
    ],
)
def test_chain_family(name: str, family: str) -> None:
    assert chain_family(name) == family


def test_known_chains_all_have_a_family() -> None:
    assert {"ethereum", "polygon", "solana", "immutable-zkevm"} <= set(KNOWN_CHAINS)
    assert all(chain_family(chain) in ("evm", "solana") for chain in KNOWN_CHAINS)


# --------------------------------------------------------------------------- e-mail, URLs, text


@pytest.mark.parametrize("good", ["a@example.com", "first.last+tag@sub.example.org", "ünï@ex.com"])
def test_good_emails(good: str) -> None:
    assert check_email(good) is None


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ("", "enter an e-mail address"),
        ("plainaddress", "@-sign"),
        ("a@b", "period"),
        ("a b@c.com", "invalid characters"),
        ("a@b..com", "two periods"),
    ],
)
def test_bad_emails_have_a_short_reason(bad: str, fragment: str) -> None:
    message = check_email(bad)
    assert message is not None
    assert fragment in message
    assert len(message) <= 120
    assert message[0].islower()


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/hook",
        "http://localhost:8080/x",
        "https://[::1]:8443/",
        "HTTPS://EX.COM",
    ],
)
def test_good_urls(url: str) -> None:
    assert check_http_url(url) is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("example.com/hook", "enter a full address starting with https:// (or http://)"),
        ("", "enter an address starting with https:// (or http://)"),
        ("https://", "the address has no host — expected something like https://example.com/hook"),
        (
            "https:///path",
            "the address has no host — expected something like https://example.com/hook",
        ),
        ("ftp://example.com", "the address starts with ftp:// — use https:// (or http://)"),
        ("https://exa mple.com", "the address contains a space — remove it, or write it as %20"),
        ("https://example.com:99999/", "the port must be a number from 1 to 65535"),
        ("https://a..b/", "the host has two dots in a row — check for a typo"),
    ],
)
def test_bad_urls(url: str, message: str) -> None:
    assert check_http_url(url) == message


def test_url_message_never_repeats_the_address() -> None:
    message = check_http_url("gopher://user:s3cret@example.com/?token=abc123") or ""
    assert "s3cret" not in message
    assert "abc123" not in message


def test_check_text_flags_surrogates_and_controls_by_position() -> None:
    assert check_text("ab\ud800c", "the name") == (
        "the name contains a character that cannot be sent (position 3) — delete it and type it again"
    )
    assert check_text("a\x1b[2J", "the secret") == (
        "the secret contains a control character (position 2) — remove it"
    )
    assert "a line break (position 2)" in (check_text("a\nb", "the name") or "")
    assert check_text("a\tb\r\nc", "notes", multiline=True) is None
    assert check_text("a\x00b", "notes", multiline=True) is not None
    assert check_text("a\x85b", "the name") is not None  # C1 control
    assert check_text("naïve — 名前 🎉", "the name") is None


@given(st.text(), st.integers(min_value=0xD800, max_value=0xDFFF), st.data())
def test_check_text_flags_any_lone_surrogate(
    text: str, surrogate: int, data: st.DataObject
) -> None:
    index = data.draw(st.integers(min_value=0, max_value=len(text)))
    value = text[:index] + chr(surrogate) + text[index:]
    message = check_text(value, "the secret")
    assert message is not None
    assert "cannot be sent" in message or "control character" in message
    assert chr(surrogate) not in message


# --------------------------------------------------------------------------- events


def test_parse_events_splits_trims_and_dedupes_in_order() -> None:
    assert parse_events(" item.sold, item.created\n\nitem.sold ,,asset.minted\r\n") == [
        "item.sold",
        "item.created",
        "asset.minted",
    ]
    assert parse_events("") == []


def test_check_events() -> None:
    assert check_events("item.sold, item.created") is None
    assert check_events(" , \n") is not None
    assert check_events("item.sold, item sold") == "event names have no spaces: 'item sold'"
    assert check_events("item.sold\x1b") is not None


@given(st.text())
def test_parse_events_never_returns_empty_or_duplicate_names(text: str) -> None:
    events = parse_events(text)
    assert all(event and event == event.strip() for event in events)
    assert len(events) == len(set(events))
    assert not any("," in event or "\n" in event for event in events)


def test_suggest_events_prefix_first_then_substring_excluding_entered() -> None:
    known = ["item.sold", "item.created", "listing.item", "asset.minted", "ITEM.updated"]
    assert suggest_events("item.sold, IT", known) == [
        "item.created",
        "ITEM.updated",
        "listing.item",
    ]
    assert suggest_events("", known) == known
    assert suggest_events("asset.minted\n", known) == [
        "item.sold",
        "item.created",
        "listing.item",
        "ITEM.updated",
    ]
    assert suggest_events("zzz", known) == []
    assert suggest_events("it", known, limit=1) == ["item.sold"]


# --------------------------------------------------------------------------- names, payouts


def test_collection_name() -> None:
    assert check_collection_name("x" * 24) == (None, None)
    error, warning = check_collection_name("x" * 25)
    assert error is None
    assert warning == (
        "long names are cut off in checkout modals — keep it to 24 characters or fewer (now 25)"
    )
    assert check_collection_name("   ")[0] is not None
    assert check_collection_name("a\x07")[0] is not None


@pytest.mark.parametrize(
    "name",
    [
        "\u200b\u200b",
        "\u200b\u2060\ufeff",
        "\u3164",
        " \u200d\u2800 ",
        "\u2800\u00a0",
        "\ufe0f\u034f",
    ],
)
def test_a_collection_name_that_shows_nothing_is_refused(name: str) -> None:
    # It was created, and listed as an empty name.
    error, _ = check_collection_name(name)
    assert error == "the name holds only invisible characters — type one that shows"


def test_a_collection_name_is_as_long_as_it_looks() -> None:
    # Twenty é, each an e and a combining accent: 20 characters seen, 40 code points.
    assert check_collection_name("e\u0301" * 20) == (None, None)
    assert check_collection_name("\u200bFounders") == (None, None)  # shows something
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji of five code points
    assert check_collection_name(family * 7) == (None, None)  # 7 seen, not 35
    hangul = unicodedata.normalize(
        "NFD", "서울 거리 예술 컬렉션 한정판 입장권"
    )  # as macOS pastes it
    assert len(hangul) == 46 and check_collection_name(hangul) == (None, None)  # 20 seen
    assert (
        check_collection_name("\U0001f1eb\U0001f1f7" * 12 + "\U0001f44d\U0001f3fd" * 12)[1] is None
    )


def test_payout_types_and_detail_fields() -> None:
    assert PAYOUT_TYPES == ("free", "fiat", "stablecoin", "native")
    assert [name for name, _ in DETAIL_FIELDS["fiat"]] == ["provider", "paymentProviderId"]
    assert [name for name, _ in DETAIL_FIELDS["stablecoin"]] == [
        "blockchainId",
        "tokenId",
        "spender",
    ]
    assert [name for name, _ in DETAIL_FIELDS["native"]] == ["blockchainId"]
    assert DETAIL_FIELDS["free"] == ()
    assert detail_fields("FIAT") == DETAIL_FIELDS["fiat"]
    assert detail_fields("crypto_v2") == ()


def test_check_payout_type() -> None:
    assert check_payout_type("free") is None
    assert check_payout_type("custom-type_2") is None
    assert check_payout_type("") == "choose a payout type: free, fiat, stablecoin or native"
    assert "a space (position 4)" in (check_payout_type("fia t") or "")


# --------------------------------------------------------------------------- lists


def test_parse_lines_and_duplicates() -> None:
    assert parse_lines("  a \r\n\n b\r c \n") == ["a", "b", "c"]
    lower = EIP55_MIXED[0].lower()
    assert find_duplicates([EIP55_MIXED[0], "x@Y.com", lower, "X@y.COM", "abc", "ABC"]) == [
        lower,
        "X@y.COM",
    ]


def test_check_list_reports_problems_duplicates_and_summary() -> None:
    wallets = [to_checksum_address("0x" + f"{i:040x}") for i in range(1204)]
    values = [*wallets[:10], "0x123", wallets[0].lower(), "nope", *wallets[10:], "", wallets[5]]
    report = check_list(values, lambda value: check_address(value, "ethereum"))
    assert report.valid == wallets
    assert [(p.line_no, p.value) for p in report.problems] == [
        (11, "0x123"),
        (13, "nope"),
        (1208, ""),
    ]
    assert [(d.line_no, d.message) for d in report.duplicates] == [
        (12, "already listed on line 1"),
        (1209, "already listed on line 6"),
    ]
    assert report.summary == "1,204 valid, 3 invalid, 2 duplicates"
    assert (
        check_list(["a@b.com", "A@b.com"], check_email).summary == "1 valid, 0 invalid, 1 duplicate"
    )


def test_check_list_uses_given_line_numbers() -> None:
    report = check_list(["a@b.com", "bad"], check_email, line_numbers=[3, 7])
    assert report.problems[0].line_no == 7
    with pytest.raises(ValueError):
        check_list(["a"], check_email, line_numbers=[])


# --------------------------------------------------------------------------- list files


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def test_plain_lines_with_blank_lines_keep_source_line_numbers(tmp_path: Path) -> None:
    file = write(tmp_path / "w.txt", "  0xaa \n\n0xbb\n   \n0xcc")
    imported = load_list_file(file, column_hint="wallet")
    assert imported.values == ["0xaa", "0xbb", "0xcc"]
    assert imported.line_numbers == [1, 3, 5]
    assert imported.column is None


def test_single_column_header_is_skipped(tmp_path: Path) -> None:
    file = write(tmp_path / "w.txt", "Wallets\n0xaa\n")
    imported = load_list_file(file, column_hint="wallet")
    assert (imported.values, imported.line_numbers, imported.column) == (["0xaa"], [2], "Wallets")


def test_bom_and_crlf_are_tolerated(tmp_path: Path) -> None:
    file = write(tmp_path / "e.txt", b"\xef\xbb\xbfemail\r\na@b.com\r\nc@d.com\r\n")
    imported = load_list_file(file, column_hint="email")
    assert imported.values == ["a@b.com", "c@d.com"]
    assert imported.line_numbers == [2, 3]


CSV = (
    "Name,E-mail Address,Wallet Address\r\n"
    f"Al,al@example.com,{EIP55_MIXED[0]}\r\n"
    "\r\n"
    '"Bo, Jr",bo@example,0x123\r\n'
    "Cy,,\r\n"
    f"Di,di@example.com,{EIP55_MIXED[1].lower()}\r\n"
)


@pytest.mark.parametrize(
    ("hint", "column", "values"),
    [
        ("wallet", "Wallet Address", [EIP55_MIXED[0], "0x123", EIP55_MIXED[1].lower()]),
        ("address", "Wallet Address", [EIP55_MIXED[0], "0x123", EIP55_MIXED[1].lower()]),
        ("emails", "E-mail Address", ["al@example.com", "bo@example", "di@example.com"]),
        ("e-mail", "E-mail Address", ["al@example.com", "bo@example", "di@example.com"]),
    ],
)
def test_csv_with_header_picks_the_hinted_column(
    tmp_path: Path, hint: str, column: str, values: list[str]
) -> None:
    imported = load_list_file(write(tmp_path / "people.csv", CSV), column_hint=hint)
    assert imported.column == column
    assert imported.values == values
    assert imported.line_numbers == [2, 4, 6]
    assert imported.missing_lines == [5]
    assert imported.warning is None


def test_csv_bad_lines_are_reported_with_their_numbers(tmp_path: Path) -> None:
    imported = load_list_file(write(tmp_path / "people.csv", CSV), column_hint="wallet")
    report = imported.check(lambda value: check_address(value, "ethereum"))
    assert [(p.line_no, p.value) for p in report.problems] == [(4, "0x123")]
    assert report.summary == "2 valid, 1 invalid, 0 duplicates"
    emails = load_list_file(tmp_path / "people.csv", column_hint="email").check(check_email)
    assert [p.line_no for p in emails.problems] == [4]


def test_csv_without_matching_header_warns_and_reads_a_value_column(tmp_path: Path) -> None:
    file = write(tmp_path / "x.csv", "id;owner\n1;0xaa\n2;0xbb\n")
    imported = load_list_file(file, column_hint="wallet")
    assert imported.values == ["0xaa", "0xbb"]
    assert imported.warning == "no column is named like 'wallet' — reading column 2 ('owner')"


def test_csv_without_header(tmp_path: Path) -> None:
    file = write(tmp_path / "x.csv", "0xaa,first\n0xbb,second\n")
    imported = load_list_file(file, column_hint="wallet")
    assert (imported.values, imported.line_numbers, imported.column) == (
        ["0xaa", "0xbb"],
        [1, 2],
        None,
    )


def test_empty_file_gives_an_empty_list(tmp_path: Path) -> None:
    assert load_list_file(write(tmp_path / "e.txt", "\n \n"), column_hint="wallet").values == []


def test_tilde_is_expanded(isolated_home: Path) -> None:
    write(isolated_home / "list.txt", "a@b.com\n")
    assert load_list_file("~/list.txt", column_hint="email").values == ["a@b.com"]


def test_non_utf8_file_names_the_byte_and_line(tmp_path: Path) -> None:
    file = write(tmp_path / "latin1.csv", b"email\na@b.com\n" + "jos\xe9@b.com\n".encode("latin-1"))
    with pytest.raises(ListFileError) as caught:
        load_list_file(file, column_hint="email")
    message = str(caught.value)
    assert "is not UTF-8 text: byte 0xE9 at offset 17 (line 3)" in message
    assert str(file) in message


def test_utf16_file_is_refused_clearly(tmp_path: Path) -> None:
    file = write(tmp_path / "u16.txt", "email\n".encode("utf-16"))
    with pytest.raises(ListFileError, match="UTF-16"):
        load_list_file(file, column_hint="email")


def test_missing_file_and_folder_errors_name_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    with pytest.raises(
        ListFileError, match=re.escape(f"there is no file at {missing} — check the path")
    ):
        load_list_file(missing, column_hint="wallet")
    with pytest.raises(ListFileError, match="is a folder"):
        load_list_file(tmp_path, column_hint="wallet")


def test_permission_error_names_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write(tmp_path / "locked.txt", "a@b.com\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # tests may run as root, where chmod 000 would not stop the read
    monkeypatch.setattr(v, "read_local_file", refuse)
    with pytest.raises(ListFileError, match=re.escape(f"cannot read {file}: permission denied")):
        load_list_file(file, column_hint="email")


def test_file_over_the_size_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v, "MAX_LIST_FILE_BYTES", 10)
    with pytest.raises(ListFileError, match="larger than"):
        load_list_file(write(tmp_path / "big.txt", "a@b.com\n" * 5), column_hint="email")


def test_hundred_thousand_lines_load(tmp_path: Path) -> None:
    wallets = ["0x" + os.urandom(20).hex() for _ in range(100_000)]
    file = write(
        tmp_path / "big.csv", "id,wallet\n" + "\n".join(f"{i},{w}" for i, w in enumerate(wallets))
    )
    imported = load_list_file(file, column_hint="wallet")
    assert imported.values == wallets
    assert imported.line_numbers[-1] == 100_001
    report = imported.check(lambda value: check_address(value, "ethereum"))
    assert report.summary == "100,000 valid, 0 invalid, 0 duplicates"


@pytest.mark.parametrize(
    ("host", "real"),
    [("\u0430pple.com", "xn--pple-43d.com"), ("payp\u0430l.com", "xn--paypl-7ve.com")],
)
def test_a_host_mixing_scripts_is_flagged_with_its_punycode(host: str, real: str) -> None:
    problem = check_http_url(f"https://{host}/hook") or ""
    assert "mixes Cyrillic and Latin letters" in problem and real in problem


@pytest.mark.parametrize(
    "host",
    [
        "apple.com",
        "m\u00fcller.de",
        "\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444",
        "\u65e5\u672c\u8a9e\u30c6\u30b9\u30c8.jp",
    ],
)
def test_one_script_per_name_is_fine(host: str) -> None:
    assert check_http_url(f"https://{host}/hook") is None


# --- what separates the entries of a list ---------------------------------------------

# The characters str.splitlines ends a line at, beside CR and LF.
OTHER_LINE_ENDS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


@pytest.mark.parametrize("end", OTHER_LINE_ENDS)
def test_an_entry_holding_another_line_end_stays_one_entry(end: str) -> None:
    # The events field made "item<VT>sold" two events, item and sold, from a paste: it
    # split the paste at every line end of str.splitlines. A list's entries are separated
    # by commas and CR, LF or CR LF alone; another line end is a character of the entry,
    # which its check names.
    from tokensales_tui.checks import split_lines
    from tokensales_tui.ui.forms.collections import check_entries
    from tokensales_tui.ui.forms.inputs import ListInput

    name = f"item{end}sold"
    pasted = ListInput().pasted(f"{name}\r\npayment.failed\n")
    assert pasted == f"{name}, payment.failed"
    assert parse_events(pasted) == [name, "payment.failed"]
    assert check_events(pasted) is not None  # a control character, or a space
    assert suggest_events(f"{name}, pay", ["payment.failed", "item"]) == ["payment.failed"]
    assert split_lines(f"a{end}b\r\nc\rd\ne") == [f"a{end}b", "c", "d", "e"]
    # A list kept whole is checked entry by entry as it is sent (parse_lines).
    report = check_entries(f"0xab{end}cd\nok@example.com", lambda value: None)
    assert report.valid == [f"0xab{end}cd", "ok@example.com"]
    assert parse_lines(f"0xab{end}cd\nok@example.com") == report.valid


def test_listen_reads_its_events_by_the_rule_of_the_form() -> None:
    from tokensales_tui.cli import build_parser
    from tokensales_tui.webhooks.listen import ListenError, options_from

    def events(text: str) -> list[str]:
        args = build_parser().parse_args(["listen", "--register", "https://a.example/h"])
        args.events = text
        return options_from(args).events

    assert events("item.sold,\npayment.failed, item.sold") == ["item.sold", "payment.failed"]
    with pytest.raises(ListenError, match="--events: .*control character"):
        events("item\x0bsold")


def test_what_a_person_types_is_split_into_lines_by_one_rule() -> None:
    # str.splitlines ends a line at characters no editor shows as one (VT, NEL, U+2028…):
    # what a person types or pastes is split by checks.split_lines / split_list only.
    import inspect

    import tokensales_tui

    root = Path(inspect.getfile(tokensales_tui)).parent
    places = [
        *(root / "checks").glob("*.py"),
        *(root / "ui" / "forms").glob("*.py"),
        *(root / "ui" / "widgets").glob("*.py"),
        *(root / "script").glob("*.py"),
        root / "webhooks" / "listen.py",
        root / "webhooks" / "listen_flags.py",
        root / "ui" / "commands.py",
    ]
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in places
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if ".splitlines(" in text and not text.lstrip().startswith("#")
    ]
    assert found == []
