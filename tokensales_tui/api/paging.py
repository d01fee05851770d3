"""A list body that says the server holds more than it does.

No paging is assumed: a list is one response, and no link in it is ever followed. But
a body may say there is more beside its list (``"hasMore": true``, a ``next`` link or
cursor, a ``total`` above the entries it holds): :func:`read_paging` finds that, and
every route that reads a list says it (the commands on stderr, a tab in its count
line) rather than show part of a list as the whole of it.

The members are looked for beside the list, and one level down in an object under one
of :data:`NESTS` (``"meta": {"total": 500}``, ``"links": {"next": …}``). Their values
are the server's text: :meth:`Paging.said` cleans them into one short line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from ..clean import clean_line, shorten
from ..digits import ascii_int

__all__ = [
    "MEMBERS",
    "PagedRows",
    "Paging",
    "paging_of",
    "read_paging",
    "with_paging",
]

MORE_FLAGS = ("hasMore", "has_more", "more", "hasNextPage", "has_next_page")
"""Members that say, true, that there is more."""
NEXT_MARKS = (
    "next",
    "nextCursor",
    "next_cursor",
    "nextPage",
    "next_page",
    "nextPageToken",
    "next_page_token",
    "nextLink",
    "next_link",
    "cursor",
)
"""Members that, not null and not empty, point at more."""
TOTALS = ("total", "totalCount", "total_count", "count", "totalItems", "total_items")
"""Members that count the entries; more than the list holds says there is more."""
NESTS = ("meta", "pagination", "paging", "page_info", "pageInfo", "links", "data")
"""Objects beside the list whose members are looked in too."""
MEMBERS = tuple(dict.fromkeys((*MORE_FLAGS, *NEXT_MARKS, *TOTALS, *NESTS)))
"""Every member looked at beside a list."""
SHOWN_CHARS = 60
"""Most characters of a server's value quoted."""
_MAX_DIGITS = 18


@dataclass(frozen=True, slots=True)
class Paging:
    """What a list body said of more on the server.

    Attributes:
        held: the entries the list holds.
        total: the server's count of them all, when it gave one above ``held``.
        signs: each member that said there is more, as ``name value`` (server text).
    """

    held: int
    total: int | None
    signs: tuple[str, ...]

    def said(self, nouns: str) -> str:
        """One line for a command's stderr: ``items: the answer holds 1 but says there
        are more (total 500; hasMore true); …``."""
        shown = clean_line("; ".join(self.signs))
        return (
            f"{nouns}: the answer holds {self.held:,} but says there are more ({shown});"
            " this client reads one response and follows no further pages"
        )

    @property
    def counted(self) -> str:
        """For a tab's count line, after its own count."""
        if self.total is not None:
            return f"{self.total:,} by the server's count: this client reads one response"
        return "the server says it has more: this client reads one response"


class PagedRows(list[Any]):
    """The rows of a list whose answer said there are more (see :func:`with_paging`)."""

    def __init__(self, rows: list[Any], paging: Paging) -> None:
        super().__init__(rows)
        self.paging = paging


def with_paging(rows: list[Any], paging: Paging | None) -> list[Any]:
    """``rows``, read back by :func:`paging_of` as saying ``paging``: a list whose class
    has room for it keeps it (the same list), any other is copied into a
    :class:`PagedRows` (of a body that says there is more, so rarely)."""
    if paging is None:
        return rows
    try:
        rows.paging = paging  # type: ignore[attr-defined]
    except AttributeError:
        return PagedRows(rows, paging)
    return rows


def paging_of(rows: object) -> Paging | None:
    """What the answer that gave ``rows`` said of more on the server; None: nothing."""
    paging = getattr(rows, "paging", None)
    return paging if isinstance(paging, Paging) else None


def read_paging(members: Mapping[str, Any], held: int) -> Paging | None:
    """What the members of a list body beside its list (values decoded, or their JSON
    text) say of more than the ``held`` entries; None when nothing does."""
    signs: list[str] = []
    total: int | None = None
    for place in _places(members):
        for key in MORE_FLAGS:
            if _value(place, key) is True:
                signs.append(f"{key} true")
        for key in NEXT_MARKS:
            value = _value(place, key)
            if isinstance(value, str) and value.strip():
                signs.append(f"{key} “{_short(value)}”")
            elif isinstance(value, int | float) and not isinstance(value, bool):
                signs.append(f"{key} {_short(str(value))}")
        for key in TOTALS:
            count = _count(_value(place, key))
            if count is not None and count > held:
                signs.append(f"{key} {count:,}")
                total = count if total is None else max(total, count)
    if not signs:
        return None
    return Paging(held, total, tuple(dict.fromkeys(signs)))


def _places(members: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    places = [members]
    for key in NESTS:
        nested = _value(members, key)
        if isinstance(nested, Mapping):
            places.append(nested)
    return places


def _value(members: Mapping[str, Any], key: str) -> Any:
    """``members[key]``, decoded if it is JSON text; None if absent or undecodable."""
    value = members.get(key)
    if isinstance(value, msgspec.Raw):
        with memoryview(value) as text:
            if not text or text[0] == ord("["):
                return None  # a list (the list itself, maybe): never read for this
        try:
            return msgspec.json.decode(value)
        except (msgspec.DecodeError, RecursionError):
            return None
    return value


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = ascii_int(value, _MAX_DIGITS)
    if isinstance(value, int) and 0 <= value < 10**_MAX_DIGITS:
        return value
    return None


def _short(text: str) -> str:
    text = clean_line(text)
    return shorten(text, SHOWN_CHARS)
