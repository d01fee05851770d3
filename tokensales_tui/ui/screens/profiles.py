"""Pick another profile (or the demo) without restarting."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..safe import line

DEMO_CHOICE = "\x00demo"
"""The option id of the embedded demo; no profile name can contain a NUL."""


class ProfileScreen(ModalScreen[str | None]):
    """Lists the profiles of the config file, and the demo; returns the chosen name."""

    DEFAULT_CSS = """
    ProfileScreen { align: center middle; }
    ProfileScreen > Vertical {
        width: 60; max-width: 95%; height: auto; max-height: 80%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    ProfileScreen .title { text-style: bold; padding: 1 0 0 0; }
    ProfileScreen .hint { color: $text-muted; padding-bottom: 1; }
    ProfileScreen OptionList { height: auto; max-height: 20; }
    """

    BINDINGS = [Binding("escape", "cancel", "Close", id="profiles.close")]

    def __init__(self, profiles: list[tuple[str, str]], current: str | None) -> None:
        """``profiles`` is a list of (name, description such as the host)."""
        super().__init__()
        self.profiles = profiles
        self.current = current

    def compose(self) -> ComposeResult:
        options = [
            Option(
                line("● " if name == self.current else "  ")
                + line(name, "bold")
                + line("  " + description, "dim"),
                id=name,
            )
            for name, description in self.profiles
        ]
        options.append(Option(line("  demo  (embedded demo service)"), id=DEMO_CHOICE))
        with Vertical():
            yield Static("Switch profile", classes="title")
            yield Static("enter to switch · escape to stay", classes="hint")
            yield OptionList(*options)
        yield Footer(compact=True)  # this dialog's keys, not the screen's behind it

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        ids = [name for name, _ in self.profiles]
        if self.current in ids:
            option_list.highlighted = ids.index(self.current)
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
