"""Payout types and the detail fields each one takes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .text import describe_char

PAYOUT_TYPES: Final[tuple[str, ...]] = ("free", "fiat", "stablecoin", "native")
"""Payout types offered in the form; the interface names only ``free``, others are accepted."""

DETAIL_FIELDS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = MappingProxyType(
    {
        "free": (),
        "fiat": (("provider", "Provider"), ("paymentProviderId", "Payment provider ID")),
        "stablecoin": (
            ("blockchainId", "Blockchain"),
            ("tokenId", "Token ID"),
            ("spender", "Spender address"),
        ),
        "native": (("blockchainId", "Blockchain"),),
    }
)
"""``(wire name, label)`` of the detail fields for each payout type.

The interface lists the detail objects but not which type uses which; this pairing is read from
their names (``fiatDetails`` for ``fiat`` and so on).
"""


def detail_fields(payout_type: str) -> tuple[tuple[str, str], ...]:
    """The detail fields for ``payout_type`` (case-insensitive); none for unknown types."""
    return DETAIL_FIELDS.get(payout_type.strip().lower(), ())


def check_payout_type(value: str) -> str | None:
    """Require a payout type; values beyond :data:`PAYOUT_TYPES` may use letters, digits, ``_``, ``-``."""
    text = value.strip()
    if not text:
        return "choose a payout type: " + ", ".join(PAYOUT_TYPES[:-1]) + f" or {PAYOUT_TYPES[-1]}"
    bad = re.search(r"[^A-Za-z0-9_-]", text)
    if bad:
        return (
            f"{describe_char(bad.group())} (position {bad.start() + 1}) is not allowed "
            "— a payout type uses only letters a-z, digits, _ and -"
        )
    return None
