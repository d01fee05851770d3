"""A text area that never holds a control character, whatever is loaded, pasted or inserted.

Textual's ``TextArea`` draws its text as it is: an ESC in an imported file or a paste
would reach the terminal. Every way in — the initial text, ``load_text`` and each edit
(typing, pasting, ``insert``, ``replace``) — is cleaned here (:func:`~tokensales_tui.clean.clean`:
controls become visible marks, newlines and tabs stay), so the form's checks see and
flag the marks instead. A carriage return ends a line first, as in a file: terminals
paste each line break as one (and a Windows clipboard as CR LF).

Zero-width and format characters (ZWSP, ZWJ, BOM, the word joiner, LRM…) are kept in
the text, as typed or pasted, and drawn "⸱", one character for each
(:func:`~tokensales_tui.clean.settle_in_place`), as every other text of the app shows
them: a wallet ``0xab\\u200bcd`` must not read as ``0xabcd``. Textual's text area draws
the lines of its document and measures the cursor's column in them, so its document is
a :class:`ShownDocument`: its lines are as drawn, its text (what the form reads, copies
and undoes) as held. A character drawn is a character held, so every position stays.

A paste is taken once (:class:`~.pasting.TakesPastes`), cleaned as every edit is.

It also types without a layout of the whole screen at each key: Textual's text area
asks for one whenever the extent of its text changes (each character typed at the end
of a line), which in a form of many collections costs tens of milliseconds a key.
"""

from __future__ import annotations

from typing import Any, overload

from rich.cells import cell_len
from textual.geometry import Size
from textual.widgets import TextArea
from textual.widgets.text_area import (
    Document,
    DocumentNavigator,
    Edit,
    EditResult,
    WrappedDocument,
)

from ...clean import clean, settle_in_place
from ..boxes import width_follows_content
from ..following import Following
from .pasting import TakesPastes

__all__ = ["SafeTextArea", "ShownDocument"]


class ShownDocument(Document):
    """A document whose lines are as drawn and whose text is as held.

    Each line (``lines``, an index, ``get_line``, and the size measured from them) has
    every zero-width or format character as "⸱", one character for each; ``text``, a
    range's text and every edit are the characters held.
    """

    @property
    def lines(self) -> list[str]:
        return [settle_in_place(line) for line in self._lines]

    @overload
    def __getitem__(self, line_index: int) -> str: ...

    @overload
    def __getitem__(self, line_index: slice) -> list[str]: ...

    def __getitem__(self, line_index: int | slice) -> str | list[str]:
        if isinstance(line_index, slice):
            return [settle_in_place(line) for line in self._lines[line_index]]
        return settle_in_place(self._lines[line_index])

    def get_size(self, tab_width: int) -> Size:
        lines = self.lines
        width = max((cell_len(line.expandtabs(tab_width)) for line in lines), default=0)
        return Size(width, len(lines))


# TextArea's paste handler is a coroutine, the one taking its place is not: Textual calls either.
class SafeTextArea(Following, TakesPastes, TextArea):  # type: ignore[misc]
    """A ``TextArea`` whose text is always cleaned of control characters, that draws
    zero-width and format characters as marks and keeps them (and that lets go of the
    app's theme on unmount: Textual's watches it, see ``ui/following.py``)."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(_cleaned(text), **kwargs)

    def _set_document(self, text: str, language: str | None) -> None:
        # Textual makes a plain document of every text it loads (at the start too): it
        # is put back as a shown one, wrapped and measured as drawn.
        super()._set_document(text, language)
        if type(self.document) is Document:  # not a language's syntax-aware one
            self.document = ShownDocument(text)
            self.wrapped_document = WrappedDocument(self.document, tab_width=self.indent_width)
            self.navigator = DocumentNavigator(self.wrapped_document)
            self._rewrap_and_refresh_virtual_size()

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
