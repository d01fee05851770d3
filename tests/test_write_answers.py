"""What a write's answer says decides how it is reported, wherever it is reported.

* Once the status line of a write has arrived, the status decides, whatever becomes of
  its body: a 2xx whose body is cut short or stalls is done (with a note), never
  "outcome unknown", never sent again, and its local record (a payout definition) is
  written.
* A 2xx whose body says it failed (``{"success": false, "error": …}``, the rule a list's
  answer is read by) is a refusal in the server's words: nothing is reported done, the
  commands exit 2, the forms keep their input.

Each is checked in the client, the commands and the app (a delete, a bulk delete, the
payout form), on 127.0.0.1 servers that send the exact bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tokensales_tui.api import ApiClient, ValidationError
from tokensales_tui.payouts import PayoutRecord, record_path

from .apphelpers import EMULATOR_URL, loaded, rigged_app, wait_for, wait_for_screen
from .formhelpers import SIZE, fill, open_form, status
from .test_reliability_network import (
    WRITES,
    KeptAlive,
    Reply,
    ScriptedServer,
    bounded,
    connection,
    no_wait,
    raw_answer,
)
from .test_script import run_against

JSON = "Content-Type: application/json"
QUOTA = {"success": False, "error": "operation refused: quota exceeded"}
REFUSED = "the server reported an error in a successful answer: operation refused: quota exceeded"


def refusal(status: int, body: Any = QUOTA) -> bytes:
    return raw_answer(status, json.dumps(body).encode(), JSON)


# --- a 2xx whose body says it failed --------------------------------------------------------

REFUSING_BODIES = {
    "success false": QUOTA,
    "errors": {"errors": ["operation refused: quota exceeded"]},
    "error object": {"error": {"message": "operation refused: quota exceeded"}},
}


@pytest.mark.parametrize("body", list(REFUSING_BODIES))
@pytest.mark.parametrize("write", list(WRITES))
async def test_a_write_whose_2xx_body_says_it_failed_is_refused_in_its_words(
    write: str, body: str
) -> None:
    # Each was reported done ("deleted", "created"), the payout recorded.
    method, path, status, call = WRITES[write]
    with KeptAlive({(method, path): refusal(status, REFUSING_BODIES[body])}) as server:
        async with ApiClient(connection(server.url), sleep=no_wait) as client:
            with pytest.raises(ValidationError) as caught:
                await bounded(call(client))
        assert server.count(method, path) == 1
    assert caught.value.message == REFUSED
    assert caught.value.status == status
    assert caught.value.headed == f"{method} {path} (HTTP {status}): {REFUSED}"


@pytest.mark.parametrize(
    ("content_type", "said"),
    [
        ("application/json; charset=iso-8859-1", "Quota dépassée"),
        ("application/json", "Quota d\ufffdpass\ufffde"),  # undeclared: UTF-8, marked
    ],
    ids=["declared latin-1", "undeclared"],
)
async def test_a_write_whose_2xx_body_says_it_failed_in_latin_1_is_refused_as_an_error_body_reads(
    content_type: str, said: str
) -> None:
    # Read strictly as UTF-8, the body was no JSON, so no refusal: "created".
    body = '{"success": false, "error": "Quota dépassée"}'.encode("latin-1")
    answer = raw_answer(201, body, f"Content-Type: {content_type}")
    with KeptAlive({("POST", "/v1/platform-webhooks"): answer}) as server:
        *_route, call = WRITES["create_webhook"]
        async with ApiClient(connection(server.url), sleep=no_wait) as client:
            with pytest.raises(ValidationError) as caught:
                await bounded(call(client))
    assert caught.value.message == (f"the server reported an error in a successful answer: {said}")


async def test_the_ids_a_latin_1_answer_to_adding_collections_gives_are_read_in_its_charset() -> (
    None
):
    body = '{"created": [{"id": "col_é"}]}'.encode("latin-1")
    answer = raw_answer(201, body, "Content-Type: application/json; charset=iso-8859-1")
    with KeptAlive({("POST", "/collections"): answer}) as server:
        *_route, call = WRITES["add_collections"]
        async with ApiClient(connection(server.url), sleep=no_wait) as client:
            created = await bounded(call(client))
    assert created.ids == {"col_é"}
    assert created.answer == {"created": [{"id": "col_é"}]}


@pytest.mark.parametrize(
    "body",
    [{"success": True, "error": None, "errors": []}, {"id": "wh_9"}, [], "done", ""],
    ids=["marks of no error", "an object", "a list", "text", "nothing"],
)
async def test_a_write_whose_2xx_body_reports_no_failure_is_done(body: Any) -> None:
    content = b"" if body == "" else json.dumps(body).encode()
    answer = raw_answer(201, content, JSON)
    with KeptAlive({("POST", "/v1/platform-webhooks"): answer}) as server:
        *_route, call = WRITES["create_webhook"]
        async with ApiClient(connection(server.url), sleep=no_wait) as client:
            done = await bounded(call(client))
    assert done.note == ""


def test_the_commands_exit_2_naming_the_refusal_and_record_nothing() -> None:
    hostile = {"success": False, "error": "quota \x1b]52;c;eA==\x07[b]exceeded[/b]\x9b"}
    routes: dict[tuple[str, str], bytes | list[bytes]] = {
        ("DELETE", "/v1/platform-webhooks/wh_1"): refusal(200),
        ("POST", "/v1/platform-webhooks"): refusal(200, hostile),
        ("POST", "/v1/payouts/add"): refusal(201),
    }
    with KeptAlive(routes) as server:
        deleted = run_against(server.url, "delete", "webhook", "wh_1", "--yes")
        created = run_against(
            server.url, "create", "webhook", "--url", "https://a.example.com/in", "--event", "x"
        )
        added = run_against(server.url, "add", "payout", "--name", "X", "--type", "free")
        records = PayoutRecord.for_service("default", server.url).load()
    assert (deleted.returncode, created.returncode, added.returncode) == (2, 2, 2)
    assert deleted.stderr.decode().splitlines() == [
        "tokensales-tui: webhook wh_1: DELETE /v1/platform-webhooks/wh_1 (HTTP 200): " + REFUSED
    ]
    said = created.stderr.decode()
    assert said.startswith(
        "tokensales-tui: POST /v1/platform-webhooks (HTTP 200): the server reported an error"
        " in a successful answer: quota "
    )
    assert "\x1b" not in said and "\x07" not in said and "\x9b" not in said
    assert "created" not in said
    assert added.stderr.decode().splitlines() == [
        f"tokensales-tui: POST /v1/payouts/add (HTTP 201): {REFUSED}"
    ]
    assert records == []


async def test_the_apps_delete_and_bulk_delete_say_the_refusal_and_keep_the_rows() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        rows = tab.table.model.shown_rows[:2]
        for row in rows:
            path = f"/v1/platform-webhooks/{row.id}"
            transport.fail[path] = 200
            transport.fail_body[path] = QUOTA
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        await wait_for(lambda: any(n.title == "Delete failed" for n in app._notifications), pilot)
        [failed] = [n for n in app._notifications if n.title == "Delete failed"]
        assert failed.message.endswith(f"was not deleted: {REFUSED}")
        assert not any(n.message.startswith("Deleted") for n in app._notifications)

        await pilot.press("space", "space", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        await wait_for(lambda: any("not deleted" in n.title for n in app._notifications), pilot)
        [bulk] = [n for n in app._notifications if "not deleted" in n.title]
        assert bulk.title == "2 not deleted"
        assert all(line.endswith(REFUSED) for line in bulk.message.splitlines())
        shown = lambda: {row.id for row in tab.table.model.shown_rows}  # noqa: E731
        await wait_for(lambda: {row.id for row in rows} <= shown(), pilot)


async def test_the_payout_form_keeps_its_input_and_records_nothing_when_refused() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "4")
        transport.fail["/v1/payouts/add"] = 201
        transport.fail_body["/v1/payouts/add"] = QUOTA
        await fill(pilot, name="Free mint", type="free")
        await pilot.press("ctrl+s")
        await wait_for(lambda: "quota exceeded" in status(form), pilot)
        assert status(form).startswith(f"The server refused it: {REFUSED}")
        assert app.screen is form and form.text("name") == "Free mint"
        assert not record_path("default", EMULATOR_URL).exists()


# --- a 2xx whose body is cut short or stalls --------------------------------------------


class _Cut(httpx.AsyncByteStream):
    """The first bytes of a body, then the connection closed."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'{"id":'
        raise httpx.RemoteProtocolError(
            "peer closed connection without sending complete message body"
        )


