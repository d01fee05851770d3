"""Numbers written for a cell: never a digit that was not sent, never the magnitude cut.

A number too wide for its cell is written again in a short scientific form that fits
(:func:`fit_number`), marked :data:`ROUNDED` where that form dropped digits: cut from
the right, ``1,000,000,000`` in six cells would read ``1,000…``, a thousand. Where no
scientific form fits (a cell three or four wide), a thousand to a thousand trillion are
written with k, M, B or T (:func:`compact`: ``≈1M``, ``≈-12B``): such a cell showed
only "…". No Textual, no Rich: how many terminal cells a text takes is the caller's to
say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, InvalidOperation

__all__ = ["ROUNDED", "compact", "fit_number", "scientific"]

ROUNDED = "≈"
"""Put before a number written with fewer digits than it has."""

_NUMBER = re.compile(r"(≈?)(-?(?:\d{1,3}(?:,\d{3})+|\d+))(\.\d+)?([eE][+-]?\d+)?(?= |$)")
"""A cell that starts with a number: a mark, the integer part (grouped or not), the
fraction, the exponent; what follows, if anything, after a space (a currency)."""

_ELLIPSIS = "…"


def _rounded(number: Decimal, digits: int | None) -> Decimal:
    """``number`` with at most ``digits`` significant digits (None: all of them)."""
    if digits is None or len(number.as_tuple().digits) <= digits:
        return number
    step = Decimal(1).scaleb(number.adjusted() - digits + 1)
    return number.quantize(step, context=Context(prec=digits + 2, Emax=MAX_EMAX, Emin=MIN_EMIN))


def scientific(number: Decimal, digits: int | None = None) -> tuple[str, bool]:
    """``number`` as ``1.2345e29`` (``-5e-7``; no ``+``, no trailing zeros) with at most
    ``digits`` significant digits (None: all of them), and whether it was rounded."""
    sign = number.as_tuple().sign
    shown = _rounded(number, digits)
    rounded = shown != number
    _, numerals, _ = shown.as_tuple()
    text = "".join(map(str, numerals)).rstrip("0") or "0"
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    # A rounding up to the next power of ten (9.99 → 10.0) moves the exponent.
    exponent = shown.adjusted() if shown else 0
    return f"{'-' if sign else ''}{mantissa}e{exponent}", rounded


_SUFFIXES = {3: "k", 6: "M", 9: "B", 12: "T"}
"""Thousands, millions, billions, trillions: the short scale of prices and supplies."""


def compact(number: Decimal, digits: int) -> tuple[str, bool] | None:
    """``number`` as ``1.2M`` (``-12B``, ``950k``) with at most ``digits`` significant
    digits, and whether it was rounded; None where it is not from a thousand to a
    thousand trillion once rounded."""
    shown = _rounded(number, digits)
    exponent = shown.adjusted() if shown else 0
    if not 3 <= exponent < 15:
        return None
    power = exponent - exponent % 3
    return f"{shown.scaleb(-power).normalize():f}{_SUFFIXES[power]}", shown != number


def fit_number(cell: str, width: int, measure: Callable[[str], int] = len) -> str | None:
    """``cell`` (a number, and what follows it: ``123,456.00 USD``) written to fit
    ``width`` cells, or None where cutting it from the right is truthful: the cell is
    no number, or the cut keeps its whole integer part and what follows that in view
    (``123,456.7…``, ``1.5 U…``).

    Else the number is written in scientific notation with as many digits as fit,
    what follows it kept whole (``≈1.2346e29 USD``), else cut (``1e308…``); where none
    fits, from a thousand to a thousand trillion with k, M, B or T (:func:`compact`:
    ``≈1M``, ``≈-1M…``); a cell no such form fits is ``…``: never digits that would
    read as another number.
    """
    found = _NUMBER.match(cell)
    if found is None:
        return None
    mark, whole, fraction, exponent = found.groups()
    rest = cell[found.end() :]
    # Where the cut may fall: past the integer part and what ends it, or past an
    # exponent (without it a number is not what it says).
    seen = found.end() if exponent else found.end(2) + bool(fraction or rest)
    if seen <= width - 1:
        return None
    try:
        number = Decimal(whole.replace(",", "") + (fraction or "") + (exponent or ""))
    except InvalidOperation:  # pragma: no cover - the pattern reads only numbers
        return None
    digits = len(number.as_tuple().digits)
    for form in (scientific, compact):  # the short scale where no scientific form fits
        for tail, cut in ((rest, ""), ("", _ELLIPSIS if rest else "")):
            for kept in range(min(digits, width), 0, -1):
                written = form(number, kept)
                if written is None:
                    break
                text, rounded = written
                candidate = (ROUNDED if mark or rounded else "") + text + tail + cut
                if measure(candidate) <= width:
                    return candidate
    return _ELLIPSIS if width >= 1 else ""
