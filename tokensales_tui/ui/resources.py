"""What each tab shows and can do: columns, loading, identity, detail and delete.

One :class:`Resource` per tab. The tabs themselves are one widget
(:class:`~tokensales_tui.ui.tabs.ResourceTab`) driven by these descriptions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Context, Decimal, InvalidOperation
from operator import attrgetter
from typing import Any

import msgspec

from ..api import ApiClient, Deleted
from ..api.models import Asset, Collection, Item, Model, Webhook
from ..api.shapes import decode_as_sent
from ..api.spool import Spooled
from ..clean import clean_line, display_value
from ..payouts import PayoutRow
from .table.cells import Column, numeric_sort_key
from .table.index import FIELD_SEP, OtherFields
from .table.model import identities_of, identity_of
from .table.numbers import ROUNDED, scientific

KeyFields = list[tuple[str, object]]


def as_sent(row: Any) -> Any:
    """A row's whole object as the server sent it, for every path that writes it as
    JSON (``y``, the detail view, an export): its numbers as the server wrote them
    (:attr:`.api.models.Model.sent`), where the row keeps its text; a row of our own
    (a payout setting) as it is."""
    return row.sent if isinstance(row, Model) else row.raw


@dataclass(frozen=True)
class Resource:
    """How one resource is listed, identified, shown and deleted."""

    key: str
    title: str
    noun: str
    load: Callable[[ApiClient], Awaitable[Sequence[Any]]]
    columns: Callable[[Sequence[Any]], list[Column]]
    row_id: Callable[[Any], str | None]
    label: Callable[[Any], str]
    key_fields: Callable[[Any], KeyFields]
    raw: Callable[[Any], Any] = field(default=as_sent)
    """A row's whole object, to show and write as JSON (:func:`as_sent`)."""
    fetch: Callable[[ApiClient, str], Awaitable[Any]] | None = None
    delete: Callable[[ApiClient, str], Awaitable[Deleted]] | None = None
    endpoint: str = ""
    """The list request, as shown in loading and error lines."""
    other_fields: OtherFields | None = None
    """The object's fields no column shows, for the filter (a description, a contract)."""
    follows: str | None = None
    """The tab (its key) whose list this one shows another way: loaded again when
    shown after that tab has loaded its list again (Payouts group the items)."""
    arrives: str | None = None
    """The list (a key of ``LISTS``) whose rows the tab shows while its body still
    arrives; None: the rows show once all are there (grouped, or columns picked from
    every row)."""

    def nouns(self, count: int) -> str:
        """The word for ``count`` of this resource: "webhook" for one, else "webhooks"."""
        return self.noun if count == 1 else self.title.lower()

    def counted(self, count: int) -> str:
        """``count`` of this resource in words: "1 webhook", "2,000 webhooks"."""
        return f"{count:,} {self.nouns(count)}"

    def identity(self, row: Any) -> Hashable:
        """What a row is across reloads (:func:`~.table.model.identity_of`): its id, or
        without one the row object itself."""
        return identity_of(self.row_id, row)

    def identities(self, rows: Sequence[Any]) -> list[Hashable]:
        """:meth:`identity` of each of ``rows``, in order (one pass in C where all have ids)."""
        return identities_of(self.row_id, rows)


def row_content(row: Any) -> object:
    """What a row holds, to tell whether a reload changed it: the JSON the server sent.

    Listed objects keep their JSON text (in the list's spool); comparing it costs far
    less than decoding it.
    """
    source = getattr(row, "_source", None)
    if isinstance(source, Spooled):
        return source.text()
    return source if source is not None else getattr(row, "raw", row)


def joined(values: Iterable[object]) -> str:
    """Field values as one search text: cleaned as cells are, kept apart so that no match
    spans two of them."""
    return FIELD_SEP.join(
        clean_line(value) if isinstance(value, str) else display_value(value) for value in values
    )


def short_time(value: str | None) -> str:
    """``2026-11-21T09:14:53Z`` → ``2026-11-21 09:14``; other text unchanged."""
    if not value:
        return ""
    if len(value) >= 16 and value[10] in "T " and value[4] == "-" and is_timestamp(value):
        return f"{value[:10]} {value[11:16]}"
    return value


