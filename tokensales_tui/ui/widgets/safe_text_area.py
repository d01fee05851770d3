"""A text area that never holds a control character, whatever is loaded, pasted or inserted.

Textual's ``TextArea`` draws its text as it is: an ESC in an imported file or a paste
would reach the terminal. Every way in — the initial text, ``load_text`` and each edit
(typing, pasting, ``insert``, ``replace``) — is cleaned here (:func:`~tokensales_tui.clean.clean`:
controls become visible marks, newlines and tabs stay), so the form's checks see and
flag the marks instead. A carriage return ends a line first, as in a file: terminals
paste each line break as one (and a Windows clipboard as CR LF).

A paste is taken once (:class:`~.pasting.TakesPastes`), cleaned as every edit is.

It also types without a layout of the whole screen at each key: Textual's text area
asks for one whenever the extent of its text changes (each character typed at the end
of a line), which in a form of many collections costs tens of milliseconds a key.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from ...clean import clean
from ..boxes import width_follows_content
from ..following import Following
from .pasting import TakesPastes

__all__ = ["SafeTextArea"]


# TextArea's paste handler is a coroutine, the one taking its place is not: Textual calls either.
class SafeTextArea(Following, TakesPastes, TextArea):  # type: ignore[misc]
    """A ``TextArea`` whose text is always cleaned of control characters (and that lets go
    of the app's theme on unmount: Textual's watches it, see ``ui/following.py``)."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(_cleaned(text), **kwargs)

    def pasted(self, text: str) -> str:
        """``text`` cleaned as every edit is (its line breaks made ``\\n``)."""
        return _cleaned(text)

    def action_paste(self) -> None:
        """Paste the app's own clipboard, as a paste from the terminal is taken."""
        self.take_paste(self.app.clipboard)

    def put_pasted(self, text: str) -> None:
        if self.read_only:
            return
        if result := self._replace_via_keyboard(text, *self.selection):
            self.move_cursor(result.end_location)
            self.focus()

    def load_text(self, text: str) -> None:
        """Replace the text, cleaned."""
        super().load_text(_cleaned(text))

    def edit(self, edit: Edit) -> EditResult:
        """Perform an edit whose inserted text is cleaned first."""
        edit.text = _cleaned(edit.text)
        return super().edit(edit)

    def _refresh_size(self) -> None:
        """Take the text's new extent; lay out the screen only if the box follows it.

        A text area of a fixed height and a width that does not follow its content keeps
        its box whatever it holds: the new extent moves only its own scrollbars, which
        ask for a layout themselves when one appears or goes.
        """
        height = self.styles.height
        if height is None or not height.is_cells or width_follows_content(self):
            super()._refresh_size()
            return
        if self.soft_wrap:
            size = Size(0, self.wrapped_document.height)
        else:  # one more column for the cursor at the end of the longest line, as Textual
            columns, lines = self.document.get_size(self.indent_width)
            size = Size(columns + self.gutter_width + 1, lines)
        if size != self.virtual_size:
            self.set_reactive(TextArea.virtual_size, size)
            self._scroll_update(size)
            self.refresh()
        self._refresh_scrollbars()


def _cleaned(text: str) -> str:
    """``text`` with CR LF and CR as line breaks, then cleaned."""
    return clean(text.replace("\r\n", "\n").replace("\r", "\n"))
