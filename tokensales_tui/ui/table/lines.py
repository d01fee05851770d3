"""Table rows as lines of terminal text: cells fitted to their columns, cropped to the view.

Rich measures and cuts the text (the widths Textual draws with), which is why this is
not part of the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from ...clean import ELLIPSIS
from ..wrap import cut_to_cells
from .numbers import fit_number

__all__ = ["Palette", "centred", "crop", "join_cells"]


@dataclass(slots=True)
class Palette:
    """Rich styles of one render pass."""

    base: Style
    header: Style
    even: Style
    cursor: Style
    empty: Style
    marked: Style
    changed: Style


def fit(cell: str, width: int, right: bool) -> str:
    """Pad or truncate ``cell`` to exactly ``width`` cells.

    A cell too wide for a right-aligned column (numbers) is :func:`fit_right`'s."""
    if cell.isascii():
        size = len(cell)
        if size > width:
            if right:
                return fit_right(cell, width, len)
            return cell[: width - 1] + ELLIPSIS  # ASCII: each character is a cell, and whole
        if size == width:
            return cell
        return cell.rjust(width) if right else cell.ljust(width)
    size = cell_len(cell)
    if size > width:
        if right:
            return fit_right(cell, width, cell_len)
        return cut_to_cells(cell, width - 1) + ELLIPSIS
    padding = " " * (width - size)
    return padding + cell if right else cell + padding


def fit_right(cell: str, width: int, measure: Callable[[str], int]) -> str:
    """A right-aligned cell wider than its column, in ``width`` cells: its padding
    (decimal alignment, :func:`.cells.align_decimals`) given up first, never cut (it
    would end with "…" a cell that is whole); a number too wide written in a form that
    keeps its magnitude (:func:`.numbers.fit_number`); anything else cut."""
    text = cell.rstrip(" ")
    size = measure(text)
    if size <= width:
        return text + " " * (width - size)  # as much of the padding as fits
    fitted = fit_number(text, width, measure)
    if fitted is not None:
        return " " * (width - measure(fitted)) + fitted
    if text.isascii():
        return text[: width - 1] + ELLIPSIS  # ASCII: each character is a cell, and whole
    return cut_to_cells(text, width - 1) + ELLIPSIS


def join_cells(cells: Iterable[str], widths: Sequence[int], rights: Sequence[bool]) -> str:
    """One table line: a margin, then each cell fitted to its column, one space apart."""
    if not widths:
        return ""
    return " " + " ".join(map(fit, cells, widths, rights)) + " "


def is_narrow(line: str) -> bool:
    """True if every character of ``line`` takes exactly one cell (so slicing crops)."""
    return line.isascii() or line.replace(ELLIPSIS, "").isascii()


def crop(line: str, style: Style, scroll_x: int, width: int, total_width: int) -> Strip:
    """The part of ``line`` (``total_width`` cells) seen from ``scroll_x``, ``width`` wide."""
    if len(line) == total_width and is_narrow(line):
        # One character per cell: slicing is cropping.
        text = line[scroll_x : scroll_x + width]
        strip = Strip([Segment(text, style)], len(text))
    else:
        strip = Strip([Segment(line, style)], total_width).crop(scroll_x, scroll_x + width)
    return strip.extend_cell_length(width, style) if strip.cell_length < width else strip


def centred(message: str, width: int, base: Style, style: Style) -> Strip:
    """``message`` in ``style``, centred on a line of ``width`` cells (cut to fit)."""
    if cell_len(message) > width:
        message = cut_to_cells(message, width - 1) + ELLIPSIS if width else ""
    left = max(0, (width - cell_len(message)) // 2)
    return Strip([Segment(" " * left, base), Segment(message, style)]).extend_cell_length(
        width, base
    )
