"""An input that never draws a control character, whatever its value holds, and takes
each key in the order it was typed.

Textual's ``Input`` draws its value as it is: a value set from server data or pasted
with an escape sequence would reach the terminal. This one draws each control, bidi or
surrogate character as a visible mark, one mark per character so that the cursor and
the selection stay where they were, and keeps the value itself as typed: the form's
checks name the character and its position, and nothing is silently changed. A
character whose width Rich and terminals count differently (a zero-width one, an emoji's
skin tone) is drawn settled, one character for it too
(:func:`~tokensales_tui.clean.settle_in_place`): the cursor stays where the terminal
draws it.

Textual's ``Input`` inserts a character in its own turn, but runs its bindings
(backspace, delete, the arrows) only once the key has gone up through every widget
around it to the app, a turn of the event loop each. Keys that reach it in one read of
the terminal (typed fast over SSH, or a held key) then land out of order: backspace
then ``x`` made ``gem`` into ``gemx``, then ``gem``. This one runs its own bindings in
its own turn, as the app would have first (the focused widget's bindings come first).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.dom import NoScreen
from textual.expand_tabs import expand_tabs_inline
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input

from ...clean import mark_controls, settle_in_place

__all__ = ["SafeInput"]


class SafeInput(Input):
    """An ``Input`` that draws control characters as visible marks."""

    @property
    def _value(self) -> Text:
        if self.password:
            return super()._value
        marked = _shown(self.value)
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

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable and await self._run_own_binding(event.key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_own_binding(self, key: str) -> bool:
        """Run this input's own binding of ``key`` (as the keymap has it); whether one ran.

        Those the app answers before any widget (priority bindings) have run already.
        """
        try:
            chain = self.screen._modal_binding_chain
        except NoScreen:  # not on a screen: the app's own way, later
            return False
        if not chain or chain[0][0] is not self:
            return False  # not the focused widget: the app finds the binding
        for binding in chain[0][1].key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _position_to_cell(self, position: int) -> int:
        return cell_len(expand_tabs_inline(_shown(self.value[:position]), 4))

    def validate__suggestion(self, suggestion: str) -> str:
        """Suggestions come from server data too (event names): draw them marked."""
        return _shown(suggestion)


def _shown(value: str) -> str:
    """``value`` as drawn: controls marked, characters of disputed width settled, one
    character for each (the cursor is a character offset)."""
    return settle_in_place(mark_controls(value))
