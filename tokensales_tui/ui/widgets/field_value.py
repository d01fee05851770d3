"""A value of the detail view's key fields, wrapped where a reader expects it."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.widgets import Static

from ..safe import content
from ..wrap import cut_to_cells, wrapped_rows

__all__ = ["FieldValue", "FieldsRoom", "share_rows"]


def share_rows(needs: list[int], room: int) -> list[int]:
    """The rows each of several values is shown on, given the rows each ``needs`` and
    the ``room`` there is for all: every row it needs where they all fit; else the
    shorter values whole and what is left shared evenly among the longer ones (each
    at least one row, so every field shows, though they may not all fit then)."""
    if sum(needs) <= room:
        return list(needs)
    shares = [1] * len(needs)
    left = room
    order = sorted(range(len(needs)), key=needs.__getitem__)
    for done, at in enumerate(order):
        shares[at] = min(needs[at], max(1, left // (len(needs) - done)))
        left -= shares[at]
    return shares


class FieldsRoom:
    """The rows the values of one set of key fields may take between them (see
    :func:`share_rows`): a value longer than its share ends with "…", its whole in the
    JSON below, and every field shows rather than the last ones below the pane's edge."""

    def __init__(self) -> None:
        self.values: list[FieldValue] = []
        self.rows = 0
        """The rows there are (0: no limit)."""
        self._shares: tuple[tuple[int, int], dict[int, int]] | None = None

    def set_rows(self, rows: int) -> bool:
        """Give the values ``rows`` rows; whether that changed anything."""
        if rows == self.rows:
            return False
        self.rows, self._shares = rows, None
        return True

    def rows_of(self, value: FieldValue, width: int) -> int:
        """The rows ``value`` may take, at ``width`` (every value's width: one column)."""
        if self._shares is None or self._shares[0] != (width, len(self.values)):
            needs = [len(each.rows(width)) for each in self.values]
            shares = needs if not self.rows else share_rows(needs, self.rows)
            self._shares = (
                (width, len(self.values)),
                dict(zip(map(id, self.values), shares, strict=True)),
            )
        return self._shares[1].get(id(value), len(value.rows(width)))


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

    def __init__(self, value: str, room: FieldsRoom | None = None) -> None:
        shown = content(value)
        super().__init__(shown)
        self._plain = shown.plain
        self._room = room
        if room is not None:
            room.values.append(self)

    def rows(self, width: int) -> list[str]:
        """The value wrapped at ``width``, whole."""
        return wrapped_rows(self._plain, max(width, 1))

    def _shown_rows(self, width: int) -> list[str]:
        rows = self.rows(width)
        if self._room is None:
            return rows
        shown = rows[: self._room.rows_of(self, width)]
        if len(shown) < len(rows):  # cut: says so
            last = shown[-1]
            shown[-1] = (
                cut_to_cells(last, width - 1) + "…" if cell_len(last) >= width else last + "…"
            )
        return shown

    def render(self) -> Content:
        return content("\n".join(self._shown_rows(self.size.width)))  # cleaned already

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._shown_rows(width))
