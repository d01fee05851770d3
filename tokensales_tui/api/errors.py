"""The errors the API layer raises, one hierarchy with a one-line message for people.

Every failure of a call made through :class:`~tokensales_tui.api.client.ApiClient`
arrives as a subclass of :class:`ApiError`; nothing else escapes the client.

``ApiError``
    ``AuthError``            the token could not be obtained, or the server refused it twice (401/403).
    ``NotFoundError``        404: the object does not exist (any more); for a DELETE repeated
                             after an attempt whose outcome is unknown, it says so.
    ``ValidationError``      400/409/422: the server rejected the request; carries its message.
    ``RateLimitedError``     429 after the retries; carries ``retry_after`` in seconds.
    ``ServerError``          5xx after the retries.
    ``NetworkError``         the host could not be reached (refused, DNS, TLS); names the host.
    ``TimeoutError_``        no answer in time; for a POST this is ``OutcomeUnknownError``.
    ``OutcomeUnknownError``  a write was sent but its answer never came: says how to check.
    ``UnexpectedResponse``   a body that fits no accepted shape, is over the size limit, or
                             broke the client in a way it did not foresee; names what arrived.
    ``RedirectError``        the server redirected; the client never follows (the token must not travel).
    ``RefusedRequest``       the client refused to send a request that would go elsewhere than
                             the interface says (an id of ``.`` or ``..``, or an empty one).

``str(error)`` is the one-line message; ``error.hint`` says what to do, where that is known,
and ``error.retry`` whether and when the same request may succeed if tried again. The hint
names no key: only the screen that shows an error knows which key of its own tries again
(:meth:`ApiError.what_to_do` takes it; :attr:`ApiError.one_line` says "try again").
Both are cleaned when the error is made (:func:`~tokensales_tui.clean.clean_line`, then cut to
:data:`MAX_MESSAGE` characters), since they may quote a server's text or header values.
No message ever contains a secret or a token: every value sent as one is masked in them,
even where a server quotes it (:func:`~.secret.redact`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..clean import clean_line, shorten
from .secret import redact

MAX_MESSAGE = 1000
"""Characters of a message kept; a server's text can be of any length."""

RETRY_WORDS: dict[str, tuple[str, str, str]] = {
    "now": ("then press {}", "then try again", ", "),
    "again": ("press {} to retry", "try again", "; "),
    "later": ("press {} to retry later", "try again later", "; "),
    "wait": ("wait, then press {} to retry", "wait, then try again", ", "),
}
"""How each kind of :attr:`ApiError.retry` reads: with the key that retries, without one,
and what joins it to the hint before it."""


def _line(text: str) -> str:
    # A server may quote the credentials or the token it was sent: masked in the whole
    # text before any cut, so that no part of one is left (a server's text is read up to
    # 64 KB: transport.ERROR_BODY_CAP).
    text = clean_line(redact(text)[: MAX_MESSAGE + 1])
    return shorten(text, MAX_MESSAGE)


