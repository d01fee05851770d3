"""A small dialog asking for the path of a list file to import into a form's list."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ..closing import close
from ..safe import content, line
from ..screens.base import ScreenKeys
from ..widgets.button_row import ButtonRow
from ..widgets.footer import KeysFooter
from ..widgets.safe_input import SafeInput
from .inputs import PathSuggester

__all__ = ["ImportListScreen"]


class ImportListScreen(ScreenKeys, ModalScreen[str | None]):
    """Asks for a file path; dismisses with it, or ``None`` on cancel.

    Args:
        target: what the values go into, e.g. "the wallets of collection 1".
    """

    DEFAULT_CSS = """
    ImportListScreen { align: center middle; }
    ImportListScreen > VerticalScroll {
        width: 76; max-width: 95%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    ImportListScreen .title { text-style: bold; }
    ImportListScreen .explain { color: $text-muted; margin: 1 0; }
    """

    TEXT_FIELDS = (SafeInput,)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="import.cancel"),
    ]

    def __init__(self, target: str, path: str = "") -> None:
        """``path`` is what the field starts with: the path typed last time, if any."""
        super().__init__()
        self.target = target
        self.path = path

    def compose(self) -> ComposeResult:
        with VerticalScroll(can_focus=False):  # scrolls in a short terminal; the buttons stay
            yield Static(line(f"Import into {self.target}"), classes="title")
            yield Static(
                content(
                    "A text file with one value per line, or a CSV file with a header "
                    "(the column is found by its name). The values are added to the list, "
                    "where the form checks them. → completes the path."
                ),
                classes="explain",
            )
            yield SafeInput(
                self.path, placeholder="~/whitelist.csv", suggester=PathSuggester(), id="path"
            )
            with ButtonRow():
                yield Button("Cancel", id="cancel")
                yield Button("Import", id="import", variant="primary")
        yield KeysFooter(compact=True)  # this dialog's keys, not the form's behind it

    @on(Input.Submitted)
    @on(Button.Pressed, "#import")
    def _import(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if path:
            close(self, path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without importing."""
        close(self, None)
