"""A list body that says the server holds more than it does is said to, in every route.

No paging is assumed and no link followed: a list is one response. But a body such as
``{"items": [1 item], "total": 500, "hasMore": true, "next": "/v1/items?page=2"}``
showed one item as if it were the whole list, exit code 0 and not a word. Now the
commands say it on stderr (exit code unchanged) and a tab in its count line.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tokensales_tui.api import shapes
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Item, Webhook
from tokensales_tui.api.paging import Paging, paging_of, read_paging
from tokensales_tui.api.stream import ListSplitter

from .apifakes import FakeServer, json_response
from .apphelpers import loaded, rigged_app, wait_for
from .test_reliability_network import KeptAlive, raw_answer
from .test_script import run_against

ITEM = {"id": "itm_1", "title": "T1", "currency": "USD", "price": 10}
HOOK = {"id": "wh_1", "url": "https://e.test/h", "isActive": True, "events": ["item.sold"]}
PAGED = {"items": [ITEM], "total": 500, "hasMore": True, "next": "/v1/items?page=2"}
CURSOR_FIRST = {"nextCursor": "abc", "total": 500, "items": [ITEM]}
NESTED = {"data": [HOOK], "meta": {"totalCount": 7}, "links": {"next": "?page=2"}}
SAYS = "hasMore true; next “/v1/items?page=2”; total 500"
NOT_MORE = [
    [ITEM],
    {"items": [ITEM]},
    {"items": [ITEM], "total": 1, "count": 1, "hasMore": False, "next": None, "cursor": ""},
    {"items": [ITEM], "total": "1", "nextCursor": "  ", "more": "true", "total_count": True},
]


def _signs(paging: Paging | None) -> str:
    assert paging is not None
    return "; ".join(paging.signs)


def _split(body: bytes, piece: int = 7) -> Paging | None:
    splitter = ListSplitter(("items", *shapes.LIST_KEYS))
    for at in range(0, len(body), piece):
        splitter.feed(body[at : at + piece])
    splitter.close()
    return splitter.paging


def test_the_splitter_reads_what_the_members_beside_the_list_say_as_they_arrive() -> None:
    assert _signs(_split(json.dumps(PAGED).encode())) == SAYS  # streamed: after the list
    assert _split(json.dumps(PAGED).encode()).total == 500  # type: ignore[union-attr]
    # before the list: read whole at the end, said the same
    assert _signs(_split(json.dumps(CURSOR_FIRST).encode())) == "nextCursor “abc”; total 500"
    for body in NOT_MORE:
        assert _split(json.dumps(body).encode()) is None, body


def test_the_whole_read_says_it_on_either_path() -> None:
    for body, says in ((PAGED, SAYS), (CURSOR_FIRST, "nextCursor “abc”; total 500")):
        parser = ListParser(Item, "items", 200, "application/json")
        assert len(parser(json.dumps(body).encode())) == 1
        assert _signs(parser.paging) == says
    # an entry that does not fit sends it down the generic path
    odd = {**PAGED, "items": [ITEM, {"id": "x"}]}
    parser = ListParser(Item, "items", 200, "application/json")
    parser(json.dumps(odd).encode())
    assert parser.paging is not None and parser.paging.held == 2
    parser = ListParser(Webhook, "webhooks", 200, "application/json")
    parser(json.dumps(NESTED).encode())
    assert _signs(parser.paging) == "totalCount 7; next “?page=2”"
    for body in NOT_MORE:
        parser = ListParser(Item, "items", 200, "application/json")
        parser(json.dumps(body).encode())
        assert parser.paging is None, body


def test_server_values_are_said_as_one_short_line_of_plain_text() -> None:
    hostile = "\x1b]52;c;eA==\x07[b]x\x9b\n" + "y" * 200
    said = read_paging({"next": hostile}, 1)
    assert said is not None
    line = said.said("items")
    assert not any(c in line for c in "\x1b\x07\x9b\n") and "y" * 60 not in line
    assert line.startswith("items: the answer holds 1 but says there are more (next “")


@pytest.mark.parametrize(
    ("method", "path", "body", "total"),
    [
        ("list_items", "/v1/items", PAGED, 500),  # the list first: decoded as it arrives
        ("list_items", "/v1/items", CURSOR_FIRST, 500),  # the list last: read whole from the spool
        ("list_webhooks", "/v1/platform-webhooks", NESTED, 7),  # under data, counted under meta
    ],
)
async def test_the_clients_lists_carry_what_the_answer_said(
    method: str, path: str, body: Any, total: int
) -> None:
    server = FakeServer({("GET", path): json_response(200, body)})
    async with server.client() as client:
        rows = await getattr(client, method)()
    assert len(rows) == 1
    said = paging_of(rows)
    assert said is not None and said.total == total and said.held == 1
    bare = FakeServer(
        {("GET", path): json_response(200, [ITEM if method == "list_items" else HOOK])}
    )
    async with bare.client() as client:
        assert paging_of(await getattr(client, method)()) is None


@pytest.mark.parametrize("kind", ["items", "payouts"])
def test_get_says_on_stderr_that_the_server_has_more_and_exits_0(kind: str) -> None:
    answer = raw_answer(200, json.dumps(PAGED).encode(), "Content-Type: application/json")
    with KeptAlive({("GET", "/v1/items"): answer}) as server:
        result = run_against(server.url, "get", kind, "-o", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().splitlines() == [
        f"tokensales-tui: warning: items: the answer holds 1 but says there are more ({SAYS});"
        " this client reads one response and follows no further pages"
    ]


async def test_a_tab_says_in_its_count_line_that_the_server_has_more() -> None:
    app, transport = rigged_app()
    emulator = transport.inner

    class Paged(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            answer = await emulator.handle_async_request(request)
            if request.method != "GET" or request.url.path != "/v1/items":
                return answer
            await answer.aclose()
            return httpx.Response(200, json=PAGED)

    transport.inner = Paged()  # type: ignore[assignment]
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        tab = app.browse.tab("items")
        expected = "1 item · 500 by the server's count: this client reads one response"
        await wait_for(lambda: str(tab._count.render()).startswith(expected), pilot)
        other = app.browse.tab("webhooks")
        assert "server" not in str(other._count.render())
