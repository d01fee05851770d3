"""A wrapper that keeps secrets out of reprs, logs, tracebacks and exception text.

A secret can still come back from outside: a server that quotes the credentials or the
token it was sent in an error message. Every value revealed (to be sent) is therefore
remembered, and :func:`redact` masks each of them, with anything shaped like a JWT or a
bearer credential, in text about to be shown: every :class:`~.errors.ApiError`'s message
and hint, and crash reports.

The API key and secret, and the secrets of webhooks, are remembered for the life of the
process. An access token (``Secret(value, short_lived=True)``) is remembered while it is
in use, as long as something holds it (the current token, a request still on its way),
and among the last :data:`TOKENS_KEPT` tokens revealed, for the messages about a request
that has ended: a token renewed every few seconds would otherwise grow the remembered
values without end (21,600 a day with 5-second tokens, 5 MB), and each :func:`redact`
with them (6 ms a call, against 0.005).

A body written out by hand (``tokensales-tui api --input``) holds plain strings:
:func:`hide_secrets` puts the value of every secret key in it in a :class:`Secret`, so that
it is masked and remembered as the typed bodies' secrets are.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import Any, Final

MASK: Final = "********"
_MASK: Final = MASK
REDACTED_FROM: Final = 4
"""Characters a value needs to be masked wherever it appears: a shorter one would mask
common text."""
TOKENS_KEPT: Final = 8
"""Short-lived secrets remembered once nothing holds them any more, the last revealed."""
_REVEALED: set[str] = set()
_TOKENS_KEPT: dict[str, None] = {}
"""The last short-lived values revealed, the latest last (a dict keeps its order)."""
_TOKENS_HELD: weakref.WeakValueDictionary[int, Secret] = weakref.WeakValueDictionary()
"""Each short-lived secret revealed and still held, by its ``id``: one equal to another
does not stand for it (a weak set would keep one of them)."""
_JWT: Final = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
_BEARER: Final = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_NOT_ALPHANUMERIC: Final = re.compile(r"[^a-z0-9]")


class Secret:
    """Holds a secret string; every textual view of it is masked.

    Only :meth:`reveal` returns the value, and only the code that must send it
    (the token request, the Authorization header, a config save) calls it.
    ``short_lived`` is for a value replaced again and again, an access token: it is
    remembered while held and among the last revealed only (see above).
    """

    __slots__ = ("__weakref__", "_short_lived", "_value")

    def __init__(self, value: str, *, short_lived: bool = False) -> None:
        self._value = value
        self._short_lived = short_lived

    def reveal(self) -> str:
        """Return the secret value itself (and remember it, for :func:`redact`)."""
        if len(self._value) < REDACTED_FROM:
            return self._value
        if not self._short_lived:
            _REVEALED.add(self._value)
            return self._value
        _TOKENS_HELD[id(self)] = self
        _TOKENS_KEPT.pop(self._value, None)  # revealed again: the latest
        _TOKENS_KEPT[self._value] = None
        if len(_TOKENS_KEPT) > TOKENS_KEPT:
            del _TOKENS_KEPT[next(iter(_TOKENS_KEPT))]
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return f"Secret({_MASK!r})" if self._value else "Secret('')"

    def __str__(self) -> str:
        return _MASK if self._value else ""

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> tuple[type[Secret], tuple[str]]:
        # Pickling would have to carry the value; refuse to leak it silently.
        raise TypeError("Secret values cannot be pickled")


def mask(value: str, keep: int = 0) -> str:
    """Mask ``value`` for display, optionally keeping its last ``keep`` characters."""
    if not value:
        return ""
    if keep <= 0 or len(value) <= keep * 3:
        return _MASK
    return _MASK + value[-keep:]


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret revealed in this process (an access token while held
    or among the last revealed), each of ``secrets``, and anything shaped like a JWT or
    a bearer credential masked."""
    # valuerefs() copies the references at once: a token let go of meanwhile is skipped.
    held = [token._value for ref in _TOKENS_HELD.valuerefs() if (token := ref()) is not None]
    known = {
        value
        for value in (*_REVEALED, *_TOKENS_KEPT, *held, *secrets)
        if len(value) >= REDACTED_FROM
    }
    for value in sorted(known, key=len, reverse=True):  # a longer one may hold a shorter
        if value in text:
            text = text.replace(value, MASK)
    if "eyJ" in text:
        text = _JWT.sub(MASK, text)
    return _BEARER.sub(lambda m: m.group(1) + MASK, text)


def forget_revealed() -> None:
    """Forget every value revealed so far (:func:`redact` masks them): for a process that
    runs one session after another, as the tests do."""
    _REVEALED.clear()
    _TOKENS_KEPT.clear()
    _TOKENS_HELD.clear()


def is_secret_key(key: str) -> bool:
    """Whether a body's ``key`` holds a secret: ``secret``, ``apiSecret``, ``apiKey`` as the
    interface names them, and the same words written otherwise (``api_secret``,
    ``clientSecret``, ``Webhook-Secret``, ``secrets``)."""
    word = _NOT_ALPHANUMERIC.sub("", key.lower())
    return word.endswith(("secret", "secrets")) or word in ("apikey", "apikeys")


def hide_secrets(body: Any) -> list[Secret]:
    """Put the value of every secret key of ``body`` (plain JSON values), however deep, in a
    :class:`Secret`, in place; the secrets so made.

    A number under such a key is held as its JSON text; in a list or an object under such
    a key, every string and number is a secret (``{"secret": ["s1", "s2"]}``).
    """
    made: list[Secret] = []
    pending: list[tuple[Any, bool]] = [(body, False)]
    while pending:  # not recursive: a body may nest thousands deep
        container, hidden = pending.pop()
        if isinstance(container, list):
            places: Any = enumerate(container)
        elif isinstance(container, dict):
            places = list(container.items())
        else:
            continue
        for key, value in places:
            secret = hidden or (isinstance(key, str) and is_secret_key(key))
            if isinstance(value, dict | list):
                pending.append((value, secret))
            elif secret and _is_scalar(value):
                made.append(Secret(value if isinstance(value, str) else repr(value)))
                container[key] = made[-1]
    return made


def _is_scalar(value: Any) -> bool:
    """A string or a number (not a boolean, not null)."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)
