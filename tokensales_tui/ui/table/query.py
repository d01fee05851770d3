"""The filter's little language; no Textual, no Rich.

A filter is terms separated by spaces, and a row must match every one:

* ``word``: a cell or another field of the object contains it (ignoring case);
* ``!word``: no cell nor field contains it;
* ``column:word``: that column's cell contains it (the column's key or its label,
  without spaces: ``title:``, ``chain:``, ``contractaddress:``); ``!column:word`` too;
* ``"two words"``: quotes keep spaces in a term.

A ``column:`` prefix naming no column is part of the word (``https://…`` is a word).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .cells import Column

__all__ = ["SYNTAX", "Term", "parse_filter"]

SYNTAX = 'word !word column:word "a phrase"'
"""The syntax in a few words, for the filter's placeholder."""

_TOKEN = re.compile(r'(?:[^\s"]*"[^"]*(?:"|$))+[^\s"]*|\S+')


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a filter: case-folded text, in one column (its place) or anywhere."""

    text: str
    place: int | None = None
    exclude: bool = False


def column_names(columns: Sequence[Column]) -> dict[str, int]:
    """Each name a column answers to in ``name:word`` (key and label, folded, no spaces)."""
    names: dict[str, int] = {}
    for place, column in enumerate(columns):
        for name in (column.label, column.key):
            names.setdefault("".join(name.casefold().split()), place)
    return names


def parse_filter(folded: str, columns: Sequence[Column]) -> tuple[Term, ...]:
    """The terms of a filter already cleaned and case-folded, each once; empty terms are
    left out."""
    names = column_names(columns) if ":" in folded else {}
    terms: list[Term] = []
    for token in _TOKEN.findall(folded):
        exclude = token.startswith("!")
        word = token[1:] if exclude else token
        place = None
        name, colon, rest = word.partition(":")
        if colon and name in names:
            place, word = names[name], rest
        text = word.replace('"', "")
        if text:
            terms.append(Term(text, place, exclude))
    # A term given twice asks nothing more: each is looked for once (7,500 characters of
    # "gold gold …" had every key scan every row 1,500 times).
    return tuple(dict.fromkeys(terms))
