"""Typed objects of the service, decoded once at the API boundary.

Response models keep the server's object in ``raw`` next to the typed fields, so a
detail view can show every field the server sent, including ones the interface
does not name. ``raw`` is filled by :func:`from_raw` or by the client's list decoder;
its wire name can never occur in JSON from a server, so a server cannot set it.

Memory matters at 100,000 items and more, so response models are ``gc=False`` structs
(no cycles: the collector never needs to scan them), and a listed object's ``raw`` may
be kept as its JSON text (:class:`msgspec.Raw`, a slice of the response body) and
decoded only when asked for: a decoded object costs four to five times its text.

Request models have exactly the wire shape the interface gives: camelCase names,
``whitelisted`` as the string ``"true"``/``"false"``, unset optional fields left out.
"""

from __future__ import annotations

import builtins
import functools
import gc
import itertools
import operator
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import attrgetter
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Struct, UnsetType

from . import shapes
from .secret import Secret
from .spool import Region, Spool, Spooled

_RAW = "__tokensales_tui_raw__"  # overwritten by from_raw whatever a server sends
_AT = "__tokensales_tui_at__"  # likewise
_ID = "__tokensales_tui_id__"
"""What the decoder reads a collection's or an asset's ``id`` from: no member a server
sends. Their id is not typed by the interface (``42``, ``"col_1"``, under ``_id`` or
``tokenId``): it is always read from the object's JSON text by
:class:`.shapes.IdReader`, as ``get`` reads it, never decoded into a type that would
refuse the object for a number, nor from a decoded number (``1e+20`` stays so)."""


_NULL = msgspec.Raw(b"null")


class Model(Struct, rename="camel", kw_only=True, gc=False):
    """Base of the response models."""

    _kept: Any = msgspec.field(default=None, name=_RAW)
    """The server's object: a dict (a :class:`Decoded` one, which keeps its JSON text
    too), its JSON text (``msgspec.Raw``), where that text lies in the list's spool
    (:class:`~.spool.Spooled`), or the :class:`~.spool.Region` of a list arriving that
    holds it (the row's index in it is ``_at``)."""
    _at: Any = msgspec.field(default=0, name=_AT)

    @property
    def raw(self) -> dict[str, Any]:
        """The object as the server sent it, every field included.

        When the object is kept as JSON text, each access decodes a new dict.
        """
        source = self._kept
        if source.__class__ is Region:
            return _decode_kept(source.text(self._at))
        if source.__class__ is Spooled:
            return _decode_kept(source.text())
        if source.__class__ is msgspec.Raw:
            return _decode_kept(source)
        return source if source is not None else {}  # type: ignore[no-any-return]

    @raw.setter
    def raw(self, value: dict[str, Any] | msgspec.Raw | Spooled) -> None:
        self._kept = value
        self._at = 0

    @property
    def _source(self) -> Any:
        """What ``raw`` is read from; a row of a region answers a :class:`Spooled` mark."""
        source = self._kept
        if source.__class__ is Region:
            return source.spooled(self._at)
        return source

    @property
    def raw_text(self) -> bytes | None:
        """The object's JSON text as the server sent it, when it is kept."""
        source = self._kept
        if source.__class__ is Region:
            return source.text(self._at)  # type: ignore[no-any-return]
        if source.__class__ is Spooled:
            return source.text()  # type: ignore[no-any-return]
        if source.__class__ is msgspec.Raw:
            return bytes(source)
        if source.__class__ is Decoded:
            return bytes(source.text)
        return None

    @property
    def sent(self) -> Any:
        """The object as the server sent it, to write out again (copied, shown as JSON,
        exported): :attr:`raw`, each number the JSON text the server wrote
        (:func:`.shapes.decode_as_sent`), never a float written again. Decoded anew at each
        access, from :attr:`raw_text`; an object kept with no text is :attr:`raw`."""
        text = self.raw_text
        if text is None:
            return self.raw
        try:
            return shapes.decode_as_sent(text)
        except (ValueError, RecursionError):  # what raw says of it, as it says it
            return self.raw


