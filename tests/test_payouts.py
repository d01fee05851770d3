"""The local record of payout definitions added from this app."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from tokensales_tui import config
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Item
from tokensales_tui.files import LOCK_WAIT, lock_path
from tokensales_tui.payouts import (
    ITEMS_NAMED,
    MAX_RECORD_BYTES,
    PayoutAdd,
    PayoutRecord,
    PayoutRecordError,
    legacy_record_path,
    payout_rows,
    record_path,
    safe_profile_name,
)

URL = "https://api.example.com"
FREE = {"type": "free", "name": "Free"}
FIAT = {"type": "fiat", "name": "Cards", "fiatDetails": {"provider": "stripe"}}


def test_a_new_profile_has_an_empty_record() -> None:
    record = PayoutRecord.for_service("staging", URL)
    assert record.load() == []
    assert not record_path("staging", URL).exists()


def test_added_definitions_are_kept_in_order_with_the_time() -> None:
    record = PayoutRecord.for_service("staging", URL)
    record.add(FREE, added_at="2025-01-01T00:00:00Z")
    record.add(FIAT, added_at="2025-01-02T00:00:00Z")
    again = PayoutRecord.for_service("staging", URL).load()
    assert again == [
        {**FREE, "addedAt": "2025-01-01T00:00:00Z"},
        {**FIAT, "addedAt": "2025-01-02T00:00:00Z"},
    ]
    path = record_path("staging", URL)
    assert path.parent == config.data_dir() / "payouts"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["version"] == 1


def test_profiles_have_separate_records() -> None:
    PayoutRecord.for_service("a", URL).add(FREE)
    assert PayoutRecord.for_service("b", URL).load() == []


@pytest.mark.parametrize("name", ["prod", "eu-west_2"])
def test_plain_profile_names_are_the_file_names(name: str) -> None:
    assert safe_profile_name(name) == name


@pytest.mark.parametrize("name", ["../etc", "a/b", "", ".", "naïve", "x" * 80, "a b"])
def test_other_names_are_made_safe_and_distinct(name: str) -> None:
    safe = safe_profile_name(name)
    assert safe and "/" not in safe and not safe.startswith(".") and len(safe) <= 60
    assert record_path(name, URL).parent == config.data_dir() / "payouts"
    assert safe != safe_profile_name(name + "!")


@pytest.mark.parametrize(
    "damage",
    [
        b'{"version": 1, "definitions": [',
        b'{"version": 1, "definitions": [{"type": "free", "name": "\xff\xfe"}]}',  # not UTF-8
        # Nested deeper than the decoder goes: its RecursionError ended the add.
        pytest.param(
            b'{"version": 1, "definitions": [{"x": ' + b"[" * 5000 + b"]" * 5000 + b"}]}",
            id="nested-too-deep",
        ),
    ],
)
def test_a_damaged_file_is_reported_and_never_overwritten(damage: bytes) -> None:
    path = record_path("prod", URL)
    path.parent.mkdir(parents=True)
    path.write_bytes(damage)
    record = PayoutRecord.for_service("prod", URL)
    with pytest.raises(PayoutRecordError, match="damaged.*not overwritten"):
        record.load()
    with pytest.raises(PayoutRecordError, match="damaged"):
        record.add(FREE)
    assert path.read_bytes() == damage


def test_a_newer_version_is_left_alone() -> None:
    path = record_path("prod", URL)
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 2, "definitions": []}')
    with pytest.raises(PayoutRecordError, match="version 2"):
        PayoutRecord.for_service("prod", URL).add(FREE)
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
        record = PayoutRecord.for_service("shared", URL)
        for index in range(15):
            record.add({"type": "free", "name": f"{tag}{index}"})

    threads = [threading.Thread(target=add_many, args=(tag,)) for tag in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = {d["name"] for d in PayoutRecord.for_service("shared", URL).load()}
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


# --- one record per profile and service --------------------------------------------------


def test_two_services_never_share_a_record_even_under_one_profile_name() -> None:
    # A session from the environment alone is named "default", as a profile of that name;
    # TOKENSALES_BASE_URL with --profile other talks to another service under "other".
    PayoutRecord.for_service("default", URL).add(FREE)
    other = "https://staging.example.com/"
    assert PayoutRecord.for_service("default", other).load() == []
    assert record_path("default", other) != record_path("default", URL)
    assert record_path("default", URL + "/") == record_path("default", URL)
    stored = json.loads(record_path("default", URL).read_text())
    assert stored["service"] == URL


def test_a_record_of_another_service_is_reported_and_never_overwritten() -> None:
    path = record_path("prod", URL)
    path.parent.mkdir(parents=True)
    foreign = b'{"version": 1, "service": "https://else.example.com", "definitions": []}'
    path.write_bytes(foreign)  # copied by hand, say
    with pytest.raises(PayoutRecordError, match="belongs to the service 'https://else"):
        PayoutRecord.for_service("prod", URL).add(FREE)
    assert path.read_bytes() == foreign


def test_a_record_from_before_is_taken_over_whole_by_the_profiles_own_service() -> None:
    legacy = legacy_record_path("prod")
    legacy.parent.mkdir(parents=True)
    before = {"version": 1, "definitions": [{**FREE, "addedAt": "2025-01-01T00:00:00Z"}]}
    legacy.write_text(json.dumps(before))
    # an address put in the profile's place by a variable or a flag: not its record
    assert PayoutRecord.for_service("prod", "https://else.example.com", own=False).load() == []
    PayoutRecord.for_service("prod", "https://else.example.com", own=False).add(FIAT)
    assert legacy.exists()
    own = PayoutRecord.for_service("prod", URL)
    assert own.load() == before["definitions"]  # read before any add
    own.add(FIAT, added_at="2025-01-02T00:00:00Z")
    assert not legacy.exists()
    assert PayoutRecord.for_service("prod", URL).load() == [
        *before["definitions"],
        {**FIAT, "addedAt": "2025-01-02T00:00:00Z"},
    ]


def dashed_record_path(profile: str, base_url: str) -> Path:
    """The name records had first: ``<profile>--<hash of the service>.json``."""
    digest = hashlib.sha256(base_url.rstrip("/").encode()).hexdigest()[:12]
    return config.data_dir() / "payouts" / f"{profile}--{digest}.json"


def _named_as_a_record(profile: str) -> str:
    """A profile name whose record from before has the name the record of ``profile``
    on :data:`URL` had: ``emu--<hash of URL>``."""
    return dashed_record_path(profile, URL).stem


def test_no_profile_name_makes_its_record_anothers() -> None:
    # `emu--1bb6ac85bd0a` was a valid profile name whose record from before was the file
    # of `emu` on the service with that hash: each of its adds was refused ("belongs to
    # the service …") until it had a record of its own.
    twin = _named_as_a_record("emu")
    for profile in ("emu", twin, "a.b", "emu.x"):
        assert "." not in safe_profile_name(profile)
    assert legacy_record_path(twin) != record_path("emu", URL)
    PayoutRecord.for_service("emu", URL).add(FREE, added_at="2025-01-01T00:00:00Z")
    PayoutRecord.for_service(twin, URL).add(FIAT, added_at="2025-01-02T00:00:00Z")
    assert [d["name"] for d in PayoutRecord.for_service("emu", URL).load()] == ["Free"]
    assert [d["name"] for d in PayoutRecord.for_service(twin, URL).load()] == ["Cards"]


def test_a_record_under_its_earlier_name_is_read_and_taken_over_at_the_next_add() -> None:
    dashed = dashed_record_path("emu", URL)
    dashed.parent.mkdir(parents=True)
    before = {
        "version": 1,
        "service": URL,
        "definitions": [{**FREE, "addedAt": "2025-01-01T00:00:00Z"}],
    }
    dashed.write_text(json.dumps(before))
    # the profile named as that file reads it as another's, not as its own from before
    assert PayoutRecord.for_service(dashed.stem, "https://else.example.com").load() == []
    record = PayoutRecord.for_service("emu", URL)
    assert record.load() == before["definitions"]
    record.add(FIAT, added_at="2025-01-02T00:00:00Z")
    assert not dashed.exists()
    assert [d["name"] for d in PayoutRecord.for_service("emu", URL).load()] == ["Free", "Cards"]


def test_a_record_from_before_of_a_profile_named_as_a_dashed_name_stays_its_own() -> None:
    twin = _named_as_a_record("emu")
    legacy = legacy_record_path(twin)
    legacy.parent.mkdir(parents=True)
    legacy.write_text(json.dumps({"version": 1, "definitions": [FREE]}))
    assert PayoutRecord.for_service("emu", URL).load() == []  # not emu's: names no service
    PayoutRecord.for_service("emu", URL).add(FIAT)
    assert legacy.exists()
    assert [d["name"] for d in PayoutRecord.for_service(twin, URL).load()] == ["Free"]


# --- ready before sending ---------------------------------------------------------------


def test_a_lock_that_cannot_be_made_is_named_not_the_record() -> None:
    # The lock folder read-only or in the way said "the payout record …/local.json could
    # not be written: Read-only file system".
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "tokensales-tui"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("")  # a file where the lock folder should be: fails even for root
    record = PayoutRecord.for_service("prod", URL)
    with pytest.raises(PayoutRecordError) as raised:
        record.add(FREE)
    message = str(raised.value)
    assert "cannot be locked: its lock" in message and str(cache / "locks") in message
    assert "could not be written" not in message


def test_a_lock_held_by_another_process_is_waited_for_a_bounded_time_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tokensales_tui.files
    from tokensales_tui.files import lock_path, locked

    monkeypatch.setattr(tokensales_tui.files, "LOCK_WAIT", 1.0)
    record = PayoutRecord.for_service("held", URL)
    assert record.path is not None
    said: list[Path] = []
    held = r"is in use \(its lock .*: held by another process for 1 s\)"
    with (
        locked(record.path),  # as another process would hold it
        pytest.raises(PayoutRecordError, match=held) as raised,
        record.adding(FREE, waiting=said.append),
    ):
        pytest.fail("the block ran without the lock")
    assert raised.value.busy and said == [lock_path(record.path)] and record.load() == []
    record.add(FREE)
    assert [entry["name"] for entry in record.load()] == ["Free"]


def test_an_add_that_would_make_the_record_too_large_is_refused_before_anything() -> None:
    path = record_path("prod", URL)
    PayoutRecord.for_service("prod", URL).add(FREE, added_at="2025-01-01T00:00:00Z")
    size = len(path.read_bytes())
    padding = MAX_RECORD_BYTES - size - 40  # room left: less than another definition
    big = {"type": "free", "name": "x" * padding}
    with pytest.raises(PayoutRecordError, match="is full"):
        PayoutRecord.for_service("prod", URL).add(big)
    reached = []
    with (
        pytest.raises(PayoutRecordError, match="is full"),
        PayoutRecord.for_service("prod", URL).adding(big),
    ):
        reached.append("sent")  # the body of the block is where the definition goes
    assert not reached
    assert len(path.read_bytes()) == size


@pytest.mark.parametrize("kind", ["damaged", "fifo", "folder"])
def test_a_record_that_cannot_be_used_stops_an_add_before_its_block_runs(kind: str) -> None:
    path = record_path("prod", URL)
    path.parent.mkdir(parents=True)
    if kind == "damaged":
        path.write_bytes(b"{")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    reached = []
    with pytest.raises(PayoutRecordError), PayoutRecord.for_service("prod", URL).adding(FREE):
        reached.append("sent")
    assert not reached


def test_a_block_that_records_nothing_or_fails_leaves_the_record_as_it_was() -> None:
    record = PayoutRecord.for_service("prod", URL)
    record.add(FREE)
    before = record_path("prod", URL).read_bytes()
    with record.adding(FIAT):
        pass  # the service refused it, say: nothing to record
    with pytest.raises(RuntimeError), record.adding(FIAT):
        raise RuntimeError
    assert record_path("prod", URL).read_bytes() == before
    assert sorted(p.name for p in record_path("prod", URL).parent.iterdir()) == [
        record_path("prod", URL).name
    ]


# --- PayoutAdd: the same add for an event loop, each file step in a thread ------------


async def test_an_add_abandoned_while_its_lock_is_waited_for_lets_it_go_once_taken() -> None:
    record = PayoutRecord.for_service("staging", URL)
    lock = lock_path(record_path("staging", URL))
    lock.parent.mkdir(parents=True, exist_ok=True)
    waited: list[Path] = []
    with lock.open("wb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        add = PayoutAdd(record, FREE, waiting=waited.append)
        readying = asyncio.ensure_future(add.ready())
        for _ in range(500):  # said on the loop, which goes on meanwhile
            if waited:
                break
            await asyncio.sleep(0.01)
        assert waited == [lock]
        readying.cancel()
        with pytest.raises(asyncio.CancelledError):
            await readying
        assert add.done and not add.in_flight
        fcntl.flock(holder, fcntl.LOCK_UN)
    await asyncio.wait_for(asyncio.to_thread(record.add, FIAT), timeout=LOCK_WAIT)
    assert [d["name"] for d in record.load()] == ["Cards"]


async def test_an_answered_add_is_written_even_if_its_caller_is_cancelled_at_once() -> None:
    record = PayoutRecord.for_service("staging", URL)
    outcomes: list[PayoutRecordError | None] = []
    add = PayoutAdd(record, FREE, written=outcomes.append)
    await add.ready()
    assert add.in_flight

    async def answered_then_cancelled() -> None:
        add.answered("2025-01-01T00:00:00Z")
        add.abandon()  # what a cancelled form does: nothing, once answered
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await asyncio.ensure_future(answered_then_cancelled())
    await asyncio.wait_for(add.over(), timeout=LOCK_WAIT)
    assert outcomes == [None]
    assert record.load() == [{**FREE, "addedAt": "2025-01-01T00:00:00Z"}]


async def test_an_add_refused_by_its_record_says_why_and_leaves_it_alone() -> None:
    path = record_path("staging", URL)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{not json")
    add = PayoutAdd(PayoutRecord.for_service("staging", URL), FREE)
    with pytest.raises(PayoutRecordError, match="is damaged"):
        await add.ready()
    assert add.done and not add.in_flight
    assert path.read_bytes() == b"{not json"
