"""The Starlette application: every path of the three addresses in one app.

The interface leaves some bodies and all errors open; the emulator answers so:

- ``POST /auth/getAccessToken`` → 200 ``{"accessToken": "<jwt>", "expiresIn": seconds}``;
  wrong credentials 401, a malformed body 400.
- ``GET /v1/platform-webhooks`` → 200 JSON array of webhooks, never with ``secret``;
  ``POST`` → 201 and ``PUT``/``DELETE`` → 200, all without a body. ``PUT`` also takes
  ``isActive``.
- ``GET /v1/items`` → 200 ``{"items": [...], "total": N}``; ``GET /v1/items/{id}`` → the item.
- ``GET /v1/assets`` → 200 ``{"assets": [...]}``; ``GET /v1/assets/{id}`` → the asset, with
  ``id``, ``name``, ``symbol``, ``blockchainId``, ``decimals``, ``type`` (ERC20, ERC721,
  ERC1155, native), ``contractAddress`` (null for native coins) and ``createdAt``.
- ``POST /v1/payouts/add`` → 201 without a body. ``type`` and ``name`` are required; types
  ``fiat``, ``stablecoin`` and ``native`` require ``fiatDetails``, ``stablecoinDetails`` and
  ``nativeDetails`` respectively; any other type is accepted, since the interface shows no
  allowed values beyond ``free``.
- ``POST /collections`` (a JSON array) → 201 ``{"created": [{"id", "name"}, ...]}``, all or
  none; ``GET /collections`` → 200 ``{"collections": [...]}``, each with ``id`` and the
  posted fields (``whitelisted`` kept as the string sent);
  ``DELETE /collection/{token_Id}`` → 200 ``{"deleted": id}``.
- Errors: ``{"message": "...", "field": "..."}`` (``field`` when one field is at fault,
  ``index`` too for an element of the collections array). 400 malformed JSON or a body of
  the wrong shape, 401 missing, invalid or expired bearer token, 404 unknown id or path,
  405 wrong method, 413 a body over its limit (:data:`BODY_LIMIT`, 64 KB for the token
  endpoint), 422 a field that fails validation; faults add 429, 500, 502 and 503.
- Validation beyond types: webhook ``url`` absolute http(s) with a host, a port from 1 to
  65535 if any and no control character (one the delivering HTTP client takes), ``events`` a
  non-empty array without repeats; a collection's ``contractAddress`` and wallets must be
  base58 on ``solana`` and 0x + 40 hex (EIP-55 when mixed case) elsewhere, e-mails must look
  like e-mails. Unknown fields are ignored.
- Events: each change above is delivered to the webhooks subscribed to it, signed; the
  admin paths ``POST /_emulator/events`` and ``GET /_emulator/deliveries``, outside the
  interface's, raise an event and list the attempts (see :mod:`.events`).
- Ids: ``wh_``, ``itm_``, ``ast_``, ``col_`` and ``po_`` + 12 hex digits, deterministic per seed
  (with the ``hostile`` fault, any text: see :mod:`.hostile`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..digits import ascii_int
from . import admin, validation
from .errors import ApiError, json_response
from .state import Emulator

TOKEN_PATH = "/auth/getAccessToken"

BODY_LIMIT = 128 * 1024 * 1024
"""Largest request body read, in bytes. The largest request a client makes is a collection
whose wallet and e-mail lists each come from a list file at the client's 50 MB cap (some
100 MB of JSON); ``create collections --from-file`` reads 64 MB at most."""
TOKEN_BODY_LIMIT = 64 * 1024
"""Largest body of a token request, which anyone may send: a key and a secret."""

_log = logging.getLogger(__name__)

Handler = Callable[[Request, Emulator], Awaitable[Response]]


class _AnyText(Convertor[str]):
    """The rest of the path, whatever it holds: slashes and line breaks too."""

    regex = "[\\s\\S]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("anytext", _AnyText())


def create_app(
    *,
    seed: int = 0,
    items: int = 40,
    token_lifetime: float = 3600.0,
    faults: Iterable[str] = (),
    clock: Callable[[], float] = time.time,
) -> Starlette:
    """A new emulated service with its own state, reachable as ``app.state.emulator``.

    Serve it in-process with ``httpx.ASGITransport(app=app)`` or on a socket with
    :func:`tokensales_tui.emulator.server.serve`. Raises ValueError for an unknown fault,
    an item count or a token lifetime out of range (see :func:`.state.check_settings`).
    """
    emulator = Emulator(
        seed=seed, items=items, token_lifetime=token_lifetime, faults=faults, clock=clock
    )
    app = Starlette(
        routes=_routes(),
        exception_handlers={HTTPException: _http_exception},  # type: ignore[dict-item]
    )
    app.state.emulator = emulator
    return app


def _route(
    method: str, path: str, handler: Handler, *, auth: bool = True, body_limit: int | None = None
) -> Route:
    """A route that counts, injects faults and authenticates before ``handler`` runs.

    An id is the rest of the path (``{id}`` matches ``a/b`` too, as a hostile id may be);
    requests are counted under the template as written here. The handler reads at most
    ``body_limit`` bytes of body (:data:`BODY_LIMIT` unless given): past it, or when
    ``Content-Length`` says more, it answers 413. Any exception but an :class:`ApiError` is a fault of the emulator's own:
    it answers 500 in the usual JSON shape and goes to the app's logger with its
    traceback, never to the server's stderr.
    """

    async def endpoint(request: Request) -> Response:
        emulator: Emulator = request.app.state.emulator
        emulator.counts[(method, path)] += 1
        try:
            try:
                await emulator.injector.before(token_endpoint=path == TOKEN_PATH)
                if auth:
                    emulator.authenticate(request.headers.get("authorization"))
                limit = BODY_LIMIT if body_limit is None else body_limit
                response = await handler(_capped(request, limit), emulator)
            except ApiError as exc:
                response = exc.to_response()
            return emulator.injector.after(method, response)
        except Exception as error:
            _log.error("%s %s failed", method, path, exc_info=True)
            return ApiError(500, f"the emulator failed: {type(error).__name__}").to_response()

    pattern = path.replace("{id}", "{id:anytext}").replace("{token_Id}", "{token_Id:anytext}")
    return Route(pattern, endpoint, methods=[method], name=f"{method} {path}")


def _capped(request: Request, limit: int) -> Request:
    """``request`` whose body can be read up to ``limit`` bytes only: past it, a 413.

    Whatever a handler reads goes through this, so no request holds more than ``limit``
    bytes of body in memory; the rest is never read.
    """
    receive = request.receive
    read = 0

    def too_long() -> ApiError:
        return ApiError(413, f"request body is over {limit:,} bytes")

    async def capped() -> Message:
        nonlocal read
        if read == 0:
            declared = ascii_int(request.headers.get("content-length", ""), 20)
            if declared is not None and declared > limit:
                raise too_long()
        message = await receive()
        if message["type"] == "http.request":
            read += len(message.get("body", b""))
            if read > limit:
                raise too_long()
        return message

    return Request(request.scope, capped)


async def _http_exception(request: Request, exc: HTTPException) -> Response:
    # Unknown paths and wrong methods answer in the same JSON shape as every other error.
    message = {404: "no such path", 405: "method not allowed"}.get(exc.status_code, exc.detail)
    return json_response({"message": message}, exc.status_code, headers=dict(exc.headers or {}))


async def _json(request: Request) -> object:
    return validation.parse_json(await request.body())


def _param(request: Request, name: str) -> str:
    return str(request.path_params[name])


class SlicedResponse(Response):
    """A response whose body is handed to the server a slice at a time.

    Handed whole, a body of hundreds of megabytes is copied twice by asyncio's socket
    transport (what the first send left, then into its buffer) and shifted after each
    send: 1,000,000 items took the emulator 7.6 s of processor time to send, which a
    client on the same machine then lacked. A slice at a time, the server waits for the
    socket to drain between two, and each copy is one slice.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        body = self.body
        for start in range(0, len(body), SEND_SLICE):
            await send(
                {
                    "type": "http.response.body",
                    "body": body[start : start + SEND_SLICE],
                    "more_body": True,
                }
            )
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        if self.background is not None:
            await self.background()


