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


@pytest.mark.parametrize("bare", [True, False])
def test_a_list_nested_deeper_than_the_decoder_goes_is_named_so(bare: bool) -> None:
    # Valid JSON: the deep element is not "cut short or malformed", whatever the stack.
    deep = b'{"id": "b", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    listed = b'[{"id": "a"}, ' + deep + b"]"
    body = listed if bare else b'{"items": ' + listed + b', "next": null}'
    with pytest.raises(UnexpectedResponse, match="the list body is nested too deeply to read"):
        split(body, 4096)
    cut = b'[{"id": "a"}, {"id": "b"}'
    with pytest.raises(UnexpectedResponse, match="the list body is cut short or malformed"):
        split(cut, 4096)


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


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_list_arriving_slowly_is_cut_once_a_quarter_second_has_passed() -> None:
    # One element a piece, a tenth of a second apart: far below SPLIT_BYTES, the
    # elements come out as they arrive, not once 256 KB are held or the body ends.
    clock = Clock()
    looks: list[int] = []

    def decode(text: bytes) -> list[msgspec.Raw]:
        looks.append(len(text))
        return msgspec.json.decode(text, type=list[msgspec.Raw])

    splitter = ListSplitter(KEYS, decode=decode, clock=clock)
    rows = [{"id": f"itm_{n}", "title": f"Item {n}"} for n in range(7)]
    pieces = [
        b'{"items": [',
        *(b"," * (n > 0) + json.dumps(row).encode() for n, row in enumerate(rows)),
    ]
    pieces[-1] += b"]}"
    handed: list[list[Any]] = []
    for piece in pieces:
        clock.now += 0.1
        handed.append([msgspec.json.decode(e) for e in splitter.feed(piece)])
    tail = [msgspec.json.decode(e) for e in splitter.close()]
    # At 0.3 s, then 0.6 s, a cut; an element is seen whole once the next one starts.
    assert handed == [[], [], rows[0:1], [], [], rows[1:4], [], []]
    assert tail == rows[4:]
    assert len(looks) == 3  # a look a quarter second at most, and the close


def test_a_look_that_finds_no_whole_element_waits_a_quarter_second_for_the_next() -> None:
    clock = Clock()
    splitter = ListSplitter(KEYS, clock=clock)
    big = json.dumps({"id": "itm_0", "parts": [{"n": n} for n in range(2000)]}).encode()
    assert len(big) < SPLIT_BYTES
    assert splitter.feed(b"[") == []
    tried: list[int] = []
    split = splitter._split

    def counted() -> Any:
        tried.append(1)
        return split()

    splitter._split = counted  # type: ignore[method-assign]
    for start in range(0, len(big), 1000):  # one element arriving slowly, a piece each 0.1 s
        clock.now += 0.1
        assert splitter.feed(big[start : start + 1000]) == []
    assert 0 < len(tried) <= (len(big) // 1000 + 1) * 0.1 / 0.25 + 1
    clock.now += 0.3
    assert [msgspec.json.decode(e) for e in splitter.feed(b',{"id": "itm_1"}]')] == [
        json.loads(big)
    ]
    assert [msgspec.json.decode(e) for e in splitter.close()] == [{"id": "itm_1"}]


def test_a_body_arriving_fast_is_cut_by_size_alone() -> None:
    clock = Clock()  # never moves: every piece comes at once
    splitter = ListSplitter(KEYS, clock=clock)
    rows = [{"id": f"itm_{n}"} for n in range(1000)]
    body = json.dumps(rows).encode()
    assert len(body) < SPLIT_BYTES
    assert all(splitter.feed(body[start : start + 100]) == [] for start in range(0, len(body), 100))
    assert len(splitter.close()) == len(rows)
    clock.now += 60  # the same body, with a minute between two of its pieces
    splitter = ListSplitter(KEYS, clock=clock)
    assert splitter.feed(body[:500]) == []
    clock.now += 60
    assert len(splitter.feed(body[500:])) > 0
