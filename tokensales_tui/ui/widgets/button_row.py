"""A dialog's buttons: at its foot, in view however tall the dialog, never cut short."""

from __future__ import annotations

from rich.cells import cell_len
from textual.containers import Horizontal
from textual.widgets import Button

__all__ = ["ButtonRow"]

FULL_EXTRA = 2 + 2 + 2
"""Cells a full button takes beside its label: its border, its padding and the margin
before it (see the CSS)."""
FULL_LEAST = 16
"""Cells a full button takes at least (Textual's ``min-width``)."""
COMPACT_EXTRA = 2 + 1
"""Cells a compact button takes beside its label: its padding and the margin before it."""


class ButtonRow(Horizontal):
    """A dialog's buttons, on the right, docked at the dialog's foot: in a dialog that
    scrolls (its container a ``VerticalScroll``), the rest scrolls and they stay.

    Where they do not fit side by side at their size, they lose their borders (a row
    tall); where even then they do not, they go one below the other. A button is never
    cut ("Delet") nor pushed past the dialog's edge, and its keys work as ever.
    """

    DEFAULT_CSS = """
    ButtonRow {
        dock: bottom;
        height: auto;
        margin-top: 1;
        align-horizontal: right;
        & > Button { margin-left: 2; }
        &.-compact > Button { min-width: 0; margin-left: 1; }
        &.-stacked { layout: vertical; }
        &.-stacked > Button { width: 100%; margin-left: 0; }
    }
    """

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        width = self.size.width
        if not width:
            return
        labels = [cell_len(str(b.label)) for b in self.query_children(Button) if b.display]
        compact = sum(max(FULL_LEAST, label + 4) + 2 for label in labels) > width
        stacked = sum(label + COMPACT_EXTRA for label in labels) > width
        self.set_class(compact, "-compact")
        self.set_class(stacked, "-stacked")
        for button in self.query_children(Button):
            button.compact = compact