SEND_SLICE = 1 << 20
"""Bytes of a body handed to the server at once."""


# --- handlers ----------------------------------------------------------------------


async def get_token(request: Request, emulator: Emulator) -> Response:
    api_key, api_secret = validation.credentials(await _json(request))
    return json_response(emulator.issue_token(api_key, api_secret))


async def list_webhooks(request: Request, emulator: Emulator) -> Response:
    return json_response(emulator.webhook_list())


async def create_webhook(request: Request, emulator: Emulator) -> Response:
    webhook = emulator.add_webhook(validation.webhook_create(await _json(request)))
    admin.raise_event(emulator, "webhook.created", admin.public(webhook))
    return Response(status_code=201)


async def update_webhook(request: Request, emulator: Emulator) -> Response:
    webhook_id = _param(request, "id")
    emulator.get(emulator.webhooks, webhook_id, "webhook")  # 404 before 4xx about the body
    webhook = emulator.update_webhook(webhook_id, validation.webhook_update(await _json(request)))
    admin.raise_event(emulator, "webhook.updated", admin.public(webhook))
    return Response(status_code=200)


async def delete_webhook(request: Request, emulator: Emulator) -> Response:
    emulator.delete(emulator.webhooks, _param(request, "id"), "webhook")
    admin.raise_event(emulator, "webhook.deleted", {"id": _param(request, "id")})
    return Response(status_code=200)


