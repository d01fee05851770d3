"""Request-body checks of a careful server; every refusal names the offending field.

Malformed JSON and a body of the wrong overall shape answer 400; a missing or ill-typed
field answers 422. Unknown fields are ignored. The functions return the accepted values.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import msgspec

from ..checks.text import check_text
from .addresses import address_problem
from .errors import ApiError

_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_DETAILS_FIELDS = {
    "fiatDetails": ("provider", "paymentProviderId"),
    "stablecoinDetails": ("blockchainId", "tokenId", "spender"),
    "nativeDetails": ("blockchainId",),
}
URL_LIMIT = 2048
"""Longest webhook URL accepted, in characters (what browsers and most services take)."""
#: Payout types whose details object is required (the interface leaves the pairing open).
PAYOUT_DETAILS = {
    "fiat": "fiatDetails",
    "stablecoin": "stablecoinDetails",
    "native": "nativeDetails",
}


def parse_json(body: bytes) -> Any:
    """Decode a request body, refusing an empty, malformed or too deeply nested one with 400."""
    if not body.strip():
        raise ApiError(400, "request body is empty; a JSON body is required")
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise ApiError(400, f"request body is not valid JSON: {exc}") from None
    except RecursionError:  # some thousand levels deep: the decoder gives up
        raise ApiError(400, "request body is not valid JSON: it nests too deeply") from None


def json_type(value: Any) -> str:
    """The JSON name of ``value``'s type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


class Fields:
    """Reads typed fields of one JSON object; a field asked for but absent is an error.

    ``prefix`` makes the paths of nested fields, ``status`` is the status of a refusal
    and ``extra`` adds keys (``index``) to every error body.
    """

    def __init__(
        self, obj: dict[str, Any], prefix: str = "", *, status: int = 422, **extra: Any
    ) -> None:
        self.obj = obj
        self.prefix = prefix
        self.status = status
        self.extra = extra

    def error(self, key: str, problem: str) -> ApiError:
        """An error about field ``key``, whose message starts with the field's path."""
        name = self.prefix + key
        return ApiError(self.status, f"{name} {problem}", field=name, **self.extra)

    def has(self, key: str) -> bool:
        """Whether the object holds ``key``."""
        return key in self.obj

    def value(self, key: str) -> Any:
        """The value of ``key``, of any type."""
        if key not in self.obj:
            raise self.error(key, "is required")
        return self.obj[key]

    def string(self, key: str, *, empty_ok: bool = False) -> str:
        """A string field, non-blank unless ``empty_ok``."""
        value = self.value(key)
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {json_type(value)}")
        if not empty_ok and not value.strip():
            raise self.error(key, "must not be empty")
        return value

    def boolean(self, key: str) -> bool:
        """A boolean field."""
        value = self.value(key)
        if not isinstance(value, bool):
            raise self.error(key, f"must be a boolean, not {json_type(value)}")
        return value

    def strings(self, key: str, *, empty_ok: bool = True) -> list[str]:
        """An array of non-blank strings; the array may be empty only if ``empty_ok``."""
        value = self.value(key)
        if not isinstance(value, list):
            raise self.error(key, f"must be an array of strings, not {json_type(value)}")
        if not value and not empty_ok:
            raise self.error(key, "must not be empty")
        for i, element in enumerate(value):
            if not isinstance(element, str):
                raise self.error(f"{key}[{i}]", f"must be a string, not {json_type(element)}")
            if not element.strip():
                raise self.error(f"{key}[{i}]", "must not be empty")
        return value

    def nested(self, key: str) -> Fields:
        """An object field, read with its own prefix."""
        value = self.value(key)
        if not isinstance(value, dict):
            raise self.error(key, f"must be an object, not {json_type(value)}")
        return Fields(value, f"{self.prefix}{key}.", status=self.status, **self.extra)


def expect_object(value: Any, *, status: int = 422) -> Fields:
    """The body as an object, refusing any other JSON value with 400."""
    if not isinstance(value, dict):
        raise ApiError(400, f"request body must be a JSON object, not {json_type(value)}")
    return Fields(value, status=status)


def credentials(body: Any) -> tuple[str, str]:
    """``apiKey`` and ``apiSecret`` of a token request; any malformation is a 400."""
    fields = expect_object(body, status=400)
    return fields.string("apiKey", empty_ok=True), fields.string("apiSecret", empty_ok=True)


def webhook_create(body: Any) -> dict[str, Any]:
    """The accepted fields of a new webhook: ``url``, ``events`` and maybe ``secret``."""
    fields = expect_object(body)
    accepted: dict[str, Any] = {"url": _url(fields), "events": _events(fields)}
    if fields.has("secret"):
        accepted["secret"] = fields.string("secret", empty_ok=True)
    return accepted


