"""How a wcwidth-based terminal (xterm, tmux, VTE: glibc's table) counts the cells of
text, to check what Rich counts against it."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import locale
from collections.abc import Callable

import pytest


@functools.cache
def _wcwidth() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    for wanted in ("C.UTF-8", "C.utf8", "en_US.UTF-8"):
        try:
            locale.setlocale(locale.LC_CTYPE, wanted)
            break
        except locale.Error:
            continue
    else:
        return None
    function = ctypes.CDLL(name).wcwidth
    function.argtypes = [ctypes.c_wchar]
    function.restype = ctypes.c_int
    if function("\U0001f44d") != 2:  # a table too old for emoji
        return None
    return function  # type: ignore[no-any-return]


def terminal_width(text: str) -> int:
    """The cells ``text`` takes in a wcwidth-based terminal (skips the test without glibc)."""
    wcwidth = _wcwidth()
    if wcwidth is None:
        pytest.skip("no glibc wcwidth with emoji on this machine")
    return sum(max(0, wcwidth(char)) for char in text)