def short_date(value: str | None) -> str:
    """The date part of an ISO 8601 timestamp (the detail view shows the whole); any
    other text whole, to be cut by its column as text is, exported and filtered whole."""
    if not value:
        return ""
    return value[:10] if is_timestamp(value) else value


def is_timestamp(value: str) -> bool:
    """Whether ``value`` is an ISO 8601 date or timestamp (``2026-11-21``,
    ``2026-11-21T09:14:53.123456789+14:00``): shortening it hides nothing but its time."""
    if _DATE_START.match(value) is None:
        return False
    try:
        datetime.fromisoformat(_NANOSECONDS.sub(r"\1", value.replace("Z", "+00:00", 1)))
    except ValueError:
        return False
    return True


_DATE_START = re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d|$)")
_NANOSECONDS = re.compile(r"(\.\d{6})\d+")
"""Digits of a second past the sixth, which ``fromisoformat`` does not read."""


TINY_DECIMALS = 18
"""Decimals a price below 0.000000005 is written with (an ether's wei is the 18th); a
smaller one is written in scientific notation (``5e-324``)."""


def format_price(price: float, currency: str, source: object = None) -> str:
    """A price with its currency, as the server sent it: two decimals, up to eight if it has more.

    A whole number is written in full, however large (a float would lose digits past
    2**53). A float is written with the digits of its shortest form, never the binary
    noise past them (``123456789.1``, not ``123,456,789.09999999``). A price too small for
    eight decimals (1 gwei is 0.000000001 ETH) is never shown as zero: it is written as
    the server sent it, in full up to :data:`TINY_DECIMALS` decimals, in scientific
    notation below. Zero is ``0.00``, whatever its sign.

    Where the float cannot stand for the number sent (more digits than a float holds,
    or beyond a float: ``1e400``), the price is read from the JSON text of ``source``
    (the row, :func:`sent_number`) and written from it; without that text, it is the
    float's first :data:`FLOAT_DIGITS` digits, marked :data:`.numbers.ROUNDED`
    (``≈1.23456789012346e29``): never a digit that was not sent.
    """
    if price.__class__ is int:
        text = f"{price:,}.00"
    else:
        # One formatting per price (the table formats every row at load): cheaper than
        # testing round(price, 2) == price and formatting again.
        text = f"{price:,.8f}"
        size = len(text)
        if size > FLOAT_EXACT_WIDTH or size < _NARROWEST_FLOAT:  # large, or inf
            text = _rare_price(price, source)
        else:
            # Eight decimals cut back to two, or to the last that is not zero.
            text = text[:-6] if text.endswith("000000") else text.rstrip("0")
            if text in ("0.00", "-0.00"):
                text = _tiny_price(price, source) if price else "0.00"
    return f"{text} {currency}".strip()


FLOAT_EXACT_WIDTH = len("9,999,999.99999999")
"""Up to 7 digits before the point, eight decimals of a float show no digit past its
shortest form (2**53 is about 9e15); a wider one is written from its shortest form."""

FLOAT_DIGITS = 15
"""Significant digits any decimal number keeps through a float: a shortest form of more
(``1.2345678901234568e+29``) may hold digits the text sent did not."""

WIDEST_FIXED = 40
"""Digits before the point a price is written with in full; more in scientific notation."""

_NARROWEST_FLOAT = len("0.00000000")
"""Fewer characters: ``inf``."""


def _rare_price(price: float, source: object) -> str:
    """A float price too large to be written from its eight decimals, or beyond a
    float (:func:`format_price`)."""
    if math.isfinite(price):
        shortest = Decimal(repr(price))
        text = _decimal_price(shortest)
        if _significant(text) <= FLOAT_DIGITS:  # the number sent, written so
            return text
    return _price_sent(price, source)


def _tiny_price(price: float, source: object) -> str:
    """A price below 0.000000005, not zero, in full: its shortest form, as decimals
    when few enough (:data:`TINY_DECIMALS`)."""
    shortest = Decimal(repr(price))
    if len(shortest.as_tuple().digits) <= FLOAT_DIGITS:  # the number sent
        return _tiny(shortest)
    return _price_sent(price, source)


def _tiny(price: Decimal) -> str:
    return format(price, "f" if price.adjusted() >= -TINY_DECIMALS else "e")


