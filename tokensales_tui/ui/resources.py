"""What each tab shows and can do: columns, loading, identity, detail and delete.

One :class:`Resource` per tab. The tabs themselves are one widget
(:class:`~tokensales_tui.ui.tabs.ResourceTab`) driven by these descriptions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Context, Decimal
from operator import attrgetter
from typing import Any

from ..api import ApiClient, Deleted
from ..api.models import Asset, Collection, Item, Model, Webhook
from ..api.spool import Spooled
from ..clean import clean_line, display_value
from ..payouts import PayoutRow
from .table.cells import Column, numeric_sort_key
from .table.index import FIELD_SEP, OtherFields

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
        """What a row is across reloads: its id (the object itself when it has none)."""
        return self.row_id(row) or id(row)

    def identities(self, rows: Sequence[Any]) -> list[Hashable]:
        """:meth:`identity` of each of ``rows``, in order: one pass in C (``row_id`` is
        an ``attrgetter``) where every row has an id, as they all do from a real server."""
        ids: list[Hashable] = list(map(self.row_id, rows))
        if all(ids):
            return ids
        return [key or id(row) for key, row in zip(ids, rows, strict=True)]


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
    if len(value) >= 16 and value[10] in "T " and value[4] == "-":
        return f"{value[:10]} {value[11:16]}"
    return value


def short_date(value: str | None) -> str:
    """The date part of an ISO 8601 timestamp (the detail view shows the whole)."""
    return short_time(value)[:10]


TINY_DECIMALS = 18
"""Decimals a price below 0.000000005 is written with (an ether's wei is the 18th); a
smaller one is written in scientific notation (``5e-324``)."""


def format_price(price: float, currency: str) -> str:
    """A price with its currency, as the server sent it: two decimals, up to eight if it has more.

    A whole number is written in full, however large (a float would lose digits past
    2**53). A float is written with the digits of its shortest form, never the binary
    noise past them (``123456789.1``, not ``123,456,789.09999999``). A price too small for
    eight decimals (1 gwei is 0.000000001 ETH) is never shown as zero: it is written as
    the server sent it, in full up to :data:`TINY_DECIMALS` decimals, in scientific
    notation below. Zero is ``0.00``, whatever its sign.
    """
    if price.__class__ is not int:
        # One formatting per price (the table formats every row at load): cheaper than
        # testing round(price, 2) == price and formatting again.
        text = f"{price:,.8f}"
        if len(text) > FLOAT_EXACT_WIDTH:
            text = _large(price)
        # Eight decimals cut back to two, or to the last that is not zero: every float.
        text = text[:-6] if text.endswith("000000") else text.rstrip("0")
        if text in ("0.00", "-0.00"):
            text = _tiny(price) if price else "0.00"
    else:
        text = f"{price:,}.00"
    return f"{text} {currency}".strip()


FLOAT_EXACT_WIDTH = len("9,999,999.99999999")
"""Up to 7 digits before the point, eight decimals of a float show no digit past its
shortest form (2**53 is about 9e15); a wider one is written from its shortest form."""


def _large(price: float) -> str:
    """A float wider than :data:`FLOAT_EXACT_WIDTH`: its shortest form's digits, grouped,
    rounded to eight decimals as a shorter float is written (infinity and NaN as Python
    writes them)."""
    if not math.isfinite(price):
        return str(price)
    return format(Decimal(repr(price)).quantize(_EIGHT_DECIMALS, context=_WIDE), ",f")


_EIGHT_DECIMALS = Decimal("0.00000001")


_WIDE = Context(prec=400)
"""Room for every digit of the largest float (309) and eight decimals."""


def _tiny(price: float) -> str:
    """A price below 0.000000005 in full: its shortest form, as decimals when few enough."""
    exact = Decimal(repr(price))  # the digits the server sent, without binary noise
    return format(exact, "f" if exact.adjusted() >= -TINY_DECIMALS else "e")


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
            lambda i: format_price(i.price, i.currency),
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
        ("Price", format_price(i.price, i.currency)),
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
                _raw_date(key) if timestamp else _raw_value(key),
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