def cutting(transport: Any, method: str, path: str) -> None:
    """Let the emulator act on ``method path``, then cut its answer's body short."""
    emulator = transport.inner

    class Cut(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            answer = await emulator.handle_async_request(request)
            if (request.method, request.url.path) != (method, path):
                return answer
            await answer.aclose()
            headers = {"Content-Type": "application/json", "Content-Length": "20"}
            return httpx.Response(answer.status_code, headers=headers, stream=_Cut())

    transport.inner = Cut()


CUT_NOTE = "its answer's body could not be read: the connection broke before the body ended"


def test_the_commands_report_a_write_whose_2xx_body_was_cut_done_and_record_it() -> None:
    # "outcome unknown (the connection broke)", exit 1, the payout not recorded.
    body = json.dumps({"id": "x_1", "pad": "x" * 40}).encode()
    with ScriptedServer() as server:
        server.routes[("POST", "/v1/platform-webhooks")] = Reply(201, body, cut=True)
        server.routes[("POST", "/v1/payouts/add")] = Reply(201, body, cut=True)
        server.routes[("DELETE", "/v1/platform-webhooks/wh_1")] = Reply(200, body, cut=True)
        created = run_against(
            server.url, "create", "webhook", "--url", "https://a.example.com/in", "--event", "x"
        )
        added = run_against(server.url, "add", "payout", "--name", "X", "--type", "free")
        deleted = run_against(server.url, "delete", "webhook", "wh_1", "--yes")
        sent = [
            server.count("POST", "/v1/platform-webhooks"),
            server.count("POST", "/v1/payouts/add"),
            server.count("DELETE", "/v1/platform-webhooks/wh_1"),
        ]
        records = PayoutRecord.for_service("default", server.url).load()
    assert (created.returncode, added.returncode, deleted.returncode) == (0, 0, 0)
    assert sent == [1, 1, 1]
    assert created.stderr.decode().splitlines() == [
        f"tokensales-tui: created webhook https://a.example.com/in ({CUT_NOTE})"
    ]
    assert added.stderr.decode().splitlines() == [
        f"tokensales-tui: added payout definition X (free; {CUT_NOTE})"
    ]
    assert deleted.stderr.decode().splitlines() == [
        f"tokensales-tui: deleted webhook wh_1 ({CUT_NOTE})"
    ]
    assert [entry["name"] for entry in records] == ["X"]


async def test_the_apps_delete_and_payout_form_are_done_when_the_body_is_cut() -> None:
    app, transport = rigged_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        row = app.active_tab.table.model.shown_rows[0]
        cutting(transport, "DELETE", f"/v1/platform-webhooks/{row.id}")
        await pilot.press("d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("right", "enter")
        deleted = lambda: [n for n in app._notifications if n.message.startswith("Deleted")]  # noqa: E731
        await wait_for(lambda: bool(deleted()), pilot)
        assert CUT_NOTE in deleted()[0].message
        assert not any("outcome unknown" in n.title for n in app._notifications)

        cutting(transport, "POST", "/v1/payouts/add")
        form = await open_form(app, pilot, "4")
        await fill(pilot, name="Free mint", type="free")
        await pilot.press("ctrl+s")
        await wait_for(lambda: app.screen is not form, pilot)
        records = PayoutRecord.for_service("default", EMULATOR_URL).load()
        assert [entry["name"] for entry in records] == ["Free mint"]
        assert len(app.rigged_emulator.payouts) == 1  # type: ignore[attr-defined]


# --- an error body's reasons in the shapes frameworks send -----------------------------------


def test_the_commands_say_a_list_of_reasons_headed_by_the_request_and_status() -> None:
    # They said "Bad Request" and "the server rejected the request (HTTP 422)".
    nest = {
        "statusCode": 400,
        "message": ["url must be an URL address", "events must contain at least 1 elements"],
        "error": "Bad Request",
    }
    fastapi = {
        "detail": [
            {
                "loc": ["body", "fiatDetails", "paymentProviderId"],
                "msg": "field required",
                "type": "missing",
            }
        ]
    }
    routes: dict[tuple[str, str], bytes | list[bytes]] = {
        ("POST", "/v1/platform-webhooks"): refusal(400, nest),
        ("POST", "/v1/payouts/add"): refusal(422, fastapi),
    }
    with KeptAlive(routes) as server:
        created = run_against(
            server.url, "create", "webhook", "--url", "https://a.example.com/in", "--event", "x"
        )
        added = run_against(server.url, "add", "payout", "--name", "X", "--type", "free")
    assert (created.returncode, added.returncode) == (2, 2)
    assert created.stderr.decode().splitlines() == [
        "tokensales-tui: POST /v1/platform-webhooks (HTTP 400): url must be an URL address;"
        " events must contain at least 1 elements"
    ]
    assert added.stderr.decode().splitlines() == [
        "tokensales-tui: POST /v1/payouts/add (HTTP 422): fiatDetails.paymentProviderId:"
        " field required"
    ]
