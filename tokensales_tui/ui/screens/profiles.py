"""Pick another profile (or the demo) without restarting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ... import config
from ...api.connection import host_of
from ..closing import close
from ..following import Following
from ..key_hints import follow_keys, hint, hints
from ..safe import line, show
from ..widgets.footer import KeysFooter
from .base import ScreenKeys

DEMO_CHOICE = "\x00demo"
"""The option id of the embedded demo; no profile name can contain a NUL."""


@dataclass(frozen=True, slots=True)
class PickerChoice:
    """What the picker was asked: switch to a profile, add one, or edit one."""

    action: Literal["switch", "add", "edit"]
    name: str | None = None
    """The profile (or :data:`DEMO_CHOICE`) to switch to or edit; ``None`` to add."""


def profile_summary(profile: config.Profile) -> str:
    """What the picker shows beside a profile's name: its host, label and read-only flag."""
    parts = [host_of(profile.base_url)]
    if profile.label:
        parts.append(profile.label)
    if profile.read_only:
        parts.append("READ-ONLY")
    return " · ".join(parts)


class ProfileScreen(Following, ScreenKeys, ModalScreen[PickerChoice | None]):
    """Lists the profiles of the config file, and the demo; returns what was chosen.

    enter switches to the highlighted profile, ``a`` asks for a new one, ``e`` to edit
    the highlighted one (the demo has nothing to edit).
    """

    DEFAULT_CSS = """
    ProfileScreen { align: center middle; }
    ProfileScreen > Vertical {
        width: 60; max-width: 95%; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ProfileScreen .title { text-style: bold; padding: 1 0 0 0; }
    ProfileScreen .hint { color: $text-muted; padding-bottom: 1; }
    ProfileScreen OptionList { height: auto; max-height: 20; }
    """

    BINDINGS = [
        Binding("a", "add", "Add profile", id="profiles.add"),
        Binding("e", "edit", "Edit profile", id="profiles.edit"),
        Binding("escape,q", "cancel", "Close", id="profiles.close"),
    ]

    def __init__(
        self,
        profiles: list[tuple[str, str]],
        current: str | None,
        highlight: str | None = None,
    ) -> None:
        """``profiles`` is a list of (name, description: host, label, read-only).

        ``current`` is the profile in use, or :data:`DEMO_CHOICE`; it is marked ``●``.
        ``highlight`` is the profile the cursor starts on (default: the current one).
        """
        super().__init__()
        self.profiles = profiles
        self.current = current
        self.highlight = highlight or current

    def compose(self) -> ComposeResult:
        rows = [*self.profiles, ("demo", "embedded demo service")]
        ids = [name for name, _ in self.profiles] + [DEMO_CHOICE]
        # The names in a column, the addresses lined up after the widest.
        widths = {name: line(name).cell_length for name, _ in rows}
        widest = max(widths.values())
        options = [
            Option(
                line("● " if choice == self.current else "  ")
                + line(name, "bold")
                + line(" " * (widest - widths[name]) + "  " + description, "dim"),
                id=choice,
            )
            for choice, (name, description) in zip(ids, rows, strict=True)
        ]
        with Vertical():
            yield Static("Switch profile", classes="title")
            yield Static(classes="hint", markup=False)  # the keys: see on_mount
            yield OptionList(*options)
        yield KeysFooter(compact=True)  # this dialog's keys, not the screen's behind it

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        ids = [name for name, _ in self.profiles] + [DEMO_CHOICE]
        if self.highlight in ids:
            option_list.highlighted = ids.index(self.highlight)
        option_list.focus()
        follow_keys(self, self._say_keys)  # enter is the list's, once it has the focus

    def _say_keys(self) -> None:
        if self.is_attached:
            said = hints(
                self,
                [
                    ("select", "to switch"),
                    ("add", "to add"),
                    ("edit", "to edit"),
                    ("cancel", "to close"),
                ],
            )
            show(self.query_one(".hint", Static), line(said))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        close(self, PickerChoice("switch", event.option.id))

    def action_add(self) -> None:
        """Open the form for a new profile."""
        close(self, PickerChoice("add"))

    def action_edit(self) -> None:
        """Open the form on the highlighted profile."""
        option_list = self.query_one(OptionList)
        index = option_list.highlighted
        name = option_list.get_option_at_index(index).id if index is not None else None
        if name is None or name == DEMO_CHOICE:
            add = hint(self, "add", "to add a profile")
            self.notify(
                "The demo has no settings to edit" + (f": {add}" if add else ""),
                severity="warning",
            )
            return
        close(self, PickerChoice("edit", name))

    def action_cancel(self) -> None:
        close(self, None)
