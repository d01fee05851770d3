"""Numbers in header values are read from ASCII only, by patterns that are ASCII too."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys

import tokensales_tui.api
from tokensales_tui import digits
from tokensales_tui.digits import ascii_number

# Each word the number pattern takes with one of its letters to be replaced.
_WORDS = [("inf", 0), ("inf", 1), ("inf", 2), ("infinity", 5), ("infinity", 7)]
_WORDS += [("nan", 1), ("1e5", 1), ("1E5", 1)]


def test_the_number_pattern_takes_no_letter_outside_ascii() -> None:
    # Under re.IGNORECASE without re.ASCII, "ınf" (dotless i) and "İNF" matched and
    # float() then raised.
    taken = []
    for point in range(0x80, sys.maxunicode + 1):
        letter = chr(point)
        if letter.lower() == letter == letter.upper():
            continue  # re folds case through these two: a caseless one matches only itself
        for word, at in _WORDS:
            text = word[:at] + letter + word[at + 1 :]
            if digits._ASCII_NUMBER.fullmatch(text):
                taken.append(text)
    assert taken == []


def test_a_dotless_or_dotted_i_is_no_number_and_no_error() -> None:
    for text in ("\u0131nf", "\u0130NF", "\u0131nfinity", "-\u0130nf", "1\u212a"):
        assert ascii_number(text) is None
    assert ascii_number("inf") == float("inf")
    assert ascii_number(" -1.5e3\t") == -1500.0


# secret._BEARER finds a token to hide: a wider white space hides more, not less.
_WIDER_ON_PURPOSE = {"tokensales_tui.api.secret._BEARER"}


def test_every_case_blind_pattern_that_reads_headers_or_bodies_is_ascii() -> None:
    modules = [digits] + [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules(tokensales_tui.api.__path__, "tokensales_tui.api.")
    ]
    blind = [
        f"{module.__name__}.{name}"
        for module in modules
        for name, value in vars(module).items()
        if isinstance(value, re.Pattern)
        and isinstance(value.pattern, str)
        and value.flags & re.IGNORECASE
        and not value.flags & re.ASCII
    ]
    assert sorted(set(blind) - _WIDER_ON_PURPOSE) == []
