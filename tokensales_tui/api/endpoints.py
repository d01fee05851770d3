"""The operations' addresses: which method, which of the three hosts, which path.

``{base_url}`` serves ``/v1/...``, ``{auth_url}`` the token endpoint and ``{console_url}``
the collections. An id is always one path segment: it is percent-encoded whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit, urlunsplit

from .connection import Connection

__all__ = [
    "LISTS",
    "Address",
    "Endpoint",
    "collection_endpoint",
    "item_endpoint",
    "quote_id",
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
    """An identifier made safe to place in a path segment."""
    return quote(value, safe="")


def webhook_endpoint(method: str, webhook_id: str) -> Endpoint:
    """The endpoint of one webhook."""
    return Endpoint(method, "base", f"/v1/platform-webhooks/{quote_id(webhook_id)}")


def item_endpoint(method: str, item_id: str) -> Endpoint:
    """The endpoint of one item."""
    return Endpoint(method, "base", f"/v1/items/{quote_id(item_id)}")


def collection_endpoint(collection_id: str) -> Endpoint:
    """``DELETE {console_url}/collection/{token_Id}``."""
    return Endpoint("DELETE", "console", f"/collection/{quote_id(collection_id)}")


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
