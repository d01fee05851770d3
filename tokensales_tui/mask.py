"""Mask mode: private values shown partly hidden, so real data can be shown to an audience.

Wallet addresses (``0x7099…79C8``), e-mail addresses (``o•••@quillmarket.example``),
payment-provider account ids (``acct_•••x1Yz``) and anything that looks like a key or a
token keep only enough to tell them apart. Values are recognised by their shape, wherever
they stand in a text: a cell, a line of JSON, a message, a whole export.

The data keeps its real values: the table's filter and sort, the requests and the forms
work on them. Only what leaves for a person goes through :func:`shown`: every drawn text
(``ui/safe.py``, the table's lines, the detail view's lines), toasts, copies and exports.
:func:`mask_text` is idempotent: masking a masked text changes nothing.
"""

from __future__ import annotations

import re

__all__ = ["mask_text", "masking", "set_masking", "shown"]

HIDDEN = "•••"
ELLIPSIS = "…"

_WORD = r"A-Za-z0-9_\-"

_PATTERN = re.compile(
    "|".join(
        (
            # A JSON Web Token: three base64url parts, the first a JSON object ("eyJ").
            r"(?P<jwt>\beyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*)",
            # API keys and secrets with a well-known prefix.
            r"(?P<key>(?<![A-Za-z0-9])(?:(?:mk|sk|pk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]+)",
            # Accounts, customers and payment methods at a payment provider.
            r"(?P<account>(?<![A-Za-z0-9_])(?:acct|ca|cus|ba|pm|card|src)_[A-Za-z0-9]{6,})",
            r"(?P<email>(?<![\w.%+\-])[\w.%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)",
            # EVM addresses and hashes.
            r"(?P<hex>(?<![A-Za-z0-9])0x[0-9a-fA-F]{16,}(?![A-Za-z0-9]))",
            # Anything else holding 20 letters and digits unbroken: keys, tokens, Solana
            # addresses, secret parts of URLs (not slugs or UUIDs, whose parts are short).
            rf"(?P<long>(?<![{_WORD}])[{_WORD}]*[A-Za-z0-9]{{20,}}[{_WORD}]*(?![{_WORD}]))",
        )
    )
)

_masking = False


def set_masking(on: bool) -> None:
    """Turn mask mode on or off for everything shown from now on."""
    global _masking
    _masking = on


def masking() -> bool:
    """Whether mask mode is on."""
    return _masking


def shown(text: str) -> str:
    """``text`` as it may be shown now: masked while mask mode is on."""
    return mask_text(text) if _masking else text


def _replace(match: re.Match[str]) -> str:
    value = match.group()
    kind = match.lastgroup
    if kind == "email":
        local, _, domain = value.rpartition("@")
        return f"{local[0]}{HIDDEN}@{domain}"
    if kind == "hex":
        return f"{value[:6]}{ELLIPSIS}{value[-4:]}"
    if kind in ("key", "account"):
        prefix = value[: value.rindex("_") + 1]
        return f"{prefix}{HIDDEN}{value[-4:]}"
    if kind == "jwt":
        return f"eyJ{HIDDEN}{value[-4:]}"
    # "long": only when it mixes letters and digits (a long word or number stays).
    if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return f"{value[:4]}{ELLIPSIS}{value[-4:]}"
    return value


_RUN = re.compile(r"[\w.%+\-@]{5,}")
"""A run of the characters every value above is made of, as long as the shortest value
(``a@b.c``). A value lies within one run, and what the patterns look at behind and
ahead of a value is, outside a run, never such a character: the patterns find in each
run what they find in the whole text."""


def _mask_run(run: re.Match[str]) -> str:
    text = run.group()
    # Under 20 characters (the "long" value), a value holds one of these.
    if len(text) < 20 and not any(mark in text for mark in ("@", "_", "0x", "eyJ")):
        return text
    return _PATTERN.sub(_replace, text)


def mask_text(text: str) -> str:
    """``text`` with every private-looking value partly hidden.

    The patterns are looked for in the runs of characters values are made of only:
    tried at every position of a whole text, they cost about 0.4 ms per kilobyte.
    """
    if len(text) < 6:  # nothing maskable is shorter
        return text
    return _RUN.sub(_mask_run, text)
