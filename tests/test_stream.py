"""Splitting a list body into elements while it arrives (api/stream.py)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokensales_tui.api import UnexpectedResponse, shapes
from tokensales_tui.api.stream import SPLIT_BYTES, ListSplitter

KEYS = ("items", *shapes.LIST_KEYS)


def split(body: bytes, chunk: int) -> list[Any]:
    splitter = ListSplitter(KEYS)
    out: list[Any] = []
    for start in range(0, len(body), chunk):
        out += splitter.feed(body[start : start + chunk])
    out += splitter.close()
    return [msgspec.json.decode(element) for element in out]


ROWS = [
    {"id": "a", "title": 'quotes " and },{ and ] inside', "n": 1},
    {"id": "b", "inputs": [{"name": "x"}, {"name": "y"}], "deep": {"k": [1, [2, {"z": 3}]]}},
    {"id": "c", "text": '\\"}, {"id": "fake"}'},
]


@pytest.mark.parametrize("chunk", [1, 7, 64, 100_000])
@pytest.mark.parametrize(
    "body",
    [
        json.dumps(ROWS).encode(),
        json.dumps({"items": ROWS, "total": 3}).encode(),
        json.dumps({"items": ROWS, "next": ["]"]}, indent=4).encode(),
        b"  \n" + json.dumps(ROWS, indent=2).encode() + b"\n",
        json.dumps({"total": 3, "data": {"results": ROWS}}).encode(),  # read whole
    ],
)
def test_every_accepted_shape_splits_into_the_same_elements(body: bytes, chunk: int) -> None:
    assert split(body, chunk) == ROWS


def test_empty_lists() -> None:
    assert split(b"[]", 1) == [] and split(b'{"items": [], "total": 0}', 3) == []


def test_a_long_list_is_handed_over_as_it_arrives_and_never_held() -> None:
    rows = [
        {"id": f"itm_{i}", "inputs": [{"name": "a"}, {"name": "b"}]} for i in range(60_000)
    ]  # 3 MB
    body = msgspec.json.encode({"items": rows, "total": len(rows)})
    assert len(body) > 12 * SPLIT_BYTES
    splitter = ListSplitter(KEYS)
    seen = 0
    held = 0
    for start in range(0, len(body), 65536):
        seen += len(splitter.feed(body[start : start + 65536]))
        held = max(held, len(splitter._buffer))
        if start > len(body) // 2:
            assert seen > len(rows) // 3  # elements arrive before the body ends
    seen += len(splitter.close())
    assert seen == len(rows)
    assert held < 2 * SPLIT_BYTES + 65536


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"items": [{"id": 1}, {"id": 2}', "cut short"),
        (b'[{"id": 1}] trailing', "cut short"),
        (b'{"count": 1}', "no list"),
        (b"<html>oops</html>", "not JSON"),
    ],
)
def test_what_is_no_list_is_an_unexpected_response(body: bytes, why: str) -> None:
    with pytest.raises(UnexpectedResponse):
        split(body, 5)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=5), max_size=12),
    chunk=st.integers(1, 50),
    envelope=st.booleans(),
)
def test_arbitrary_objects_survive_any_chunking(
    rows: list[dict[str, Any]], chunk: int, envelope: bool
) -> None:
    body = json.dumps({"items": rows, "total": len(rows)} if envelope else rows).encode()
    assert split(body, chunk) == rows
