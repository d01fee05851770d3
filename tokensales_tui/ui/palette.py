"""The command palette, whose search field takes a paste as one line of text.

Textual's palette searches as a command is typed, in an ``Input`` of its own: a paste
put its first line there, raw (an ESC and the rest of a colour sequence went to the
terminal as they were), and a paste whose first line was blank put nothing, without a
word. Here the field is a :class:`~.widgets.safe_input.SafeInput` too: a command is one
line, so a paste of several puts its first line that is not blank (lines end at CR or
LF, :func:`~tokensales_tui.checks.split_lines`), and says the rest was left out; every
character of it is drawn as the other fields draw it (a control as a mark). No command
runs for a paste: a command runs when it is chosen.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.command import CommandInput, CommandList, CommandPalette, SearchIcon
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, LoadingIndicator

from ..checks.text import split_lines
from .widgets.safe_input import SafeInput

__all__ = ["PaletteInput", "SafePalette"]


class PaletteInput(CommandInput, SafeInput):
    """The palette's search field: drawn and pasted into as every field of the app (its
    first base gives it the palette's style; it adds no method)."""

    def pasted(self, text: str) -> str:
        """The first line of ``text`` that is not blank; a toast says when more followed."""
        lines = [line for line in split_lines(text) if line.strip()]
        if len(lines) > 1:
            self.notify(
                f"A command is one line: the first was pasted, {len(lines) - 1:,} more left out",
                severity="warning",
                markup=False,
            )
        return lines[0] if lines else ""


class SafePalette(CommandPalette):
    """Textual's command palette with :class:`PaletteInput` for its search field."""

    def compose(self) -> ComposeResult:
        # Textual's compose, with the search field replaced.
        with Vertical(id="--container"):
            with Horizontal(id="--input"):
                yield SearchIcon()
                yield PaletteInput(placeholder=self._placeholder, select_on_focus=False)
                if not self.run_on_select:
                    yield Button("\u25b6")
            with Vertical(id="--results"):
                yield CommandList()
                yield LoadingIndicator()
