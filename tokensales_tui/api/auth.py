"""The access token: obtaining it, knowing when it expires, refreshing it once for everyone.

The client cannot verify the JWT's signature (it has no key), so it only reads the
``exp`` and ``iat`` claims to plan refreshes. Expiry is computed on the local
monotonic clock as *receive time + (exp - iat)*, so a skewed wall clock cannot
cause a refresh loop; without ``iat`` the advertised ``expiresIn`` is used, and
without either the token is used until the server answers 401.

Whatever the server claims, a lifetime is a finite number of seconds within
``[0, MAX_LIFETIME]``: ``exp`` of 1.7e308 or of 500 digits, ``expiresIn: "1e999"`` and
NaN are clamped or ignored, and a token request, however it ends, resolves every waiter
with the token or an :class:`~.errors.ApiError`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from .errors import ApiError, AuthError
from .secret import Secret

log = logging.getLogger("tokensales_tui.api")

REFRESH_MARGIN = 60.0
"""Refresh this many seconds before expiry (less for short-lived tokens)."""
MAX_LIFETIME = 86400.0
"""The longest lifetime believed (a day): a token that claims more is refreshed daily."""

TokenStatus = Literal["none", "valid", "refreshing", "failed", "refused"]


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """A token as the token endpoint returned it."""

    token: Secret
    expires_in: float | None = None


@dataclass(frozen=True, slots=True)
class TokenState:
    """What the header shows about the token."""

    status: TokenStatus
    expires_in: float | None = None
    error: str | None = None


def jwt_claims(token: str) -> dict[str, Any]:
    """The payload claims of a JWT, unverified; empty when the token is not a JWT."""
    parts = token.split(".")
    if len(parts) != 3:
        return {}
    segment = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = msgspec.json.decode(base64.urlsafe_b64decode(segment))
    except (binascii.Error, ValueError, msgspec.DecodeError, RecursionError):
        return {}
    return claims if isinstance(claims, dict) else {}


def lifetime_of(token: str, advertised: float | None) -> float | None:
    """Seconds the token lives from the moment it was received, when that can be known.

    Always finite and within ``[0, MAX_LIFETIME]``.
    """
    claims = jwt_claims(token)
    exp, iat = _number(claims.get("exp")), _number(claims.get("iat"))
    lifetime: float | None = None
    if exp is not None and iat is not None and exp > iat:
        lifetime = exp - iat
    elif advertised is not None and not math.isnan(advertised) and advertised > 0:
        lifetime = advertised
    elif exp is not None:
        # No iat: fall back on the wall clock, the only reference left. A token just
        # issued cannot have expired: past already, the clocks disagree, and it is used
        # until the server refuses it (not fetched again before every request).
        left = exp - time.time()
        lifetime = left if left > 0 else None
    return clamp_lifetime(lifetime)


def clamp_lifetime(seconds: float | None) -> float | None:
    """``seconds`` within ``[0, MAX_LIFETIME]``; None for None or NaN."""
    if seconds is None or math.isnan(seconds):
        return None
    return min(max(seconds, 0.0), MAX_LIFETIME)


def _number(value: object) -> float | None:
    """A JSON number as a float; infinity for integers too large for one; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # 500 digits: as good as forever, or as long ago
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float) and not math.isnan(value):
        return value
    return None


