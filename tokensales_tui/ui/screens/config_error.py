"""Shown instead of the app when the config file cannot be read, or the settings are incomplete.

The file is never rewritten from here: the user fixes it in an editor, or looks around
in the demo meanwhile. The message can quote the file's own text, so it is shown
literally.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from ... import config
from ..closing import close
from ..safe import content
from ..widgets.footer import KeysFooter
from .base import ScreenKeys

__all__ = ["ConfigErrorChoice", "ConfigErrorScreen"]

ConfigErrorChoice = Literal["demo", "quit"]


def location(error: config.ConfigError) -> str:
    """``path:line:column`` of the error, with the parts that are known."""
    parts = [str(part) for part in (error.path, error.line, error.column) if part is not None]
    return ":".join(parts) if parts else "the config file"


class ConfigErrorScreen(ScreenKeys, Screen[ConfigErrorChoice]):
    """Says where and why the config file is invalid; dismisses with ``"demo"`` or ``"quit"``.

    Args:
        error: the error :func:`config.load_config` raised.
    """

    DEFAULT_CSS = """
    ConfigErrorScreen { align-horizontal: center; }
    ConfigErrorScreen > VerticalScroll { width: 100%; max-width: 100; padding: 1 2; }
    ConfigErrorScreen .title { text-style: bold; color: $text-error; }
    ConfigErrorScreen .where { color: $text-accent; margin-top: 1; }
    ConfigErrorScreen .message { margin-bottom: 1; }
    ConfigErrorScreen .hint { color: $text-muted; }
    ConfigErrorScreen Horizontal { height: auto; margin-top: 1; }
    ConfigErrorScreen Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "demo", "Open demo", id="config_error.demo"),
        Binding("q", "quit", "Quit", id="config_error.quit"),
    ]

    def __init__(self, error: config.ConfigError) -> None:
        super().__init__()
        self.error = error

    def compose(self) -> ComposeResult:
        in_file = self.error.path is not None  # else the file read well: a setting is missing
        with VerticalScroll(can_focus=False):
            yield Static(
                "The config file could not be read" if in_file else "The settings are incomplete",
                classes="title",
                markup=False,
            )
            if in_file:
                yield Static(content(location(self.error)), classes="where")
            yield Static(content(self.error.message), classes="message")
            yield Static(
                "The file was left unchanged. Fix it in an editor and start again,"
                " or look around in the demo meanwhile."
                if in_file
                else "Nothing was changed. Add what is missing (a TOKENSALES_ variable, or the"
                " config file) and start again, or look around in the demo meanwhile.",
                classes="hint",
                markup=False,
            )
            with Horizontal():
                yield Button("Open demo", id="demo", variant="primary")
                yield Button("Quit", id="quit")
        yield KeysFooter()

    @on(Button.Pressed, "#demo")
    def action_demo(self) -> None:
        """Open the embedded demo; the config file stays as it is."""
        close(self, "demo")

    @on(Button.Pressed, "#quit")
    def action_quit(self) -> None:
        """Leave the app."""
        close(self, "quit")
