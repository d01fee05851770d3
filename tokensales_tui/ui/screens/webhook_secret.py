"""Asks for a webhook's secret, so that the deliveries screen can check signatures."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...checks import secret_as_given
from ..closing import close
from ..following import Following
from ..key_hints import follow_keys, hints
from ..safe import content, show
from ..widgets.footer import KeysFooter
from ..widgets.secret_input import SecretInput
from .base import ScreenKeys


class WebhookSecretScreen(Following, ScreenKeys, ModalScreen[str | None]):
    """A masked field for the secret of the webhook whose deliveries arrive.

    Dismissed with the secret as typed, spaces and all (as ``--secret-file`` reads it:
    see :func:`~tokensales_tui.checks.secret_as_given`), or None when cancelled or left
    empty or blank. What is typed shows as dots and
    cannot be copied; it is kept in memory only.
    """

    DEFAULT_CSS = """
    WebhookSecretScreen { align: center middle; }
    WebhookSecretScreen > VerticalScroll {
        width: 64; max-width: 95%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    WebhookSecretScreen .question { text-style: bold; }
    WebhookSecretScreen SecretInput { margin-top: 1; }
    WebhookSecretScreen .hint { color: $text-muted; margin-top: 1; }
    """

    TEXT_FIELDS = (SecretInput,)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="webhook_secret.cancel"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(can_focus=False):  # scrolls in a short terminal
            yield Static("The webhook's secret", classes="question", markup=False)
            yield SecretInput(password=True, id="webhook-secret")
            yield Static(classes="hint", markup=False)  # see _say_keys
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(SecretInput).focus()
        follow_keys(self, self._say_keys)  # enter is the field's, once it has the focus

    def _say_keys(self) -> None:
        if not self.is_attached:
            return
        keys = hints(self, [("submit", "sets it"), ("cancel", "cancels")], ", ")
        said = (
            "Deliveries that arrive from now on have their signatures checked, and"
            " replays are signed with it. Kept in memory only, never shown or saved"
        )
        show(self.query_one(".hint", Static), content(f"{said} ({keys})." if keys else f"{said}."))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        close(self, secret_as_given(event.value) or None)

    def action_cancel(self) -> None:
        """Close without a secret."""
        close(self, None)