def _price_sent(price: float, source: object) -> str:
    """A price the float cannot stand for: as the server wrote it, read from the text of
    ``source``; without it, the float's first :data:`FLOAT_DIGITS` digits, marked."""
    sent = sent_number(source, "price")
    if sent is not None:
        return _decimal_price(sent)
    if not math.isfinite(price):
        return beyond_float(price)
    rounded = _FLOAT_DIGITS.plus(Decimal(repr(price)))
    # Its digits only: written in full, the integer part would end in zeros not sent.
    return ROUNDED + (
        scientific(rounded)[0] if rounded.adjusted() >= FLOAT_DIGITS else _decimal_price(rounded)
    )


def _significant(text: str) -> int:
    """The significant digits of a number written by :func:`_decimal_price`."""
    _, digits, _ = Decimal(text.replace(",", "")).normalize(_WIDE).as_tuple()
    return len(digits)


def beyond_float(value: float) -> str:
    """An infinite float whose text is not known, a number beyond a float: what is
    known of it (``>1.7e308``), never "inf", never digits made up."""
    return "<-1.7e308" if value < 0 else ">1.7e308"


_FLOAT_DIGITS = Context(prec=FLOAT_DIGITS)


def _decimal_price(price: Decimal) -> str:
    """``price`` as :func:`format_price` writes a price."""
    if not price:
        return "0.00"
    if price.adjusted() >= WIDEST_FIXED:
        return scientific(price)[0]
    text = format(price.quantize(_EIGHT_DECIMALS, context=_WIDE), ",f")
    text = text[:-6] if text.endswith("000000") else text.rstrip("0")
    return _tiny(price) if text in ("0.00", "-0.00") else text  # below 0.000000005: in full


_EIGHT_DECIMALS = Decimal("0.00000001")


_WIDE = Context(prec=WIDEST_FIXED + 10)
"""Room for every digit a price is written with in full, and eight decimals."""


def sent_number(source: object, key: str) -> Decimal | None:
    """The number ``key`` of a row's object (:func:`sent_text`), exactly."""
    text = sent_text(source, key)
    try:
        return None if text is None else Decimal(text)
    except InvalidOperation:
        return None


def sent_text(source: object, key: str) -> str | None:
    """The number ``key`` of a row's object as the server wrote it, read from the JSON
    text it sent (:attr:`.api.models.Model.raw_text`); None without that text, or when
    ``key`` is no number there.

    Reads and decodes the row's text: for the few numbers a float cannot stand for."""
    try:
        text = getattr(source, "raw_text", None)
        sent = decode_as_sent(text) if text else None
    except (OSError, ValueError, RecursionError):  # a spool closed, a text refused
        return None
    value = sent.get(key) if isinstance(sent, dict) else None
    if value.__class__ is not msgspec.Raw:
        return None
    return bytes(value).decode("ascii")  # type: ignore[union-attr]


# --- webhooks ------------------------------------------------------------------------


ACTIVE_CELLS: dict[bool | None, str] = {True: "● yes", False: "○ no", None: "–"}
"""A webhook's Active cell; "–" where the server did not say (not "yes": it may be off)."""
ACTIVE_FIELDS: dict[bool | None, str] = {True: "yes", False: "no", None: "– (not sent)"}
"""The same, in the detail view."""


# An id column does not give way below the length of the service's ids (wh_ or itm_ and
# twelve hex digits): an id cut short cannot be read, copied by eye or matched elsewhere.
def _webhook_columns(_rows: Sequence[Any]) -> list[Column]:
    return [
        Column("id", "ID", lambda w: w.id, min_width=15, max_width=18),
        Column("url", "URL", lambda w: w.url, min_width=20, max_width=48),
        Column(
            "active",
            "Active",
            lambda w: ACTIVE_CELLS[w.is_active],
            min_width=6,
            max_width=6,
        ),
        Column("events", "Events", lambda w: ", ".join(w.events), max_width=40),
        Column(
            "created", "Created", lambda w: short_date(w.created_at), min_width=10, max_width=10
        ),
        Column(
            "updated",
            "Updated",
            lambda w: short_date(w.last_updated_at),
            min_width=10,
            max_width=10,
        ),
    ]


def _webhook_fields(w: Webhook) -> KeyFields:
    return [
        ("ID", w.id),
        ("URL", w.url),
        ("Active", ACTIVE_FIELDS[w.is_active]),
        ("Events", ", ".join(w.events)),
        ("Created", w.created_at or ""),
        ("Updated", w.last_updated_at or ""),
    ]


