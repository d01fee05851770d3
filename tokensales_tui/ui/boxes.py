"""When a widget's new content needs a layout of the screen, and what to forget when not.

Textual lays out the whole screen, every widget of it, whenever a widget asks; a form of
many collections holds hundreds. A widget whose box cannot change with its content
needs only a repaint. Textual also keeps each widget's box, and each container's
arrangement, from one layout to the next, keyed by the sizes around them and a count of
the layouts the widget asked for: content changed without a layout must clear those, or
a later layout at a size seen before (a terminal resized and back, a tab shown again)
would give the widget its old box. The two private attributes touched here are the ones
Textual's own layout request clears (``Widget._check_refresh``); ``tests/test_safe.py``
fails if they change meaning.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

__all__ = ["content_box", "forget_box", "hidden", "width_follows_content"]


def width_follows_content(widget: Widget) -> bool:
    """Whether ``widget``'s width, or a container's around it, is as wide as its content
    (Textual sizes a ``1fr`` widget in a ``width: auto`` container to its content)."""
    node = widget
    while not isinstance(node, Screen):
        width = node.styles.width
        if width is not None and width.is_auto:
            return True
        parent = node.parent
        if not isinstance(parent, Widget):
            return False
        node = parent
    return False


def hidden(widget: Widget) -> bool:
    """Whether ``widget`` or a container around it is not displayed (a tab not shown)."""
    node: Widget | None = widget
    while node is not None and not isinstance(node, Screen):
        if not node.display:
            return True
        node = node.parent if isinstance(node.parent, Widget) else None
    return False


def content_box(widget: Widget) -> tuple[int, int]:
    """The width and height of ``widget``'s content as last laid out (0, 0 before any).

    Read from the widget, not from the screen's map, which a repaint may have to rebuild.
    """
    width, height = widget.outer_size
    gutter = widget.styles.gutter
    return max(0, width - gutter.width), max(0, height - gutter.height)


def forget_box(widget: Widget) -> None:
    """Forget the box kept for ``widget`` and the arrangements of the containers whose
    size follows it, as Textual does when a widget asks for a layout, without one."""
    widget._layout_updates += 1
    for ancestor in widget.ancestors:
        if not isinstance(ancestor, Widget):
            break
        ancestor._clear_arrangement_cache()
        ancestor._layout_updates += 1
        if not ancestor.styles.auto_dimensions:
            break
