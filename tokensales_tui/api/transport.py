"""One request and its retries: attempts, deadline, back-off, and mapping failures to ApiError.

Retry policy: GET, PUT and DELETE are retried on connection errors, 429 (honouring
``Retry-After``, capped at 30 s) and 502/503/504, with jittered exponential backoff,
at most three attempts and an overall deadline. A POST is retried only when it
certainly never reached the server (the connection could not be made); a POST whose
answer never came raises :class:`~.errors.OutcomeUnknownError` and is never repeated.
Redirects are never followed, so the token cannot travel to another host.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import mmap
import random
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import msgspec

from . import shapes
from .auth import TokenManager
from .connection import Connection, host_of
from .decode import OFF_LOOP_BYTES
from .endpoints import Endpoint, redact_url, url_of
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
    ValidationError,
)
from .secret import Secret

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_TIMEOUTS", "RetryNotice", "Sender"]

log = logging.getLogger("tokensales_tui.api")

DEFAULT_TIMEOUTS = {"connect": 5.0, "read": 20.0, "write": 20.0, "pool": 5.0}
"""Seconds allowed to connect, to read, to write and to wait for a pooled connection."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD"})


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
        consume: Callable[[httpx.Response], Awaitable[None]] | None = None,
    ) -> httpx.Response:
        """Send ``content`` to ``endpoint`` and return the (successful) response.

        Retries what the policy allows (see the module docstring), renews the token
        once on a 401, and raises the :class:`~.errors.ApiError` for anything else.
        ``consume``, if given, reads the body of a successful response as it streams in
        (the response returned has none); an :class:`~.errors.ApiError` it raises is
        never retried.
        """
        attempts = max_attempts or self._max_attempts
        started = self._clock()
        renewed = False
        attempt = 0
        while True:
            attempt += 1
            token = await self.tokens.token() if authorised else None
            try:
                budget = self._deadline - (self._clock() - started)
                response = await self._once(endpoint, content, token, max(budget, 0.5), consume)
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
        self,
        endpoint: Endpoint,
        content: bytes | None,
        token: Secret | None,
        budget: float,
        consume: Callable[[httpx.Response], Awaitable[None]] | None = None,
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
        request = self._http.build_request(endpoint.method, url, content=content, headers=headers)
        try:
            async with asyncio.timeout(budget):
                response = await self._http.send(request, stream=True)
                try:
                    if consume is not None and 200 <= response.status_code < 300:
                        await consume(response)
                    else:
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
