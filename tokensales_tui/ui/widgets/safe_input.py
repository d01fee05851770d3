"""An input that never draws a control character, whatever its value holds.

Textual's ``Input`` draws its value as it is: a value set from server data or pasted
with an escape sequence would reach the terminal. This one draws each control, bidi or
surrogate character as a visible mark, one mark per character so that the cursor and
the selection stay where they were, and keeps the value itself as typed: the form's
checks name the character and its position, and nothing is silently changed.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.expand_tabs import expand_tabs_inline
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input

from ...clean import mark_controls

__all__ = ["SafeInput"]


class SafeInput(Input):
    """An ``Input`` that draws control characters as visible marks."""

    @property
    def _value(self) -> Text:
        if self.password:
            return super()._value
        marked = mark_controls(self.value)
        text = Text(marked, no_wrap=True, overflow="ignore", end="")  # gate: marked above
        return self.highlighter(text) if self.highlighter is not None else text

    def _watch_value(self, value: str) -> None:
        # Input makes its virtual size as wide as its text at each change, and that
        # reactive lays out the whole screen (15-20 ms a key on a slow machine). An
        # input whose size does not follow its text needs no layout for it: the size is
        # set quietly first, and Input's own update then changes nothing.
        if not self.styles.auto_dimensions:
            self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def _position_to_cell(self, position: int) -> int:
        return cell_len(expand_tabs_inline(mark_controls(self.value[:position]), 4))

    def validate__suggestion(self, suggestion: str) -> str:
        """Suggestions come from server data too (event names): draw them marked."""
        return mark_controls(suggestion)
