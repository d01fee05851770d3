"""Listed objects keep their JSON text in a temporary file, not the response body in memory."""

from __future__ import annotations

import gc
import json
import os
import stat
import weakref
from typing import Any

import pytest

from tokensales_tui.api import models
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Item, Webhook
from tokensales_tui.api.spool import Spool, Spooled
from tokensales_tui.ui.resources import row_content


class Body(bytearray):
    """A response body that can be watched for when it is freed."""


def item(number: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"item-{number}",
        "title": f"Item {number} \u00e9",
        "currency": "USD",
        "price": number / 4,
        "payout": {"type": "crypto", "blockchainId": "polygon"},
        "contractFunction": {
            "functionSignature": "mint(address)",
            "contract": {"address": "0xabc", "abi": [{"name": "mint", "inputs": []}]},
        },
        **extra,
    }


def test_the_spool_is_private_and_reads_back_each_text() -> None:
    spool = Spool()
    marks = spool.add([b'{"a":1}', b"[]", b'"\xc3\xa9"'])
    assert [mark.text() for mark in marks] == [b'{"a":1}', b"[]", b'"\xc3\xa9"']
    assert [len(mark) for mark in marks] == [7, 2, 4]
    more = spool.add([b"{}"])
    assert more[0].text() == b"{}" and spool.size == 15
    mode = os.fstat(spool.fileno()).st_mode
    assert stat.S_IMODE(mode) == 0o600
    assert os.fstat(spool.fileno()).st_nlink == 0  # no name anyone could open


def test_elements_read_back_as_one_array_in_place() -> None:
    spool = Spool()
    spool.append(b'{"items":[{"a":1},\n {"b":2}]}')
    assert spool.read_array(10, 17) == b'[{"a":1},\n {"b":2}]'
    assert spool.read_array(10, 0) == b"[]"
    with pytest.raises(OSError, match="ends before byte 40"):
        spool.read_array(10, 30)  # past what the file holds


@pytest.mark.parametrize("wrapped", [False, True])
def test_listed_items_keep_no_part_of_the_body(wrapped: bool) -> None:
    listed = [item(n, extraField={"n": n}) for n in range(300)]
    body = Body(json.dumps({"items": listed} if wrapped else listed).encode())
    watcher = weakref.ref(body)
    parse = ListParser(Item, "items", 200, "application/json")
    rows = parse(body)  # type: ignore[arg-type]
    del body
    gc.collect()
    assert watcher() is None, "a row still holds the response body"
    assert all(isinstance(row._source, Spooled) for row in rows)
    assert rows[7].raw == listed[7]  # every field, those the model does not name too
    assert rows[7].contract_function is rows[8].contract_function  # shared
    assert rows[7].contract_function.contract.abi == [{"name": "mint", "inputs": []}]
    assert json.loads(row_content(rows[5])) == listed[5]


def test_a_reload_tells_changed_rows_by_their_spooled_text() -> None:
    parse = ListParser(Webhook, "webhooks", 200, "application/json")
    hooks = [{"id": f"w{n}", "url": f"https://h/{n}", "events": []} for n in range(3)]
    before = parse(json.dumps(hooks).encode())
    hooks[1]["url"] = "https://h/changed"
    after = parse(json.dumps(hooks).encode())
    contents = [row_content(a) == row_content(b) for a, b in zip(before, after, strict=True)]
    assert contents == [True, False, True]


def test_without_room_for_the_spool_the_rows_keep_their_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def full(self: Spool, texts: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Spool, "add", full)
    listed = [item(n) for n in range(3)]
    rows = models.from_json_elements(
        models.msgspec.json.Decoder(list[models.msgspec.Raw]).decode(json.dumps(listed)), Item
    )
    assert [row.raw for row in rows] == listed


def test_invalid_utf8_in_an_unnamed_field_reads_back_replaced() -> None:
    body = b'[{"id":"w1","url":"https://h","events":[],"note":"a\xffb"}]'
    rows = ListParser(Webhook, "webhooks", 200, "application/json")(body)
    assert rows[0].raw["note"] == "a\ufffdb"
