"""Rows of a list decoded as it arrives share the spool region they came from.

Each stretch the splitter cuts is decoded in one call; the rows keep their region and
their place in it, and read their exact JSON back from it, one by one or in bulk.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tokensales_tui.api import UnexpectedResponse, arriving, stream
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.listing import StreamedList
from tokensales_tui.api.models import Item, Webhook, raw_texts
from tokensales_tui.api.spool import Region, Spooled
from tokensales_tui.ui.export import export_rows
from tokensales_tui.ui.resources import row_content

from .test_rows_arrive import FakeResponse, read_streamed


def item(number: int) -> dict[str, Any]:
    return {
        "id": f"item-{number:05}",
        "title": f"Item {number} \u00e9 \U0001f600",
        "currency": ["USD", "EUR"][number % 2],
        "price": number / 8,
        "description": f"Description {number % 3}",
        "imageUrl": f"https://cdn/{number % 5}.png",
        "payout": {"type": "fiat", "paymentProviderConnectedAccountId": f"acct_{number % 4}"},
        "contractFunction": {
            "functionSignature": "mint(address)",
            "contract": {"address": f"0x{number % 3}", "abi": [{"name": "mint"}]},
        },
        "extra": {"n": number, "list": [1, 2, {"deep": "x"}]},
    }


LISTED = [item(n) for n in range(400)]


def element_texts(body: bytes) -> list[bytes]:
    """Each element's text as it lies in ``body``."""
    decoded = stream.msgspec.json.Decoder(dict[str, list[stream.msgspec.Raw]]).decode(body)
    return [bytes(raw) for raw in decoded["items"]]


@pytest.mark.parametrize("indent", [None, 1])
async def test_rows_of_a_region_read_back_their_exact_text(
    indent: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)  # many regions
    body = json.dumps({"items": LISTED}, indent=indent).encode()
    rows = await read_streamed(body, Item)
    regions = {id(row._kept) for row in rows}
    assert all(row._kept.__class__ is Region for row in rows)
    assert 10 < len(regions) < len(rows)  # a region holds many rows
    texts = element_texts(body)
    assert [row.raw_text for row in rows] == texts
    assert [row.raw for row in rows] == LISTED
    assert raw_texts(rows) == texts
    assert isinstance(rows[9]._source, Spooled) and rows[9]._source.text() == texts[9]
    assert row_content(rows[9]) == texts[9]


async def test_rows_read_back_in_bulk_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    body = json.dumps({"items": LISTED}).encode()
    rows = await read_streamed(body, Item)
    order = list(range(len(rows)))
    random.Random(7).shuffle(order)
    shuffled = [rows[i] for i in order]
    texts = element_texts(body)
    assert raw_texts(shuffled) == [texts[i] for i in order]
    # Read again once each region knows where its elements lie.
    assert raw_texts(rows[::-1]) == texts[::-1]


async def test_items_share_nested_objects_and_repeated_strings() -> None:
    rows = await read_streamed(json.dumps(LISTED).encode(), Item)
    assert rows[0].description is rows[3].description
    assert rows[0].image_url is rows[5].image_url
    assert rows[0].currency is rows[2].currency
    assert rows[0].payout is rows[4].payout
    assert rows[0].contract_function is rows[3].contract_function
    assert rows[1].payout is not rows[2].payout
    # Texts of one length told apart by their bytes, not by their length.
    accounts = [row.payout.payment_provider_connected_account_id for row in rows]
    assert accounts == [f"acct_{n % 4}" for n in range(len(rows))]
    addresses = [row.contract_function.contract.address for row in rows]
    assert addresses == [f"0x{n % 3}" for n in range(len(rows))]


async def test_the_event_loop_counts_a_stretch_at_a_time_between_two_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No thread decodes: the reading would wait for the thread's turn to end at every
    # read of the socket. The event loop counts one stretch between two reads, then
    # decodes the rows not read yet a few stretches at a time, and whatever else waits
    # on it (keys, frames) runs in between.
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(arriving, "FILL_BYTES", 8192)
    body = json.dumps({"items": LISTED}).encode()
    piece = 997
    calls: list[tuple[str, int, int]] = []  # thread, size, turns of the other task so far
    filled: list[tuple[str, int, int]] = []  # thread, rows, turns
    turns = 0
    count, decode = ListParser.count_region, ListParser.decode_regions

    def spy(self: ListParser, text: bytes) -> Any:
        calls.append((threading.current_thread().name, len(text), turns))
        return count(self, text)

    def decode_spy(self: ListParser, regions: Any, counts: Any) -> Any:
        filled.append((threading.current_thread().name, sum(counts), turns))
        return decode(self, regions, counts)

    async def other_task() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start : start + piece]
            await asyncio.sleep(0)  # as a read of a socket lets the loop run others

    monkeypatch.setattr(ListParser, "count_region", spy)
    monkeypatch.setattr(ListParser, "decode_regions", decode_spy)
    other = asyncio.get_running_loop().create_task(other_task())

    def shown(what: str, arrival: StreamedList) -> None:
        """Watched, as the Items tab watches it: counted as it arrives."""

    listing = StreamedList(Item, "items", FakeResponse(), shown)  # type: ignore[arg-type]
    await listing.consume(pieces())
    rows = await arriving.whole(await listing.result())
    other.cancel()
    assert [row.id for row in rows] == [entry["id"] for entry in LISTED]
    assert {name for name, _, _ in calls} == {threading.main_thread().name}
    assert max(size for _, size, _ in calls) <= 4096 + piece + 2
    seen = [turn for _, _, turn in calls]
    assert len(calls) > 20 and len(set(seen)) > len(calls) // 2  # turns came between
    assert {name for name, _, _ in filled} == {threading.main_thread().name}
    assert sum(count for _, count, _ in filled) == len(LISTED)
    assert len(filled) > 3 and len({turn for _, _, turn in filled}) == len(filled)


