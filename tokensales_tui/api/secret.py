"""A wrapper that keeps secrets out of reprs, logs, tracebacks and exception text."""

from __future__ import annotations

from typing import Final

_MASK: Final = "********"


class Secret:
    """Holds a secret string; every textual view of it is masked.

    Only :meth:`reveal` returns the value, and only the code that must send it
    (the token request, the Authorization header, a config save) calls it.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """Return the secret value itself."""
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
