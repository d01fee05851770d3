"""The API client: one long-lived ``httpx.AsyncClient`` for the service's three addresses.

``{base_url}`` serves ``/v1/...``, ``{auth_url}`` the token endpoint and ``{console_url}``
the collections. Every call carries the bearer token from :class:`TokenManager`.

Retry policy: GET, PUT and DELETE are retried on connection errors, 429 (honouring
``Retry-After``, capped at 30 s) and 502/503/504, with jittered exponential backoff,
at most three attempts and an overall deadline. A POST is retried only when it
certainly never reached the server (the connection could not be made); a POST whose
answer never came raises :class:`OutcomeUnknownError` and is never repeated.
Redirects are never followed, so the token cannot travel to another host.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import functools
import logging
import mmap
import random
import re
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import msgspec

from . import shapes
from .auth import TokenGrant, TokenManager, TokenState
from .connection import Connection, host_of
from .errors import (
    ApiError,
    AuthError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitedError,
    RedirectError,
    ServerError,
    TimeoutError_,
    UnexpectedResponse,
    ValidationError,
)
from .models import (
    Asset,
    Collection,
    Item,
    Model,
    NewCollection,
    PayoutDefinition,
    Webhook,
    WebhookCreate,
    WebhookUpdate,
    encode,
    from_json_elements,
    from_raw,
    paused_gc,
)
from .secret import Secret

if TYPE_CHECKING:
    # httpx (with the click and pygments its command line pulls in) takes ~50 ms to
    # import: it is imported when the first client is made, after the first frame.
    import httpx

log = logging.getLogger("tokensales_tui.api")

Address = Literal["base", "auth", "console"]
M = TypeVar("M", bound=Model)

DEFAULT_TIMEOUTS = {"connect": 5.0, "read": 20.0, "write": 20.0, "pool": 5.0}
"""Seconds allowed to connect, to read, to write and to wait for a pooled connection."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})
OFF_LOOP_BYTES = 256 * 1024
"""Bodies larger than this are decoded in a thread so the UI keeps drawing."""


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """Told to ``on_retry`` before the client waits to try again."""

    method: str
    path: str
    attempt: int
    delay: float
    reason: str
    capped_from: float | None = None
    """The server's Retry-After when it was longer than the cap."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One operation's method and address, for requests and request previews."""

    method: str
    address: Address
    path: str


def quote_id(value: str) -> str:
    """An identifier made safe to place in a path segment."""
    return quote(value, safe="")