class Decoded(dict[str, Any]):
    """An object kept decoded, as its table reads its cells from it (an asset's), with
    the JSON text it was read from in :attr:`text`: what is written out again is that
    text (:attr:`Model.sent`), never the floats of the dict."""

    __slots__ = ("text",)

    def __init__(self, members: Mapping[str, Any], text: bytes | msgspec.Raw) -> None:
        super().__init__(members)
        self.text = text


def keep_text(value: M, text: bytes | msgspec.Raw) -> M:
    """``value``, decoded from ``text``, keeping that text as its ``raw``: as text alone,
    or, for a model whose table reads its cells from the dict (:class:`Asset`), with
    the dict (:class:`Decoded`)."""
    if isinstance(value, Asset):
        value.raw = Decoded(value.raw, text)  # type: ignore[assignment]
    else:
        value.raw = text if text.__class__ is msgspec.Raw else msgspec.Raw(text)  # type: ignore[assignment]
    return value


def _decode_kept(text: msgspec.Raw | bytes) -> dict[str, Any]:
    """``text`` decoded, its bytes that are not UTF-8 and its escaped lone surrogates
    (``\\ud800``, :func:`.shapes.repair_surrogates`) read as U+FFFD and a number beyond
    a float as infinite (:func:`.shapes.unbounded_json`), as a body read whole reads
    them: the list decoder checks the UTF-8 and the range of the fields it types, not
    of the others, and a row keeps the text the server wrote."""
    decoded: dict[str, Any]
    try:
        decoded = msgspec.json.decode(text)
    except (UnicodeDecodeError, msgspec.DecodeError) as error:
        with memoryview(text) as view:
            whole = bytes(view)
        if not_utf8(error):
            return _decode_kept(whole.decode("utf-8", "replace").encode())
        repaired = shapes.repair_surrogates(whole) if b"\\u" in whole else None
        if repaired is not None:
            return _decode_kept(repaired)
        if not shapes.out_of_range(error):
            raise
        decoded = shapes.unbounded_json(whole)
    return decoded


def not_utf8(error: Exception) -> bool:
    """Whether msgspec refused a text for bytes that are not UTF-8: a UnicodeDecodeError
    before msgspec 0.23, a DecodeError ("Invalid UTF-8 encoded string") since."""
    return isinstance(error, UnicodeDecodeError) or (
        isinstance(error, msgspec.DecodeError) and "UTF-8" in str(error)
    )


def raw_texts(rows: Sequence[Any]) -> list[bytes | None]:
    """The JSON text each row was read from, as :attr:`Model.raw_text` gives it, read
    in bulk: the rows of one region that come one after another in ``rows`` take one
    read of the spool (an export or a comparison of 100,000 rows, not 100,000 reads)."""
    out: list[bytes | None] = []
    for region, run in itertools.groupby(rows, key=_region_of):
        if region is None:  # a row of our own (a payout setting) keeps none
            out += [getattr(row, "raw_text", None) for row in run]
        else:
            out += region.texts([row._at for row in run])
    return out


def _region_of(row: Any) -> Region | None:
    kept = getattr(row, "_kept", None)
    return kept if kept.__class__ is Region else None


# --- platform webhooks -------------------------------------------------------------


class Webhook(Model, kw_only=True):
    """A platform webhook: a URL subscribed to a list of events."""

    id: str
    url: str
    is_active: bool | None = None
    """None when the server left it out (the interface says it sends it): not known,
    so never shown as active."""
    events: list[str] = []
    created_at: str | None = None
    last_updated_at: str | None = None