async def test_invalid_utf8_in_a_field_no_model_names_refuses_the_list() -> None:
    # Every route checks the whole body as it arrives: a byte no model reads too.
    body = b'[{"id":"w1","url":"https://h","events":[],"note":"a\xffb"},{"id":"w2","url":"u"}]'
    with pytest.raises(UnexpectedResponse, match="the body is not UTF-8"):
        await read_streamed(body, Webhook)


async def test_an_export_writes_a_lone_surrogate_replaced(tmp_path: Path) -> None:
    body = b'[{"id":"w1","url":"https://h","events":[],"note":"a\\ud800b"},{"id":"w2","url":"u"}]'
    rows = await read_streamed(body, Webhook)
    path = tmp_path / "out.jsonl"
    export_rows(path, "jsonl", [], rows, lambda row: row.raw, raw_texts=raw_texts)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [rows[0].raw, rows[1].raw]
    assert lines[1] == '{"id": "w2", "url": "u"}'  # as sent, on one line


async def test_an_export_keeps_numbers_as_sent_even_those_no_float_holds(tmp_path: Path) -> None:
    body = b'[{"id":"w1","url":"u","events":[],"huge":1e999,"big":12345678901234567890123}]'
    rows = await read_streamed(body, Webhook)
    path = tmp_path / "out.jsonl"
    export_rows(path, "jsonl", [], rows, lambda row: row.raw, raw_texts=raw_texts)
    assert path.read_text() == (
        '{"id": "w1", "url": "u", "events": [], "huge": 1e999, "big": 12345678901234567890123}\n'
    )


async def test_an_export_reads_rows_in_bulk_and_writes_each_text_as_sent_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "SPLIT_BYTES", 4096)
    body = json.dumps({"items": LISTED}, indent=2).encode()  # over many lines, \u escapes
    rows = await read_streamed(body, Item)
    rows = rows[200:] + rows[:200]
    reads: list[int] = []

    def bulk(batch: Any) -> list[bytes | None]:
        reads.append(len(batch))
        return raw_texts(batch)

    for kind in ("json", "jsonl"):
        one, many = tmp_path / f"one.{kind}", tmp_path / f"many.{kind}"
        export_rows(one, kind, [], rows, lambda row: row.raw)
        export_rows(many, kind, [], rows, lambda row: row.raw, raw_texts=bulk)
        if kind == "json":
            assert json.loads(many.read_text()) == json.loads(one.read_text())
        else:
            written = many.read_text().splitlines()
            assert [json.loads(line) for line in written] == [row.raw for row in rows]
            sent = [json.dumps(row.raw) for row in rows]  # ASCII, as the body has it
            assert written == sent
    assert reads == [len(rows), len(rows)]
    assert json.loads((tmp_path / "many.json").read_text())[0] == LISTED[200]


async def test_a_full_disk_while_the_body_is_spooled_keeps_it_in_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It failed the load; the text is now kept in memory where the disk refuses it.
    from tokensales_tui.api import spool

    def full(fileno: int, view: memoryview) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(spool, "_write_all", full)
    rows = await read_streamed(json.dumps(LISTED).encode(), Item)
    assert [row.id for row in rows] == [listed["id"] for listed in LISTED]
    assert rows[-1].raw == LISTED[-1]  # its text read back from memory


def test_reads_wait_for_the_writing_thread() -> None:
    from tokensales_tui.api.spool import Spool

    pieces = [bytes([65 + n % 26]) * 70_000 for n in range(200)]
    kept = Spool()
    for piece in pieces:
        kept.append_soon(piece)
    assert kept.read(199 * 70_000, 3) == pieces[-1][:3]  # waited for the last piece
    assert bytes(kept.whole()) == b"".join(pieces)


async def test_an_item_keeps_its_nested_objects_in_the_fields_that_read_them() -> None:
    """The payout and contract function take the place of the text they were decoded
    from (no second field per item), and a key of the server's cannot set them."""
    sent = [
        item(0),
        {**item(1), "payout": None, "contractFunction": None},
        {**item(3), "__tokensales_tui_payout__": {"type": "native"}},
    ]
    rows = await read_streamed(json.dumps({"items": sent}).encode(), Item)
    names = {field.encode_name for field in stream.msgspec.structs.fields(Item)}
    assert {"payout", "contractFunction"} <= names
    assert not any("payout" in name and name != "payout" for name in names)
    assert rows[0].payout is not None and rows[0].payout.type == "fiat"
    assert rows[0].contract_function is not None
    assert rows[0].contract_function.function_signature == "mint(address)"
    assert rows[1].payout is None and rows[1].contract_function is None
    assert rows[2].payout is not None and rows[2].payout.type == "fiat"
    assert rows[0].contract_function is rows[2].contract_function  # equal: one object


def test_a_read_does_not_wait_for_ever_on_a_stuck_or_failed_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.api import spool as spool_module

    stuck = threading.Event()
    monkeypatch.setattr(spool_module, "WRITE_WAIT", 0.2)
    monkeypatch.setattr(spool_module, "_write_all", lambda fileno, view: stuck.wait(5))
    kept = spool_module.Spool()
    kept.append_soon(b"x" * 100)
    with pytest.raises(OSError, match="took no data"):
        kept.read(0, 10)
    stuck.set()

    def broken(fileno: int, view: memoryview) -> None:
        raise ValueError("not an OSError")

    monkeypatch.setattr(spool_module, "_write_all", broken)
    failed = spool_module.Spool()
    failed.append_soon(b"y" * 100)
    with pytest.raises(OSError, match="not an OSError"):
        failed.read(0, 10)
