"""The API client: a typed method for every operation of the interface.

One long-lived ``httpx.AsyncClient`` serves the service's three addresses
(:mod:`.endpoints`); every call carries the bearer token from :class:`TokenManager`
and goes through :class:`~.transport.Sender` (retries, deadline, errors). List
bodies are decoded by :mod:`.decode`, other bodies read by :mod:`.shapes`.

Every public method raises :class:`~.errors.ApiError` and nothing else: the sender maps
what happens on the wire, and :func:`_api_errors_only` what happens after it (decoding,
reading shapes) — one boundary, not a guard at each call. The client trusts nothing
from the environment: no ``HTTP_PROXY``, no ``.netrc``; a proxy is used only when the
profile names one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import random
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import msgspec

from ..clean import clean_line
from ..http_clients import new_client
from . import shapes
from .auth import TokenGrant, TokenManager, TokenState
from .body_text import DataPieces, describe_body, read_as_utf8
from .closing import close_whatever_cancels, pool_closes_whatever_cancels
from .connection import Connection, host_of
from .decode import convert, looks_like, optional_json
from .endpoints import (
    LISTS,
    Endpoint,
    asset_endpoint,
    collection_endpoint,
    item_endpoint,
    url_of,
    webhook_endpoint,
)
from .errors import (
    ApiError,
    AuthError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    UnexpectedResponse,
    ValidationError,
)
from .listing import BetweenReads, RowsWatcher, StreamedList
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
)
from .names import look_up_in_own_threads
from .paging import Paging, with_paging
from .pools import pools
from .secret import Secret
from .stream import ListSplitter
from .transport import (
    ACCEPT_ENCODING,
    DEFAULT_TIMEOUTS,
    RetryNotice,
    Sender,
    SinkFailed,
    unexpected,
    unread_why,
)

if TYPE_CHECKING:
    # httpx (with the click and pygments its command line pulls in) takes ~50 ms to
    # import: it is imported when the first client is made, after the first frame.
    import httpx

__all__ = ["PAYOUT_UNKNOWN_ADVICE", "ApiClient", "Created", "Deleted", "Done"]

M = TypeVar("M", bound=Model)
P = ParamSpec("P")
R = TypeVar("R")

TOKEN_ENDPOINT = Endpoint("POST", "auth", "/auth/getAccessToken")
WRITE_ANSWER_CAP = 16 * 1024 * 1024
"""Bytes of a write's successful answer read (see :meth:`ApiClient._send`)."""

PAYOUT_UNKNOWN_ADVICE = (
    "the service cannot list payout definitions: check in its own console whether it was"
    " added before adding it again"
)
"""What to do when a payout add got no answer: no refresh shows whether it was added, and
the local record is written only on success."""

ACCEPTED = 202
ACCEPTED_NOTE = "only accepted by the server, HTTP 202: not yet done, and it may still fail"
"""Said of a write answered 202: the server took it to be processed later."""


@dataclass(frozen=True, slots=True)
class Done:
    """A write the server answered 2xx: done, or (a 202) accepted to be done later.

    ``unread``: why its answer's body could not be read (an encoding not asked for, gzip
    that is not gzip or is cut short); empty when it was, or there was none. The status
    says the write was done, so it is reported done, never failed (which would invite
    sending it again), and what a success records locally is recorded.

    ``status``: the answer's status (0: not known). A 202 Accepted says the server took
    the write to be processed later, not that it is done: :meth:`said` says so.
    """

    unread: str = ""
    status: int = 0

    @property
    def accepted(self) -> bool:
        """Whether the server only accepted the write, to do it later (HTTP 202)."""
        return self.status == ACCEPTED

    @property
    def note(self) -> str:
        """Said after "done …": empty, or what was not as it should be."""
        return _unread_note(self.unread)

    @property
    def unusual(self) -> bool:
        """Whether :meth:`said` says more than the caller's words: a report that is
        otherwise left out (one delete of many) is made then."""
        return self.accepted or bool(self.note)

    def said(self, what: str, *notes: str) -> str:
        """``what`` (this write, done) as every place that reports one says it: that the
        server only accepted it (a 202), the caller's own ``notes`` and then this
        answer's :attr:`note`, in brackets after it.

        Every report of a write goes through here, so none can leave the note out (a
        test holds every reader of ``note`` to this one). The note holds the server's
        words (an encoding it named): it is cleaned into one line of plain text here.
        """
        pending = ACCEPTED_NOTE if self.accepted else ""
        shown = [note for note in (pending, *notes, self.note) if note]
        if not shown:
            return what
        return f"{what} ({clean_line('; '.join(shown))})"