WEBHOOKS = Resource(
    key="webhooks",
    title="Webhooks",
    noun="webhook",
    load=ApiClient.list_webhooks,
    columns=_webhook_columns,
    row_id=attrgetter("id"),
    label=lambda w: w.url,
    key_fields=_webhook_fields,
    delete=ApiClient.delete_webhook,
    endpoint="GET /v1/platform-webhooks",
    other_fields=OtherFields(lambda w: joined((w.created_at, w.last_updated_at))),
)


# --- items ---------------------------------------------------------------------------


def item_chain(item: Item) -> str:
    """The chain of an item: its payout's, else its contract's."""
    payout = item.payout  # each a property: read once
    if payout is not None and payout.blockchain_id:
        return payout.blockchain_id
    function = item.contract_function
    contract = function.contract if function is not None else None
    return (contract.blockchain_id or "") if contract is not None else ""


def _payout_type(item: Item) -> str:
    payout = item.payout
    return (payout.type or "") if payout is not None else ""


def _price_key(item: Item) -> Any:
    # Grouped by currency, then by amount: 5 EUR and 5 USD are not the same price.
    return (item.currency or "", numeric_sort_key(item.price))


# attrgetter and plain functions: the table calls each column's function once per row
# at load time, and a C-level getter costs a fraction of a lambda.
def _item_columns(_rows: Sequence[Any]) -> list[Column]:
    return [
        Column("id", "ID", attrgetter("id"), min_width=16, max_width=16),
        Column("title", "Title", attrgetter("title"), min_width=16, max_width=44),
        Column(
            "price",
            "Price",
            lambda i: format_price(i.price, i.currency, i),
            align="decimal",
            max_width=24,
            row_key=_price_key,
        ),
        Column("payout", "Payout", _payout_type, max_width=12),
        Column("chain", "Chain", item_chain, max_width=16),
    ]


def _item_other_text(i: Item) -> str:
    values: list[object] = [i.description, i.image_url, i.currency]
    payout = i.payout
    if payout is not None:
        values += (
            payout.payment_provider_connected_account_id,
            payout.asset_id,
            payout.spender,
            payout.blockchain_id,
        )
    function = i.contract_function
    if function is not None:
        values += (function.function_signature, function.fixed_function_params)
        if function.contract is not None:
            values += (function.contract.address, function.contract.blockchain_id)
    return joined(values)


def _item_other_key(i: Item) -> Hashable:
    # Items of one list share their payout and contract function objects (see Item), so
    # the objects' ids stand for their fields while the rows are being indexed.
    return (i.description, i.image_url, i.currency, id(i.payout), id(i.contract_function))


def _item_fields(i: Item) -> KeyFields:
    fields: KeyFields = [
        ("ID", i.id),
        ("Title", i.title),
        ("Price", format_price(i.price, i.currency, i)),
        ("Description", i.description),
        ("Image", i.image_url),
    ]
    if i.payout:
        p = i.payout
        fields.append(("Payout", p.type or ""))
        for label, value in (
            ("Payout chain", p.blockchain_id),
            ("Provider account", p.payment_provider_connected_account_id),
            ("Asset", p.asset_id),
            ("Spender", p.spender),
        ):
            if value:
                fields.append((label, value))
    if i.contract_function:
        f = i.contract_function
        fields.append(("Function", f.function_signature or ""))
        if f.contract:
            fields.append(("Contract address", f.contract.address or ""))
            fields.append(("Contract chain", f.contract.blockchain_id or ""))
        if f.fixed_function_params:
            fields.append(("Fixed params", f.fixed_function_params))
    return fields


ITEMS = Resource(
    key="items",
    title="Items",
    noun="item",
    load=ApiClient.list_items,
    arrives="items",
    columns=_item_columns,
    row_id=attrgetter("id"),
    label=lambda i: i.title,
    key_fields=_item_fields,
    fetch=ApiClient.get_item,
    delete=ApiClient.delete_item,
    endpoint="GET /v1/items",
    other_fields=OtherFields(_item_other_text, _item_other_key),
)


# --- assets --------------------------------------------------------------------------

PREFERRED_ASSET_KEYS = (
    "name",
    "symbol",
    "type",
    "blockchainId",
    "blockchain",
    "decimals",
    "contractAddress",
)


