"""The operations' addresses: which method, which of the three hosts, which path.

``{base_url}`` serves ``/v1/...``, ``{auth_url}`` the token endpoint and ``{console_url}``
the collections. An id is always one path segment: it is percent-encoded whole, so
``a/b``, ``?``, ``#`` and ``%`` stay inside it. No encoding keeps a segment of
dots one: URL normalisation (RFC 3986, in proxies and servers alike) reads ``%2E%2E`` as
``..`` and drops the segment, so ``DELETE /v1/items/..`` would reach ``DELETE /v1``.
:func:`check_path` refuses such paths, and empty ids, before any request is made.

A request written out whole (``tokensales-tui api``) is judged by :func:`raw_endpoint`: its
path segment by segment, in the same way, and its query as a query, which the server reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote_to_bytes, urlsplit, urlunsplit

from .connection import Connection
from .errors import RefusedRequest

__all__ = [
    "LISTS",
    "Address",
    "Endpoint",
    "asset_endpoint",
    "check_path",
    "collection_endpoint",
    "item_endpoint",
    "quote_id",
    "raw_endpoint",
    "redact_url",
    "url_of",
    "webhook_endpoint",
]

Address = Literal["base", "auth", "console"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One operation's method and address, for requests and request previews."""

    method: str
    address: Address
    path: str


LISTS: dict[str, Endpoint] = {
    "webhooks": Endpoint("GET", "base", "/v1/platform-webhooks"),
    "items": Endpoint("GET", "base", "/v1/items"),
    "assets": Endpoint("GET", "base", "/v1/assets"),
    "collections": Endpoint("GET", "console", "/collections"),
}
"""The list requests, by what they list."""


def quote_id(value: str) -> str:
    """An identifier made safe to place in one path segment.

    Text that UTF-8 cannot encode (a lone surrogate) is encoded as it stands, so the
    preview shows it and :func:`check_path` refuses it.
    """
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def item_endpoint(method: str, item_id: str) -> Endpoint:
    """The endpoint of one item (``GET`` or ``DELETE``)."""
    return Endpoint(method, "base", f"/v1/items/{quote_id(item_id)}")


def asset_endpoint(asset_id: str) -> Endpoint:
    """``GET /v1/assets/{id}``."""
    return Endpoint("GET", "base", f"/v1/assets/{quote_id(asset_id)}")


def webhook_endpoint(method: str, webhook_id: str) -> Endpoint:
    """The endpoint of one webhook."""
    return Endpoint(method, "base", f"/v1/platform-webhooks/{quote_id(webhook_id)}")


def collection_endpoint(collection_id: str) -> Endpoint:
    """``DELETE {console_url}/collection/{token_Id}``."""
    return Endpoint("DELETE", "console", f"/collection/{quote_id(collection_id)}")


MAX_URL_CHARS = 65_536
"""The longest address a request carries: httpx refuses a longer one before sending
(and servers cut far shorter ones)."""


def check_path(endpoint: Endpoint, url: str = "") -> None:
    """Refuse a path that would not reach the address it names, or an address ``url``
    (of ``endpoint``) too long to be sent.

    Raises:
        RefusedRequest: a segment is empty, ``.`` or ``..`` (encoded or not), or is
            not UTF-8 — an id that no request can carry to its own address; or the
            address is longer than :data:`MAX_URL_CHARS`, which the message says of
            the id, the path or the query that makes it so (the request was refused as
            "an answer this client does not understand", which for a change said that
            it might have gone). The query, if any, is the server's to read.
    """
    path, mark, query = endpoint.path.partition("?")
    segments = path.split("/")[1:]
    for index, segment in enumerate(segments):
        if problem := _segment_problem(unquote_to_bytes(segment)):
            shown = [*segments[:index], "{id}", *segments[index + 1 :]]
            raise RefusedRequest(
                f"{endpoint.method} /{'/'.join(shown)}: not sent — the id {problem}"
            )
    if len(url) <= MAX_URL_CHARS:
        return
    longest = max(range(len(segments)), key=lambda index: len(segments[index]))
    if mark and len(query) >= len(segments[longest]):
        what, shown_path, hint = "its query", path, "send a shorter query"
    else:
        shown = [*segments[:longest], "{id}", *segments[longest + 1 :]]
        what, shown_path = "the id", "/" + "/".join(shown)
        hint = "no request can address an object by an id this long"
    raise RefusedRequest(
        f"{endpoint.method} {shown_path[:200]}: not sent — {what} makes its address"
        f" {len(url):,} characters long, more than the {MAX_URL_CHARS:,} a request can carry",
        hint=hint,
    )


