"""Wrapping a line of text into rows of the screen, keeping what it is indented under,
and cutting a text to a width (:func:`cut_to_cells`).

Plain Python, no widget: the JSON view (:mod:`.widgets.json_view`) and the detail view's
key fields (:mod:`.widgets.field_value`) draw what it works out; the tables, the
deliveries list and the fields' placeholders cut their text with it.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from rich.cells import cell_len, set_cell_size

from ..clean import ELLIPSIS, grapheme_cut

__all__ = ["BREAK_AFTER", "cut_to_cells", "fit_cells", "hanging_wrap", "wrapped_rows"]

BREAK_AFTER = frozenset("/-_.,;:&?=#@")
"""Where a word too long for a row (an address, an id) is broken, where it can be."""


def hanging_wrap(line: str, width: int, hang: int | None = None) -> tuple[list[int], int]:
    """Where ``line`` breaks into rows of ``width`` cells, and the indent of the rows
    after its first: ``hang``, by default the line's own indent and two more (a JSON
    member's value continues under its key).

    Rows break after a space; a word that no row would hold whole (an address) starts
    on the row it is reached on and breaks where it must: after a ``/``, ``-`` or the
    like in the row's second half, else at the row's end.

    Returns:
        The offsets in ``line`` where each row after the first begins (none: it fits),
        and the continuation rows' indent in cells.
    """
    if len(line) <= width and (line.isascii() or cell_len(line) <= width):
        return [], 0
    if hang is None:
        hang = len(line) - len(line.lstrip(" ")) + 2
    hang = min(hang, width // 2)
    narrow = line.isascii()
    ends = [] if narrow else list(accumulate(cell_len(c) for c in line))

    def cells(start: int, end: int) -> int:  # cells of line[start:end]
        if narrow:
            return end - start
        return ends[end - 1] - (ends[start - 1] if start else 0) if end > start else 0

    def furthest(start: int, room: int) -> int:  # the end of the longest fit from start
        if narrow:
            return min(len(line), start + room)
        return max(bisect_right(ends, room + (ends[start - 1] if start else 0)), start + 1)

    offsets: list[int] = []
    start, room = 0, width
    while cells(start, len(line)) > room:
        end = furthest(start, room)
        cut = end
        if end < len(line) and line[end] == " ":
            cut = end + 1  # the space ends the row (past its edge, where nothing shows)
        else:
            space = line.rfind(" ", start + 1, end)
            after = line.find(" ", space + 1) if space > start else -1
            word = cells(space + 1, after if after >= 0 else len(line))
            if space > start and (word <= width - hang or space + 1 - start > room // 2):
                cut = space + 1
            else:  # a word broken: after a sign in the row's second half
                cut = max(
                    (i + 1 for i in range(start + room // 2, end) if line[i] in BREAK_AFTER),
                    default=end,
                )
        cut = max(cut, start + 1)
        offsets.append(cut)
        start, room = cut, max(width - hang, 1)
    return offsets, hang


def wrapped_rows(text: str, width: int) -> list[str]:
    """``text`` (lines of it) as rows of ``width`` cells, wrapped with no indent."""
    rows: list[str] = []
    for line in text.split("\n"):
        offsets, _ = hanging_wrap(line, width, hang=0)
        starts = [0, *offsets]
        rows += [line[a:b].rstrip(" ") for a, b in zip(starts, [*offsets, len(line)], strict=True)]
    return rows


def cut_to_cells(text: str, cells: int) -> str:
    """The start of ``text`` that takes ``cells`` cells at most, cut between two
    characters as drawn (:func:`~tokensales_tui.clean.grapheme_cut`: never half an emoji
    sequence, a flag or a letter without its accent), padded with spaces to ``cells``."""
    if cells < 1:
        return ""
    # Rich cuts at a cell, and pads (a wide character across the cut becomes a space)...
    shown = set_cell_size(text, cells)
    kept = min(len(shown), len(text))
    while kept and shown[kept - 1] != text[kept - 1]:
        kept -= 1
    # ...and knows nothing of the emoji joined by a joiner shown settled ("👩⸱💻").
    start = text[: grapheme_cut(text, kept)]
    return start + " " * (cells - cell_len(start))


def fit_cells(text: str, cells: int) -> str:
    """``text`` in exactly ``cells`` cells: padded, or cut (:func:`cut_to_cells`) with "…"."""
    size = cell_len(text)
    if size <= cells:
        return text + " " * (cells - size)
    return cut_to_cells(text, cells - 1) + ELLIPSIS if cells > 0 else ""
