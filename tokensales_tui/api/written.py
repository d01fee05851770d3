"""JSON written by hand (``api --input``, a ``--from-file``), read as the text it is.

What is checked of such a body must be checked on the whole of it:

* :func:`check_nesting` refuses a body nested deeper than :data:`MAX_DEPTH` before
  anything reads it: the decoders, a check of its keys and the preview all recurse, and
  each stops somewhere near 1,000 levels, on its own terms (a ``RecursionError`` that
  was read as "no key given twice", a traceback). One limit well below theirs holds
  for all of them. It counts brackets outside strings, without recursing.
"""

from __future__ import annotations

import re
from itertools import accumulate

__all__ = ["MAX_DEPTH", "TooDeep", "check_nesting"]

MAX_DEPTH = 500
"""Deepest nesting of a body given to a command: arrays and objects inside each other."""

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.DOTALL)
_NOT_BRACKETS = bytes(code for code in range(256) if code not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class TooDeep(ValueError):
    """The body nests deeper than :data:`MAX_DEPTH`; nothing read it further."""

    def __init__(self) -> None:
        super().__init__(f"nested too deeply to check (at most {MAX_DEPTH} levels)")


def check_nesting(data: bytes) -> None:
    """Raise :class:`TooDeep` when ``data`` nests arrays and objects deeper than
    :data:`MAX_DEPTH`. Any bytes may be given: brackets inside strings do not count,
    and text that is no JSON is left for a decoder to refuse."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return  # the common case: too few brackets to nest that deep
    brackets = _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS)
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH:
        raise TooDeep
