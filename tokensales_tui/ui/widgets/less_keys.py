"""The keys that scroll a view of text as ``less`` does, one set for every such view.

The detail view's JSON and the help both scroll with them: j/k a line, ctrl+d/ctrl+u half
a page, space/b a page, g/G the top and the end (the arrows, pgup/pgdn, home and end too,
Textual's own). Each view gives the set its own id prefix, so a keymap moves its keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from textual.widget import Widget

    _Scrolling = Widget
else:  # a mixin: a Widget base here would set can_focus (and more) for the widget
    _Scrolling = object

__all__ = ["LessKeys", "less_keys"]


def less_keys(prefix: str, *, show_paging: bool = False) -> list[BindingType]:
    """The scrolling keys of a view, with ids ``prefix.up`` … ``prefix.page_up``.

    ``show_paging`` shows space (a page down) in the footer: where nothing else says the
    view goes on below.
    """
    return [
        Binding("k", "scroll_up", "Line up", show=False, id=f"{prefix}.up"),
        Binding("j", "scroll_down", "Line down", show=False, id=f"{prefix}.down"),
        Binding("ctrl+u", "half_page(-1)", "Half page up", show=False, id=f"{prefix}.half_up"),
        Binding("ctrl+d", "half_page(1)", "Half page down", show=False, id=f"{prefix}.half_down"),
        Binding("space", "page_down", "Page down", show=show_paging, id=f"{prefix}.page_down"),
        Binding("b", "page_up", "Page up", show=False, id=f"{prefix}.page_up"),
        Binding("g", "scroll_home", "Top", show=False, id=f"{prefix}.top"),
        Binding("G", "scroll_end", "End", show=False, id=f"{prefix}.end"),
    ]


class LessKeys(_Scrolling):
    """A scrolling widget's half-page action, which :func:`less_keys` binds."""

    def action_half_page(self, direction: int) -> None:
        """Scroll half a page down (1) or up (-1)."""
        step = max(1, self.scrollable_content_region.height // 2)
        self.scroll_to(y=self.scroll_y + step * (1 if direction > 0 else -1), animate=False)