@dataclass(frozen=True, slots=True)
class Deleted(Done):
    """What a delete did: the object is gone.

    ``already_gone``: the request was repeated after an attempt whose answer was lost
    (no answer in time, a connection broken once it went, a gateway's 502 or 504), and
    the repeat found nothing to delete: that attempt has most likely deleted it.
    """

    already_gone: bool = False

    @property
    def note(self) -> str:
        """Said after "deleted …": empty, or why nothing was left to delete."""
        gone = "it was already gone when the request was repeated" if self.already_gone else ""
        return "; ".join(note for note in (gone, _unread_note(self.unread)) if note)


def _unread_note(unread: str) -> str:
    return f"its answer's body could not be read: {unread}" if unread else ""


@dataclass(frozen=True, slots=True)
class Created(Done):
    """What adding collections did: ``answer`` is the answer's decoded JSON body, if any
    (the ids given to what was created); None when there was none or it went unread.
    ``ids``: the ids it gives, read as a listed collection's are (:func:`.shapes.created_ids`)."""

    answer: Any = None
    ids: frozenset[str] = frozenset()


def _boundary(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``method`` raising :class:`ApiError` for every exception (cancellation aside)."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except ApiError:
            raise
        except SinkFailed as failed:
            raise failed.error from None
        except Exception as error:
            raise unexpected(method.__name__, error) from None

    return guarded


def _api_errors_only(cls: type[R]) -> type[R]:
    """Put every public coroutine method of ``cls`` behind :func:`_boundary`."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, _boundary(member))
    return cls


@_api_errors_only
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
        watch_rows: told as the rows of a list grow while its body arrives.
        between_reads: awaited between two pieces of a list body decoded as it arrives
            (see :data:`~.listing.BetweenReads`).
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
        watch_rows: RowsWatcher | None = None,
        between_reads: BetweenReads | None = None,
    ) -> None:
        import httpx

        self.watch_rows = watch_rows
        """Told ``(what, rows)`` as the rows of a list grow while its body arrives."""
        self.between_reads = between_reads
        """Awaited between two pieces of a list body decoded as it arrives."""

        self.connection = connection
        _read_larger_pieces()
        _close_after_extra_bytes()
        pool_closes_whatever_cancels()  # on its own: the patch above may find no hook
        look_up_in_own_threads()  # a resolver that never answers holds no thread waited for
        # The profile's proxy is the only one (the environment names none for us).
        proxy = connection.proxy or None
        self._http = new_client(
            # A write that cannot be repeated goes on a connection of its own (.pools),
            # through the profile's proxy. A given transport (a test's, the demo's
            # emulator) is handed every request: no proxy= to httpx, which would mount a
            # transport of its own for it and route every request past the given one.
            transport=transport or pools(proxy),
            timeout=timeout or httpx.Timeout(**DEFAULT_TIMEOUTS),
            headers={
                "Accept": "application/json",
                "Accept-Encoding": ACCEPT_ENCODING,
                "User-Agent": _user_agent(),
            },
        )
        self.tokens = TokenManager(self._boundary_fetch_token, clock=clock)
        self._sender = Sender(
            connection,
            self._http,
            self.tokens,
            max_attempts=max_attempts,
            deadline=deadline,
            retry_after_cap=retry_after_cap,
            backoff=backoff,
            on_retry=on_retry,
            clock=clock,
            sleep=sleep,
            rand=rand,
        )

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
        return await self._list(LISTS["webhooks"], Webhook, "webhooks")

    async def create_webhook(self, body: WebhookCreate) -> Done:
        """``POST /v1/platform-webhooks``."""
        return (await self._send(Endpoint("POST", "base", "/v1/platform-webhooks"), body)).done

    async def update_webhook(self, webhook_id: str, body: WebhookUpdate) -> Done:
        """``PUT /v1/platform-webhooks/{id}`` with only the fields that change."""
        return (await self._send(webhook_endpoint("PUT", webhook_id), body)).done

    async def delete_webhook(self, webhook_id: str) -> Deleted:
        """``DELETE /v1/platform-webhooks/{id}``; see :class:`Deleted`."""
        return await self._delete(webhook_endpoint("DELETE", webhook_id))

    # --- items ----------------------------------------------------------------------

    async def list_items(self) -> list[Item]:
        """``GET /v1/items``."""
        return await self._list(LISTS["items"], Item, "items")

    async def get_item(self, item_id: str) -> Item:
        """``GET /v1/items/{id}``."""
        return await self._one(item_endpoint("GET", item_id), Item, "item")

    async def delete_item(self, item_id: str) -> Deleted:
        """``DELETE /v1/items/{id}``; see :class:`Deleted`."""
        return await self._delete(item_endpoint("DELETE", item_id))

    # --- assets ---------------------------------------------------------------------

    async def list_assets(self) -> list[Asset]:
        """``GET /v1/assets``."""
        return await self._list(LISTS["assets"], Asset, "assets")

    async def get_asset(self, asset_id: str) -> Asset:
        """``GET /v1/assets/{id}``; the body may be the asset or hold it under ``data``/``asset``."""
        return await self._one(asset_endpoint(asset_id), Asset, "asset")

    # --- payouts --------------------------------------------------------------------

    async def add_payout(self, body: PayoutDefinition) -> Done:
        """``POST /v1/payouts/add``.

        Raises:
            OutcomeUnknownError: the answer never came; it says where to check, since
                the service cannot list payout definitions (:data:`PAYOUT_UNKNOWN_ADVICE`).
        """
        try:
            answer = await self._send(Endpoint("POST", "base", "/v1/payouts/add"), body)
        except OutcomeUnknownError as unknown:
            raise unknown.advising(PAYOUT_UNKNOWN_ADVICE) from None
        return answer.done

    # --- collections ----------------------------------------------------------------

    async def list_collections(self) -> list[Collection]:
        """``GET {console_url}/collections``."""
        return await self._list(LISTS["collections"], Collection, "collections")

    async def add_collections(self, bodies: Sequence[NewCollection]) -> Created:
        """``POST {console_url}/collections`` with a JSON array; see :class:`Created`."""
        answer = await self._send(Endpoint("POST", "console", "/collections"), list(bodies))
        return Created(
            answer.unread,
            answer.status,
            answer=optional_json(answer.body),
            ids=shapes.created_ids(answer.body),
        )

    async def delete_collection(self, collection_id: str) -> Deleted:
        """``DELETE {console_url}/collection/{token_Id}``; see :class:`Deleted`."""
        return await self._delete(collection_endpoint(collection_id))

    # --- any request ----------------------------------------------------------------

    async def stream_list(
        self, what: str, sink: Callable[[list[msgspec.Raw]], None]
    ) -> Paging | None:
        """``GET`` the list ``what`` (a key of :data:`~.endpoints.LISTS`) and hand its
        elements to ``sink``, as JSON text, a batch at a time as the body arrives; what
        the body said of more on the server beside its list (:mod:`.paging`), if anything.

        The list is never held whole: a list of 1,000,000 items takes no more memory
        than one of a thousand. Elements already handed over are not handed again: a
        failure once the body started arriving is not retried. What ``sink`` raises
        reaches the caller as it is, not as an :class:`ApiError`.
        """
        endpoint = LISTS[what]
        said: Paging | None = None

        def hand(elements: list[msgspec.Raw]) -> None:
            try:
                sink(elements)
            except Exception as error:  # the sink's own: it reaches the caller as it is
                raise SinkFailed(error) from error

        async def consume(response: httpx.Response, pieces: AsyncIterator[bytes]) -> None:
            import httpx

            nonlocal said
            content_type = response.headers.get("content-type", "")
            status = response.status_code
            splitter = ListSplitter(
                (what, *shapes.LIST_KEYS), status=status, content_type=content_type
            )
            text = DataPieces(what, status=status, content_type=content_type)
            try:
                async for chunk in pieces:
                    text(chunk)
                    if elements := splitter.feed(chunk):
                        hand(elements)
            except httpx.HTTPError as error:
                host = host_of(url_of(self.connection, endpoint))
                raise NetworkError(
                    f"the connection to {host} broke while the list arrived"
                    f" ({type(error).__name__})",
                    host=host,
                ) from None
            text.end()
            if elements := splitter.close():
                hand(elements)
            said = splitter.paging

        await self._sender.send(endpoint, None, consume=consume)
        return said

    async def request(self, endpoint: Endpoint, content: bytes | None) -> httpx.Response:
        """Send any request of the interface with the profile's token; the answer, read.

        For what the typed methods do not cover (``tokensales-tui api``). Retries,
        deadline and errors are those of every call.
        """
        return await self._sender.send(endpoint, content)

    # --- token ----------------------------------------------------------------------

    async def check_credentials(self) -> TokenState:
        """Get a fresh token now (for "Test connection"); raises on failure."""
        self.tokens.forget()
        await self.tokens.token()
        return self.tokens.state

    async def _boundary_fetch_token(self) -> TokenGrant:
        try:
            return await self._fetch_token()
        except ApiError:
            raise
        except Exception as error:
            raise unexpected("token response", error) from None

    async def _fetch_token(self) -> TokenGrant:
        body = {"apiKey": self.connection.api_key, "apiSecret": self.connection.api_secret}
        endpoint = TOKEN_ENDPOINT
        try:
            response = await self._sender.send(
                endpoint, encode(body), authorised=False, max_attempts=2
            )
        except NotFoundError:
            url = url_of(self.connection, endpoint)
            raise NotFoundError(
                f"the token endpoint {url} was not found (HTTP 404): the address is likely"
                " wrong, not the credentials",
                status=404,
                hint=f"check auth_url (or base_url) of profile “{self.connection.profile}”",
            ) from None
        except (AuthError, ValidationError) as error:
            given = " and ".join(self.connection.credentials_from)
            raise AuthError(
                f"the token endpoint refused the credentials of profile "
                f"“{self.connection.profile}” ({error.status or 'no status'})"
                + (f", given by {given}" if given else ""),
                status=error.status,
                hint=f"check {given}" if given else None,
                in_profile=not given,
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
                f"({describe_body(response.status_code, response.headers.get('content-type', ''), len(response.content))})",
                status=response.status_code,
            ) from None
        if problem := _header_problem(token):
            # Never quoted: it is a secret.
            raise UnexpectedResponse(
                f"token response: the access token {problem}, which an Authorization header"
                f" cannot carry ({len(token)} characters)",
                status=response.status_code,
            )
        return TokenGrant(Secret(token, short_lived=True), expires_in)

    # --- plumbing -------------------------------------------------------------------

    async def _list(self, endpoint: Endpoint, model: type[M], what: str) -> list[M]:
        """A list, decoded as its body arrives (see :mod:`.listing`); ``watch_rows`` sees
        its rows grow. An attempt that fails is retried from the start, with new rows.
        What the body said of more on the server is read back by
        :func:`~.paging.paging_of`."""
        attempt: StreamedList | None = None

        async def consume(response: httpx.Response, pieces: AsyncIterator[bytes]) -> None:
            nonlocal attempt
            if attempt is not None:
                attempt.close()  # read whole, then failed after all: retried
            attempt = StreamedList(model, what, response, self.watch_rows, self.between_reads)
            await attempt.consume(pieces)

        # Every way out but the rows' closes the last attempt's spool (each failed one
        # closes its own): its file and thread are given back as the load ends.
        try:
            await self._sender.send(endpoint, None, consume=consume)
            if attempt is None:  # a success without a body to consume (a test transport)
                raise UnexpectedResponse(f"{what}: the answer had no body")
            rows = await attempt.result()
            return with_paging(rows, attempt.paging)
        except BaseException:
            if attempt is not None:
                attempt.close()
            raise

    async def _one(self, endpoint: Endpoint, model: type[M], what: str) -> M:
        """One object; it keeps its JSON text as ``raw``, where its id is read from too
        (:func:`~.decode.convert`)."""
        response = await self._sender.send(endpoint, None)
        content_type = response.headers.get("content-type", "")
        payload = shapes.decode_json(
            response.content, status=response.status_code, content_type=content_type, what=what
        )
        text: bytes | None = shapes.as_read(bytes(response.content))
        if isinstance(payload, dict) and not looks_like(payload, model):
            for key in ("data", what):
                if isinstance(payload.get(key), dict):
                    payload = payload[key]
                    text = shapes.member_text(text, key)
                    break
        if not isinstance(payload, dict):
            raise UnexpectedResponse(
                f"{what}: expected an object ({describe_body(response.status_code, content_type, len(response.content))})",
                status=response.status_code,
            )
        return convert(payload, model, what, response.status_code, text)

    async def _delete(self, endpoint: Endpoint) -> Deleted:
        """A DELETE; a 404 to it repeated after an attempt whose answer was lost is the
        object gone, most likely by that attempt: deleted (see :mod:`.transport`)."""
        try:
            answer = await self._send(endpoint)
        except NotFoundError as error:
            if not error.after_unknown_outcome:
                raise
            return Deleted(already_gone=True)
        return Deleted(answer.unread, answer.status)

    async def _send(self, endpoint: Endpoint, body: Any = None) -> _Answer:
        """A write (POST, PUT, DELETE); its answer's first :data:`WRITE_ANSWER_CAP` bytes.

        The interface's writes answer with no body (the collections' is not shown: it may
        echo what was sent, whitelists and all): the rest of a longer answer is never read
        (a compressed megabyte inflating to a gigabyte once cost two). A 2xx whose body
        cannot be read is done, with no body and why (see :mod:`.transport`); one whose
        body reports a failure (``{"success": false, "error": …}``, read as a list's is:
        :func:`.shapes.written_refusal`) is a :class:`ValidationError` in its words. The
        body is read as an error body is, in the charset it declares
        (:func:`.body_text.read_as_utf8`).
        """
        content = encode(body) if body is not None else None
        kept = bytearray()

        async def keep(response: httpx.Response, pieces: AsyncIterator[bytes]) -> None:
            async with contextlib.aclosing(cast("AsyncGenerator[bytes]", pieces)):
                async for piece in pieces:
                    kept.extend(piece[: WRITE_ANSWER_CAP - len(kept)])
                    if len(kept) >= WRITE_ANSWER_CAP:
                        return

        response = await self._sender.send(endpoint, content, consume=keep)
        unread = unread_why(response)
        # Read as an error body is: a refusal in Latin-1 is a refusal, not an unread "done".
        read = (
            b"" if unread else read_as_utf8(bytes(kept), response.headers.get("content-type", ""))
        )
        answer = _Answer(read, unread, response.status_code)
        if refused := shapes.written_refusal(answer.body):
            # A 2xx whose body says it failed: refused, as the same body under a 4xx is.
            problem, payload = refused
            field, index = shapes.error_place(payload)
            raise ValidationError(
                shapes.reported_in_success(problem),
                status=response.status_code,
                field=field,
                index=index,
                request=f"{endpoint.method} {endpoint.path}",
                problems=shapes.error_problems(payload),
            )
        return answer


@dataclass(frozen=True, slots=True)
class _Answer:
    """A write's successful answer: its body, or why it could not be read; its status."""

    body: bytes
    unread: str
    status: int

    @property
    def done(self) -> Done:
        """What the write did, as reported."""
        return Done(self.unread, self.status)


