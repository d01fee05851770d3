"""Numbers in text we did not write (header values): ASCII digits only.

``str.isdigit``, ``int`` and ``float`` all read digits of other scripts, and they
disagree: ``"²".isdigit()`` is true but ``int("²")`` raises, while ``int("١٢")`` and
``float("١٢")`` (Arabic-Indic) are 12, as is ``float("１２")`` (full-width). They also take
``"1_000"``, and ``int`` signs. A header that holds a number holds ASCII digits, so every
header read as a number goes through :func:`ascii_int` (a whole number) or
:func:`ascii_number` (one that may have a sign, a fraction, an exponent), which say yes
or no once and never raise.

A pattern that reads them is ASCII too (``re.ASCII``): under ``re.IGNORECASE`` alone,
``ı`` and ``İ`` match ``i``, ``ſ`` matches ``s`` and the Kelvin sign matches ``k``, so
``"ınf"`` would pass the pattern and then fail ``float``.
"""

from __future__ import annotations

import re

_ASCII_DIGITS = frozenset("0123456789")
_ASCII_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
    re.IGNORECASE | re.ASCII,
)


def ascii_int(text: str, max_digits: int) -> int | None:
    """The whole number ``text`` spells in ASCII digits, or None.

    Spaces and tabs around the digits are allowed; anything else — a sign, an underscore,
    a superscript, another script's digit — makes it no number. So does a run of more than
    ``max_digits`` digits (``int`` refuses 4,300 of them, and a header needs far fewer).
    """
    digits = text.strip(" \t")
    if not digits or len(digits) > max_digits or not _ASCII_DIGITS.issuperset(digits):
        return None
    return int(digits)


def ascii_number(text: str) -> float | None:
    """The number ``text`` writes in ASCII as ``float`` reads one (``12``, ``-5``,
    ``1.5``, ``1e999``, ``inf``, ``NaN``), or None.

    Spaces and tabs around it are allowed; another script's digit, a full-width one or an
    underscore makes it no number. The caller bounds the length and clamps the value.
    """
    number = text.strip(" \t")
    if not _ASCII_NUMBER.fullmatch(number):
        return None
    try:
        return float(number)
    except ValueError:  # the pattern is meant to rule this out; a no, never a raise
        return None