class ApiError(Exception):
    """Base of every error the API layer raises."""

    hint: str = ""
    retry: str = ""
    """When trying the same request again may succeed: a key of :data:`RETRY_WORDS`, or
    "" when it would fail the same way."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        retry: str | None = None,
    ) -> None:
        message = _line(message)
        super().__init__(message)
        self.message = message
        self.status = status
        if hint is not None:
            self.hint = _line(hint)
        if retry is not None:
            self.retry = retry

    def __str__(self) -> str:
        return self.message

    def what_to_do(self, key: str | None = None) -> str:
        """What to do: the hint, then how to try again, with ``key`` when the screen
        showing the error tries again with a key (None: "try again")."""
        if not self.retry:
            return self.hint
        with_key, without, joiner = RETRY_WORDS[self.retry]
        again = with_key.format(key) if key else without
        if not self.hint:
            return again
        return f"{self.hint}{' ' if self.hint.endswith('?') else joiner}{again}"

    def said(self, key: str | None = None) -> str:
        """The message and what to do on one line (see :meth:`what_to_do` for ``key``)."""
        todo = self.what_to_do(key)
        return f"{self.message} — {todo}" if todo else self.message

    @property
    def one_line(self) -> str:
        """The message and what to do on one line, naming no key."""
        return self.said()


class AuthError(ApiError):
    """The token could not be obtained or was refused.

    ``in_profile``: the credentials refused are the profile's own, as its settings hold
    them (no variable or flag gave them), so they are fixed where the profile is edited.
    """

    hint = "check the API key and secret of the profile"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        in_profile: bool = False,
    ) -> None:
        super().__init__(message, status=status, hint=hint)
        self.in_profile = in_profile


class NotFoundError(ApiError):
    """The object does not exist.

    ``after_unknown_outcome``: the 404 answered a DELETE repeated after an attempt whose
    outcome is unknown (no answer in time, a connection broken once the request went, a
    gateway's 502 or 504), so that attempt has most likely deleted the object; the
    client's deletes count it as deleted.
    """

    hint = "refresh the list"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        after_unknown_outcome: bool = False,
    ) -> None:
        super().__init__(message, status=status, hint=hint)
        self.after_unknown_outcome = after_unknown_outcome


@dataclass(frozen=True, slots=True)
class Refusal:
    """One problem a server found with a request: the request field it names, as a path
    (``fiatDetails.paymentProviderId``, ``whitelistingInfo.list.wallets[1]``), the element
    of an array body it is in (each ``None`` when not said), and its words, cleaned."""

    field: str | None
    index: int | None
    message: str


class ValidationError(ApiError):
    """The server rejected the request; the message is the server's.

    ``field`` is the request field the server named, as a path (``contractAddress``,
    ``whitelistingInfo.list.wallets[1]``), and ``index`` the element of an array body it
    is in; each is ``None`` when the server did not say, or named several. ``problems``
    holds each problem the server listed (:class:`Refusal`), so that a form can mark
    every field refused. ``request`` names the request refused (``POST
    /v1/platform-webhooks``), for a report that stands on its own (a command's), where a
    form, showing the message beside the field, has no need of it.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        field: str | None = None,
        index: int | None = None,
        request: str = "",
        problems: Iterable[tuple[str | None, int | None, str]] = (),
    ) -> None:
        super().__init__(message, status=status)
        self.field = _line(field) if field else None
        self.index = index
        self.request = _line(request)
        self.problems = tuple(
            Refusal(_line(place) if place else None, position, _line(said))
            for place, position, said in problems
        )

    @property
    def headed(self) -> str:
        """The message headed by the request and its status, unless it names them."""
        if not self.request or self.message.startswith(self.request):
            return self.message
        status = f" (HTTP {self.status})" if self.status is not None else ""
        return _line(f"{self.request}{status}: {self.message}")


class RateLimitedError(ApiError):
    """The server asked us to slow down."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, status: int | None = 429
    ) -> None:
        super().__init__(message, status=status, retry="wait")
        self.retry_after = retry_after


class ServerError(ApiError):
    """The server failed (5xx)."""

    hint = "the server is having trouble"
    retry = "later"


class NetworkError(ApiError):
    """The host could not be reached."""

    def __init__(
        self, message: str, *, host: str, hint: str | None = None, retry: str | None = None
    ) -> None:
        # A hint of its own names what to fix first, before any retry (a DNS name, TLS).
        super().__init__(
            message,
            hint=hint or "check the address and your network",
            retry=retry if retry is not None else ("" if hint else "now"),
        )
        self.host = host


class TimeoutError_(NetworkError):
    """No answer in time."""


REFRESH_TO_CHECK = "refresh to check before trying again"
"""How to find out whether a write whose answer never came happened, where the list shows it."""


class OutcomeUnknownError(ApiError):
    """A write was sent but no answer came: it may or may not have happened.

    The message ends with ``advice``, how to find out (there is no separate hint): by
    default to refresh; a write whose result no list shows says where else to look
    (:meth:`advising`).
    """

    def __init__(self, message: str, *, advice: str = "") -> None:
        super().__init__(f"{message} — {advice}" if advice else message)
        self.unknown = _line(message)
        """The message without the advice."""
        self.advice = _line(advice)

    def advising(self, advice: str) -> OutcomeUnknownError:
        """The same error, ending with ``advice`` instead."""
        return OutcomeUnknownError(self.unknown, advice=advice)


class UnexpectedResponse(ApiError):
    """The body fits none of the shapes the client accepts."""

    hint = "the server answered in a way this client does not understand"


class RedirectError(ApiError):
    """The server answered with a redirect, which the client never follows."""

    hint = "check the profile's address: the server redirects elsewhere"


class RefusedRequest(ApiError):
    """The client would not send the request: it would reach another address than meant."""

    hint = "this object cannot be addressed by its id; change it on the server by other means"
