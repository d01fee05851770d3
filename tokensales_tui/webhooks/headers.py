"""A delivery's headers, and the one rule for a header that comes more than once.

HTTP lets a header repeat, and readers disagree on which value counts: a ``dict`` keeps
the last, a search the first, some frameworks join them with commas. A receiver that
judged one ``webhook-id`` while its replay signed the other would pass on what it never
checked. So every part of listen reads headers through :class:`Headers`, by one rule:

- a header a signature depends on must come once (:meth:`Headers.once`); when it is
  repeated, the delivery is invalid and the verdict names the header — any choice of ours
  could differ from the choice of the app the delivery is relayed to;
- any other header read for one value (the event type, a delivery id) counts by its
  first value (:meth:`Headers.first`).

Relays pass every header on as received, repeats included.

A header value arrives as bytes, and is read once, as it is received
(:func:`header_text`): as UTF-8 when it is UTF-8 (``X-Event-Type: café.sold`` is
``café.sold`` in the list, ``--print``, ``--save`` and ``--route``), else as Latin-1, one
character a byte, marked so (:class:`Latin1Text`). :func:`header_bytes` gives back the
bytes received, which a relay sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping


class Latin1Text(str):
    """A header value whose bytes are not UTF-8, read as Latin-1: one character a byte."""


def header_text(value: bytes) -> str:
    """A header value's bytes as text: UTF-8 when they are, else a :class:`Latin1Text`."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return Latin1Text(value.decode("latin-1"))


def header_bytes(value: str) -> bytes:
    """The bytes :func:`header_text` read ``value`` from (a value made here: its UTF-8)."""
    if isinstance(value, Latin1Text):
        return value.encode("latin-1")
    return value.encode("utf-8", "replace")


class Repeated(Exception):
    """A header that must come once came more often.

    Attributes:
        name: the header (lower case), or a description of the values that repeat.
        count: how many times it came.
    """

    def __init__(self, name: str, count: int) -> None:
        super().__init__(f"{name} comes {count} times (which one counts is ambiguous)")
        self.name = name
        self.count = count


class Headers:
    """Header names and values in the order received; names compared in lower case."""

    def __init__(self, headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        self._pairs = [(name.lower(), value) for name, value in pairs]

    @classmethod
    def of(cls, headers: Headers | Mapping[str, str] | Iterable[tuple[str, str]]) -> Headers:
        """``headers`` as :class:`Headers` (itself when it already is)."""
        return headers if isinstance(headers, Headers) else cls(headers)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(k == name.lower() for k, _ in self._pairs)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._pairs)

    def all(self, name: str) -> list[str]:
        """Every value of ``name``, in order."""
        name = name.lower()
        return [value for key, value in self._pairs if key == name]

    def first(self, name: str) -> str | None:
        """The first value of ``name``: how a header that is not signed is read."""
        values = self.all(name)
        return values[0] if values else None

    def once(self, name: str) -> str | None:
        """The value of a header that must come once; :class:`Repeated` if it did not."""
        values = self.all(name)
        if len(values) > 1:
            raise Repeated(name.lower(), len(values))
        return values[0] if values else None