def inferred_columns(
    rows: Sequence[Any], *, first: Sequence[str] = (), limit: int = 7, sample: int = 500
) -> list[Column]:
    """Columns chosen from the data: the keys most rows have, scalar values first."""
    seen: Counter[str] = Counter()
    scalar: Counter[str] = Counter()
    for row in rows[:sample]:
        raw = row.raw if hasattr(row, "raw") else row
        if not isinstance(raw, dict):
            continue
        for key, value in raw.items():
            seen[key] += 1
            if value is None or isinstance(value, str | int | float | bool):
                scalar[key] += 1
    keys = [k for k in first if k in seen]
    ranked = sorted(
        (k for k in seen if k not in keys and k not in ("id", "_id", "assetId")),
        key=lambda k: (-scalar[k], -seen[k], k),
    )
    keys += ranked[: max(0, limit - len(keys))]
    columns = [Column("id", "ID", lambda r: r.id or "", min_width=16, max_width=18)]
    for key in keys:
        numeric = bool(rows) and all(
            isinstance(r.raw.get(key), int | float) and not isinstance(r.raw.get(key), bool)
            for r in rows[:50]
            if key in r.raw
        )
        timestamp = key.endswith(("At", "_at"))
        columns.append(
            Column(
                key,
                _title(key),
                _raw_date(key) if timestamp else _raw_number(key) if numeric else _raw_value(key),
                max_width=30,
                align="right" if numeric else "left",
                sort_key=numeric_sort_key if numeric else None,
            )
        )
    return columns


def _raw_value(key: str) -> Callable[[Any], Any]:
    """A cell getter for the field ``key`` of a row's own JSON."""

    def get(row: Any) -> Any:
        return row.raw.get(key)

    return get


def _raw_number(key: str) -> Callable[[Any], Any]:
    """Like :func:`_raw_value`, for a column of numbers: one a float cannot stand for
    (more digits than it holds, written with an exponent, beyond it) is the text the
    server wrote (``1e308``, ``1E+999``: never ``1e+308``, ``inf``), which sorts as the
    number it is (:func:`.table.cells.numeric_sort_key`)."""

    def get(row: Any) -> Any:
        value = row.raw.get(key)
        if value.__class__ is float:
            shortest = repr(value)
            # At most 15 digits and written without an exponent: the number sent.
            if len(shortest) > FLOAT_DIGITS + 1 or "e" in shortest or "n" in shortest:
                return _number_shown(row, key, value)
        return value

    return get


def _number_shown(row: Any, key: str, value: float) -> str:
    """The number ``key`` of ``row`` as the server wrote it (:func:`sent_text`), or,
    without its text, as much of ``value`` as is known: its first :data:`FLOAT_DIGITS`
    digits, marked rounded where it had more; beyond a float, :func:`beyond_float`."""
    sent = sent_text(row, key)
    if sent is not None:
        return sent
    if not math.isfinite(value):
        return beyond_float(value)
    shortest = Decimal(repr(value))
    rounded = _FLOAT_DIGITS.plus(shortest)
    if rounded == shortest:
        return display_value(value)
    return ROUNDED + scientific(rounded)[0]


def _raw_date(key: str) -> Callable[[Any], Any]:
    """Like :func:`_raw_value`, a timestamp shown as its date."""

    def get(row: Any) -> Any:
        value = row.raw.get(key)
        return short_date(value) if isinstance(value, str) else value

    return get


TITLES = {"blockchainId": "Chain", "blockchain": "Chain", "contractAddress": "Contract address"}
"""Column titles that keep one name for one thing across the tabs."""


def _title(key: str) -> str:
    if key in TITLES:
        return TITLES[key]
    out = []
    for index, char in enumerate(key.replace("_", " ")):
        if char.isupper() and index and key[index - 1].islower():
            out.append(" ")
        out.append(char)
    text = "".join(out)
    return text[:1].upper() + text[1:].replace("Id", "ID") if text else key


def _raw_fields(row: Any, keys: Sequence[str] = PREFERRED_ASSET_KEYS) -> KeyFields:
    raw = row.raw
    fields: KeyFields = [("ID", row.id or "")]
    fields += [(_title(k), raw[k]) for k in keys if k in raw]
    return fields


