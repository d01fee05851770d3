"""One request and its retries: attempts, deadline, back-off, and mapping failures to ApiError.

Retry policy: GET, PUT and DELETE, and the token request (a POST that changes
nothing), are retried on connection errors, 429 (honouring ``Retry-After``, capped at
30 s) and 502/503/504, with jittered exponential backoff, at most three attempts (two
for the token) and an overall deadline. Any other POST is retried only when it
certainly never reached the server (the connection could not be made); a POST whose
answer never came raises :class:`~.errors.OutcomeUnknownError` and is never repeated.
Such a POST goes on a connection opened for it alone (:mod:`.pools`), so that one a
server closed while it was idle never loses it. Redirects are never followed, so the
token cannot travel to another host; every one is described by :meth:`Sender._redirect`.

A DELETE repeated after an attempt that may have reached the server and been acted on
(no answer in time, a connection broken once the request went, a gateway's 502 or 504)
may find the object gone because that attempt deleted it: its 404 is a
:class:`~.errors.NotFoundError` with ``after_unknown_outcome``, which the client's
deletes count as deleted. A refused connection, a 503 or a 429 did nothing, so a 404
after them is an ordinary one.

Limits: a body is read as a stream and counted as it is decoded (gzip and deflate are
inflated here, a bounded piece at a time), so an endless chunked or close-delimited body
or a compression bomb stops at the limit without ever being held: a successful answer at
the profile's ``max_body`` (an :class:`~.errors.UnexpectedResponse` naming it), an error
answer at :data:`ERROR_BODY_CAP` (kept, cut, for its message). Waits are finite: a
``Retry-After`` that is negative, not a number, infinite or beyond a day is clamped.

Once an answer's status line has arrived, the status decides, whatever then becomes of
its body (cut short by a closed connection, stalled past the read time-out or the
deadline, an encoding not asked for, gzip that is not gzip or is cut short, over the
limit): an error answer keeps its error, its body unquoted; a write answered 2xx was
done, never "outcome unknown" and never repeated, and its response says why its body
could not be read (:func:`unread_why`). Such a body, as an error answer's, is waited for
:data:`DETAIL_BODY_WAIT` at most once its status has arrived. Only the success of a read, whose body is the
answer, fails with its body (an :class:`UnreadableBody`, or a broken connection retried).

Every failure leaves :meth:`Sender.send` as an :class:`~.errors.ApiError`: the expected
ones mapped one by one below, anything else by :func:`unexpected`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import mmap
import random
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, urljoin, urlsplit

import msgspec

from ..digits import ascii_int, ascii_number
from ..http_clients import location as location_of
from ..web_urls import split_web_url
from . import shapes
from .auth import TokenManager
from .body_text import reason_text
from .closing import close_whatever_cancels
from .connection import Connection, host_of
from .decode import OFF_LOOP_BYTES
from .endpoints import Endpoint, check_path, redact_url, url_of
from .errors import (
    REFRESH_TO_CHECK,
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
from .models import set_aside_libraries
from .pools import own_connection
from .secret import Secret
from .spool import folder_problem

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_TIMEOUTS",
    "DETAIL_BODY_WAIT",
    "ERROR_BODY_CAP",
    "MAX_RETRY_AFTER",
    "RetryNotice",
    "Sender",
    "SinkFailed",
    "UnreadableBody",
    "describe_wait",
    "noting_attempts",
    "noting_changes",
    "size_text",
    "unexpected",
    "unread_why",
]

log = logging.getLogger("tokensales_tui.api")

DEFAULT_TIMEOUTS = {"connect": 5.0, "read": 20.0, "write": 20.0, "pool": 5.0}
"""Seconds allowed to connect, to read, to write and to wait for a pooled connection."""
DETAIL_BODY_WAIT = 5.0
"""Most seconds the body of an answer whose status decides (a write's success, an error)
is waited for once its status has arrived: the body is only a detail of it (the object as
written, an error's message), and one that stalls must not keep the user waiting for the
read time-out (20 s by default) or the deadline."""
Consumer = Callable[["httpx.Response", AsyncIterator[bytes]], Awaitable[None]]
"""Reads a successful response's body from the decoded pieces it is handed."""


class SinkFailed(Exception):
    """What the caller's own code, handed a body's contents as they arrive, raised: carried
    past the transport's handling of failures, which would make it an
    :class:`~.errors.ApiError` of the request (a reader of ``| head`` gone is no failure
    of the server). The API client's boundary raises :attr:`error` itself."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.error = error


class UnreadableBody(UnexpectedResponse):
    """A body that cannot be read: an encoding not asked for, bytes that do not follow
    the one named, or more than the limit. ``why`` says so without saying where."""

    def __init__(self, message: str, why: str, status: int | None, hint: str | None = None) -> None:
        super().__init__(message, status=status, hint=hint)
        self.why = why


_UNREAD = "tokensales_unread"
"""The response extension that holds why a write's successful answer went unread."""


def unread_why(response: httpx.Response) -> str:
    """Why the body of a write's successful answer could not be read; empty when it was
    (or had none). Such an answer's body is empty."""
    return str(response.extensions.get(_UNREAD, ""))


class _Hook:
    """A callback a context variable holds for a block (:func:`_noting`), let go of at
    the block's end.

    Every task started within the block copies its context, and some outlive it (a list
    load's): the callback, with all it refers to, lived as long as the last of them. The
    API worker's hook refers to the call's future, and so to its result: a reload of a
    million items held the list it replaced until then (a peak of 1,040 MB, not 720).
    """

    __slots__ = ("call",)

    def __init__(self, call: Callable[..., None]) -> None:
        self.call: Callable[..., None] | None = call


@contextlib.contextmanager
def _noting(
    variable: contextvars.ContextVar[_Hook | None], call: Callable[..., None]
) -> Iterator[None]:
    """Set ``variable`` to a hook calling ``call`` within the block; at its end the hook
    lets go of ``call``, in whatever context holds it still."""
    hook = _Hook(call)
    reset = variable.set(hook)
    try:
        yield
    finally:
        hook.call = None
        variable.reset(reset)


def _hooked(variable: contextvars.ContextVar[_Hook | None]) -> Callable[..., None] | None:
    """The callback ``variable`` holds here, if a block that set it is still under way."""
    hook = variable.get()
    return None if hook is None else hook.call


_ATTEMPTED: contextvars.ContextVar[_Hook | None] = contextvars.ContextVar(
    "tokensales_attempted", default=None
)


def noting_attempts(attempted: Callable[[], None]) -> contextlib.AbstractContextManager[None]:
    """Call ``attempted`` as each request of the service made within this block (in
    this task) is handed to the connection: the token request aside, which changes
    nothing.

    What a caller that stops waiting needs to know: before the first call, nothing was
    sent, whatever the wait was for (a token, a connection, a retry's back-off).
    """
    return _noting(_ATTEMPTED, attempted)


_CHANGING: contextvars.ContextVar[_Hook | None] = contextvars.ContextVar(
    "tokensales_changing", default=None
)


def noting_changes(changing: Callable[[Endpoint], None]) -> contextlib.AbstractContextManager[None]:
    """Call ``changing(endpoint)`` as each request made within this block (in this task)
    that may change something on the service is handed to the connection: every method
    but GET and HEAD, the token request aside."""
    return _noting(_CHANGING, changing)


RETRY_STATUSES = frozenset({429, 502, 503, 504})
GATEWAY_LOST = frozenset({502, 504})
"""Statuses a gateway answers when the server behind it may have had the request and
never answered: the request may have been acted on."""
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})
ERROR_BODY_CAP = 64 * 1024
"""Bytes of an error answer's decoded body kept for its message; the rest is not read."""
MAX_RETRY_AFTER = 86400.0
"""The longest ``Retry-After`` believed (a day); longer, infinite or absurd ones count as this."""
ACCEPT_ENCODING = "gzip, deflate"
"""The content encodings asked for: the ones :func:`_read_body` inflates with a bound."""
_INFLATE_STEP = 256 * 1024


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """Told to ``on_retry`` before the client waits to try again."""

    method: str
    path: str
    attempt: int
    delay: float
    reason: str
    capped_from: float | None = None
    """The server's Retry-After when it was longer than the cap (never beyond a day)."""
    asked: str = ""
    """The server's Retry-After in words when it was capped ("2 min", "more than a day")."""


