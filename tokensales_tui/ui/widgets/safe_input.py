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

A placeholder wider than the field is cut after its last whole word that fits, with
"…" (:func:`fit_words`): Textual's showed the first line of it folded to the field's
width, which ends mid-phrase with no sign that it goes on. Focusing the field never
selects its text: the first key typed into a form opened on stored values would replace
the whole value.

Textual's ``Input`` inserts a character in its own turn, but runs its bindings
(backspace, delete, the arrows) only once the key has gone up through every widget
around it to the app, a turn of the event loop each. Keys that reach it in one read of
the terminal (typed fast over SSH, or a held key) then land out of order: backspace
then ``x`` made ``gem`` into ``gemx``, then ``gem``. This one runs its own bindings in
its own turn, as the app would have first (the focused widget's bindings come first).

A paste is taken once (:class:`~.pasting.TakesPastes`), its line breaks each made one
space, those at its ends left out (a line copied whole ends with one): Textual's kept
the first line only, and the rest was lost unseen. A field bounded in length takes
what fits and says it was cut (:meth:`~textual.widgets.Input.restricted`).
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.dom import NoScreen
from textual.expand_tabs import expand_tabs_inline
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

from ...clean import mark_controls, settle_in_place
from ..wrap import cut_to_cells
from .pasting import TakesPastes

__all__ = ["SafeInput", "fit_words"]

ELLIPSIS = "…"
_WORD = re.compile(r'"[^"]*"|\S+')
_LINE_BREAKS = re.compile(r"[\r\n]+")


class SafeInput(TakesPastes, Input):
    """An ``Input`` that draws control characters as visible marks, cuts its placeholder
    at a word, leaves its text unselected when focused (the cursor at its end) and takes
    a paste once, on one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)

    def render_line(self, y: int) -> Strip:
        full = self.placeholder
        fitted = fit_words(full, self.scrollable_content_region.width)
        if self.value or fitted == full:
            return super().render_line(y)
        # Drawn with the fitted placeholder, kept as set (no watcher, no refresh).
        self.set_reactive(Input.placeholder, fitted)
        try:
            return super().render_line(y)
        finally:
            self.set_reactive(Input.placeholder, full)

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
        # Textual runs Input's own handler next, unless the key is done with here.
        if not event.is_printable and await self._run_own_binding(event.key):
            event.stop()
            event.prevent_default()

    def pasted(self, text: str) -> str:
        """``text`` on one line: each run of line breaks one space, none at its ends."""
        return _LINE_BREAKS.sub(" ", text.strip("\r\n"))

    def action_paste(self) -> None:
        """Paste the app's own clipboard, as a paste from the terminal is taken."""
        self.take_paste(self.app.clipboard)

    def put_pasted(self, text: str) -> None:
        start, end = sorted(self.selection)
        room = self.max_length - (len(self.value) - (end - start)) if self.max_length else None
        if room is not None and len(text) > room:
            self.replace(text[: max(room, 0)], start, end)
            self.restricted()  # what did not fit is said, not refused whole
            return
        self.replace(text, start, end)

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


def fit_words(text: str, width: int) -> str:
    """``text`` cut after its last whole word that fits ``width`` cells, with "…" after
    it; as it is when it fits.

    A word, or a phrase between double quotes, is never cut through, and the "…" says
    more was to be read. A first word wider than ``width`` is cut where the line ends.
    """
    if cell_len(text) <= width:
        return text
    if width < 1:
        return ""
    room = width - 1
    kept = ""
    for word in _WORD.finditer(text):
        if cell_len(text[: word.end()]) > room:
            break
        kept = text[: word.end()]
    if not kept:
        kept = cut_to_cells(text, room).rstrip()
    return kept.rstrip(" ,;:—-·") + ELLIPSIS