_SCHEME = re.compile(r"(basic|digest|jwt|mac|negotiate|oauth|token)\s", re.IGNORECASE | re.ASCII)
"""An authorization scheme's name before a token (``Bearer`` is taken off: see
:func:`.shapes.extract_token`); a name of this list only, so that no part of a token
that merely holds a space is ever quoted. ASCII, so that ``toKen`` with a Kelvin sign is
no scheme's name."""


def _header_problem(token: str) -> str:
    """Why ``token`` is no bearer token (printable ASCII without spaces), in words that
    quote none of it but a known scheme's name before it; empty when it is one."""
    if scheme := _SCHEME.match(token):
        return f"starts with “{scheme[1]} ” (an authorization scheme's name, not a bearer token)"
    if not token.isascii():
        return "holds characters that are not ASCII"
    if any(c.isspace() for c in token):
        return "holds white space"
    if not token.isprintable():
        return "holds control characters"
    return ""


READ_BYTES = 256 * 1024
"""Most bytes of a response one read of the socket takes (asyncio hands over at most
this much at once)."""


def _read_larger_pieces() -> None:
    """Let httpcore read responses :data:`READ_BYTES` at a time rather than 64 KB.

    Each read costs about 0.15 ms of the event loop in httpx, httpcore and anyio,
    whatever its size: the 614 MB list of 1,000,000 items took 1.4 s of reads at 64 KB,
    0.9 s at 256 KB. A read returns what has arrived, so a small answer is no later.
    """
    import httpcore

    connection = getattr(httpcore, "AsyncHTTP11Connection", None)
    if connection is not None and getattr(connection, "READ_NUM_BYTES", READ_BYTES) < READ_BYTES:
        connection.READ_NUM_BYTES = READ_BYTES