def webhook_update(body: Any) -> dict[str, Any]:
    """The fields a webhook update changes; ``isActive`` is tolerated as well."""
    fields = expect_object(body)
    changes: dict[str, Any] = {}
    if fields.has("url"):
        changes["url"] = _url(fields)
    if fields.has("events"):
        changes["events"] = _events(fields)
    if fields.has("secret"):
        changes["secret"] = fields.string("secret", empty_ok=True)
    if fields.has("isActive"):
        changes["isActive"] = fields.boolean("isActive")
    return changes


def _url(fields: Fields) -> str:
    """A webhook URL the emulator can deliver to: what it accepts, it can send.

    At most :data:`URL_LIMIT` characters. Control characters (C0, DEL, C1) and lone surrogates are refused as the client's forms
    refuse them; then the URL must parse, with a port from 1 to 65535, and the HTTP client
    that delivers must take it as it is.
    """
    import httpx

    url = fields.string("url")
    if len(url) > URL_LIMIT:
        raise fields.error("url", f"is longer than {URL_LIMIT:,} characters ({len(url):,})")
    if problem := check_text(url, "url"):
        raise fields.error("url", problem.removeprefix("url "))
    invalid = fields.error("url", "must be an absolute http or https URL with a host")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # an unclosed [ of an IPv6 host
        raise invalid from None
    if parts.scheme not in ("http", "https") or not host or any(c.isspace() for c in url):
        raise invalid
    try:
        port = parts.port
    except ValueError:  # out of range, or not a number
        port = 0
    if port == 0:
        raise fields.error("url", "has a port that is not a number from 1 to 65535")
    try:
        httpx.URL(url)
    except (httpx.InvalidURL, UnicodeError) as error:
        raise fields.error("url", f"cannot be sent to: {error}") from None
    return url


def _events(fields: Fields) -> list[str]:
    events = fields.strings("events", empty_ok=False)
    for i, event in enumerate(events):
        if event in events[:i]:
            raise fields.error(f"events[{i}]", f"repeats the event {event!r}")
    return events


def payout(body: Any) -> dict[str, Any]:
    """A payout definition, returned as sent once its fields check out.

    ``type`` and ``name`` are required. Types fiat, stablecoin and native need their
    matching details object; other types are accepted as they are, since the interface
    does not list the allowed values.
    """
    fields = expect_object(body)
    kind = fields.string("type")
    fields.string("name")
    for key, names in _DETAILS_FIELDS.items():
        if fields.has(key):
            details = fields.nested(key)
            for name in filter(details.has, names):
                details.string(name)
    needed = PAYOUT_DETAILS.get(kind.strip().lower())
    if needed and not fields.has(needed):
        raise fields.error(needed, f"is required for a payout of type {kind!r}")
    return dict(fields.obj)


def collections(body: Any) -> list[dict[str, Any]]:
    """The collections of a ``POST /collections`` body, which must be a JSON array.

    All elements are checked before any is accepted; an error carries ``index``.
    """
    if not isinstance(body, list):
        raise ApiError(
            400, f"request body must be a JSON array of collections, not {json_type(body)}"
        )
    if not body:
        raise ApiError(422, "request body must hold at least one collection")
    return [_collection(element, i) for i, element in enumerate(body)]


def _collection(element: Any, index: int) -> dict[str, Any]:
    if not isinstance(element, dict):
        raise ApiError(
            400, f"collection {index} must be a JSON object, not {json_type(element)}", index=index
        )
    fields = Fields(element, index=index)
    name = fields.string("name")
    blockchain = fields.string("blockchain")
    contract = fields.string("contractAddress")
    if problem := address_problem(contract, blockchain):
        raise fields.error("contractAddress", problem)
    whitelisted = fields.value("whitelisted")
    if whitelisted not in ("true", "false"):
        raise fields.error("whitelisted", 'must be the string "true" or "false"')
    info = fields.nested("whitelistingInfo")
    wallet_list = info.nested("list")
    wallets = wallet_list.strings("wallets")
    emails = info.strings("emails")
    for i, wallet in enumerate(wallets):
        if problem := address_problem(wallet, blockchain):
            raise wallet_list.error(f"wallets[{i}]", problem)
    for i, email in enumerate(emails):
        if not _EMAIL.fullmatch(email):
            raise info.error(f"emails[{i}]", "must be an e-mail address")
    return {
        "name": name,
        "blockchain": blockchain,
        "contractAddress": contract,
        "whitelisted": whitelisted,
        "whitelistingInfo": {"list": {"wallets": wallets}, "emails": emails},
    }