class TokenManager:
    """Holds the current token and refreshes it single-flight.

    However many requests find the token expired at once, one token request is
    made and all of them wait for it; if it fails, every waiter gets that error
    and the next call tries again. If it is cancelled (its own task, not a waiter's),
    the waiters still waiting start one new request among them (:meth:`_refresh`).
    """

    def __init__(
        self,
        fetch: Callable[[], Awaitable[TokenGrant]],
        *,
        clock: Callable[[], float] = time.monotonic,
        margin: float = REFRESH_MARGIN,
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._margin = margin
        self._token: Secret | None = None
        self._expires_at: float | None = None
        self._refresh_at: float | None = None
        self._inflight: asyncio.Future[Secret] | None = None
        self._error: str | None = None
        self._refused = False
        self.requests = 0
        """How many token requests were made (for the header and the benchmarks)."""

    @property
    def state(self) -> TokenState:
        """Status and remaining lifetime of the token."""
        if self._inflight is not None:
            return TokenState("refreshing", self._remaining())
        if self._error is not None:
            return TokenState("failed", None, self._error)
        if self._refused:
            return TokenState("refused", self._remaining())
        if self._token is None:
            return TokenState("none")
        return TokenState("valid", self._remaining())

    @property
    def current(self) -> Secret | None:
        """The token held now, if any (possibly expired)."""
        return self._token

    def _remaining(self) -> float | None:
        if self._expires_at is None:
            return None
        return max(0.0, self._expires_at - self._clock())

    def _fresh(self) -> bool:
        if self._token is None:
            return False
        return self._refresh_at is None or self._clock() < self._refresh_at

    async def token(self) -> Secret:
        """A token that is not about to expire, fetching one if needed."""
        if self._fresh():
            assert self._token is not None
            return self._token
        return await self._refresh()

    async def renew(self, rejected: Secret) -> Secret:
        """A new token after the server rejected ``rejected`` (a 401).

        When another request has already replaced that token, its replacement is
        returned without a new token request.
        """
        if self._token is not None and self._token != rejected and self._fresh():
            return self._token
        if self._inflight is None and self._token == rejected:
            self._token = None
        return await self._refresh()

    def refused(self, token: Secret) -> None:
        """The server refused ``token`` though it was fresh from the token endpoint.

        It is dropped, so the next request asks for another, and the state says
        "refused" until one is accepted: a header that still showed "valid" would
        contradict every request's "refused the token twice".
        """
        if self._token == token and self._inflight is None:
            self.forget()
            self._refused = True

    def forget(self) -> None:
        """Drop the token (e.g. when the profile's credentials change)."""
        self._token = None
        self._expires_at = self._refresh_at = None

    async def _refresh(self) -> Secret:
        """The token of the request in flight, starting one if none is.

        The request runs in a task of its own, shielded: a waiter that is cancelled
        leaves it to the others. When that task is cancelled itself, no waiter asked
        for it: each one still waiting goes round again, and the first to do so starts
        the next request, which the others wait for (one at a time, never a burst).
        """
        while True:
            inflight = self._inflight
            if inflight is None:
                inflight = self._start()
            try:
                return await asyncio.shield(inflight)
            except _FetchCancelled:
                continue  # that request was cancelled, not this waiter: ask again

    def _start(self) -> asyncio.Future[Secret]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Secret] = loop.create_future()
        self._inflight = future
        task = loop.create_task(self._run(future))
        # A task cancelled before it ran never enters _run: its waiters are told here.
        task.add_done_callback(lambda _t: self._settle(future, _FetchCancelled()))
        return future

    async def _run(self, future: asyncio.Future[Secret]) -> None:
        """Ask for a token and resolve ``future``, whatever happens on the way.

        Every waiter gets the token or the same :class:`ApiError`; an exception that is
        not one becomes one, and a cancelled request tells its waiters so.
        """
        self.requests += 1
        try:
            grant = await self._fetch()
            self._accept(grant)
        except asyncio.CancelledError as error:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # Cancelled from outside, not by a waiter: they ask again.
                self._settle(future, _FetchCancelled())
                raise
            # Raised by the request itself, unasked: a failure like any other, or a
            # request that always ended so would be made again without end.
            self._error = _as_api_error(error).message
            self._settle(future, _as_api_error(error))
            raise
        except BaseException as error:
            problem = _as_api_error(error)
            self._error = problem.message
            self._settle(future, problem)
            if not isinstance(error, Exception):
                raise
        else:
            self._settle(future, grant.token)
        finally:
            self._settle(future, ApiError("the token request ended without an answer"))

    def _accept(self, grant: TokenGrant) -> None:
        now = self._clock()
        lifetime = lifetime_of(grant.token.reveal(), grant.expires_in)
        if lifetime is None:
            expires_at = refresh_at = None
        else:
            expires_at = now + lifetime
            refresh_at = now + max(0.0, lifetime - min(self._margin, lifetime * 0.2))
        self._token = grant.token
        self._error = None
        self._refused = False
        self._expires_at, self._refresh_at = expires_at, refresh_at

    def _settle(self, future: asyncio.Future[Secret], outcome: Secret | ApiError) -> None:
        if self._inflight is future:
            self._inflight = None
        if future.done():
            return
        if isinstance(outcome, ApiError):
            future.set_exception(outcome)
            future.exception()  # mark retrieved: nobody may be waiting any more
        else:
            future.set_result(outcome)


class _FetchCancelled(ApiError):
    """The token request was cancelled, not its waiters: each asks again (never seen
    outside :class:`TokenManager`)."""

    def __init__(self, *_: object) -> None:
        super().__init__("the token request was cancelled")


def _as_api_error(error: BaseException) -> ApiError:
    if isinstance(error, ApiError):
        return error
    if isinstance(error, asyncio.CancelledError):
        return ApiError("the token request was cancelled")
    log.warning("token request: %s", type(error).__name__)
    return AuthError(
        f"the token could not be obtained ({type(error).__name__})",
        hint="the token endpoint answered in a way this client does not understand",
    )
