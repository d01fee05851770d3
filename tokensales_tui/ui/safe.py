"""Literal renderables of text: never parsed as markup, never carrying a control character.

The only module of ``ui/`` that builds ``Content`` or ``Text`` from a string that is not
a literal: every other module calls :func:`content`, :func:`line` or :func:`text`, and
``tests/test_text_gate.py`` fails on any other way to put a string on screen. A line
drawn by hand (a list's row) and a toast are made of :func:`plain`. Each is made of the
text as the screen shows it (:func:`tokensales_tui.clean.visible`): controls and bidi
characters as marks (``Content(...)`` alone keeps ESC), zero-width and format characters
as "⸱", every character of disputed width settled. In mask mode it is masked too
(:mod:`tokensales_tui.mask`).
"""

from __future__ import annotations

from typing import cast

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.widget import Widget
from textual.widgets import Static

from ..clean import visible
from ..mask import shown
from .boxes import content_box, forget_box, hidden, width_follows_content

__all__ = ["Clamped", "clamped", "content", "line", "plain", "show", "text"]


def plain(value: str, *, line: bool = False) -> str:
    """The string the screen shows of ``value``: what every function here draws.

    Controls, bidi, zero-width and format characters are marks, every character of
    disputed width is settled (:func:`tokensales_tui.clean.visible`), and in mask mode
    it is masked. A plain ``str``, for a line drawn by hand (a ``Segment``) and a toast;
    never for a widget that reads markup.

    Args:
        value: Text from outside the program, or our own text that quotes it.
        line: Keep it on one line: newlines become "↵", tabs a space.
    """
    return shown(visible(value, line=line))


def text(value: str, style: str = "") -> Text:
    """A Rich ``Text`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A renderable showing the cleaned text.
    """
    return Text(plain(value), style=style, end="")


def content(value: str, style: str = "") -> Content:
    """A Textual ``Content`` holding ``value`` literally, never parsed as markup.

    Args:
        value: Text from outside the program.
        style: Style applied to the whole text.

    Returns:
        A visual showing the cleaned text.
    """
    cleaned = plain(value)
    return Content.styled(cleaned, style) if style else Content(cleaned)


def line(value: str, style: str = "") -> Content:
    """Like :func:`content`, on one line: newlines become "↵", tabs a space.

    Args:
        value: Text from outside the program, or our own text that quotes it.
        style: Style applied to the whole text.

    Returns:
        A one-line visual showing the cleaned text.
    """
    cleaned = plain(value, line=True)
    return Content.styled(cleaned, style) if style else Content(cleaned)


class Clamped:
    """Text folded to the width it is drawn at and cut after its first lines, the last
    of them ending with "…" when more would follow.

    Whatever its length and the terminal's size, the text takes at most ``lines``
    lines: the widgets after it stay on screen (a question's buttons under a URL of
    2,000 characters). Built by :func:`clamped`.
    """

    def __init__(self, text: Text, lines: int) -> None:
        self.text = text
        self.lines = max(1, lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        kept = list(self.text.wrap(console, width, overflow="fold"))
        if len(kept) > self.lines:
            del kept[self.lines :]
            last = kept[-1]
            last.rstrip()
            last.truncate(width - 1)
            last.append("…")
        yield Text("\n").join(kept)  # ends with a new line, as Textual counts them

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


def clamped(value: str, lines: int, style: str = "") -> Clamped:
    """Like :func:`line`, at most ``lines`` lines high on screen (:class:`Clamped`).

    Args:
        value: Text from outside the program, or our own text that quotes it.
        lines: The most lines it takes, the last ending with "…" if it is cut.
        style: Style applied to the whole text.

    Returns:
        A renderable showing the cleaned text, cut where it must be.
    """
    return Clamped(Text(plain(value, line=True), style=style, end=""), lines)


def show(widget: Static, value: str | Content) -> None:
    """Show ``value`` in ``widget`` literally, laying out the screen only when it must.

    Textual's ``Static.update`` lays out the whole screen again, every widget of it: a
    form of many collections holds hundreds, and its hints, problems and preview change
    at each key. Here an unchanged text costs nothing; a new one that keeps the box as
    last laid out (as many lines, and as many cells where a width follows the text), or
    that is not displayed, is only repainted, and the box kept for it forgotten
    (:mod:`.boxes`).

    Args:
        widget: The line or block of text to change.
        value: Text from outside the program (cleaned here), or a visual built by
            :func:`content` or :func:`line`.
    """
    new = value if isinstance(value, Content) else content(value)
    old = widget.visual
    if isinstance(old, Content) and old.plain == new.plain and old.spans == new.spans:
        return
    if hidden(widget):  # showing it lays it out
        widget.update(new, layout=False)
        forget_box(widget)
        return
    rules = cast(RulesMap, widget.styles)  # what Textual itself measures a visual with
    width, height = content_box(widget)
    layout = (
        not isinstance(old, Content)
        or not width
        or new.get_height(rules, width) != height
        or _width_changes(
            widget, old.get_optimal_width(rules, width), new.get_optimal_width(rules, width)
        )
    )
    widget.update(new, layout=layout)
    if not layout:
        forget_box(widget)


def _width_changes(widget: Widget, before: int, after: int) -> bool:
    """Whether ``widget``'s box, or a container's around it, may change width when the
    text's width goes from ``before`` to ``after`` cells."""
    styles = widget.styles
    if styles.width is not None and styles.width.is_auto:
        # As wide as the text, within a minimum and a maximum given in cells.
        low, high = styles.min_width, styles.max_width
        if not all(limit is None or limit.is_cells for limit in (low, high)):
            return True
        gutter = styles.gutter.width
        border_box = styles.box_sizing == "border-box"
        box = after + gutter if border_box else after
        if low is not None:
            box = max(box, int(low.value))
        if high is not None:
            box = min(box, int(high.value))
        return (box if border_box else box + gutter) != widget.outer_size.width
    return width_follows_content(widget) and after != before