ASSETS = Resource(
    key="assets",
    title="Assets",
    noun="asset",
    load=ApiClient.list_assets,
    columns=lambda rows: inferred_columns(rows, first=PREFERRED_ASSET_KEYS),
    row_id=attrgetter("id"),
    label=lambda a: str(a.raw.get("name") or a.raw.get("symbol") or a.id or "asset"),
    key_fields=_raw_fields,
    fetch=ApiClient.get_asset,
    endpoint="GET /v1/assets",
    other_fields=OtherFields(lambda a: joined(a.raw.values())),
)


# --- payouts -------------------------------------------------------------------------


def _payout_columns(rows: Sequence[Any]) -> list[Column]:
    # Payout settings used by items have no name; the column shows once one is added here.
    named = any(p.name for p in rows)
    return [
        Column("type", "Type", lambda p: p.type, max_width=12),
        *([Column("name", "Name", lambda p: p.name, max_width=24)] if named else []),
        Column("chain", "Chain", lambda p: p.chain, max_width=16),
        Column("account", "Account / asset", lambda p: p.account, max_width=30),
        Column("spender", "Spender", lambda p: p.spender, max_width=20),
        Column(
            "used",
            "Items",
            lambda p: p.used_by,
            align="right",
            max_width=6,
            sort_key=numeric_sort_key,
        ),
        Column("source", "Source", lambda p: p.source, max_width=16),
    ]


def _payout_fields(p: PayoutRow) -> KeyFields:
    return [
        ("Type", p.type),
        ("Name", p.name),
        ("Chain", p.chain),
        ("Account / asset", p.account),
        ("Spender", p.spender),
        ("Used by items", p.used_by),
        ("Source", p.source),
    ]


PAYOUTS = Resource(
    key="payouts",
    title="Payouts",
    noun="payout setting",
    load=ApiClient.list_items,  # grouped by the tab; see payout_rows
    columns=_payout_columns,
    row_id=attrgetter("id"),
    label=lambda p: p.name or p.type,
    key_fields=_payout_fields,
    endpoint="GET /v1/items",
    other_fields=OtherFields(lambda p: joined((p.name, p.raw.get("payout")))),
    follows="items",
)


# --- collections ---------------------------------------------------------------------


def _whitelisted(c: Collection) -> str:
    flag = c.is_whitelisted
    if flag is None:
        return "" if c.whitelisted is None else str(c.whitelisted)
    return "● yes" if flag else "○ no"


def _collection_columns(_rows: Sequence[Any]) -> list[Column]:
    return [
        Column("id", "ID", lambda c: c.id or "", min_width=16, max_width=18),
        Column("name", "Name", lambda c: c.name or "", min_width=12, max_width=28),
        Column("blockchain", "Chain", lambda c: c.blockchain or "", max_width=16),
        Column("contract", "Contract address", lambda c: c.contract_address or "", max_width=44),
        Column("whitelisted", "Whitelisted", _whitelisted, max_width=11),
        Column(
            "wallets",
            "Wallets",
            lambda c: len(c.wallets),
            align="right",
            max_width=8,
            sort_key=numeric_sort_key,
        ),
        Column(
            "emails",
            "Emails",
            lambda c: len(c.emails),
            align="right",
            max_width=8,
            sort_key=numeric_sort_key,
        ),
    ]


def _collection_fields(c: Collection) -> KeyFields:
    return [
        ("ID", c.id or "(none recognised)"),
        ("Name", c.name or ""),
        ("Chain", c.blockchain or ""),
        ("Contract address", c.contract_address or ""),
        ("Whitelisted", _whitelisted(c)),
        ("Wallets", len(c.wallets)),
        ("Emails", len(c.emails)),
    ]


COLLECTIONS = Resource(
    key="collections",
    title="Collections",
    noun="collection",
    load=ApiClient.list_collections,
    columns=_collection_columns,
    row_id=attrgetter("id"),
    label=lambda c: c.name or c.id or "collection",
    key_fields=_collection_fields,
    delete=ApiClient.delete_collection,
    endpoint="GET {console}/collections",
    other_fields=OtherFields(lambda c: joined((*c.wallets, *c.emails))),
)

RESOURCES: tuple[Resource, ...] = (WEBHOOKS, ITEMS, ASSETS, PAYOUTS, COLLECTIONS)
"""The tabs, in order: keys 1 to 5."""

__all__ = ["RESOURCES", "Resource", "inferred_columns"]
_ = Asset  # re-exported types used in annotations above
