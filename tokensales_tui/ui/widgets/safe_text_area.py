"""A text area that never holds a control character, whatever is loaded, pasted or inserted.

Textual's ``TextArea`` draws its text as it is: an ESC in an imported file or a paste
would reach the terminal. Every way in — the initial text, ``load_text`` and each edit
(typing, pasting, ``insert``, ``replace``) — is cleaned here (:func:`~tokensales_tui.clean.clean`:
controls become visible marks, newlines and tabs stay), so the form's checks see and
flag the marks instead.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from ...clean import clean

__all__ = ["SafeTextArea"]


class SafeTextArea(TextArea):
    """A ``TextArea`` whose text is always cleaned of control characters."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(clean(text), **kwargs)

    def load_text(self, text: str) -> None:
        """Replace the text, cleaned."""
        super().load_text(clean(text))

    def edit(self, edit: Edit) -> EditResult:
        """Perform an edit whose inserted text is cleaned first."""
        edit.text = clean(edit.text)
        return super().edit(edit)
