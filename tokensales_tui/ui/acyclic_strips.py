"""A line Textual draws is freed when it is let go, not left for the collector.

Textual's ``Strip`` (one line of a widget) keeps what it makes of itself in caches of
its own; cropped, extended or cut to the length it already has, it is itself, and
Textual 8 caches it in its own cache all the same. Almost every line drawn goes
through one of these, so almost every line is a cycle: reference counting never frees
it, and each is some ten objects (the strip, its segments, seven caches) that only a
collection finds. Those alive at a young collection grow old, and the settle after a
load of 1,000,000 items collected 10,000 such objects; a settle sets aside for good
what is alive, so a line dropped from a cache afterwards stays until everything is
walked again (see :func:`tokensales_tui.api.models.everything_due`).

:func:`use_acyclic_strips` answers these three cases with the strip itself before
Textual's method runs, which is what the method returns, so nothing caches it. Dev
measure, two cold loads of 1,000,000 items each: the settle's full collection took
68-71 ms against 96-99 ms, and collected 4,777 objects against 10,155.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

__all__ = ["use_acyclic_strips"]

_crop_extend = Strip.crop_extend
_adjust_cell_length = Strip.adjust_cell_length
_divide = Strip.divide


def crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    """:meth:`Strip.crop_extend`; the strip itself when that is the whole of it."""
    if start == 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


def adjust_cell_length(self: Strip, cell_length: int, style: Style | None = None) -> Strip:
    """:meth:`Strip.adjust_cell_length`; the strip itself when it has that length."""
    if cell_length == self.cell_length:
        return self
    return _adjust_cell_length(self, cell_length, style)


def divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """:meth:`Strip.divide`; the strip alone when the only cut is at its end."""
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


def use_acyclic_strips() -> None:
    """Have every strip answer a crop, extension or division to itself with itself."""
    Strip.crop_extend = crop_extend  # type: ignore[method-assign]
    Strip.adjust_cell_length = adjust_cell_length  # type: ignore[method-assign]
    Strip.divide = divide  # type: ignore[method-assign]
