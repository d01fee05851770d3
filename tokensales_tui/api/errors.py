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

``str(error)`` is the one-line message; ``error.hint`` says what to do, where that is known.
Both are cleaned when the error is made (:func:`~tokensales_tui.clean.clean_line`, then cut to
:data:`MAX_MESSAGE` characters), since they may quote a server's text or header values.
No message ever contains a secret or a token: every value sent as one is masked in them,
even where a server quotes it (:func:`~.secret.redact`).
"""

from __future__ import annotations

from ..clean import clean_line
from .secret import redact

MAX_MESSAGE = 1000
"""Characters of a message kept; a server's text can be of any length."""


def _line(text: str) -> str:
    # A server may quote the credentials or the token it was sent: masked in the whole
    # text before any cut, so that no part of one is left (a server's text is read up to
    # 64 KB: transport.ERROR_BODY_CAP).
    text = clean_line(redact(text)[: MAX_MESSAGE + 1])
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


class ApiError(Exception):
    """Base of every error the API layer raises."""

    hint: str = ""

    def __init__(self, message: str, *, status: int | None = None, hint: str | None = None) -> None:
        message = _line(message)
        super().__init__(message)
        self.message = message
        self.status = status
        if hint is not None:
            self.hint = _line(hint)

    def __str__(self) -> str:
        return self.message

    @property
    def one_line(self) -> str:
        """The message and the hint on one line."""
        return f"{self.message} — {self.hint}" if self.hint else self.message


class AuthError(ApiError):
    """The token could not be obtained or was refused."""

    hint = "check the API key and secret of the profile"


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


class ValidationError(ApiError):
    """The server rejected the request; the message is the server's.

    ``field`` is the request field the server named, as a path (``contractAddress``,
    ``whitelistingInfo.list.wallets[1]``), and ``index`` the element of an array body it
    is in; each is ``None`` when the server did not say.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        field: str | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.field = _line(field) if field else None
        self.index = index


class RateLimitedError(ApiError):
    """The server asked us to slow down."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, status: int | None = 429
    ) -> None:
        super().__init__(message, status=status, hint="wait, then press r to retry")
        self.retry_after = retry_after


class ServerError(ApiError):
    """The server failed (5xx)."""

    hint = "the server is having trouble; press r to retry later"


class NetworkError(ApiError):
    """The host could not be reached."""

    def __init__(self, message: str, *, host: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint or "check the address and your network, then press r")
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