class WebhookCreate(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Body of ``POST /v1/platform-webhooks``."""

    url: str
    events: list[str]
    secret: Secret | UnsetType = UNSET


class WebhookUpdate(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Body of ``PUT /v1/platform-webhooks/{id}``: only the fields that change."""

    url: str | UnsetType = UNSET
    events: list[str] | UnsetType = UNSET
    secret: Secret | UnsetType = UNSET

    def is_empty(self) -> bool:
        """True when nothing would change."""
        return self.url is UNSET and self.events is UNSET and self.secret is UNSET


# --- items -------------------------------------------------------------------------


class ItemPayout(Struct, rename="camel", kw_only=True, gc=False):
    """How the proceeds of an item are paid out."""

    type: str | None = None
    blockchain_id: str | None = None
    payment_provider_connected_account_id: str | None = None
    asset_id: str | None = None
    spender: str | None = None


class Contract(Struct, rename="camel", kw_only=True, gc=False):
    """The contract an item's function is called on."""

    address: str | None = None
    blockchain_id: str | None = None
    abi_json: msgspec.Raw = msgspec.field(default=_NULL, name="abi")
    """The ABI as JSON text: only the detail view reads it, and decoded it costs ~1 KB."""

    @property
    def abi(self) -> Any:
        """The contract's ABI, decoded (None when absent)."""
        return msgspec.json.decode(self.abi_json)


class ContractFunction(Struct, rename="camel", kw_only=True, gc=False):
    """The contract function a sale of the item calls."""

    function_signature: str | None = None
    fixed_function_params: dict[str, Any] | None = None
    contract: Contract | None = None


class Item(Model, kw_only=True):
    """An item offered for sale.

    Items of one list share equal ``payout`` and ``contract_function`` objects (and equal
    ``currency`` strings): a list of 1,000,000 items holds a few dozen of each instead
    of a million. Treat them as read-only.
    """

    id: str
    title: str
    currency: str
    price: int | float
    """A whole number stays one: a float would change its digits past 2**53."""
    description: str = ""
    image_url: str = ""
    # As sent, then the object _share_items decodes from it, once for every distinct
    # text in a list: one field each, not two, is 16 MB less at 1,000,000 items.
    _payout: msgspec.Raw = msgspec.field(default=_NULL, name="payout")
    _function: msgspec.Raw = msgspec.field(default=_NULL, name="contractFunction")

    @property
    def payout(self) -> ItemPayout | None:
        """How the proceeds are paid out (None when the server sent none)."""
        value: Any = self._payout
        return None if value.__class__ is msgspec.Raw else value  # type: ignore[no-any-return]

    @property
    def contract_function(self) -> ContractFunction | None:
        """The contract function a sale calls (None when the server sent none)."""
        value: Any = self._function
        return None if value.__class__ is msgspec.Raw else value  # type: ignore[no-any-return]


class _Shared:
    """Objects already decoded while decoding one list, by their JSON text, and the
    strings met so far (so that equal ones are one object)."""

    __slots__ = ("functions", "payouts", "strings")

    def __init__(self) -> None:
        self.payouts = _Nested(_PAYOUT_DECODER, "payout")
        self.functions = _Nested(_FUNCTION_DECODER, "contractFunction")
        self.strings: dict[str, str] = {}


class _Nested:
    """The objects decoded from the texts of one nested field, one for equal texts.

    Looked up by the text's length first: most lists hold a few dozen distinct texts,
    mostly of distinct lengths, so comparing a text with the one known of its length
    (a ``memcmp``) finds it without copying or hashing it. Texts that share a length
    with another are found by their whole text.
    """

    __slots__ = ("by_length", "by_text", "decoder", "name", "values")

    def __init__(self, decoder: Any, name: str) -> None:
        self.decoder = decoder
        self.name = name
        self.by_length: dict[int, msgspec.Raw] = {}  # the first text met of each length
        self.values: dict[int, Any] = {}  # ... and its object
        self.by_text: dict[bytes, Any] = {}

    def objects(self, texts: list[msgspec.Raw]) -> list[Any]:
        """The object of each text, in order (decoded from a copy: never a slice of
        the body, which a ``msgspec.Raw`` inside would keep alive)."""
        lengths = list(map(len, texts))
        known = map(self.by_length.get, lengths, itertools.repeat(_NO_TEXT))
        found = list(map(operator.eq, texts, known))
        out = list(map(self.values.get, lengths))
        if not all(found):
            for index in itertools.compress(range(len(texts)), map(operator.not_, found)):
                out[index] = self._exact(texts[index])
        return out

    def _exact(self, text: msgspec.Raw) -> Any:
        key = bytes(text)
        try:
            return self.by_text[key]
        except KeyError:
            pass
        try:
            value = self.decoder.decode(key)
        except msgspec.ValidationError as error:
            # Name the field as a decoder of the whole item would: "... - at `$.payout.type`".
            message = str(error)
            if " - at `$" in message:
                message = message.replace(" - at `$", f" - at `$.{self.name}", 1)
            else:
                message += f" - at `$.{self.name}`"
            raise msgspec.ValidationError(message) from None
        self.by_text[key] = value
        if len(key) not in self.by_length:
            self.by_length[len(key)] = msgspec.Raw(key)
            self.values[len(key)] = value
        return value


_NO_TEXT = msgspec.Raw(b"")
_PAYOUT_DECODER = msgspec.json.Decoder(ItemPayout | None, strict=False)
_FUNCTION_DECODER = msgspec.json.Decoder(ContractFunction | None, strict=False)


def _share_items(items: list[Item], shared: _Shared, *, strings: bool = True) -> None:
    """Decode the payout and contract function of ``items``, once for each distinct text
    (reusing equal ones from ``shared``), and make their equal strings one object
    (unless not ``strings``).

    Each pass over the items runs at C level (``map``).
    """
    # In place of the slices of the body they came from, which are let go.
    set_each(items, "_payout", shared.payouts.objects(list(map(_PAYOUT_JSON, items))))
    set_each(items, "_function", shared.functions.objects(list(map(_FUNCTION_JSON, items))))
    if not strings:
        return
    intern = shared.strings.setdefault
    for name, read in _SHARED_TEXTS:
        texts = list(map(read, items))
        set_each(items, name, map(intern, texts, texts))


_PAYOUT_JSON = attrgetter("_payout")
_FUNCTION_JSON = attrgetter("_function")
_SHARED_TEXTS = [(name, attrgetter(name)) for name in ("currency", "description", "image_url")]


def keep_in(rows: list[Any], region: Region) -> None:
    """Let ``rows``, decoded from ``region`` in order, read their text from it."""
    set_each(rows, "_kept", itertools.repeat(region, len(rows)))
    set_each(rows, "_at", _INDEXES if len(rows) <= len(_INDEXES) else range(len(rows)))


def set_each(rows: Sequence[Any], name: str, values: Iterable[Any]) -> None:
    """``setattr(row, name, value)`` for each row and value in turn, at C level."""
    deque(map(setattr, rows, itertools.repeat(name), values), maxlen=0)


# --- assets ------------------------------------------------------------------------


class Asset(Model, kw_only=True):
    """An asset. The interface names none of its fields; ``id`` is resolved by the client."""

    id: str | None = msgspec.field(default=None, name=_ID)
    """Read from the object's JSON text by :class:`.shapes.IdReader` (see ``_ID``)."""


# --- payouts -----------------------------------------------------------------------


class FiatDetails(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Details of a fiat payout."""

    provider: str | UnsetType = UNSET
    payment_provider_id: str | UnsetType = UNSET


class StablecoinDetails(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Details of a stablecoin payout."""

    blockchain_id: str | UnsetType = UNSET
    token_id: str | UnsetType = UNSET
    spender: str | UnsetType = UNSET


class NativeDetails(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Details of a payout in a chain's native coin."""

    blockchain_id: str | UnsetType = UNSET


class PayoutDefinition(Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Body of ``POST /v1/payouts/add``."""

    type: str
    name: str
    fiat_details: FiatDetails | UnsetType = UNSET
    stablecoin_details: StablecoinDetails | UnsetType = UNSET
    native_details: NativeDetails | UnsetType = UNSET

    @classmethod
    def build(cls, *, type: str, name: str, details: Mapping[str, str]) -> PayoutDefinition:
        """The body for ``type``: its details object only (fiat → ``fiatDetails`` …).

        ``details`` holds the detail fields by wire name (``paymentProviderId`` …); a
        type without a details object takes none.
        """
        body = cls(type=type, name=name)
        if type in _PAYOUT_DETAILS:
            details_type, attribute = _PAYOUT_DETAILS[type]
            values = {_snake(key): value for key, value in details.items()}
            setattr(body, attribute, details_type(**values))
        return body


_PAYOUT_DETAILS: dict[str, tuple[type[Struct], str]] = {
    "fiat": (FiatDetails, "fiat_details"),
    "stablecoin": (StablecoinDetails, "stablecoin_details"),
    "native": (NativeDetails, "native_details"),
}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# --- collections -------------------------------------------------------------------


class Collection(Model, kw_only=True):
    """An NFT collection or in-platform token as listed by the console.

    The interface does not give the listed fields; all are optional and
    ``whitelisted`` is accepted as a string or a boolean.
    """

    id: str | None = msgspec.field(default=None, name=_ID)
    """Read from the object's JSON text by :class:`.shapes.IdReader` (see ``_ID``)."""
    name: str | None = None
    blockchain: str | None = None
    contract_address: str | None = None
    whitelisted: str | bool | None = None
    whitelisting_info: dict[str, Any] | None = None

    @property
    def is_whitelisted(self) -> bool | None:
        """``whitelisted`` read as a boolean, or None when absent or unreadable."""
        value = self.whitelisted
        if isinstance(value, bool) or value is None:
            return value
        lowered = value.strip().lower()
        if lowered in {"true", "yes", "1"}:
            return True
        if lowered in {"false", "no", "0"}:
            return False
        return None

    @property
    def wallets(self) -> list[Any]:
        """The whitelisted wallet addresses (``whitelistingInfo.list.wallets``)."""
        info = self.whitelisting_info or {}
        inner = info.get("list")
        wallets = inner.get("wallets") if isinstance(inner, dict) else None
        return wallets if isinstance(wallets, list) else []

    @property
    def emails(self) -> list[Any]:
        """The whitelisted e-mail addresses (``whitelistingInfo.emails``)."""
        emails = (self.whitelisting_info or {}).get("emails")
        return emails if isinstance(emails, list) else []


class WalletList(Struct, kw_only=True):
    """``whitelistingInfo.list``."""

    wallets: list[str] = []


class WhitelistingInfo(Struct, kw_only=True):
    """Whitelist of a new collection."""

    emails: builtins.list[str] = []
    list: WalletList = msgspec.field(default_factory=WalletList)


class NewCollection(Struct, rename="camel", kw_only=True):
    """One element of the ``POST /collections`` body (which is a JSON array)."""

    name: str
    blockchain: str
    contract_address: str
    whitelisted: str  # "true" or "false": the interface types it as a string
    whitelisting_info: WhitelistingInfo

    @classmethod
    def build(
        cls,
        *,
        name: str,
        blockchain: str,
        contract_address: str,
        whitelisted: bool,
        wallets: list[str] | None = None,
        emails: list[str] | None = None,
    ) -> NewCollection:
        """Build the wire object from plain Python values."""
        return cls(
            name=name,
            blockchain=blockchain,
            contract_address=contract_address,
            whitelisted="true" if whitelisted else "false",
            whitelisting_info=WhitelistingInfo(
                list=WalletList(wallets=list(wallets or [])), emails=list(emails or [])
            ),
        )


# --- conversion --------------------------------------------------------------------

M = TypeVar("M", bound=Model)


def from_raw(obj: dict[str, Any], model: type[M]) -> M:
    """Convert one decoded JSON object into ``model``, keeping the object itself in ``raw``.

    Raises ``msgspec.ValidationError`` when a named field is missing or of the wrong type;
    lax conversion accepts numbers sent as strings.
    """
    source = (
        obj
        if _RAW not in obj and _AT not in obj and _ID not in obj
        else {k: v for k, v in obj.items() if k not in (_RAW, _AT, _ID)}
    )
    # Through JSON text rather than msgspec.convert: some fields are kept as msgspec.Raw,
    # which only a JSON decoder can produce. Used for single objects and small lists.
    value = msgspec.json.decode(msgspec.json.encode(source), type=model, strict=False)
    if isinstance(value, Item):
        _share_items([value], _Shared())
    value.raw = obj
    return value


def from_json_elements(
    elements: Sequence[msgspec.Raw], model: type[M], spool: Spool | None = None
) -> list[M]:
    """Decode each JSON object of ``elements`` into ``model``; its text goes to ``spool``.

    Lax like :func:`from_raw`; raises ``msgspec.ValidationError`` (or ``DecodeError``)
    at the first element that does not fit. A block of :data:`SPOOL_BLOCK` elements at
    a time, so a thread running this lets other threads run between blocks. Items
    share their equal nested objects (see :class:`Item`).

    Each object's ``raw`` reads its text back from ``spool`` (a new one if None), so
    the objects do not keep the body they came from in memory. If the spool cannot
    take the text (a full disk), the objects keep it in memory instead.
    """
    spool = spool if spool is not None else Spool()
    decoder = ElementDecoder(model)
    out: list[M] = []
    for start in range(0, len(elements), SPOOL_BLOCK):
        block = elements[start : start + SPOOL_BLOCK]
        sources: Sequence[Any]
        try:
            sources = spool.add(block)
        except OSError:
            sources = block
        out += decoder.decode(block, sources)
    return out


class ElementDecoder:
    """Decodes the elements of one list, batch after batch, into ``model``.

    Items of the list share their equal nested objects and strings across batches (see
    :class:`Item`).
    """

    def __init__(self, model: type[Model]) -> None:
        self._decode = msgspec.json.Decoder(model, strict=False).decode
        self._decode_list = msgspec.json.Decoder(list[model], strict=False).decode  # type: ignore[valid-type]
        self._shared = _Shared() if issubclass(model, Item) else None

    def decode(self, elements: Sequence[msgspec.Raw], sources: Sequence[Any]) -> list[Any]:
        """The elements decoded, one call each, each keeping its source (where ``raw``
        reads it back).

        Raises:
            msgspec.ValidationError, msgspec.DecodeError: at the first misfit.
        """
        out: list[Any] = list(map(self._decode, elements))
        set_each(out, "_kept", sources)
        if self._shared is not None:
            _share_items(out, self._shared)
        return out

    def decode_list(self, text: bytes | bytearray) -> list[Any]:
        """A JSON array of elements decoded in one call (see :meth:`keep`).

        Raises:
            msgspec.ValidationError, msgspec.DecodeError: at the first misfit.
        """
        return self._decode_list(text)  # type: ignore[no-any-return]

    def keep(self, rows: list[Any], region: Region | None) -> None:
        """Let ``rows``, decoded from ``region`` in order, read their text from it; with
        no region, only share their nested objects (rows that are indexed, then let go:
        their strings need not be one object: an index process spends less time hashing
        them as they are than making equal ones one)."""
        if self._shared is not None:
            _share_items(rows, self._shared, strings=region is not None)
        if region is not None:
            keep_in(rows, region)

    def share(self, rows: list[Any]) -> None:
        """Let ``rows`` share their equal nested objects and strings with those decoded
        before (see :class:`Item`)."""
        if self._shared is not None:
            _share_items(rows, self._shared)


_INDEXES = tuple(range(16_384))
"""Indexes in a region, one object each for all the regions of all lists."""


SPOOL_BLOCK = 2048
"""Elements written to the spool and decoded at once (a few milliseconds)."""


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects at once.

    Decoding 100,000 objects allocates millions; with the collector on, its repeated
    scans of everything allocated so far take most of the time (``json.loads`` of the
    emulator's 100,000 items: 2.4 s instead of 0.8 s). Reference counting still frees
    everything that is not in a cycle. The collector is process-wide: pauses from
    several threads nest, and it is switched back on, if it was on, when the last
    one ends.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


T_List = TypeVar("T_List", bound=list[Any])


@functools.cache
def _untracker() -> Callable[[object], None] | None:
    """CPython's ``PyObject_GC_UnTrack``; None elsewhere, whose collectors are their own.
    (``ctypes`` is imported on first use: 3 ms the app's start need not wait for.)"""
    try:
        import ctypes

        untrack = ctypes.pythonapi.PyObject_GC_UnTrack
    except (ImportError, AttributeError, ValueError):
        return None
    untrack.argtypes = (ctypes.py_object,)
    untrack.restype = None
    return untrack  # type: ignore[no-any-return]


def never_walked(items: T_List) -> T_List:
    """``items``, which the cyclic collector will never walk again; for a list whose
    elements never refer back to it, such as a list's rows or their index lines.

    Each collection that walks a list reads the header of every element, once to
    count references and once to find what is reachable. Elements of a list of
    1,000,000 lie scattered in memory: each such list cost 80-170 ms of the full
    collection after a load, a frozen frame. A list no element refers back to is in
    no cycle, so the collector has nothing to find by walking it (Python does the
    same for a tuple of untracked objects). Reference counting still frees the list
    and its elements, and a cycle among elements is still found through them. The
    list grows in place untracked; a copy or slice is a new, tracked list.
    """
    untrack = _untracker()
    if untrack is not None:
        untrack(items)
    return items


YOUNG_COLLECTION_AFTER = 7_000
"""New objects between two young collections while loads defer them (Python's default: 700)."""

FULL_COLLECTION_AFTER = 100_000
"""Young collections between two full ones while loads defer them (Python's default: 10)."""

_full_lock = threading.Lock()
_full_deferrals = 0
_thresholds: tuple[int, int, int] | None = None  # Python's, while they are raised


@contextmanager
def collections_deferred() -> Iterator[None]:
    """Let the collector run far less often while a long list loads, until
    :func:`settle_collections` runs after it.

    A full collection walks every tracked object made since the last settle: a
    load of 1,000,000 items leaves some 100,000 of them, scattered in memory, and
    Python started five full collections during one first load. They wait for the
    settle. Young collections run a tenth as often: each one makes old whatever is
    alive at that moment, the lines last drawn among them, and a line Textual has
    drawn refers to itself (its caches), so once old it waits as garbage for the
    next full collection. With Python's thresholds, such garbage was half of what
    the settle after 1,000,000 items walked (54,000 objects; 16,000 with these).
    The full collection that is due once the load ends is left to the settle, which
    the app calls when no load runs: put back at the load's end, the old thresholds
    would start it at the next allocation. Deferrals from several loads nest.
    """
    global _full_deferrals, _thresholds
    with _full_lock:
        if _thresholds is None:
            _thresholds = gc.get_threshold()
            gc.set_threshold(YOUNG_COLLECTION_AFTER, _thresholds[1], FULL_COLLECTION_AFTER)
        _full_deferrals += 1
    try:
        yield
    finally:
        with _full_lock:
            _full_deferrals -= 1


WALK_ALL_AFTER = 0.25
"""By how much of itself what is set aside may grow before it is all walked again
(:func:`walk_everything`); Python's own rule for its full collections."""

_walked: int | None = None  # objects set aside when first counted, or after the last walk
_uncounted = False  # whether a settle has set objects aside since they were last counted


_libraries_set_aside = False


def set_aside_libraries() -> None:
    """Set aside for good, once, what the first answer leaves alive once it is read and
    closed: mostly the modules the HTTP stack imports on first use, as the app's own
    imports are at start-up.

    httpx and httpcore are imported when the first client is made, and anyio's event
    loop backend when the first connection opens: 23,000 objects on a user's install,
    37,000 where trio is installed too (httpcore imports it when it can). They live as
    long as the app, and the first settle after a load would walk them all (about
    0.9 us an object on a slow machine). The young generations are collected first,
    so that no garbage made since the last collection is set aside with them.
    """
    global _libraries_set_aside
    if _libraries_set_aside:
        return
    _libraries_set_aside = True
    gc.collect(1)
    gc.freeze()


def settle_collections() -> None:
    """Collect the garbage, set aside for good what is alive (widgets, rows), and let full
    collections run as usual again unless a load still defers them.

    A full collection walks every tracked object, now and then in the middle of
    someone's typing; frozen objects are not walked. Garbage is collected first: a
    frozen cycle is collected only once everything is walked again
    (:func:`walk_everything`), and one holding rows would keep them all until then.
    Nothing here counts what is set aside: see :func:`everything_due`.

    A cycle still referenced now (an error a tab shows, whose frames hold the load
    that failed) is set aside with the rest, and waits that long once let go: nothing
    holding a descriptor, a thread or disk space may rely on the collector to give it
    back. A load's spool is closed as the load ends (:meth:`.listing.StreamedList.close`),
    and one that lives on with its rows is freed with the last of them (no cycle).
    """
    global _uncounted
    gc.collect()
    gc.freeze()
    _uncounted = True
    _put_thresholds_back(even_deferred=False)
    give_back_free_memory()


def everything_due() -> bool:
    """Whether what the settles have set aside has grown by :data:`WALK_ALL_AFTER` since
    it was last all walked (the first time asked, only counted: False).

    A settle sets aside for good what is alive at that moment, and no collection walks
    it again: a cycle among it that becomes garbage later stays. Screens and lines
    drawn do: a form open during a settle and closed after it, about 7,000 objects;
    the lines Textual drops from its caches, about 1,000 objects at each reload of
    10,000 items. Walked again now and then, they are found; what that costs (about
    100 ms with 1,000,000 items on a slow machine) is a pause best met by no one.

    Counting them is a pause too: Python follows its list of them, object by object,
    scattered in memory (16-21 ms with 1,000,000 items loaded, on the same machine).
    Ask when no one types. They are counted only when a settle has set more aside since
    the last count (each tab that settled asks).
    """
    global _walked, _uncounted
    if not _uncounted:
        return False
    _uncounted = False
    frozen = gc.get_freeze_count()
    if _walked is None:
        _walked = frozen
        return False
    return frozen > _walked * (1 + WALK_ALL_AFTER)


def walk_everything() -> None:
    """Walk everything set aside, collect what became garbage there, and set the rest
    aside again."""
    global _walked, _uncounted
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _walked = gc.get_freeze_count()
    _uncounted = False
    give_back_free_memory()


@functools.cache
def _trimmer() -> Callable[[int], int] | None:
    """The C library's ``malloc_trim`` (glibc); None where there is none."""
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def give_back_free_memory() -> None:
    """Hand the memory the C allocator holds free back to the system.

    A load reads, splits and decodes its body in pieces of a few hundred kilobytes,
    freed as it goes, among objects that stay; glibc keeps such free memory for the
    next allocation, and it stays resident: 7 MB after a list of 100,000 items, 20 MB
    after 1,000,000. ``malloc_trim`` returns the free pages (4 ms with 1,000,000 items
    loaded, the interpreter lock released meanwhile). Python's own small objects are
    not moved: pages they still use stay.
    """
    trim = _trimmer()
    if trim is not None:
        trim(0)


def restore_collections() -> None:
    """Let full collections run as usual again, even while a load defers them, without
    collecting: for an app that ends, and its loads with it."""
    _put_thresholds_back(even_deferred=True)


def _put_thresholds_back(*, even_deferred: bool) -> None:
    global _thresholds
    with _full_lock:
        if _thresholds is not None and (even_deferred or _full_deferrals == 0):
            gc.set_threshold(*_thresholds)
            _thresholds = None


def encode(body: Any) -> bytes:
    """Encode a request body, revealing :class:`Secret` values only here."""
    return msgspec.json.encode(body, enc_hook=_enc_hook)


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Secret):
        return obj.reveal()
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


def to_builtins(body: Any, *, reveal: bool = False) -> Any:
    """A request body as plain JSON values; secrets masked unless ``reveal``."""
    return msgspec.to_builtins(body, enc_hook=lambda o: o.reveal() if reveal else str(o))
