"""A yes/no question before anything destructive; Cancel is the default."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..closing import close
from ..safe import clamped, line
from ..widgets.button_row import ButtonRow
from ..widgets.footer import KeysFooter
from .base import ScreenKeys

SUBJECT_LINES = 4
"""Lines the object's name takes at most (a URL may have 2,000 characters)."""

DETAIL_LINES = 3
"""Lines the second line of the question takes at most."""


class ConfirmScreen(ScreenKeys, ModalScreen[bool]):
    """Asks before a destructive action and names the object concerned.

    Focus starts on Cancel, so an absent-minded enter changes nothing; keys typed before
    it opened (in one read with the key that opened it) are dropped.
    """

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > VerticalScroll {
        width: 64; max-width: 95%; height: auto; max-height: 100%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ConfirmScreen .question { text-style: bold; }
    ConfirmScreen .subject { margin-top: 1; }
    ConfirmScreen .detail { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape,q", "cancel", "Cancel", id="confirm.cancel"),
        Binding("left,right", "toggle_focus", "Switch button", show=False, id="confirm.switch"),
    ]

    CANCEL_LABEL = "Cancel"
    """The button that answers no, named as the key that does it is in the footer."""

    def __init__(
        self, question: str, subject: str, *, detail: str = "", confirm_label: str = "Delete"
    ) -> None:
        """``subject`` names the object (server text); ``detail`` is a second line, e.g. its id."""
        super().__init__()
        self.question = question
        self.subject = subject
        self.detail = detail
        self.confirm_label = confirm_label
        self._opened_at = float("inf")
        """When the dialog was composed, on the clock of Textual's events."""
        self._withdrawn = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(can_focus=False):  # scrolls in a short terminal; the buttons stay
            yield Static(line(self.question), classes="question")
            # Cut to a few lines: the question and its buttons stay on screen.
            yield Static(clamped(self.subject, SUBJECT_LINES), classes="subject")
            if self.detail:
                yield Static(clamped(self.detail, DETAIL_LINES), classes="detail")
            with ButtonRow():
                yield Button(line(self.CANCEL_LABEL), id="cancel")
                yield Button(line(self.confirm_label), id="confirm", variant="error")
        yield KeysFooter(compact=True)  # this dialog's keys, not the screen's behind it

    def on_compose(self, event: events.Compose) -> None:
        # Opened as it is composed, before Cancel takes the focus (at the end of the
        # compose, a moment before the mount on a busy loop): a key read from then on is
        # one typed with the dialog there, to answer it.
        self._opened_at = event.time

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_key(self, event: events.Key) -> None:
        # A key read before the dialog was there (typed ahead, in one read with the key
        # that opened it) never answers it: `d`, tab, enter typed at once deletes nothing.
        if event.time < self._opened_at:
            event.stop()
            event.prevent_default()

    def withdraw(self) -> None:
        """Take the question back unanswered (what asked it gave up): gone now, under
        another screen too (a newer question, the command palette); no key or button
        answers it any more."""
        self._withdrawn = True
        close(self, answer=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._answer(event.button.id == "confirm")

    def action_cancel(self) -> None:
        self._answer(False)

    def _answer(self, answer: bool) -> None:
        if not self._withdrawn:
            close(self, answer)

    def action_toggle_focus(self) -> None:
        self.focus_next(Button)


class DiscardScreen(ConfirmScreen):
    """Asks before what was typed in a form is thrown away; Keep editing is the default.

    Asked right after escape (or ctrl+q) was pressed to leave: "Cancel" there read as
    "cancel the form", the very thing the answer no does not do.
    """

    CANCEL_LABEL = "Keep editing"

    BINDINGS = [  # the same keys as ConfirmScreen's, named as the button is
        Binding("escape,q", "cancel", CANCEL_LABEL, id="confirm.cancel"),
    ]

    def __init__(self, question: str, subject: str, *, confirm_label: str = "Discard") -> None:
        super().__init__(question, subject, confirm_label=confirm_label)
