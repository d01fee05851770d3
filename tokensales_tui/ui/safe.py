"""Literal renderables of text: never parsed as markup, never carrying a control character.

The only module of ``ui/`` that builds ``Content`` or ``Text`` from a string that is not
a literal: every other module calls :func:`content`, :func:`line` or :func:`text`, and
``tests/test_text_gate.py`` fails on any other way to put a string on screen. Text is
cleaned first (:mod:`tokensales_tui.clean`): ``Content(...)`` alone keeps ESC. In mask
mode it is masked too (:mod:`tokensales_tui.mask`).
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from ..clean import clean, clean_line
from ..mask import shown

__all__ = ["content", "line", "text"]


def text(value: str, style: str = "") -> Text:
    """A Rich ``Text`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A renderable showing the cleaned text.
    """
    return Text(shown(clean(value)), style=style, end="")


def content(value: str, style: str = "") -> Content:
    """A Textual ``Content`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A visual showing the cleaned text.
    """
    cleaned = shown(clean(value))
    return Content.styled(cleaned, style) if style else Content(cleaned)


def line(value: str, style: str = "") -> Content:
    """Like :func:`content`, on one line: newlines become "↵", tabs a space.

    Args:
        value: Text from outside the program, or our own text that quotes it.
        style: Style applied to the whole text.

    Returns:
        A one-line visual showing the cleaned text.
    """
    cleaned = shown(clean_line(value))
    return Content.styled(cleaned, style) if style else Content(cleaned)