def _close_after_extra_bytes() -> None:
    """Let httpcore close a connection whose answer was followed by bytes, never reuse it.

    A response ends where its framing says (its Content-Length; no body for a 204, a 304
    or an answer to HEAD). Bytes the server sent beyond it answer nothing that was asked,
    and h11 keeps them for the next response: on a kept-alive connection they were read
    as the answer to the next request (a second response smuggled after the token's
    became the answer to a GET the server never answered; a stray newline broke the
    next POST, which the server did). RFC 9112 §6.3 (RFC 7230 §3.3.3): discard them and
    close the connection. Bytes arriving after the connection went back to the pool make
    it readable while idle, which httpcore already counts as closed by the server.

    The close runs to its end whatever cancels its reader (see :mod:`.closing`).
    """
    import httpcore

    connection = getattr(httpcore, "AsyncHTTP11Connection", None)
    closed = getattr(connection, "_response_closed", None)
    if connection is None or closed is None or getattr(closed, "closes_after_extra", False):
        return

    async def response_closed(self: Any) -> None:
        async def close() -> None:
            if self._h11_state.trailing_data[0]:  # bytes beyond the response: not reused
                await self.aclose()
                return
            await closed(self)

        await close_whatever_cancels(close, self.aclose)

    response_closed.closes_after_extra = True  # type: ignore[attr-defined]
    connection._response_closed = response_closed


def _user_agent() -> str:
    from .. import __version__

    return f"tokensales-tui/{__version__}"
