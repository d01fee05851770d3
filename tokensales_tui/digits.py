"""Whole numbers in text we did not write (header values): ASCII digits only.

``str.isdigit`` and ``int`` both read digits of other scripts, and they disagree:
``"²".isdigit()`` is true but ``int("²")`` raises, while ``int("١٢")`` (Arabic-Indic) is 12.
``int`` also takes ``"1_000"`` and signs. A header that holds a number holds ASCII digits,
so every header read as a number goes through :func:`ascii_int`, which says yes or no
once and never raises.
"""

from __future__ import annotations

_ASCII_DIGITS = frozenset("0123456789")


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