class ApiClient:
    """A typed method for every operation of the interface.

    Args:
        connection: the addresses and credentials of the profile.
        transport: an httpx transport; tests pass ``httpx.ASGITransport`` on the emulator.
        timeout: connect/read/write/pool time-outs (default: :data:`DEFAULT_TIMEOUTS`).
        max_attempts: attempts per call, the first included.
        deadline: seconds after which no further attempt starts.
        retry_after_cap: the longest ``Retry-After`` honoured.
        on_retry: told before each wait, so a UI can show a countdown.
        clock, sleep, rand: injectable for tests.
    """

    def __init__(
        self,
        connection: Connection,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout | None = None,
        max_attempts: int = 3,
        deadline: float = 60.0,
        retry_after_cap: float = 30.0,
        backoff: float = 0.5,
        on_retry: Callable[[RetryNotice], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        import httpx

        self.connection = connection
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=timeout or httpx.Timeout(**DEFAULT_TIMEOUTS),
            follow_redirects=False,
            headers={"Accept": "application/json", "User-Agent": _user_agent()},
        )
        self._max_attempts = max(1, max_attempts)
        self._deadline = deadline
        self._retry_after_cap = retry_after_cap
        self._backoff = backoff
        self._clock = clock
        self._sleep = sleep
        self._rand = rand
        self.on_retry = on_retry
        self.tokens = TokenManager(self._fetch_token, clock=clock)

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def token_state(self) -> TokenState:
        """Status and remaining lifetime of the token."""
        return self.tokens.state

    # --- platform webhooks ----------------------------------------------------------

    async def list_webhooks(self) -> list[Webhook]:
        """``GET /v1/platform-webhooks``."""
        return await self._list(
            Endpoint("GET", "base", "/v1/platform-webhooks"), Webhook, "webhooks"
        )

    async def create_webhook(self, body: WebhookCreate) -> None:
        """``POST /v1/platform-webhooks``."""
        await self._send(Endpoint("POST", "base", "/v1/platform-webhooks"), body)

    async def update_webhook(self, webhook_id: str, body: WebhookUpdate) -> None:
        """``PUT /v1/platform-webhooks/{id}`` with only the fields that change."""
        await self._send(webhook_endpoint("PUT", webhook_id), body)

    async def delete_webhook(self, webhook_id: str) -> None:
        """``DELETE /v1/platform-webhooks/{id}``."""
        await self._send(webhook_endpoint("DELETE", webhook_id))

    # --- items ----------------------------------------------------------------------

    async def list_items(self) -> list[Item]:
        """``GET /v1/items``."""
        return await self._list(Endpoint("GET", "base", "/v1/items"), Item, "items")

    async def get_item(self, item_id: str) -> Item:
        """``GET /v1/items/{id}``."""
        endpoint = Endpoint("GET", "base", f"/v1/items/{quote_id(item_id)}")
        return await self._one(endpoint, Item, "item")

    async def delete_item(self, item_id: str) -> None:
        """``DELETE /v1/items/{id}``."""
        await self._send(Endpoint("DELETE", "base", f"/v1/items/{quote_id(item_id)}"))

    # --- assets ---------------------------------------------------------------------

    async def list_assets(self) -> list[Asset]:
        """``GET /v1/assets``."""
        return await self._list(Endpoint("GET", "base", "/v1/assets"), Asset, "assets")

    async def get_asset(self, asset_id: str) -> Asset:
        """``GET /v1/assets/{id}``; the body may be the asset or hold it under ``data``/``asset``."""
        endpoint = Endpoint("GET", "base", f"/v1/assets/{quote_id(asset_id)}")
        return await self._one(endpoint, Asset, "asset")

    # --- payouts --------------------------------------------------------------------

    async def add_payout(self, body: PayoutDefinition) -> None:
        """``POST /v1/payouts/add``."""
        await self._send(Endpoint("POST", "base", "/v1/payouts/add"), body)

    # --- collections ----------------------------------------------------------------

    async def list_collections(self) -> list[Collection]:
        """``GET {console_url}/collections``."""
        return await self._list(
            Endpoint("GET", "console", "/collections"), Collection, "collections"
        )

    async def add_collections(self, bodies: Sequence[NewCollection]) -> Any:
        """``POST {console_url}/collections`` with a JSON array; returns the decoded body, if any."""
        response = await self._send(Endpoint("POST", "console", "/collections"), list(bodies))
        return _optional_json(response, "collections")

    async def delete_collection(self, collection_id: str) -> None:
        """``DELETE {console_url}/collection/{token_Id}``."""
        await self._send(collection_endpoint(collection_id))

    # --- token ----------------------------------------------------------------------

    async def check_credentials(self) -> TokenState:
        """Get a fresh token now (for "Test connection"); raises on failure."""
        self.tokens.forget()
        await self.tokens.token()
        return self.tokens.state

    async def _fetch_token(self) -> TokenGrant:
        body = {"apiKey": self.connection.api_key, "apiSecret": self.connection.api_secret}
        endpoint = Endpoint("POST", "auth", "/auth/getAccessToken")
        try:
            response = await self._attempts(
                endpoint, encode(body), authorised=False, max_attempts=2
            )
        except (AuthError, ValidationError, NotFoundError) as error:
            raise AuthError(
                f"the token endpoint refused the credentials of profile "
                f"“{self.connection.profile}” ({error.status or 'no status'})",
                status=error.status,
            ) from None
        payload = shapes.decode_json(
            response.content,
            status=response.status_code,
            content_type=response.headers.get("content-type", ""),
            what="token response",
        )
        try:
            token, expires_in = shapes.extract_token(payload)
        except ValueError:
            raise UnexpectedResponse(
                "token response: no access token in it "
                f"({shapes.describe_body(response.status_code, response.headers.get('content-type', ''), len(response.content))})",
                status=response.status_code,
            ) from None
        return TokenGrant(Secret(token), expires_in)

    # --- plumbing -------------------------------------------------------------------

    def url(self, endpoint: Endpoint) -> str:
        """The full URL of ``endpoint``."""
        root = {
            "base": self.connection.base_url,
            "auth": self.connection.auth_url,
            "console": self.connection.console_url,
        }[endpoint.address]
        return root.rstrip("/") + endpoint.path

    async def _list(self, endpoint: Endpoint, model: type[M], what: str) -> list[M]:
        response = await self._attempts(endpoint, None)
        content_type = response.headers.get("content-type", "")
        body = response.content
        # A response and its stream refer to each other, so only the cyclic collector
        # frees them, maybe much later: the items keep what they need of the body.
        response._content = b""
        parse = _ListParser(model, what, response.status_code, content_type)
        if len(body) > OFF_LOOP_BYTES:
            return await asyncio.to_thread(parse, body)
        return parse(body)

    async def _one(self, endpoint: Endpoint, model: type[M], what: str) -> M:
        response = await self._attempts(endpoint, None)
        content_type = response.headers.get("content-type", "")
        payload = shapes.decode_json(
            response.content, status=response.status_code, content_type=content_type, what=what
        )
        if isinstance(payload, dict) and not _looks_like(payload, model):
            for key in ("data", what):
                if isinstance(payload.get(key), dict):
                    payload = payload[key]
                    break
        if not isinstance(payload, dict):
            raise UnexpectedResponse(
                f"{what}: expected an object ({shapes.describe_body(response.status_code, content_type, len(response.content))})",
                status=response.status_code,
            )
        return _convert(payload, model, what, response.status_code)

    async def _send(self, endpoint: Endpoint, body: Any = None) -> httpx.Response:
        content = encode(body) if body is not None else None
        return await self._attempts(endpoint, content)

    async def _attempts(
        self,
        endpoint: Endpoint,
        content: bytes | None,
        *,
        authorised: bool = True,
        max_attempts: int | None = None,
    ) -> httpx.Response:
        attempts = max_attempts or self._max_attempts
        started = self._clock()
        renewed = False
        attempt = 0
        while True:
            attempt += 1
            token = await self.tokens.token() if authorised else None
            try:
                budget = self._deadline - (self._clock() - started)
                response = await self._once(endpoint, content, token, max(budget, 0.5))
            except _Transient as transient:
                delay = self._backoff_delay(attempt)
                if attempt >= attempts or not self._time_left(started, delay):
                    raise transient.error from None
                self._notify(endpoint, attempt, delay, transient.error.message)
                await self._sleep(delay)
                continue
            status = response.status_code
            if status == 401 and authorised and not renewed and token is not None:
                renewed = True
                await self.tokens.renew(token)
                attempt -= 1  # the retry after a renewal is not a failed attempt
                continue
            if status in RETRY_STATUSES and endpoint.method in IDEMPOTENT:
                delay, capped = self._retry_delay(response, attempt)
                if attempt < attempts and self._time_left(started, delay):
                    self._notify(endpoint, attempt, delay, f"HTTP {status}", capped)
                    await self._sleep(delay)
                    continue
            if status >= 400 or 300 <= status < 400:
                raise self._status_error(endpoint, response)
            return response

    async def _once(
        self, endpoint: Endpoint, content: bytes | None, token: Secret | None, budget: float
    ) -> httpx.Response:
        """One attempt, cut short after ``budget`` seconds whatever the server trickles.

        httpx's read time-out restarts with every byte; the budget is what is left of the
        call's overall deadline.
        """
        import httpx

        url = self.url(endpoint)
        headers = {"Content-Type": "application/json"} if content is not None else {}
        if token is not None:
            headers["Authorization"] = "Bearer " + token.reveal()
        started = time.perf_counter()
        request = self._http.build_request(endpoint.method, url, content=content, headers=headers)
        try:
            async with asyncio.timeout(budget):
                response = await self._http.send(request, stream=True)
                try:
                    await _read_body(response)
                finally:
                    await response.aclose()
        except TimeoutError:
            # The whole deadline passed inside this attempt (a server trickling its answer).
            if endpoint.method not in IDEMPOTENT:
                raise self._outcome_unknown(endpoint, url, "no complete answer in time") from None
            raise _Transient(
                TimeoutError_(
                    f"{host_of(url)} did not finish answering within {self._deadline:.0f} s",
                    host=host_of(url),
                )
            ) from None
        except httpx.ConnectTimeout:
            raise _Transient(self._network_error(url, "timed out connecting to")) from None
        except httpx.ConnectError as error:
            certificate = _is_certificate_error(error)
            problem = self._network_error(url, "could not connect to", error)
            if certificate:
                raise problem from None  # never retried, never switched off
            raise _Transient(problem) from None
        except httpx.TimeoutException:
            if endpoint.method not in IDEMPOTENT:
                raise self._outcome_unknown(endpoint, url, "no answer in time") from None
            raise _Transient(
                TimeoutError_(f"{host_of(url)} did not answer in time", host=host_of(url))
            ) from None
        except (httpx.TransportError, httpx.StreamError) as error:
            if endpoint.method not in IDEMPOTENT:
                raise self._outcome_unknown(endpoint, url, "the connection broke") from None
            raise _Transient(
                NetworkError(
                    f"the connection to {host_of(url)} broke ({type(error).__name__})",
                    host=host_of(url),
                )
            ) from None
        log.debug(
            "%s %s → %s in %.0f ms",
            endpoint.method,
            redact_url(url),
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    def _outcome_unknown(self, endpoint: Endpoint, url: str, why: str) -> OutcomeUnknownError:
        return OutcomeUnknownError(
            f"{endpoint.method} {endpoint.path} on {host_of(url)}: outcome unknown ({why})"
            " — refresh to check"
        )

    def _network_error(self, url: str, verb: str, error: Exception | None = None) -> NetworkError:
        host = host_of(url)
        if error is not None and _is_certificate_error(error):
            return NetworkError(
                f"the TLS certificate of {host} could not be verified",
                host=host,
                hint="the certificate is not trusted; fix it on the server or install its CA — checks stay on",
            )
        if error is not None and _is_dns_error(error):
            return NetworkError(
                f"the host name {urlsplit(url).hostname} could not be resolved",
                host=host,
                hint="check the address in the profile and your DNS",
            )
        if error is not None and _is_refused(error):
            return NetworkError(
                f"{host} refused the connection",
                host=host,
                hint="is the server running at that address? then press r",
            )
        return NetworkError(f"{verb} {host}", host=host)

    def _status_error(self, endpoint: Endpoint, response: httpx.Response) -> ApiError:
        status = response.status_code
        host = host_of(str(response.request.url)) if response.request else ""
        message = _server_message(response)
        where = f"{endpoint.method} {endpoint.path}"
        if 300 <= status < 400:
            target = host_of(response.headers.get("location", "")) or "elsewhere"
            return RedirectError(
                f"{where}: {host} redirected to {target} (HTTP {status}); not followed",
                status=status,
            )
        if status == 401:
            return AuthError(
                f"{where}: the server refused the token of profile “{self.connection.profile}” twice"
                + (f" ({message})" if message else ""),
                status=status,
            )
        if status == 403:
            return AuthError(
                f"{where}: not allowed for profile “{self.connection.profile}”"
                + (f" ({message})" if message else ""),
                status=status,
                hint="the API key lacks permission for this",
            )
        if status == 404:
            return NotFoundError(
                f"{where}: not found" + (f" ({message})" if message else ""), status=status
            )
        if status == 429:
            after = _retry_after(response)
            return RateLimitedError(
                f"{where}: rate limited by {host}"
                + (f" — retry in {after:.0f} s" if after else ""),
                retry_after=after,
            )
        if status >= 500:
            return ServerError(
                f"{where}: {host} failed (HTTP {status})" + (f": {message}" if message else ""),
                status=status,
            )
        if message:
            return ValidationError(message, status=status)
        return ValidationError(
            f"{where}: the server rejected the request (HTTP {status})", status=status
        )

    def _retry_delay(self, response: httpx.Response, attempt: int) -> tuple[float, float | None]:
        after = _retry_after(response)
        if after is None:
            return self._backoff_delay(attempt), None
        if after > self._retry_after_cap:
            return self._retry_after_cap, after
        return after, None

    def _backoff_delay(self, attempt: int) -> float:
        base = self._backoff * 2.0 ** (attempt - 1)
        return base * (0.5 + self._rand())  # jitter in [0.5, 1.5) of the base

    def _time_left(self, started: float, delay: float) -> bool:
        return self._clock() + delay - started < self._deadline

    def _notify(
        self,
        endpoint: Endpoint,
        attempt: int,
        delay: float,
        reason: str,
        capped: float | None = None,
    ) -> None:
        log.debug("retrying %s %s in %.1f s: %s", endpoint.method, endpoint.path, delay, reason)
        if self.on_retry is not None:
            self.on_retry(
                RetryNotice(endpoint.method, endpoint.path, attempt, delay, reason, capped)
            )


def webhook_endpoint(method: str, webhook_id: str) -> Endpoint:
    """The endpoint of one webhook."""
    return Endpoint(method, "base", f"/v1/platform-webhooks/{quote_id(webhook_id)}")


def collection_endpoint(collection_id: str) -> Endpoint:
    """``DELETE {console_url}/collection/{token_Id}``."""
    return Endpoint("DELETE", "console", f"/collection/{quote_id(collection_id)}")


class _Transient(Exception):
    """A failure that may be retried; carries the error to raise when retries run out."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


async def _read_body(response: httpx.Response) -> None:
    """Read the body of a streamed response; a large list into memory of its own.

    httpx collects a body in 64 KB chunks and joins them: two copies of the body at
    once, and the allocator keeps the chunks' memory afterwards (1.2 GB resident for a
    640 MB body); a ``bytearray`` grown chunk by chunk is kept by the allocator too,
    a body's worth for every reload. A large ``GET`` body of known length goes into an
    anonymous memory map of that length instead: filled a chunk at a time (no pause of
    the event loop), given back to the system as a whole when the last item decoded
    from it goes. The list decoder keeps slices of it.
    """
    if response.is_stream_consumed:  # built with its content (test transports)
        return
    length = response.headers.get("content-length", "")
    size = int(length) if length.isdigit() else 0
    if (
        size <= OFF_LOOP_BYTES
        or response.request.method != "GET"
        or not 200 <= response.status_code < 300
        or response.headers.get("content-encoding", "identity") != "identity"
    ):
        await response.aread()
        return
    buffer = mmap.mmap(-1, size)
    with contextlib.suppress(AttributeError, OSError):  # fewer page faults where supported
        buffer.madvise(mmap.MADV_HUGEPAGE)
    async for chunk in response.aiter_raw():
        buffer.write(chunk)  # h11 stops a body at its length (ValueError past the end)
    # What aread() would have set, without the copies (a memory map reads like bytes).
    response._content = buffer  # type: ignore[assignment]


_JSON_START = re.compile(rb"[^ \t\r\n]")
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])


class _NoFastPath(Exception):
    """The body is not a plain list of objects of the model: use the generic path."""


class _ListParser:
    """Decodes a list body into models; runs in a thread for large bodies.

    The fast path never builds the generic objects of the body (for 100,000 items,
    millions of dicts and lists, 300 MB): it finds the list as slices of JSON text,
    decodes each element straight into the model and keeps the element's text as its
    ``raw``. Each element is a separate call, so a decoding thread hands the GIL back
    to the event loop every few milliseconds. Anything else (another shape, a broken
    entry, invalid JSON) goes to the generic path, which names the problem exactly.

    Skipped JSON text is checked for syntax but not for UTF-8; an invalid byte in a
    field the model does not name shows as U+FFFD in the detail view.
    """

    def __init__(self, model: type[Model], what: str, status: int, content_type: str) -> None:
        self.model = model
        self.what = what
        self.status = status
        self.content_type = content_type

    def __call__(self, body: bytes) -> list[Any]:
        with paused_gc():
            try:
                return self._fast(body)
            except (_NoFastPath, msgspec.DecodeError, RecursionError, ValueError):
                pass
            return self._generic(body if isinstance(body, bytes) else bytes(body))

    def _fast(self, body: bytes) -> list[Any]:
        elements = _list_elements(body, (self.what, *shapes.LIST_KEYS))
        out: list[Any] = []
        append = out.append
        if self.model is Asset:
            # Assets name no fields: the table reads each cell from the dict.
            for index, element in enumerate(elements):
                obj = msgspec.json.decode(element)
                if not isinstance(obj, dict):
                    raise _NoFastPath
                append(_convert(obj, Asset, f"{self.what}[{index}]", self.status))
            return out
        out = from_json_elements(elements, self.model)
        if self.model is Collection:
            for value in out:
                if value.id is None:
                    value.id = shapes.find_id(value.raw, shapes.COLLECTION_ID_KEYS)
        return out

    def _generic(self, body: bytes) -> list[Any]:
        payload = shapes.decode_json(
            body, status=self.status, content_type=self.content_type, what=self.what
        )
        try:
            rows = shapes.extract_list(payload, (self.what, *shapes.LIST_KEYS))
        except ValueError as error:
            raise UnexpectedResponse(
                f"{self.what}: {error} ({shapes.describe_body(self.status, self.content_type, len(body))})",
                status=self.status,
            ) from None
        out = []
        for index, row in enumerate(rows):
            if not isinstance(row, dict):
                raise UnexpectedResponse(
                    f"{self.what}: entry {index} is not an object "
                    f"({shapes.describe_body(self.status, self.content_type, len(body))})",
                    status=self.status,
                )
            out.append(_convert(row, self.model, f"{self.what}[{index}]", self.status))
        return out


def _list_elements(body: bytes, keys: Sequence[str]) -> list[msgspec.Raw]:
    """The elements of the list in a list body, as JSON text, by the rules of
    :func:`shapes.extract_list`; raises :class:`_NoFastPath` where those rules fail."""
    start = _JSON_START.search(body)
    first = body[start.start()] if start else 0
    if first == ord("["):
        return _ELEMENTS.decode(body)
    if first != ord("{"):
        raise _NoFastPath
    if keys[0].isidentifier():
        # Usually the list sits under the first key: split it out in one pass.
        try:
            listed: list[msgspec.Raw] | None = getattr(_envelope(keys[0]).decode(body), keys[0])
        except msgspec.ValidationError:  # something else under that key
            listed = None
        if listed is not None:
            return listed
    members = _MEMBERS.decode(body)
    found = _list_member(members, keys)
    if found is None:
        data = members.get("data")
        if data is not None and _starts_with(data, ord("{")):
            found = _list_member(_MEMBERS.decode(data), keys)
    if found is None:
        lists = [value for value in members.values() if _starts_with(value, ord("["))]
        if len(lists) != 1:
            raise _NoFastPath
        found = lists[0]
    return _ELEMENTS.decode(found)


@functools.cache
def _envelope(key: str) -> msgspec.json.Decoder[Any]:
    """A decoder of an object holding a list under ``key``, its elements as JSON text."""
    struct = msgspec.defstruct("Envelope", [(key, list[msgspec.Raw] | None, None)])
    return msgspec.json.Decoder(struct)


def _list_member(members: dict[str, msgspec.Raw], keys: Sequence[str]) -> msgspec.Raw | None:
    for key in keys:
        value = members.get(key)
        if value is not None and _starts_with(value, ord("[")):
            return value
    return None


def _starts_with(text: msgspec.Raw, byte: int) -> bool:
    with memoryview(text) as view:
        return len(view) > 0 and view[0] == byte


def _convert(obj: dict[str, Any], model: type[M], what: str, status: int) -> M:
    try:
        value = from_raw(obj, model)
    except msgspec.ValidationError as error:
        raise UnexpectedResponse(f"{what}: {error}", status=status) from None
    if isinstance(value, Collection) and value.id is None:
        value.id = shapes.find_id(obj, shapes.COLLECTION_ID_KEYS)
    elif isinstance(value, Asset) and value.id is None:
        value.id = shapes.find_id(obj, shapes.ASSET_ID_KEYS)
    return value


def _looks_like(payload: dict[str, Any], model: type[Model]) -> bool:
    fields = {f.encode_name for f in msgspec.structs.fields(model)} - {"__tokensales_tui_raw__"}
    if model is Asset:
        return any(k in payload for k in shapes.ASSET_ID_KEYS) or not any(
            isinstance(payload.get(k), dict) for k in ("data", "asset")
        )
    return bool(fields & payload.keys())


def _optional_json(response: httpx.Response, what: str) -> Any:
    if not response.content.strip():
        return None
    try:
        return msgspec.json.decode(response.content)
    except (msgspec.DecodeError, RecursionError):
        return None


def _server_message(response: httpx.Response) -> str | None:
    body = response.content[:65536]
    if not body.strip():
        return None
    content_type = response.headers.get("content-type", "")
    try:
        payload = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError, ValueError):
        if "html" in content_type or body.lstrip()[:1] == b"<":
            return None
        try:
            return shapes.error_message(body.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return shapes.error_message(payload)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_certificate_error(error: BaseException) -> bool:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        if "CERTIFICATE_VERIFY_FAILED" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_refused(error: BaseException) -> bool:
    """Whether the host refused the connection; the cause may sit deep in the chain."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_dns_error(error: BaseException) -> bool:
    text = str(error).lower()
    return any(
        marker in text
        for marker in (
            "name or service not known",
            "nodename nor servname",
            "temporary failure in name resolution",
            "getaddrinfo failed",
            "no address associated",
        )
    )


def redact_url(url: str) -> str:
    """``url`` with user info and query values masked, for logs."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = "&".join(
        f"{pair.split('=', 1)[0]}=***" if "=" in pair else pair
        for pair in parts.query.split("&")
        if pair
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _user_agent() -> str:
    from .. import __version__

    return f"tokensales-tui/{__version__}"
