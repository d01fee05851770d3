"""The emulator's state: data, credentials, tokens, faults and request counts."""

from __future__ import annotations

import hmac
import math
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from . import hostile, jwt
from .errors import ApiError
from .events import Deliverer
from .faults import EXPIRING_LIFETIME, FaultInjector, check_names
from .seed import generate, iso_utc, new_id

DEMO_API_KEY = "demo-key-7f3a"
DEMO_API_SECRET = "demo-secret-0c9d41e2"

ITEMS_LIMIT = 10_000_000
"""Most items an emulator generates (a million take some 1.3 GB of memory)."""
TOKEN_LIFETIME_LIMIT = 365 * 86400.0
"""Longest lifetime of an issued token, in seconds (a year)."""


def check_settings(*, items: int, token_lifetime: float) -> None:
    """Refuse with ValueError an item count or a token lifetime no emulator can have."""
    if not 0 <= items <= ITEMS_LIMIT:
        raise ValueError(f"items: from 0 to {ITEMS_LIMIT:,}, not {items:,}")
    if not (math.isfinite(token_lifetime) and 1 <= token_lifetime <= TOKEN_LIFETIME_LIMIT):
        raise ValueError(
            f"token lifetime: seconds from 1 to {TOKEN_LIFETIME_LIMIT:,.0f} (a year),"
            f" not {token_lifetime}"
        )


class TrackedDict(dict[str, dict[str, Any]]):
    """A dict that counts its own mutations, so that a cached encoding can tell it is stale.

    Only mutations of the dict itself count; an item changed in place does not.
    """

    version = 0

    def _bump(self) -> None:
        self.version += 1

    def __setitem__(self, key: str, value: dict[str, Any]) -> None:
        self._bump()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._bump()
        super().__delitem__(key)

    def pop(self, *args: Any) -> Any:
        self._bump()
        return super().pop(*args)

    def popitem(self) -> tuple[str, dict[str, Any]]:
        self._bump()
        return super().popitem()

    def clear(self) -> None:
        self._bump()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._bump()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._bump()
        return super().setdefault(key, default)