def id_problem(object_id: str) -> str | None:
    """Why no request can carry ``object_id`` in its path ("is empty", …), or None."""
    return _segment_problem(unquote_to_bytes(quote_id(object_id))) or None


def _segment_problem(decoded: bytes) -> str:
    if not decoded:
        return "is empty"
    if decoded in (b".", b".."):
        return f"is “{decoded.decode()}”, which would address another path"
    try:
        decoded.decode("utf-8")
    except UnicodeDecodeError:
        return "holds characters that cannot be sent"
    return ""


_ADDRESS_OF: dict[str, Address] = {"v1": "base", "collections": "console", "collection": "console"}
"""The host of the interface's paths, by their first segment. The token endpoint is left
out: its request carries the key and secret, not a token (``tokensales-tui token``)."""


def raw_endpoint(method: str, target: str) -> Endpoint:
    """The endpoint of a request written out whole, path and query (``tokensales-tui api``).

    The host follows the path's first segment, as the interface says; a path of another
    first segment (``/collectionsXYZ``) is refused. The path is sent as written, so a
    segment that would take it elsewhere is refused: empty, ``.`` or ``..`` (encoded or
    not, or with ``;`` parameters), or holding a ``\\`` or an encoded ``/`` or ``\\``, which
    servers and proxies may read as a separator; so is a fragment, which is never sent. The
    query is the server's to read: a ``/`` or ``..`` in it is a value.

    Raises:
        ValueError: why no request can go there as written, in one line about the path.
    """
    if not target.startswith("/") or any(ch.isspace() for ch in target):
        raise ValueError(f"{target!r} is not a path — expected one such as /v1/items")
    if not target.isascii() and any("\ud800" <= ch <= "\udfff" for ch in target):
        raise ValueError("it holds bytes that are not UTF-8 text — percent-encode them")
    if "#" in target:  # the client drops it, and what is left may go elsewhere (/x/..#)
        raise ValueError(
            f"{target}: a fragment (#…) is never sent — percent-encode # as %23 in a value"
        )
    path = target.partition("?")[0]
    if "\\" in path:
        raise ValueError(f"{path}: a path holds no \\ (servers and proxies may read it as /)")
    segments = path.split("/")[1:]
    address = _ADDRESS_OF.get(segments[0])
    if address is None:
        raise ValueError(
            "the service answers under /v1/, /collections and /collection/ only"
            " (the token comes from 'tokensales-tui token')"
        )
    for segment in segments:
        decoded = unquote_to_bytes(segment)
        if not decoded:
            raise ValueError(f"{path} has an empty segment (// or a / at the end)")
        if problem := _written_segment_problem(decoded):
            raise ValueError(f"{path}: the segment “{segment}” {problem}")
    return Endpoint(method, address, target)


def _written_segment_problem(decoded: bytes) -> str:
    if b"/" in decoded or b"\\" in decoded:
        return (
            "holds an encoded / or \\, which servers and proxies may read as a separator"
            " (get and delete send an id holding one)"
        )
    if b";" in decoded and decoded.partition(b";")[0] in (b".", b".."):  # "..;x" is ".." to some
        return "is a dot segment followed by parameters, which some servers read as it"
    return _segment_problem(decoded)


def url_of(connection: Connection, endpoint: Endpoint) -> str:
    """The full URL of ``endpoint`` on the profile's addresses."""
    root = {
        "base": connection.base_url,
        "auth": connection.auth_url,
        "console": connection.console_url,
    }[endpoint.address]
    return root.rstrip("/") + endpoint.path


def redact_url(url: str) -> str:
    """``url`` with user info and query values masked, for logs."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = "&".join(
        f"{pair.split('=', 1)[0]}=***" if "=" in pair else pair
        for pair in parts.query.split("&")
        if pair
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
