"""Literal renderables of text the program did not write: never parsed as markup.

Text is cleaned first (:mod:`tokensales_tui.clean`), so no control character reaches
the terminal either.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from ..clean import clean

__all__ = ["content", "text"]


def text(value: str, style: str = "") -> Text:
    """A Rich ``Text`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A renderable showing the cleaned text.
    """
    return Text(clean(value), style=style, end="")


def content(value: str, style: str = "") -> Content:
    """A Textual ``Content`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A visual showing the cleaned text.
    """
    return Content.styled(clean(value), style) if style else Content(clean(value))
