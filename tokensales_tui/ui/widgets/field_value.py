"""A value of the detail view's key fields, wrapped where a reader expects it."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widgets import Static

from ..safe import content
from ..wrap import wrapped_rows

__all__ = ["FieldValue"]


class FieldValue(Static):
    """Server text in the column of its label's value: wrapped at spaces, an address
    too long for the column broken after a ``/`` or ``-`` where it can be rather than
    anywhere (Textual folds it at the column's edge, ``…vip-a`` / ``ccess.png``).

    Args:
        value: The text, from the server: cleaned (and masked in mask mode) here.
    """

    DEFAULT_CSS = """
    FieldValue {
        height: auto;
    }
    """

    def __init__(self, value: str) -> None:
        shown = content(value)
        super().__init__(shown)
        self._plain = shown.plain

    def _rows(self, width: int) -> list[str]:
        return wrapped_rows(self._plain, max(width, 1))

    def render(self) -> Content:
        return content("\n".join(self._rows(self.size.width)))  # cleaned already, as it was

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._rows(width))
