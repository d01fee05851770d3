"""Every form marks each field a server's refusal names, on a server on 127.0.0.1.

The server answers writes with the refusals real frameworks send: FastAPI's ``detail``
list with ``loc`` paths, NestJS's ``message`` list of texts that start with the field,
and an ``errors`` list naming ``field``. Each form maps the paths to its fields by how it
builds its body (:meth:`FormScreen.body_fields`; that every path maps to a field is
checked in ``test_forms_body_paths``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from textual.widgets import Input, Select

from tokensales_tui.emulator.app import TOKEN_PATH
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.forms.payout import OTHER

from .apifakes import make_jwt
from .apphelpers import wait_for
from .formhelpers import SIZE, fill, open_form, problem, status

CONTRACT = "0x7241369492Ea20ED060fa4160015A77F2e8C33F2"
WEBHOOK = {"url": "https://a.example/h", "events": "item.sold, token.minted"}
FIAT = {
    "name": "EU cards",
    "type": "fiat",
    "detail_provider": "stripe",
    "detail_paymentProviderId": "acct_9",
}
COLLECTION = {"c1_name": "Founders", "c1_blockchain": "polygon", "c1_contract": CONTRACT}


class Refusing:
    """A server on 127.0.0.1: a token for anyone, empty lists, and every write refused
    with :attr:`status` and :attr:`body`. :attr:`writes` counts the writes that came."""

    def __init__(self) -> None:
        self.status = 422
        self.body: Any = {"message": "refused"}
        """Sent as JSON; bytes are sent as they are, with :attr:`content_type`."""
        self.content_type = "application/json"
        self.writes = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == TOKEN_PATH:
                    status, body = 200, {"accessToken": make_jwt(lifetime=3600)}
                elif self.command == "GET":
                    status, body = 200, []
                else:
                    owner.writes += 1
                    status, body = owner.status, owner.body
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", owner.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @contextmanager
    def running(self) -> Iterator[Refusing]:
        thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(10)

    def app(self) -> TokenSalesApp:
        env = {f"TOKENSALES_{name}_URL": self.url for name in ("BASE", "AUTH", "CONSOLE")} | {
            "TOKENSALES_API_KEY": "key",
            "TOKENSALES_API_SECRET": "secret",
        }
        return TokenSalesApp(Launch(env=env))


@contextmanager
def refusing(status: int, body: Any) -> Iterator[Refusing]:
    server = Refusing()
    server.status, server.body = status, body
    with server.running():
        yield server


async def refused(form: FormScreen, pilot: Any, server: Refusing) -> None:
    """Submit, and wait for the server's refusal to be shown."""
    writes = server.writes
    await pilot.press("ctrl+s")
    await wait_for(lambda: server.writes > writes and "refused" in status(form), pilot)
    await pilot.pause()


def focused_id(form: FormScreen) -> str | None:
    return form.app.focused.id if form.app.focused else None


# --- the webhook form ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "body", "said"),
    [
        (
            422,
            {
                "detail": [
                    {"loc": ["body", "url"], "msg": "invalid or missing URL scheme"},
                    {"loc": ["body", "events", 1], "msg": "unknown event"},
                ]
            },
            ("url: invalid or missing URL scheme", "events[1]: unknown event"),
        ),
        (
            400,
            {
                "statusCode": 400,
                "message": ["url must be an URL address", "events must contain no more than 1"],
                "error": "Bad Request",
            },
            ("url must be an URL address", "events must contain no more than 1"),
        ),
        (
            422,
            {
                "errors": [
                    {"field": "url", "message": "is not reachable"},
                    {"field": "events", "message": "must be known"},
                ]
            },
            ("url: is not reachable", "events: must be known"),
        ),
    ],
)
async def test_the_webhook_form_marks_every_field_refused(
    code: int, body: Any, said: tuple[str, str]
) -> None:
    with refusing(code, body) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "1")
            await fill(pilot, **WEBHOOK)
            form.query_one("#secret", Input).focus()  # the cursor goes to the first refused
            await refused(form, pilot, server)
            assert problem(form, "url") == said[0]
            assert problem(form, "events") == said[1]
            assert problem(form, "secret") == ""
            assert focused_id(form) == "url"
            # The whole message still, and how many fields to change.
            assert all(words in status(form) for words in said)
            assert "change the 2 marked fields" in status(form)
            assert form.text("url") == WEBHOOK["url"]
            assert form.text("events") == WEBHOOK["events"]
            await fill(pilot, url="https://b.example/h")  # changed: its mark goes
            assert problem(form, "url") == "" and problem(form, "events") == said[1]


