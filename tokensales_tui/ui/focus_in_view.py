"""The focused widget stays in view when the terminal is made smaller.

Textual scrolls a widget into view when it gets the focus, never after: a terminal made
shorter lays a scrolling screen out again from where its scroll offsets were, and the
field being typed into (the secret of a webhook form, the setup screen's API secret)
could end up out of view, still focused and taking the keys. :func:`keep_focus_in_view`
has every screen of the app, once laid out at its new size, scroll its focused widget
into view when it is not whole in view.
"""

from __future__ import annotations

import weakref
from typing import Any

from textual.geometry import Size
from textual.screen import Screen

__all__ = ["keep_focus_in_view"]

_screen_resized = Screen._screen_resized


def _resized(self: Screen[Any], size: Size) -> None:
    """``Screen._screen_resized``, then its focused widget in view once laid out, when
    the size is another than the one last seen: on a terminal that gives no size (a
    0x0 pseudo-terminal) each scroll into view led to another call of this, and the
    screen was redrawn without end (200 KB a second, half a processor), answering no
    signal."""
    _screen_resized(self, size)
    if size.area and _SEEN.get(self) != size:
        _SEEN[self] = size
        self.call_after_refresh(_focused_in_view, self)


_SEEN: weakref.WeakKeyDictionary[Screen[Any], Size] = weakref.WeakKeyDictionary()
"""The size each screen was last laid out at, here."""


def _focused_in_view(screen: Screen[Any]) -> None:
    focused = screen.focused
    if focused is not None and focused.is_attached and not screen.can_view_entire(focused):
        focused.scroll_visible(animate=False, immediate=True)


def keep_focus_in_view() -> None:
    """Have every screen scroll its focused widget into view after a resize."""
    Screen._screen_resized = _resized  # type: ignore[method-assign]
