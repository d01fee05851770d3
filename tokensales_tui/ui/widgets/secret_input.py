"""A password field whose text never reaches the clipboard."""

from __future__ import annotations

from textual.actions import SkipAction

from .safe_input import SafeInput

__all__ = ["SecretInput"]


class SecretInput(SafeInput):
    """A password field whose text cannot be cut or copied to the clipboard.

    Copying would send the secret to the terminal in an OSC 52 sequence. Create it with
    ``password=True`` so the characters show as dots.
    """

    def action_copy(self) -> None:
        raise SkipAction()

    def action_cut(self) -> None:
        raise SkipAction()