class Sender:
    """Sends requests of one profile through one long-lived ``httpx.AsyncClient``.

    Args:
        connection: the addresses and credentials of the profile.
        http: the client the requests go through.
        tokens: the profile's tokens, for the Authorization header and renewals.
        max_attempts: attempts per call, the first included.
        deadline: seconds after which no further attempt starts.
        retry_after_cap: the longest ``Retry-After`` honoured.
        backoff: the first wait between attempts, doubled each time, with jitter.
        on_retry: told before each wait, so a UI can show a countdown.
        clock, sleep, rand: injectable for tests.
    """

    def __init__(
        self,
        connection: Connection,
        http: httpx.AsyncClient,
        tokens: TokenManager,
        *,
        max_attempts: int,
        deadline: float,
        retry_after_cap: float,
        backoff: float,
        on_retry: Callable[[RetryNotice], None] | None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.connection = connection
        self._http = http
        self.tokens = tokens
        self._max_attempts = max(1, max_attempts)
        self._deadline = deadline
        self._retry_after_cap = retry_after_cap
        self._backoff = backoff
        self._clock = clock
        self._sleep = sleep
        self._rand = rand
        self.on_retry = on_retry

    async def send(
        self,
        endpoint: Endpoint,
        content: bytes | None,
        *,
        authorised: bool = True,
        max_attempts: int | None = None,
        consume: Consumer | None = None,
    ) -> httpx.Response:
        """Send ``content`` to ``endpoint`` and return the (successful) response.

        Retries what the policy allows (see the module docstring), renews the token
        once on a 401, and raises the :class:`~.errors.ApiError` for anything else:
        nothing else leaves this method (cancellation aside). ``consume``, if given,
        reads the body of a successful response as it streams in, from the decoded
        pieces it is handed (within the profile's ``max_body``); the response returned
        has none. An :class:`~.errors.ApiError` it raises is never retried.
        """
        check_path(endpoint, url_of(self.connection, endpoint))
        try:
            return await self._send(endpoint, content, authorised, max_attempts, consume)
        except (ApiError, SinkFailed):
            raise
        except Exception as error:
            raise unexpected(f"{endpoint.method} {endpoint.path}", error) from None

    async def _send(
        self,
        endpoint: Endpoint,
        content: bytes | None,
        authorised: bool,
        max_attempts: int | None,
        consume: Consumer | None,
    ) -> httpx.Response:
        attempts = max_attempts or self._max_attempts
        started = self._clock()
        renewed = False
        lost: str | None = None  # why an earlier attempt may have been acted on, unanswered
        attempt = 0
        while True:
            attempt += 1
            token = await self.tokens.token() if authorised else None
            if authorised and (attempted := _hooked(_ATTEMPTED)) is not None:
                attempted()
            if _changes(endpoint) and (changing := _hooked(_CHANGING)) is not None:
                changing(endpoint)
            try:
                budget = self._deadline - (self._clock() - started)
                response = await self._once(endpoint, content, token, max(budget, 0.5), consume)
            except _Transient as transient:
                delay = self._backoff_delay(attempt)
                if transient.sent and lost is None:
                    lost = transient.error.message
                if attempt >= attempts or not self._time_left(started, delay):
                    if lost is not None and _changes(endpoint):
                        # A PUT or DELETE sent, its answers lost: it may have been done.
                        raise self._outcome_unknown(endpoint, lost) from None
                    raise transient.error from None
                self._notify(endpoint, attempt, delay, transient.error.message)
                await self._sleep(delay)
                continue
            status = response.status_code
            if status == 401 and authorised and token is not None:
                if renewed:
                    self.tokens.refused(token)
                else:
                    renewed = True
                    await self.tokens.renew(token)
                    attempt -= 1  # the retry after a renewal is not a failed attempt
                    continue
            if status in RETRY_STATUSES and _repeatable(endpoint):
                delay, capped = self._retry_delay(response, attempt)
                if attempt < attempts and self._time_left(started, delay):
                    if status in GATEWAY_LOST and lost is None:
                        lost = f"HTTP {status} from a gateway"
                    self._notify(endpoint, attempt, delay, f"HTTP {status}", capped)
                    await self._sleep(delay)
                    continue
            if lost is not None and _changes(endpoint) and (status >= 500 or status == 429):
                # The last attempt did nothing (busy, failed); an earlier one may have.
                raise self._outcome_unknown(endpoint, lost)
            if status >= 400 or 300 <= status < 400:
                raise self._status_error(endpoint, response, after_unknown=lost is not None)
            return response

    async def _once(
        self,
        endpoint: Endpoint,
        content: bytes | None,
        token: Secret | None,
        budget: float,
        consume: Consumer | None = None,
    ) -> httpx.Response:
        """One attempt, cut short after ``budget`` seconds whatever the server trickles.

        httpx's read time-out restarts with every byte; the budget is what is left of the
        call's overall deadline.
        """
        import httpx

        url = url_of(self.connection, endpoint)
        headers = {"Content-Type": "application/json"} if content is not None else {}
        if token is not None:
            headers["Authorization"] = "Bearer " + token.reveal()
        started = time.perf_counter()
        request = self._http.build_request(
            endpoint.method,
            url,
            content=content,
            headers=headers,
            # One that cannot be repeated never goes on a connection the server may have
            # closed while it was idle (see .pools).
            extensions=None if _repeatable(endpoint) else own_connection(),
        )
        ends = asyncio.get_running_loop().time() + budget
        try:
            async with asyncio.timeout_at(ends):
                response = await self._http.send(request, stream=True)
            # The status line has arrived: what becomes of the body is _read's to say.
            try:
                await self._read(endpoint, response, consume, ends)
            finally:
                await close_whatever_cancels(response.aclose)
                set_aside_libraries()
        except TimeoutError:
            # The whole deadline passed inside this attempt (a server trickling its answer).
            if not _repeatable(endpoint):
                raise self._outcome_unknown(endpoint, "no complete answer in time") from None
            raise _Transient(
                TimeoutError_(
                    f"{host_of(url)} did not finish answering within {self._deadline:.0f} s",
                    host=host_of(url),
                ),
                sent=True,
            ) from None
        except httpx.ConnectTimeout:
            raise _Transient(
                self._network_error(url, "timed out connecting to"), sent=False
            ) from None
        except httpx.ConnectError as error:
            problem = self._network_error(url, "could not connect to", error)
            if _is_certificate_error(error) or _is_not_tls(error):
                raise problem from None  # never retried, never switched off
            raise _Transient(problem, sent=False) from None
        except httpx.TimeoutException as error:
            if not _repeatable(endpoint):
                raise self._outcome_unknown(endpoint, "no answer in time") from None
            raise _Transient(
                TimeoutError_(f"{host_of(url)} did not answer in time", host=host_of(url)),
                sent=not isinstance(error, httpx.PoolTimeout),  # waited for a connection
            ) from None
        except (httpx.TransportError, httpx.StreamError) as error:
            if not _repeatable(endpoint):
                raise self._outcome_unknown(endpoint, "the connection broke") from None
            raise _Transient(
                NetworkError(
                    f"the connection to {host_of(url)} broke ({type(error).__name__})",
                    host=host_of(url),
                ),
                sent=True,
            ) from None
        log.debug(
            "%s %s → %s in %.0f ms",
            endpoint.method,
            redact_url(url),
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    async def _read(
        self,
        endpoint: Endpoint,
        response: httpx.Response,
        consume: Consumer | None,
        ends: float,
    ) -> None:
        """Read the body of ``response``, to ``consume`` when it is a success, by the
        event loop's time ``ends``.

        Once the status line has arrived, the status decides, whatever becomes of the
        body (cut short, stalled past the read time-out, past ``ends`` or past
        :data:`DETAIL_BODY_WAIT`, not decodable, over the limit): a write answered 2xx was done, and reporting a failure (or
        "outcome unknown") would invite sending it again (a second webhook, a second
        payout definition); an error status keeps its error. Such a body is left empty,
        and why it went unread is kept for :func:`unread_why`. Only the body of a read's
        success, which is the answer itself, fails the attempt.
        """
        import httpx

        where = f"{endpoint.method} {endpoint.path}"
        done = 200 <= response.status_code < 300
        # The deadline's seconds, or, for a body the status decides without, its own
        # bound where that comes first.
        within = f"{self._deadline:.0f} s"
        if not done or _changes(endpoint):
            own = asyncio.get_running_loop().time() + DETAIL_BODY_WAIT
            if own < ends:
                ends, within = own, f"{DETAIL_BODY_WAIT:g} s of its status"
        try:
            async with asyncio.timeout_at(ends):
                if consume is not None and done:
                    limit = self.connection.max_body
                    await consume(response, _pieces_within(response, where, limit))
                else:
                    await _read_body(response, where, self.connection.max_body)
        except (TimeoutError, httpx.TransportError, httpx.StreamError, UnreadableBody) as error:
            if done and not _changes(endpoint):
                raise  # a read's answer is its body
            why = _unread(error, response, within)
            if done:
                log.warning(
                    "%s: done, but its answer's body could not be read: %s (%s)",
                    where,
                    why,
                    type(error).__name__,
                )
                response.extensions[_UNREAD] = why
            else:
                log.debug("%s: HTTP %s, its body unread: %s", where, response.status_code, why)
            response._content = b""

    def _outcome_unknown(self, endpoint: Endpoint, why: str) -> OutcomeUnknownError:
        # The advice is in the message (forms show the message alone), so no hint repeats it.
        host = host_of(url_of(self.connection, endpoint))
        return OutcomeUnknownError(
            f"{endpoint.method} {endpoint.path} on {host}: outcome unknown ({why})",
            advice=REFRESH_TO_CHECK,
        )

    def _network_error(self, url: str, verb: str, error: Exception | None = None) -> NetworkError:
        host = host_of(url)
        if error is not None and _is_certificate_error(error):
            return NetworkError(
                f"the TLS certificate of {host} could not be verified",
                host=host,
                hint="the certificate is not trusted; fix it on the server or install its CA — checks stay on",
            )
        if error is not None and _is_not_tls(error):
            return NetworkError(
                f"{host} did not answer in TLS: it looks like a plain http:// server",
                host=host,
                hint="use http:// in the address if the server really has no TLS, or check the port",
            )
        # The first hop is the proxy, when the profile has one: it is what could not be
        # resolved, refused or did not answer (the server was never reached).
        proxy = self.connection.proxy
        first = urlsplit(proxy) if proxy else urlsplit(url)
        near = f"the proxy {host_of(proxy)}" if proxy else host
        check = "the proxy in the profile" if proxy else "the address in the profile"
        if error is not None and _is_dns_error(error):
            return NetworkError(
                f"the host name {first.hostname} could not be resolved",
                host=host,
                hint=f"check {check} and your DNS",
            )
        if error is not None and _is_refused(error):
            return NetworkError(
                f"{near} refused the connection",
                host=host,
                hint=f"is {'it' if proxy else 'the server'} running at that address?",
                retry="now",
            )
        return NetworkError(f"{verb} {near}", host=host)

    def _status_error(
        self, endpoint: Endpoint, response: httpx.Response, *, after_unknown: bool = False
    ) -> ApiError:
        """The error of an answer that is no success; ``after_unknown``: an earlier
        attempt of this call may have been acted on, its answer lost."""
        status = response.status_code
        host = host_of(str(response.request.url)) if response.request else ""
        payload = _server_payload(response)
        message = None if payload is None else shapes.error_message(payload)
        where = f"{endpoint.method} {endpoint.path}"
        if status == 304:
            return UnexpectedResponse(
                f"{where}: {host} answered HTTP 304 Not Modified to a request that asked for"
                " no comparison",
                status=status,
            )
        if 300 <= status < 400:
            return self._redirect(endpoint, response)
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
        if status in (404, 410):  # 410: gone for good, as the user sees it not found
            found = f"{where}: not found" + (f" ({message})" if message else "")
            if after_unknown and endpoint.method == "DELETE":
                return NotFoundError(
                    f"{found} when the request was repeated: the attempt before, whose answer"
                    " was lost, has most likely deleted it",
                    status=status,
                    after_unknown_outcome=True,
                )
            return NotFoundError(found, status=status)
        if status == 429:
            after = _retry_after(response)
            return RateLimitedError(
                f"{where}: rate limited by {host}"
                + (f" — retry in {describe_wait(after)}" if after else ""),
                retry_after=after,
            )
        if status in GATEWAY_LOST and _changes(endpoint):
            # The server behind the gateway may have had the request and done it.
            return self._outcome_unknown(endpoint, f"HTTP {status} from a gateway")
        if status >= 500:
            return ServerError(
                f"{where}: {host} failed (HTTP {status})" + (f": {message}" if message else ""),
                status=status,
            )
        if message:
            field, index = shapes.error_place(payload)
            return ValidationError(
                message,
                status=status,
                field=field,
                index=index,
                request=where,
                problems=shapes.error_problems(payload),
            )
        return ValidationError(
            f"{where}: the server rejected the request (HTTP {status})",
            status=status,
            request=where,
        )

    def _redirect(self, endpoint: Endpoint, response: httpx.Response) -> ApiError:
        """The error of a redirect (never followed): every 3xx is described here, and
        nothing in the describing raises, whatever its ``Location`` holds."""
        status = response.status_code
        where = f"{endpoint.method} {endpoint.path}"
        url = str(response.request.url)
        location = location_of(response)
        if status == 303 and _changes(endpoint):
            # "See Other" answers a write that was done (and points to its result):
            # not followed, but never "failed", which would invite sending it again.
            return self._outcome_unknown(
                endpoint,
                f"{host_of(url)} answered 303 See Other"
                + (f" to {_named(url, location)}" if location else "")
                + ", which says it was done",
            )
        if not location:
            return RedirectError(
                f"{where}: {host_of(url)} answered with a redirect (HTTP {status}) to no address",
                status=status,
            )
        try:
            return _redirect_error(where, url, location, status)
        except Exception:  # what no rule below foresaw: still a redirect, not followed
            log.debug("%s: describing a redirect failed", where, exc_info=True)
            return _not_a_url(where, url, status)

    def _retry_delay(self, response: httpx.Response, attempt: int) -> tuple[float, float | None]:
        after = _retry_after(response)
        if after is None:
            return self._backoff_delay(attempt), None
        cap = _finite(self._retry_after_cap, 0.0, MAX_RETRY_AFTER)
        if after > cap:
            return cap, after
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
            asked = describe_wait(capped) if capped is not None else ""
            self.on_retry(
                RetryNotice(endpoint.method, endpoint.path, attempt, delay, reason, capped, asked)
            )


def _target(url: str, location: str) -> SplitResult | None:
    """Where ``location`` sends a request to ``url``, read as a browser would read it,
    relative to ``url``; None when it is no valid URL with a host.

    An address a browser reads otherwise than ``urlsplit`` (a ``\\``, which it takes for
    ``/``; see :func:`~tokensales_tui.web_urls.split_web_url`), or one with a scheme and no
    ``//host`` (``http:host:1/x``, ``ftp:x``: such a URL names no host), is none.
    """
    try:
        written = urlsplit(location[:2000])
        if written.scheme and not written.netloc:
            return None
        to = split_web_url(urljoin(url, location[:2000]))
        _port = to.port  # a port of letters raises here, not later
    except ValueError:  # not a URL (a port of letters, a broken IPv6 address, a \ …)
        return None
    return to if to.hostname else None


def _host(to: SplitResult) -> str:
    """The host and port of ``to``: never the user name and password written before them."""
    return to.netloc.rpartition("@")[2]


def _named(url: str, location: str) -> str:
    """Where a redirect from ``url`` points, as every redirect's description names it: the
    path on the same scheme, host and port, else the scheme, host and port; never a user
    name or password, a query or a fragment (a server's ``Location`` may carry a signed
    link's secret)."""
    to = _target(url, location)
    if to is None:
        return "an address that is not a valid URL"
    asked = urlsplit(url)
    if (to.scheme, to.hostname, to.port) == (asked.scheme, asked.hostname, asked.port):
        return to.path[:200] or "/"
    return f"{to.scheme}://{_host(to)}"


def _redirect_error(where: str, url: str, location: str, status: int) -> RedirectError:
    """The error of a redirect from ``url`` to ``location`` (read by :func:`_target`),
    saying what it changes: the host, or on the same host the scheme (``http`` to
    ``https``) or the path, each with its own hint. It names no more than :func:`_named`
    does."""
    said = f"{where}: {host_of(url)} redirected"
    to = _target(url, location)
    if to is None:
        return _not_a_url(where, url, status)
    asked = urlsplit(url)
    same_host = to.hostname == asked.hostname and to.scheme in ("http", "https")
    same_port = to.port == asked.port
    other_scheme = to.scheme != asked.scheme
    if not same_host or not (same_port or other_scheme):
        return RedirectError(
            f"{said} to {_host(to)} (HTTP {status}); not followed",
            status=status,
        )
    if other_scheme:
        return RedirectError(
            f"{said} from {asked.scheme} to {to.scheme} on the same host"
            f" ({to.scheme}://{_host(to)}, HTTP {status}); not followed",
            status=status,
            hint=f"the server asks for {to.scheme}: use {to.scheme}:// in the profile's address",
        )
    return RedirectError(
        f"{said} to another path on the same host ({to.path[:200] or '/'}, HTTP {status});"
        " not followed",
        status=status,
        hint="check the path of the profile's address",
    )


def _not_a_url(where: str, url: str, status: int) -> RedirectError:
    return RedirectError(
        f"{where}: {host_of(url)} redirected to an address that is not a valid URL"
        f" (HTTP {status}); not followed",
        status=status,
    )


class _Transient(Exception):
    """A failure that may be retried; carries the error to raise when retries run out.

    ``sent``: the request may have reached the server and been acted on (its answer was
    lost); False when no connection was made.
    """

    def __init__(self, error: ApiError, *, sent: bool) -> None:
        super().__init__(error.message)
        self.error = error
        self.sent = sent


def _unread(error: Exception, response: httpx.Response, within: str) -> str:
    """Why the body of ``response`` could not be read, in words that quote nothing of it;
    ``within``: the time it was given in all, for a :class:`TimeoutError`."""
    import httpx

    if isinstance(error, UnreadableBody):
        return error.why
    if isinstance(error, TimeoutError):
        return f"the body did not finish arriving within {within}"
    if isinstance(error, httpx.TimeoutException):
        waited = response.request.extensions.get("timeout", {}).get("read")
        return "the body stopped arriving" + (
            f": nothing more came for {waited:g} s" if isinstance(waited, int | float) else ""
        )
    return "the connection broke before the body ended"


def _changes(endpoint: Endpoint) -> bool:
    """Whether ``endpoint`` changes something on the server (the token request does not)."""
    return endpoint.method not in ("GET", "HEAD") and endpoint.address != "auth"


def _repeatable(endpoint: Endpoint) -> bool:
    """Whether sending ``endpoint`` twice does what sending it once does.

    Asking for a token changes nothing on the server, although it is a POST.
    """
    return endpoint.method in IDEMPOTENT or endpoint.address == "auth"


async def _read_body(response: httpx.Response, where: str, max_body: int) -> None:
    """Read the body of a streamed response, decoded, within its limit.

    A successful answer may hold ``max_body`` decoded bytes; more is an
    :class:`UnexpectedResponse` naming the limit, raised as soon as the count passes it.
    An error answer keeps its first :data:`ERROR_BODY_CAP` bytes (for its message) and
    the rest is never read; one cut short by the server keeps what came.

    httpx collects a body in 64 KB chunks and joins them: two copies of the body at
    once, and the allocator keeps the chunks' memory afterwards (1.2 GB resident for a
    640 MB body). A large body goes into an anonymous memory map instead, of the
    declared length or grown as it comes, given back to the system as a whole when the
    last item decoded from it goes (the list decoder keeps slices of it).
    """

    ok = 200 <= response.status_code < 300
    limit = max(0, max_body) if ok else ERROR_BODY_CAP
    if response.is_stream_consumed:  # built with its content (test transports)
        if len(response.content) > limit:
            if ok:
                raise _too_large(where, limit)
            response._content = response.content[:limit]
        return
    declared = _content_length(response)
    if ok and declared is not None and declared > limit:
        raise _too_large(where, limit)
    inflate = _inflater(response, where)
    expected = declared if inflate is None and ok and declared is not None else 0
    sink = _Sink(expected, limit, large=ok and response.request.method == "GET")
    try:
        await _fill(response, sink, inflate, ok, limit, where)
    except BaseException:
        # The error keeps this frame alive (its traceback): give the memory back now.
        sink.discard()
        raise
    # What aread() would have set, without the copies (a memory map reads like bytes).
    response._content = sink.value()


async def _fill(
    response: httpx.Response,
    sink: _Sink,
    inflate: _Inflater | None,
    ok: bool,
    limit: int,
    where: str,
) -> None:
    import httpx

    try:
        async for piece in _pieces(response, inflate, where):
            if sink.size + len(piece) > limit:
                if ok:
                    raise _too_large(where, limit)
                sink.write(piece[: limit - sink.size])
                return
            sink.write(piece)
    except (httpx.TransportError, UnexpectedResponse):
        if ok:
            raise
        # An error answer cut short or badly compressed: its status is what matters,
        # with what came of its body.


async def _pieces(
    response: httpx.Response, inflate: _Inflater | None, where: str
) -> AsyncIterator[bytes]:
    """The body of ``response`` as it arrives, inflated a bounded piece at a time; an
    :class:`UnreadableBody` when it is not what its encoding says, or ends inside it."""
    status = response.status_code
    try:
        async for chunk in response.aiter_raw():
            if inflate is None:
                yield chunk
                continue
            for piece in inflate.feed(chunk):
                yield piece
    except zlib.error:
        why = f"the body is not valid {inflate.name if inflate else 'compressed data'}"
        raise UnreadableBody(f"{where}: {why} (HTTP {status})", why, status) from None
    if inflate is not None and not inflate.ended:
        why = f"the {inflate.name} body was cut short"
        raise UnreadableBody(f"{where}: {why} (HTTP {status})", why, status)


PIECE_BYTES = 64 * 1024
"""Pieces a body already read is handed over in, as it would have arrived."""


async def _pieces_within(response: httpx.Response, where: str, limit: int) -> AsyncIterator[bytes]:
    """The decoded body of a successful ``response`` as it arrives; an
    :class:`UnexpectedResponse` naming ``limit`` once more than that has come."""
    if response.is_stream_consumed:  # built with its content (test transports)
        content = response.content
        if len(content) > limit:
            raise _too_large(where, limit)
        for start in range(0, len(content), PIECE_BYTES):
            yield content[start : start + PIECE_BYTES]
        return
    declared = _content_length(response)
    if declared is not None and declared > limit:
        raise _too_large(where, limit)
    size = 0
    inflate = _inflater(response, where)
    async for piece in _pieces(response, inflate, where):
        size += len(piece)
        if size > limit:
            raise _too_large(where, limit)
        yield piece


def _content_length(response: httpx.Response) -> int | None:
    length = ascii_int(response.headers.get("content-length", ""), 4000)
    return None if length is None else min(length, 10**18)  # an exabyte is plenty


def _too_large(where: str, limit: int) -> UnreadableBody:
    why = f"the answer is larger than the {size_text(limit)} limit; not read further"
    return UnreadableBody(
        f"{where}: {why}",
        why,
        None,
        hint="if the server really sends this much, raise max_body_mb in the profile",
    )


class _Sink:
    """Where a body goes: chunks for a small one, one memory map for a large ``GET`` body.

    A body of unknown length gets a map as large as its limit: only the pages written
    take memory. (Python 3.11 cannot resize an anonymous map safely, so the map is never
    resized: a shorter body is copied once into a map of its own length.)
    """

    def __init__(self, expected: int, limit: int, *, large: bool) -> None:
        self.size = 0
        self._limit = limit
        self._large = large
        self._chunks: list[bytes] = []
        self._map: mmap.mmap | None = None
        if large and expected > OFF_LOOP_BYTES:
            self._map = _new_map(expected)

    def write(self, data: bytes) -> None:
        if not data:
            return
        end = self.size + len(data)
        if self._map is None and self._large and end > OFF_LOOP_BYTES:
            try:
                self._map = _new_map(max(self._limit, end))
            except OSError:  # no room to reserve that much: grow by copies instead
                self._map = _new_map(end * 2)
            for chunk in self._chunks:
                self._map.write(chunk)
            self._chunks.clear()
        if self._map is None:
            self._chunks.append(data)
            self.size = end
            return
        if end > len(self._map):
            self._map = _copy_map(self._map, self.size, max(end, len(self._map) * 2))
        self._map.write(data)
        self.size = end

    def discard(self) -> None:
        """Let go of what was written."""
        self._chunks.clear()
        if self._map is not None:
            self._map.close()
            self._map = None
        self.size = 0

    def value(self) -> bytes:
        """The body: the memory map itself when there is one (it reads like bytes)."""
        if self._map is None:
            return b"".join(self._chunks)
        if self.size == 0:
            self._map.close()
            return b""
        if self.size < len(self._map):
            self._map = _copy_map(self._map, self.size, self.size)
        return self._map  # type: ignore[return-value]


def _new_map(size: int) -> mmap.mmap:
    buffer = mmap.mmap(-1, size)
    with contextlib.suppress(AttributeError, OSError):  # fewer page faults where supported
        buffer.madvise(mmap.MADV_HUGEPAGE)
    return buffer


def _copy_map(old: mmap.mmap, used: int, size: int) -> mmap.mmap:
    """A new map of ``size`` bytes holding the first ``used`` bytes of ``old``, which closes."""
    new = _new_map(size)
    step = 64 * 1024 * 1024
    for start in range(0, used, step):
        new.write(old[start : min(used, start + step)])
    old.close()
    return new


class _Inflater:
    """Inflates a gzip or deflate body a bounded piece at a time.

    Each piece :meth:`feed` yields is at most :data:`_INFLATE_STEP` bytes and the next
    is made only when asked for, so a compression bomb is counted (and stopped) a piece
    at a time instead of being inflated whole.

    A gzip body is a series of members (RFC 1952 §2.2), each inflated in turn; zero
    bytes after the last are padding. A body is whole only once its stream has ended
    (:attr:`ended`): gzip's CRC and length come last, so a body cut before them is
    checked by nothing else.
    """

    def __init__(self, gzip: bool) -> None:
        self.name = "gzip" if gzip else "deflate"
        self._gzip = gzip
        self._first = True
        self._fed = False
        self._inflater = self._new()

    def _new(self) -> Any:
        return zlib.decompressobj(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)

    @property
    def ended(self) -> bool:
        """Whether the stream ended, or never began (no body at all, as a 204 has)."""
        return self._inflater.eof or not self._fed

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        self._fed = self._fed or bool(chunk)
        data = chunk
        while data:
            if self._inflater.eof:  # what follows a gzip member is the next one
                data = data.lstrip(b"\0") if self._gzip else b""
                if not data:
                    return
                self._inflater = self._new()
            piece = self._inflate(data)
            yield piece
            # More is due while input is left, or a full piece may have left output
            # behind (a match cut by the step, its input all taken).
            while not self._inflater.eof and (
                self._inflater.unconsumed_tail or len(piece) == _INFLATE_STEP
            ):
                piece = self._inflater.decompress(self._inflater.unconsumed_tail, _INFLATE_STEP)
                yield piece
            data = self._inflater.unused_data

    def _inflate(self, data: bytes) -> bytes:
        try:
            piece: bytes = self._inflater.decompress(data, _INFLATE_STEP)
        except zlib.error:
            if self._gzip or not self._first:
                raise
            # "deflate" without its zlib header, as some servers send it.
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            piece = self._inflater.decompress(data, _INFLATE_STEP)
        self._first = False
        return piece


def _inflater(response: httpx.Response, where: str) -> _Inflater | None:
    """The inflater for the ``Content-Encoding`` of ``response``; None for none; an
    :class:`UnreadableBody` for what was not asked for."""
    encoding = response.headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return None
    if len(codings) > 1 or codings[0] not in ("gzip", "x-gzip", "deflate"):
        why = f"the body is encoded as “{encoding}”, which was not asked for"
        raise UnreadableBody(
            f"{where}: {why} (asked: {ACCEPT_ENCODING})", why, response.status_code
        )
    return _Inflater(gzip=codings[0] != "deflate")


def _server_payload(response: httpx.Response) -> Any:
    """The error body as JSON, as text when it is not JSON, or ``None`` (empty, HTML).

    Its text is read by :func:`.body_text.reason_text`: a byte order mark skipped, the
    charset it declares honoured, a byte that is no UTF-8 marked, so that the server's
    reason is never lost for how it was written."""
    content_type = response.headers.get("content-type", "")
    text = reason_text(bytes(response.content[:ERROR_BODY_CAP]), content_type)
    if not text.strip():
        return None
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, ValueError):
        if "html" in content_type or text.lstrip()[:1] == "<":
            return None
        return text


def _finite(value: float, low: float, high: float) -> float:
    """``value`` within ``[low, high]``; NaN counts as ``high``."""
    if math.isnan(value):
        return high
    return min(max(value, low), high)


def _retry_after(response: httpx.Response) -> float | None:
    """The server's ``Retry-After`` in seconds, within ``[0, MAX_RETRY_AFTER]``.

    Negative waits are 0; infinite ones, and more than a day, are a day; a value that
    is neither a number in ASCII (:func:`~tokensales_tui.digits.ascii_number`: not
    ``١٢``) nor an HTTP date (``NaN`` included) is no value.
    """
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    seconds = ascii_number(value[:64])
    if seconds is None:
        if not value.isascii():  # an HTTP date is ASCII; its parser reads ٣١ as 31
            return None
        import email.utils  # 3 ms: here, not at the app's start

        try:
            when = email.utils.parsedate_to_datetime(value[:64])
            seconds = when.timestamp() - time.time()
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
    if math.isnan(seconds):
        return None
    return _finite(seconds, 0.0, MAX_RETRY_AFTER)


def describe_wait(seconds: float) -> str:
    """A wait in words: "45 s", "2 min", "3 h", "more than a day"."""
    if math.isnan(seconds) or seconds >= MAX_RETRY_AFTER:
        return "more than a day"
    if seconds < 100:
        return f"{max(seconds, 0):.0f} s"
    if seconds < 6000:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def size_text(size: int) -> str:
    """A size in bytes for a message: "512 bytes", "64 KB", "1 GB"."""
    if size < 1024:
        return f"{size} bytes"
    for unit in ("KB", "MB", "GB"):
        size_in = size / 1024
        if size_in < 1024 or unit == "GB":
            return f"{size_in:.0f} {unit}" if size_in == int(size_in) else f"{size_in:.1f} {unit}"
        size = int(size_in)
    raise AssertionError("unreachable")


def unexpected(where: str, error: BaseException) -> UnexpectedResponse:
    """The :class:`UnexpectedResponse` for an exception nobody foresaw, at ``where``.

    The message names the exception's type only: its text may quote a body or a header.
    The debug log gets where in the code it was raised. A temporary folder that refused
    a list's text (full, over quota, read-only) is named, with its free space.
    """
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    origin = (
        f"{frame.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.tb_lineno}"
        if frame is not None
        else "?"
    )
    log.warning("%s: %s raised at %s", where, type(error).__name__, origin)
    folder = folder_problem(error)
    if folder is not None:  # not the answer's fault: say whose
        return UnexpectedResponse(
            f"{where}: {folder}",
            hint="free some space there, or point TMPDIR at a folder with room",
        )
    return UnexpectedResponse(
        f"{where}: the client failed unexpectedly ({type(error).__name__})",
        hint="the answer may be one this client does not understand; --log FILE records where",
    )


def _is_certificate_error(error: BaseException) -> bool:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        if "CERTIFICATE_VERIFY_FAILED" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_not_tls(error: BaseException) -> bool:
    """Whether a TLS handshake met a server that does not speak TLS (plain http on the port)."""
    seen: BaseException | None = error
    while seen is not None:
        text = str(seen).upper()
        if isinstance(seen, ssl.SSLError) and any(
            marker in text
            for marker in (
                "WRONG_VERSION_NUMBER",
                "RECORD_LAYER_FAILURE",
                "HTTP_REQUEST",
                "PACKET_LENGTH_TOO_LONG",
            )
        ):
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
