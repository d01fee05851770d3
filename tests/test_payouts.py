"""The local record of payout definitions added from this app."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from tokensales_tui import config
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Item
from tokensales_tui.payouts import (
    ITEMS_NAMED,
    PayoutRecord,
    PayoutRecordError,
    payout_rows,
    record_path,
    safe_profile_name,
)

FREE = {"type": "free", "name": "Free"}
FIAT = {"type": "fiat", "name": "Cards", "fiatDetails": {"provider": "stripe"}}


def test_a_new_profile_has_an_empty_record() -> None:
    record = PayoutRecord.for_profile("staging")
    assert record.load() == []
    assert not record_path("staging").exists()


def test_added_definitions_are_kept_in_order_with_the_time() -> None:
    record = PayoutRecord.for_profile("staging")
    record.add(FREE, added_at="2025-01-01T00:00:00Z")
    record.add(FIAT, added_at="2025-01-02T00:00:00Z")
    again = PayoutRecord.for_profile("staging").load()
    assert again == [
        {**FREE, "addedAt": "2025-01-01T00:00:00Z"},
        {**FIAT, "addedAt": "2025-01-02T00:00:00Z"},
    ]
    path = record_path("staging")
    assert path.parent == config.data_dir() / "payouts"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["version"] == 1


def test_profiles_have_separate_records() -> None:
    PayoutRecord.for_profile("a").add(FREE)
    assert PayoutRecord.for_profile("b").load() == []


@pytest.mark.parametrize("name", ["prod", "eu-west_2"])
def test_plain_profile_names_are_the_file_names(name: str) -> None:
    assert safe_profile_name(name) == name


@pytest.mark.parametrize("name", ["../etc", "a/b", "", ".", "naïve", "x" * 80, "a b"])
def test_other_names_are_made_safe_and_distinct(name: str) -> None:
    safe = safe_profile_name(name)
    assert safe and "/" not in safe and not safe.startswith(".") and len(safe) <= 60
    assert record_path(name).parent == config.data_dir() / "payouts"
    assert safe != safe_profile_name(name + "!")


@pytest.mark.parametrize(
    "damage",
    [
        b'{"version": 1, "definitions": [',
        b'{"version": 1, "definitions": [{"type": "free", "name": "\xff\xfe"}]}',  # not UTF-8
    ],
)
def test_a_damaged_file_is_reported_and_never_overwritten(damage: bytes) -> None:
    path = record_path("prod")
    path.parent.mkdir(parents=True)
    path.write_bytes(damage)
    record = PayoutRecord.for_profile("prod")
    with pytest.raises(PayoutRecordError, match="damaged.*not overwritten"):
        record.load()
    with pytest.raises(PayoutRecordError, match="damaged"):
        record.add(FREE)
    assert path.read_bytes() == damage


def test_a_newer_version_is_left_alone() -> None:
    path = record_path("prod")
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 2, "definitions": []}')
    with pytest.raises(PayoutRecordError, match="version 2"):
        PayoutRecord.for_profile("prod").add(FREE)
    assert json.loads(path.read_text())["version"] == 2


def test_an_unwritable_place_is_an_error_not_a_crash(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a file where the folder should be: fails even for root
    record = PayoutRecord(blocker / "x.json")
    with pytest.raises(PayoutRecordError, match="could not be written"):
        record.add(FREE)
    with pytest.raises(PayoutRecordError, match="cannot be read"):
        record.load()


def test_two_writers_at_once_both_keep_their_definitions() -> None:
    # Separate objects, as two app instances would have; the lock and re-read do the work.
    def add_many(tag: str) -> None:
        record = PayoutRecord.for_profile("shared")
        for index in range(15):
            record.add({"type": "free", "name": f"{tag}{index}"})

    threads = [threading.Thread(target=add_many, args=(tag,)) for tag in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = {d["name"] for d in PayoutRecord.for_profile("shared").load()}
    assert names == {f"{tag}{i}" for tag in "ab" for i in range(15)}


def test_the_in_memory_record_touches_no_file() -> None:
    record = PayoutRecord.in_memory()
    entry = record.add(FREE)
    assert record.load() == [entry] and entry["name"] == "Free" and "addedAt" in entry
    assert not (config.data_dir() / "payouts").exists()


def test_added_rows_show_newest_first_and_keep_their_ids_when_another_is_added() -> None:
    record = PayoutRecord.in_memory()
    record.add(FREE)
    before = {row.name: row.id for row in payout_rows([], record.load())}
    record.add(FIAT)
    rows = payout_rows([], record.load())
    assert [row.name for row in rows] == ["Cards", "Free"]
    assert {row.name: row.id for row in rows}["Free"] == before["Free"] == "added-1"
    assert rows[0].id == "added-2"


def test_payout_settings_in_use_are_counted_most_used_first_naming_their_first_items() -> None:
    settings = [
        {"type": "free"},
        {"type": "fiat", "paymentProviderConnectedAccountId": "acct_1"},
        {"type": "fiat", "paymentProviderConnectedAccountId": "acct_2"},
    ]
    uses = [0] * 40 + [1] * 130 + [2] * 3 + [0] * 40 + [None] * 5  # interleaved below
    uses = uses[::2] + uses[1::2]
    listed = [
        {"id": f"item-{n}", "title": f"Item {n}", "price": 1, "currency": "USD"}
        | ({} if use is None else {"payout": settings[use]})
        for n, use in enumerate(uses)
    ]
    items = ListParser(Item, "items", 200, "application/json")(
        json.dumps({"items": listed}).encode()
    )
    rows = payout_rows(items)
    assert [(row.account, row.used_by) for row in rows] == [
        ("acct_1", 130),
        ("", 80),
        ("acct_2", 3),
    ]
    for row, use in zip(rows, (1, 0, 2), strict=True):
        named = [obj["id"] for obj, n in zip(listed, uses, strict=True) if n == use]
        assert row.raw["items"] == named[:ITEMS_NAMED]
        assert row.raw["usedBy"] == len(named)
        assert row.raw["payout"] == settings[use]