@pytest.mark.parametrize(
    ("body", "content_type", "said"),
    [
        (
            b'{"message":"URL r\xe9fus\xe9e","field":"url"}',
            "application/json; charset=iso-8859-1",
            "URL réfusée",
        ),
        (
            b'\xef\xbb\xbf{"message":"url must be an URL address","field":"url"}',
            "application/json",
            "must be an URL address",
        ),
        (
            b'{"message":"URL r\xe9fus\xe9e","field":"url"}',
            "application/json",
            "URL r\ufffdfus\ufffde",
        ),
    ],
    ids=["declared latin-1", "after a BOM", "not UTF-8"],
)
async def test_the_webhook_form_marks_the_field_of_a_refusal_in_any_charset(
    body: bytes, content_type: str, said: str
) -> None:
    with refusing(422, body) as server:
        server.content_type = content_type
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "1")
            await fill(pilot, **WEBHOOK)
            await refused(form, pilot, server)
            assert said in problem(form, "url")
            assert said in status(form) and "{" not in status(form)


async def test_a_field_the_webhook_form_has_not_stays_in_the_status_line() -> None:
    body = {"errors": [{"field": "isActive", "message": "cannot be set"}]}
    with refusing(422, body) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "1")
            await fill(pilot, **WEBHOOK)
            await refused(form, pilot, server)
            assert "isActive: cannot be set" in status(form)
            assert "marked" not in status(form)
            assert all(problem(form, field) == "" for field in ("url", "events", "secret"))


async def test_the_server_s_words_under_a_field_are_text_not_markup() -> None:
    hostile = "[@click=app.quit]boom[/] [b]x\x1b[31m\u202e"
    with refusing(400, {"message": [f"url {hostile}"]}) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "1")
            await fill(pilot, **WEBHOOK)
            await refused(form, pilot, server)
            shown = problem(form, "url")
            assert "[@click=app.quit]boom[/] [b]x" in shown
            assert "\x1b" not in shown and "\u202e" not in shown
            assert "\x1b" not in status(form)
            assert form.is_attached


# --- the payout form -------------------------------------------------------------------


async def test_the_payout_form_marks_a_detail_the_server_names_by_its_path() -> None:
    body = {
        "detail": [
            {"loc": ["body", "fiatDetails", "paymentProviderId"], "msg": "field required"},
            {"loc": ["body", "name"], "msg": "already in use"},
        ]
    }
    with refusing(422, body) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "4")
            await fill(pilot, **FIAT)
            await refused(form, pilot, server)
            assert problem(form, "name") == "name: already in use"
            assert (
                problem(form, "detail-paymentProviderId")
                == "fiatDetails.paymentProviderId: field required"
            )
            assert focused_id(form) == "name"  # the first of them, in tab order
            assert "change the 2 marked fields" in status(form)
            assert form.text("detail-paymentProviderId") == "acct_9"
            assert form.query_one("#type", Select).value == "fiat"


async def test_the_payout_form_marks_the_type_it_reads_and_no_hidden_field() -> None:
    body = {
        "statusCode": 400,
        "message": ["type must be one of: free, fiat", "stablecoinDetails.spender is wrong"],
    }
    with refusing(400, body) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "4")
            await fill(pilot, name="Crypto", type=OTHER, other_type="crypto")
            await refused(form, pilot, server)
            # The type typed in the field of another type; the spender of a stablecoin is
            # not shown for this type: said in the status line only.
            assert problem(form, "other-type") == "type must be one of: free, fiat"
            assert problem(form, "type") == "" and problem(form, "detail-spender") == ""
            assert "stablecoinDetails.spender is wrong" in status(form)
            assert "change the marked field" in status(form)
            assert focused_id(form) == "other-type"


# --- the collections form --------------------------------------------------------------


async def test_the_collections_form_marks_fields_of_several_collections() -> None:
    body = {
        "detail": [
            {"loc": ["body", 1, "contractAddress"], "msg": "not a contract"},
            {"loc": ["body", 0, "whitelistingInfo", "emails", 0], "msg": "not an e-mail"},
        ]
    }
    with refusing(422, body) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "5")
            await fill(pilot, **COLLECTION, c1_emails="a@b.io")
            await pilot.press("ctrl+n")
            await fill(pilot, c2_name="Second", c2_blockchain="base", c2_contract=CONTRACT)
            await refused(form, pilot, server)
            assert problem(form, "c2-contract") == "[1].contractAddress: not a contract"
            assert problem(form, "c1-emails") == "[0].whitelistingInfo.emails[0]: not an e-mail"
            assert problem(form, "c1-contract") == ""
            assert focused_id(form) == "c1-emails"
            assert "change the 2 marked fields" in status(form)
            assert form.text("c2-contract") == CONTRACT


async def test_the_collections_form_reads_a_nestjs_list() -> None:
    with refusing(400, {"message": ["contractAddress must be an Ethereum address"]}) as server:
        app = server.app()
        async with app.run_test(size=SIZE) as pilot:
            form = await open_form(app, pilot, "5")
            await fill(pilot, **COLLECTION)
            await refused(form, pilot, server)
            assert problem(form, "c1-contract") == "contractAddress must be an Ethereum address"
            assert focused_id(form) == "c1-contract"
