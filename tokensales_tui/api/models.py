"""Typed objects of the service, decoded once at the API boundary.

Response models keep the server's object in ``raw`` next to the typed fields, so a
detail view can show every field the server sent, including ones the interface
does not name. ``raw`` is filled by :func:`from_raw`; its wire name can never
occur in JSON from a server, so a server cannot set it.

Request models have exactly the wire shape the interface gives: camelCase names,
``whitelisted`` as the string ``"true"``/``"false"``, unset optional fields left out.
"""

from __future__ import annotations

import builtins
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Struct, UnsetType

from .secret import Secret

_RAW = "__tokensales_tui_raw__"  # overwritten by from_raw whatever a server sends


def _raw_field() -> Any:
    return msgspec.field(default_factory=dict, name=_RAW)


class Model(Struct, rename="camel", kw_only=True):
    """Base of the response models."""

    raw: dict[str, Any] = _raw_field()


# --- platform webhooks -------------------------------------------------------------


class Webhook(Model, kw_only=True):
    """A platform webhook: a URL subscribed to a list of events."""

    id: str
    url: str
    is_active: bool = True
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


class ItemPayout(Struct, rename="camel", kw_only=True):
    """How the proceeds of an item are paid out."""

    type: str | None = None
    blockchain_id: str | None = None
    payment_provider_connected_account_id: str | None = None
    asset_id: str | None = None
    spender: str | None = None


class Contract(Struct, rename="camel", kw_only=True):
    """The contract an item's function is called on."""

    address: str | None = None
    blockchain_id: str | None = None
    abi: Any = None


class ContractFunction(Struct, rename="camel", kw_only=True):
    """The contract function a sale of the item calls."""

    function_signature: str | None = None
    fixed_function_params: dict[str, Any] | None = None
    contract: Contract | None = None


class Item(Model, kw_only=True):
    """An item offered for sale."""

    id: str
    title: str
    currency: str
    price: float
    description: str = ""
    image_url: str = ""
    payout: ItemPayout | None = None
    contract_function: ContractFunction | None = None


# --- assets ------------------------------------------------------------------------


class Asset(Model, kw_only=True):
    """An asset. The interface names none of its fields; ``id`` is resolved by the client."""

    id: str | None = None


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


# --- collections -------------------------------------------------------------------


class Collection(Model, kw_only=True):
    """An NFT collection or in-platform token as listed by the console.

    The interface does not give the listed fields; all are optional and
    ``whitelisted`` is accepted as a string or a boolean.
    """

    id: str | None = None
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
    source = obj if _RAW not in obj else {k: v for k, v in obj.items() if k != _RAW}
    value = msgspec.convert(source, model, strict=False)
    value.raw = obj
    return value


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
