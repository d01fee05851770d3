"""What a table cell shows and how wide a column needs to be; no Textual, no Rich.

A column turns a row object into a value (:class:`Column`); the value becomes one
cleaned, capped line of text (:func:`column_cells`), and a column is as wide as its
widest cell, within its limits (:func:`natural_width`). How many terminal cells a
string takes is the widget's to say: it passes its measure in as ``width``.
"""

from __future__ import annotations

import operator
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import accumulate, compress, filterfalse, repeat
from typing import Any, Literal

from ...api.arriving import still_arriving
from ...clean import cell_text as _cell_text
from ...clean import (
    display_value,
    is_clean,
    settle_width,
    unsettled,
    unsettled_in,
    visible,
)

__all__ = [
    "CELL_LIMIT",
    "Column",
    "Width",
    "align_decimals",
    "cell_text",
    "column_ceiling",
    "column_cells",
    "column_widths",
    "decimal_tail",
    "decimal_width",
    "fit_widths",
    "measure_column",
    "measure_decimals",
    "natural_keys",
    "natural_width",
    "numeric_sort_key",
]

Width = Callable[[str], int]
"""How many terminal cells a string takes."""

CELL_LIMIT = 200
"""Longest cell text kept, in characters: more can never be seen in a column."""

MEASURE_SAMPLE = 20_000
"""Most non-ASCII cells measured per column (the longest ones)."""

MARK_WIDTH = 2
"""Room kept beside a column's label for the sort mark."""