async def list_items(request: Request, emulator: Emulator) -> Response:
    return SlicedResponse(emulator.items_body(), media_type="application/json")


async def get_item(request: Request, emulator: Emulator) -> Response:
    return json_response(emulator.get(emulator.items, _param(request, "id"), "item"))


async def delete_item(request: Request, emulator: Emulator) -> Response:
    emulator.delete(emulator.items, _param(request, "id"), "item")
    admin.raise_event(emulator, "item.deleted", {"id": _param(request, "id")})
    return Response(status_code=200)


async def list_assets(request: Request, emulator: Emulator) -> Response:
    return json_response({"assets": list(emulator.assets.values())})


async def get_asset(request: Request, emulator: Emulator) -> Response:
    return json_response(emulator.get(emulator.assets, _param(request, "id"), "asset"))


async def add_payout(request: Request, emulator: Emulator) -> Response:
    payout = emulator.add_payout(validation.payout(await _json(request)))
    admin.raise_event(emulator, "payout_definition.added", payout)
    return Response(status_code=201)


async def create_collections(request: Request, emulator: Emulator) -> Response:
    stored = emulator.add_collections(validation.collections(await _json(request)))
    for collection in stored:
        admin.raise_event(emulator, "collection.created", collection)
    created = [{"id": c["id"], "name": c["name"]} for c in stored]
    return json_response({"created": created}, 201)


async def list_collections(request: Request, emulator: Emulator) -> Response:
    return json_response({"collections": list(emulator.collections.values())})


async def delete_collection(request: Request, emulator: Emulator) -> Response:
    collection_id = _param(request, "token_Id")
    emulator.delete(emulator.collections, collection_id, "collection")
    admin.raise_event(emulator, "collection.deleted", {"id": collection_id})
    return json_response({"deleted": collection_id})


def _routes() -> list[Route]:
    return [
        _route("POST", TOKEN_PATH, get_token, auth=False, body_limit=TOKEN_BODY_LIMIT),
        _route("GET", "/v1/platform-webhooks", list_webhooks),
        _route("POST", "/v1/platform-webhooks", create_webhook),
        _route("PUT", "/v1/platform-webhooks/{id}", update_webhook),
        _route("DELETE", "/v1/platform-webhooks/{id}", delete_webhook),
        _route("GET", "/v1/items", list_items),
        _route("GET", "/v1/items/{id}", get_item),
        _route("DELETE", "/v1/items/{id}", delete_item),
        _route("GET", "/v1/assets", list_assets),
        _route("GET", "/v1/assets/{id}", get_asset),
        _route("POST", "/v1/payouts/add", add_payout),
        _route("POST", "/collections", create_collections),
        _route("GET", "/collections", list_collections),
        _route("DELETE", "/collection/{token_Id}", delete_collection),
        _route("POST", admin.EVENTS_PATH, admin.trigger),
        _route("GET", admin.DELIVERIES_PATH, admin.deliveries),
    ]
