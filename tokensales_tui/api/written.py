"""JSON written by hand (``api --input``, a ``--from-file``), read as the text it is.

Such a body is sent as written, byte for byte. What is shown of it before (``--dry-run``)
must be those bytes, not the values a decoder makes of them (``-0`` as ``0``, ``1E2`` as
``100.0``, ``"\\u00e9"`` as ``"é"``), and what is checked of it must be checked on the
whole of it:

* :func:`check_nesting` refuses a body nested deeper than :data:`MAX_DEPTH` before
  anything reads it: the decoders, a check of its keys and the preview all recurse, and
  each stops somewhere near 1,000 levels, on its own terms (a ``RecursionError`` that
  was read as "no key given twice", a traceback). One limit well below theirs holds
  for all of them. It counts brackets outside strings, without recursing.
* :func:`read_written` reads a body known to be JSON token by token, without recursing,
  for where each secret value lies: the value of every secret key, and every string
  and number in a list or object under one, as :func:`.secret.hide_secrets` finds them.
* :meth:`WrittenBody.masked` is the text with each of those values replaced by
  ``"********"`` and every other byte as written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import accumulate

from .secret import MASK, is_secret_key

__all__ = ["MAX_DEPTH", "TooDeep", "WrittenBody", "check_nesting", "read_written"]

MAX_DEPTH = 500
"""Deepest nesting of a body given to a command: arrays and objects inside each other."""

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.DOTALL)
_TOKEN = re.compile(rb"(" + _STRING + rb'|[\[\]{}]|[^\s\[\]{}:,"]+)\s*(:)?[\s,]*', re.DOTALL)
"""A value, a key or a bracket, then the colon after a key, then the comma after it."""
_NOT_BRACKETS = bytes(code for code in range(256) if code not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_NUMBER_START = frozenset(b"-0123456789")
_QUOTE = ord('"')


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


@dataclass(frozen=True, slots=True)
class WrittenBody:
    """A JSON body as written, and where its secret values lie.

    Attributes:
        data: the bytes as they are sent.
        secrets: where each secret value lies in ``data``, as ``(start, end)``.
    """

    data: bytes
    secrets: tuple[tuple[int, int], ...] = ()

    def masked(self) -> str:
        """The body's text as written, each secret value replaced by ``"********"``."""
        parts: list[bytes] = []
        at = 0
        for start, end in self.secrets:
            parts += [self.data[at:start], f'"{MASK}"'.encode()]
            at = end
        parts.append(self.data[at:])
        return b"".join(parts).decode("utf-8", "replace")


class _Container:
    """An object or an array being read: whether its values are secret."""

    __slots__ = ("hidden", "is_object", "key_hidden")

    def __init__(self, is_object: bool, hidden: bool) -> None:
        self.is_object = is_object
        self.hidden = hidden
        self.key_hidden = hidden  # in an object, whether the value of the last key is


def read_written(data: bytes) -> WrittenBody:
    """Read ``data``, known to be JSON nested at most :data:`MAX_DEPTH` deep (see
    :func:`check_nesting`), for the places of its secret values."""
    secrets: list[tuple[int, int]] = []
    open_: list[_Container] = []
    for token in _TOKEN.finditer(data):
        first = data[token.start()]
        if first in _CLOSE:
            if open_:
                open_.pop()
            continue
        inside = open_[-1] if open_ else None
        if token.lastindex == 2:  # a string followed by a colon: a key
            if inside is not None:
                inside.key_hidden = inside.hidden or is_secret_key(_text(token[1]))
            continue
        hidden = inside is not None and (inside.key_hidden if inside.is_object else inside.hidden)
        if first in _OPEN:
            open_.append(_Container(first == ord("{"), hidden))
        elif hidden and (first == _QUOTE or first in _NUMBER_START):
            secrets.append(token.span(1))
    return WrittenBody(data, tuple(secrets))


def _text(token: bytes) -> str:
    """A JSON string token's text (a lone surrogate escape kept as such)."""
    if b"\\" not in token:
        return token[1:-1].decode("utf-8", "replace")
    text: str = json.loads(token)
    return text