class Emulator:
    """State of one emulated service, shared by all three addresses.

    Tests may read and change the data directly: ``webhooks``, ``items``, ``assets``
    and ``collections`` map id to the stored object (a webhook keeps its ``secret``);
    ``payouts`` lists the accepted payout definitions. ``counts`` counts requests by
    ``(METHOD, route template)`` once they reach a handler, whatever happens next.
    ``deliveries`` sends the events it raises to webhooks (see :mod:`.events`).
    ``fault_rate`` sets how often the shared faults hit; ``injector`` exposes the fault
    machinery (its ``sleep`` and ``slow_range`` can be replaced in tests).

    Args:
        seed: seed of the generated data, the ids of new objects and fault draws.
        items: number of items to generate, at most :data:`ITEMS_LIMIT`.
        token_lifetime: seconds an access token lives (5 while ``expiring`` is on), from 1
            to :data:`TOKEN_LIFETIME_LIMIT`.
        faults: names from :data:`~tokensales_tui.emulator.faults.FAULTS` to switch on.
        clock: source of the current time, for token times and timestamps.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        items: int = 40,
        token_lifetime: float = 3600.0,
        faults: Iterable[str] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        check_settings(items=items, token_lifetime=token_lifetime)
        self.injector = FaultInjector(seed)
        self._seed = seed
        self._hostile = False
        self.set_faults(faults)
        self.token_lifetime = token_lifetime
        self.clock = clock
        self.counts: Counter[tuple[str, str]] = Counter()
        data = generate(seed, items=items)
        self.webhooks = data.webhooks
        self._items = TrackedDict(data.items)
        self.assets = data.assets
        self.collections = data.collections
        self.payouts: list[dict[str, Any]] = []
        self._ids = random.Random(f"tokensales-emulator-ids:{seed}")
        self._key = secrets.token_bytes(32)
        self._items_body: tuple[int, int, bytes] | None = None
        self._tokens_issued = 0
        self.deliveries = Deliverer(clock)
        self._make_hostile()

    @property
    def items(self) -> TrackedDict:
        """Items by id; assigning a plain dict wraps it so the listing cache stays right."""
        return self._items

    @items.setter
    def items(self, value: dict[str, dict[str, Any]]) -> None:
        self._items = value if isinstance(value, TrackedDict) else TrackedDict(value)

    # --- faults --------------------------------------------------------------------

    @property
    def faults(self) -> frozenset[str]:
        """Names of the faults in effect."""
        return self.injector.active

    def set_faults(self, names: Iterable[str]) -> None:
        """Switch on exactly the faults ``names``; raises ValueError for an unknown name.

        ``hostile`` replaces the data with its hostile copy the first time it is on.
        """
        self.injector.active = check_names(names)
        if hasattr(self, "_items"):
            self._make_hostile()

    def _make_hostile(self) -> None:
        if "hostile" not in self.faults or self._hostile:
            return
        self._hostile = True
        data = hostile.hostile_data(generate(self._seed, items=len(self._items)), self._seed)
        self.webhooks = data.webhooks
        self.items = data.items
        self.assets = data.assets
        self.collections = data.collections

    @property
    def fault_rate(self) -> float:
        """Probability (0.0–1.0) that flaky, ratelimit or garbage hits one request."""
        return self.injector.rate

    @fault_rate.setter
    def fault_rate(self, rate: float) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate must lie between 0 and 1, not {rate}")
        self.injector.rate = rate

    # --- tokens --------------------------------------------------------------------

    def issue_token(self, api_key: str, api_secret: str) -> dict[str, Any]:
        """The token response for these credentials; 401 unless they are the demo ones."""
        good_key = hmac.compare_digest(api_key.encode(), DEMO_API_KEY.encode())
        good_secret = hmac.compare_digest(api_secret.encode(), DEMO_API_SECRET.encode())
        if not (good_key and good_secret):
            raise ApiError(401, "invalid API key or secret")
        lifetime = EXPIRING_LIFETIME if "expiring" in self.faults else self.token_lifetime
        now = int(self.clock())
        if "hostile" in self.faults:
            self._tokens_issued += 1
            return hostile.token_response(
                self._tokens_issued, lambda claims: jwt.sign(claims, self._key), now
            )
        claims = {
            "sub": api_key,
            "iat": now,
            "exp": now + max(1, int(lifetime)),
            "jti": secrets.token_hex(8),
        }
        return {"accessToken": jwt.sign(claims, self._key), "expiresIn": max(1, int(lifetime))}

    def authenticate(self, authorization: str | None) -> None:
        """Refuse with 401 unless ``authorization`` is ``Bearer`` + a live token of ours."""
        scheme, _, token = (authorization or "").strip().partition(" ")
        if not authorization:
            raise _unauthorized(
                "missing bearer token: send Authorization: Bearer <token>", missing=True
            )
        if scheme.lower() != "bearer" or not token.strip():
            raise _unauthorized("invalid Authorization header: expected Bearer <token>")
        try:
            jwt.verify(token.strip(), self._key, now=self.clock())
        except jwt.TokenError as exc:
            raise _unauthorized(exc.detail) from None

    # --- data ----------------------------------------------------------------------

    def new_id(self, prefix: str, taken: dict[str, Any]) -> str:
        """A fresh id for a created object (deterministic for a seed)."""
        return new_id(self._ids, prefix, taken)

    def now_iso(self) -> str:
        """The current time of ``clock`` as ISO 8601 UTC."""
        return iso_utc(self.clock())

    def webhook_list(self) -> list[dict[str, Any]]:
        """The webhooks as listed: every field but ``secret``."""
        return [{k: v for k, v in w.items() if k != "secret"} for w in self.webhooks.values()]

    def add_webhook(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Store a new active webhook made of validated ``fields``."""
        now = self.now_iso()
        webhook_id = self.new_id("wh_", self.webhooks)
        webhook = {"id": webhook_id, "isActive": True, **fields}
        webhook.update(createdAt=now, lastUpdatedAt=now)
        self.webhooks[webhook_id] = webhook
        return webhook

    def update_webhook(self, webhook_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Apply validated ``changes`` to a webhook and stamp ``lastUpdatedAt``."""
        webhook = self._find(self.webhooks, webhook_id, "webhook")
        webhook.update(changes, lastUpdatedAt=self.now_iso())
        return webhook

    def delete(self, store: dict[str, dict[str, Any]], object_id: str, what: str) -> None:
        """Remove ``object_id`` from ``store``; 404 naming ``what`` when it is absent."""
        self._find(store, object_id, what)
        del store[object_id]

    def get(self, store: dict[str, dict[str, Any]], object_id: str, what: str) -> dict[str, Any]:
        """The object ``object_id`` of ``store``; 404 naming ``what`` when it is absent."""
        return self._find(store, object_id, what)

    def items_body(self) -> bytes:
        """The encoded ``GET /v1/items`` body, cached until the items change."""
        key = (id(self.items), self.items.version)
        if self._items_body is None or self._items_body[:2] != key:
            body = {"items": list(self.items.values()), "total": len(self.items)}
            self._items_body = (*key, msgspec.json.encode(body))
        return self._items_body[2]

    def add_collections(self, collections: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Store validated collections under fresh ids; returns the stored objects."""
        stored = []
        for fields in collections:
            collection_id = self.new_id("col_", self.collections)
            self.collections[collection_id] = {"id": collection_id, **fields}
            stored.append(self.collections[collection_id])
        return stored

    def add_payout(self, definition: dict[str, Any]) -> dict[str, Any]:
        """Store a validated payout definition with an id and a creation time."""
        payout = {"id": self.new_id("po_", {p["id"]: p for p in self.payouts}), **definition}
        payout["createdAt"] = self.now_iso()
        self.payouts.append(payout)
        return payout

    @staticmethod
    def _find(store: dict[str, dict[str, Any]], object_id: str, what: str) -> dict[str, Any]:
        found = store.get(object_id)
        if found is None:
            raise ApiError(404, f"{what} {object_id} not found")
        return found


def _unauthorized(message: str, *, missing: bool = False) -> ApiError:
    challenge = "Bearer" if missing else 'Bearer error="invalid_token"'
    return ApiError(401, message, headers={"WWW-Authenticate": challenge})
