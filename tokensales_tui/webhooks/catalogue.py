"""The events the emulator raises, by name: its own choice, since the interface lists none.

Kept apart from the emulator, so that the command line can list them without loading it.
"""

from __future__ import annotations

import re

CATALOGUE: dict[str, str] = {
    "webhook.created": "a webhook was registered; data: the webhook without its secret",
    "webhook.updated": "a webhook was changed; data: the webhook without its secret",
    "webhook.deleted": "a webhook was deleted; data: its id",
    "item.deleted": "an item was deleted; data: its id",
    "payout_definition.added": "a payout definition was added; data: the definition",
    "collection.created": "a collection was added; data: the collection",
    "collection.deleted": "a collection was deleted; data: its id",
    "item.sold": "a buyer bought an item (demo); data: item, price, buyer",
    "payment.succeeded": "a payment went through (demo); data: payment, item, amount",
    "token.minted": "a token was minted for a buyer (demo); data: token, contract, owner",
}
"""Every event the emulator raises by itself, with what its data holds."""

EVENT_NAME = re.compile(r"[A-Za-z0-9_.:\-]{1,100}")
"""An event's name, whole (``fullmatch``: "$" let a final newline through)."""
"""A name ``emulator trigger`` accepts: the catalogue's, or any other of these characters."""

DEFAULT_EMULATOR_URL = "http://127.0.0.1:8765"
"""Where ``emulator trigger`` and ``deliveries`` look for a running emulator by default."""


def catalogue_text() -> str:
    """The catalogue, one event a line, for --help."""
    return "\n".join(f"  {name:<26} {what}" for name, what in CATALOGUE.items())