def numeric_sort_key(value: object) -> float | int | Decimal:
    """A sort key for numeric columns that tolerates ``None`` and junk.

    Numbers (and numeric strings) sort by value; anything else sorts first.

    Args:
        value: A column value.

    Returns:
        A number comparable with the keys of every other value.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if value == value else float("-inf")  # NaN breaks sorting
    if isinstance(value, Decimal):
        return value if not value.is_nan() else float("-inf")
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                number = Decimal(value.strip())
            except InvalidOperation:
                return float("-inf")
            return number if not number.is_nan() else float("-inf")
    return float("-inf")


KEYS_BLOCK = 16_384
"""Cells given natural sort keys in one call."""


class _LengthMarks(dict[int, bytes]):
    """What a run of digits of each length is keyed by: under 20 digits one byte from
    0x0b (no digit left: zero) to 0x1e, above the newline that parts the cells of a
    block and below every character a cell holds (cells are cleaned of controls); 20
    digits or more, 0x1f and the length (a cell holds at most CELL_LIMIT characters)."""

    def __missing__(self, length: int) -> bytes:
        return self[255]


_LENGTH_MARKS = _LengthMarks(
    (n, bytes([0x0B + n]) if n < 20 else b"\x1f" + bytes([n])) for n in range(256)
)
_ONLY_DIGITS = bytes(c if 0x30 <= c <= 0x39 else 0x20 for c in range(256))
"""Keeps the digits, turns every other byte into a space: ``split()`` then gives the runs."""
_DIGITS_MARKED = bytes(0xFF if 0x30 <= c <= 0x39 else c for c in range(256))
"""Turns each digit into 0xff, a byte UTF-8 text never holds."""


def natural_keys(cells: list[bytes]) -> list[Any]:
    """Sort keys that order runs of digits by their value: ``item 2`` before ``item 10``.

    Each run of digits is written with its length before it (``item \\x0c2`` and
    ``item \\x0d10``), leading zeros dropped: bytes that compare as the text with its
    numbers compared by value, in one C-level comparison each; a cell without digits
    is its own key. Cells are UTF-8 text of one line each.
    """
    keys: list[Any] = []
    # In blocks: one pass over a million cells in C would keep a sorting thread from
    # handing the interpreter to the event loop for a quarter second.
    for start in range(0, len(cells), KEYS_BLOCK):
        keys += _natural_block(cells[start : start + KEYS_BLOCK])
    return keys


def _natural_block(cells: list[bytes]) -> list[bytes]:
    # Every step is one C-level call over the whole block (a regular expression with a
    # function per run took three times as long).
    joined = b"\n" + b"\n".join(cells) + b"\n"
    runs = joined.translate(_ONLY_DIGITS).split()
    if not runs:
        return cells
    if b"\xff" in joined:  # not UTF-8 (the index's cells always are): 0xff marks digits
        joined = joined.replace(b"\xff", b"\xfe")  # below, so it is read as 0xfe
    # The text around the runs: the newlines added at both ends make every piece of it
    # non-empty, and a run of n digits leaves n - 1 empty pieces between two.
    texts = list(filter(None, joined.translate(_DIGITS_MARKED).split(b"\xff")))
    values = list(map(bytes.lstrip, runs, repeat(b"0")))
    pieces = [b""] * (len(texts) + 2 * len(runs))
    pieces[0::3] = texts
    pieces[1::3] = map(_LENGTH_MARKS.__getitem__, map(len, values))
    pieces[2::3] = values
    return b"".join(pieces)[1:-1].split(b"\n")


@dataclass(frozen=True, slots=True)
class Column:
    """How one column gets and shows its value.

    Attributes:
        key: Identifier used by :meth:`TableView.sort_by`.
        label: Header text.
        get: Extracts the column's value from a row object.
        min_width: Narrowest the column gets while another can give way, in cells
            (in a terminal too narrow for every column at its minimum, each gets
            narrower, down to :data:`NARROWEST`: see :func:`fit_widths`).
        max_width: Widest the column gets; longer cells end with "…".
        align: "right" for numbers; "decimal" for numbers with a fraction: right-aligned,
            the decimal points of the rows in line (:func:`align_decimals`).
        sort_key: Turns the value (what ``get`` returns) into a sort key; by
            default the displayed text, case-folded. Must accept ``None``.
        row_key: A sort key taken from the row object itself, used instead of
            ``sort_key``: a column showing a number as formatted text sorts by the
            number, without formatting and parsing every row again.
    """

    key: str
    label: str
    get: Callable[[Any], object]
    min_width: int = 4
    max_width: int = 40
    align: Literal["left", "right", "decimal"] = "left"
    sort_key: Callable[[Any], Any] | None = None
    row_key: Callable[[Any], Any] | None = None


def measure_cells(
    cells: list[str], is_ascii: bool, longest: int, floor: int, ceiling: int, width: Width
) -> int:
    """Width a column needs: the widest cell, clamped to ``floor``..``ceiling``.

    ``longest`` is the most characters in a cell; for ASCII that is the width.
    """
    if is_ascii:
        widest = longest
    else:
        widest = max(map(len, compress(cells, map(str.isascii, cells))), default=0)
        if widest < ceiling:
            # A character takes at most two cells: measure the longest others first,
            # and stop when no cell left can be wider (or after MEASURE_SAMPLE of them).
            wide = sorted(filterfalse(str.isascii, cells), key=len, reverse=True)
            for cell in wide[:MEASURE_SAMPLE]:
                if widest >= ceiling or 2 * len(cell) <= widest:
                    break
                widest = max(widest, width(cell))
    return max(floor, min(ceiling, widest))


def cell_text(value: object, limit: int | None = CELL_LIMIT) -> str:
    """:func:`tokensales_tui.clean.cell_text`, capped at :data:`CELL_LIMIT` by default."""
    return _cell_text(value, limit)


def column_cells(
    column: Column, rows: Sequence[Any], *, pad: bool = True, width: Width | None = None
) -> tuple[list[str], bool, int]:
    """The display text of one column for every row, cleaned and capped.

    Cells of a "decimal" column are padded to line up (:func:`align_decimals`; measured
    with ``width``) unless ``pad`` is false: the search index keeps them as they are, so
    that a slice of rows indexed alone gets the cells the whole list would.

    Returns:
        The cells, whether they are all ASCII, and the most characters in one.

    Raises:
        TypeError: Decimal cells to pad without ``width``.
    """
    cells: list[Any] = list(map(column.get, rows))
    try:
        joined = "".join(cells)  # fails unless every value is a string already
    except TypeError:
        cells = [value if value.__class__ is str else cell_text(value) for value in cells]
        joined = "".join(cells)
    longest = max(map(len, cells), default=0)
    # Almost every column is clean and short: check it as a whole, and if not, look
    # closer at the runs of cells that are not (server text: a few hostile ones).
    if longest > CELL_LIMIT or not is_clean(joined, line=True):
        cells = fix_runs(cells, _unclean, _cleaned)
        joined = "".join(cells)
        longest = max(map(len, cells), default=0)
    if unsettled(joined):  # only the cells that hold such a character change
        # Still not all ASCII: the marks and letters put in are not either.
        cells, widened = settle_cells(cells, joined)
        longest = max(longest, widened)
    if pad and column.align == "decimal":
        if width is None:
            raise TypeError("decimal cells are padded as the widget measures them: pass width")
        _, tail = decimal_width(column, *measure_decimals(column, cells, joined.isascii(), width))
        cells = align_decimals(cells, tail, width)
        longest = max(map(len, cells), default=0)
    return cells, joined.isascii(), longest


RUN = 64
"""Cells checked at once by :func:`fix_runs`."""


def fix_runs(
    cells: list[str],
    needs: Callable[[list[str]], bool],
    fix: Callable[[list[str]], list[str]],
) -> list[str]:
    """``cells`` with ``fix`` applied to each run of :data:`RUN` of them that ``needs`` it.

    Testing a run joined costs a fraction of testing each cell, and a column that needs
    fixing somewhere usually needs it in a few cells only.
    """
    fixed = cells
    for start in range(0, len(cells), RUN):
        part = cells[start : start + RUN]
        if needs(part):
            if fixed is cells:
                fixed = cells.copy()
            fixed[start : start + RUN] = fix(part)
    return fixed


def _unclean(cells: list[str]) -> bool:
    return max(map(len, cells)) > CELL_LIMIT or not is_clean("".join(cells), line=True)


def _cleaned(cells: list[str]) -> list[str]:
    return [display_value(cell, CELL_LIMIT) for cell in cells]


def settle_cells(cells: list[str], joined: str) -> tuple[list[str], int]:
    """``cells`` settled (:func:`~tokensales_tui.clean.settle_width`), and the most
    characters in a cell that changed; ``joined`` is the cells joined.

    The characters to settle are found in the joined text in one pass, and only the
    cells holding them are rewritten.
    """
    ends = list(accumulate(map(len, cells)))
    places = sorted({bisect_right(ends, found.start()) for found in unsettled_in(joined)})
    settled = cells.copy()
    for place in places:
        settled[place] = settle_width(cells[place])
    return settled, max(map(len, map(settled.__getitem__, places)), default=0)


def decimal_tail(cell: str, width: Width) -> int:
    """The terminal cells from the decimal point (the first ``.``) to the end, measured
    with ``width`` where they are not all ASCII (``日本円``: six); 0 without a point."""
    point = cell.find(".")
    if point < 0:
        return 0
    return len(cell) - point if cell.isascii() else width(cell[point:])


def align_decimals(cells: list[str], tail: int | None, width: Width) -> list[str]:
    """``cells`` padded on the right so that, right-aligned, their decimal points line up.

    Each ends ``tail`` terminal cells after its point (default: the longest tail of
    ``cells``; measured with ``width``), as in ``1,234.50 EUR`` over ``   0.5 ETH  ``; a
    cell without a point ends at it; a cell whose tail is longer is left as it is.
    """
    tails = list(map(decimal_tail, cells, repeat(width)))
    widest = max(tails, default=0) if tail is None else tail
    if not any(each != widest for each in tails):
        return cells
    return [cell + " " * (widest - each) for cell, each in zip(cells, tails, strict=True)]


def measure_decimals(
    column: Column, cells: list[str], is_ascii: bool, width: Width
) -> tuple[int, int, int]:
    """What the decimal alignment of ``column``'s ``cells`` (not padded) depends on: the
    widest head (a cell but its tail) of all the cells, and the widest head and tail of
    those that fit the column on their own. Everything is measured in terminal cells
    (``width``; a cell's length where all are ASCII), the one measure of the whole list's
    index and of a sample of rows shown before it: the column is as wide either way.

    The maxima of blocks of cells are those of the whole (:func:`decimal_width`).
    """
    ceiling = column_ceiling(column)
    sizes = list(map(len, cells) if is_ascii else map(width, cells))
    tails = list(map(decimal_tail, cells, repeat(width)))
    heads = list(map(operator.sub, sizes, tails))
    head, tail = max(heads, default=0), max(tails, default=0)
    if head + tail <= ceiling:  # every cell fits, padded: the common case
        return head, head, tail
    fit = list(map(ceiling.__ge__, sizes))
    return head, max(compress(heads, fit), default=0), max(compress(tails, fit), default=0)


def decimal_width(column: Column, head: int, fit_head: int, fit_tail: int) -> tuple[int, int]:
    """The width of a decimal column's widest cell once padded, and the tail its cells
    are padded to (:func:`align_decimals`), from :func:`measure_decimals`'s answer.

    The tail is the longest one, unless that would pad a cell that fits past the
    column: then the longest that pads none past it, and a cell with a longer tail (one
    long currency) is left as it is. Alignment never makes a whole cell look cut; a cell
    too wide on its own is the column's to cut or write shorter (:func:`.lines.fit`).
    """
    ceiling = column_ceiling(column)
    tail = max(0, min(fit_tail, ceiling - fit_head))
    # A cell with a longer tail than that is not padded: as wide as it is.
    return max(1, min(ceiling, max(head + tail, fit_head + fit_tail))), tail


SAMPLE = 2_000
"""Rows measured by :meth:`TableView.show`: the first ones and a spread of others."""


def sample_widths(
    columns: Sequence[Column], rows: Sequence[Any], width: Width
) -> tuple[list[int], list[int], list[int]]:
    """Column widths, decimal tails (:func:`decimal_width`; 0 but for "decimal" columns)
    and the widths of the cells alone (:func:`measure_column`), over a sample of ``rows``."""
    sample = sample_of(rows)
    natural: list[int] = []
    tails: list[int] = []
    content: list[int] = []
    for column in columns:
        cells, is_ascii, longest = column_cells(column, sample, pad=False)
        if column.align == "decimal":  # as an index of every row measures it
            widest, tail = decimal_width(column, *measure_decimals(column, cells, is_ascii, width))
            both = column_widths(column, widest, width)
        else:
            tail, both = 0, measure_column(column, cells, is_ascii, longest, width)
        natural.append(both[0])
        tails.append(tail)
        content.append(both[1])
    return natural, tails, content


def sample_of(rows: Sequence[Any]) -> list[Any]:
    """The rows widths are measured over: the first :data:`SAMPLE`, then evenly spread.

    Of rows still arriving (:mod:`~tokensales_tui.api.arriving`), the spread ones only
    where decoded already: reading them would decode a stretch each, most of the list.
    """
    step = max(1, len(rows) // SAMPLE)
    if still_arriving(rows):
        spread = list.__getitem__(rows, slice(SAMPLE, None, step))  # type: ignore[call-overload]
        return [*rows[:SAMPLE], *(row for row in spread if row is not None)]
    return [*rows[:SAMPLE], *rows[SAMPLE::step]]


def measure_column(
    column: Column, cells: list[str], is_ascii: bool, longest: int, width: Width
) -> tuple[int, int]:
    """The width a column needs for its label and its cells, and for its cells alone.

    The second is how far a column whose label is the widest part of it (a count under
    "Wallets") can give way before any value is cut (:func:`fit_widths`).
    """
    widest = measure_cells(cells, is_ascii, longest, 1, column_ceiling(column), width)
    return column_widths(column, widest, width)


def column_ceiling(column: Column) -> int:
    """The widest a column gets, in cells."""
    return max(column.max_width, column.min_width, 1)


def column_widths(column: Column, widest: int, width: Width) -> tuple[int, int]:
    """:func:`measure_column`'s answer for a column whose widest cell takes ``widest``
    cells (clamped to the column's ceiling already)."""
    # Room for the label and a sort mark, within the column's limits.
    label = min(width(visible(column.label, line=True)) + MARK_WIDTH, column_ceiling(column))
    return max(widest, label, column.min_width, 1), max(widest, 1)


def natural_width(
    column: Column, cells: list[str], is_ascii: bool, longest: int, width: Width
) -> int:
    """The width a column needs for its label and its cells (:func:`measure_column`)."""
    return measure_column(column, cells, is_ascii, longest, width)[0]


NARROWEST = 3
"""Cells a column keeps however narrow the terminal: a character and "…" with a space."""


def fit_widths(
    natural: Sequence[int],
    min_widths: Sequence[int],
    available: int,
    content: Sequence[int] = (),
) -> list[int]:
    """Column widths that fit ``available`` cells (0: no limit), with a space between columns.

    When the columns are wider than that, first the columns wider than their cells (a
    count under a long label) shorten their label, down to their cells (``content``, the
    width of the cells alone); then the widest columns give up cells, down to their
    minimum (``min_widths``, at least :data:`NARROWEST`), so ids and names are cut last;
    then, in a terminal too narrow for every column at its minimum, the widest columns
    give up cells again, down to :data:`NARROWEST` each. Only when every column is that
    narrow does the table scroll sideways: a column held at its minimum pushed the last
    ones out of view (at 60 columns, the Webhooks tab's Updated).
    """
    widths = list(natural)
    if available <= 0:
        return widths
    excess = sum(widths) + len(widths) + 1 - available
    floors = [max(floor, NARROWEST) for floor in min_widths]
    if content:
        cells = [max(width, floor) for width, floor in zip(content, floors, strict=True)]
        while excess > 0:
            # The most label beyond its cells gives way first.
            place = max(
                (i for i in range(len(widths)) if widths[i] > cells[i]),
                key=lambda i: widths[i] - cells[i],
                default=-1,
            )
            if place < 0:
                break
            widths[place] -= 1
            excess -= 1
    for least in (floors, [NARROWEST] * len(widths)):
        excess = _give_way(widths, least, excess)
    return widths


def _give_way(widths: list[int], least: Sequence[int], excess: int) -> int:
    """Take up to ``excess`` cells from ``widths``, none below ``least``; what is left over."""
    while excess > 0:
        # The widest column gives up a cell first, so short columns stay whole.
        place = max(
            (i for i in range(len(widths)) if widths[i] > least[i]),
            key=lambda i: widths[i],
            default=-1,
        )
        if place < 0:
            break
        widths[place] -= 1
        excess -= 1
    return excess
