"""The one-line header: profile, host, token state, read-only and mask markers."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Static

from ...api.auth import TokenState
from ...clean import clean_line
from ...mask import masking
from ..following import Following
from ..safe import line, show


@dataclass(frozen=True)
class HeaderInfo:
    """What the header says about the session."""

    profile: str
    host: str
    label: str | None = None
    read_only: bool = False
    demo: bool = False
    overridden: tuple[str, ...] = ()
    """Variables and flags that override the profile's settings (``TOKENSALES_BASE_URL``)."""


LONGEST_SHOWN = 366 * 86400.0
"""Token lifetimes past this (in seconds) show without a figure."""


def describe_token(state: TokenState) -> str:
    """``token valid 59:12`` and the like."""
    if state.status == "none":
        return "token: not yet"
    if state.status == "failed":
        return "token: failed"
    if state.status == "refused":
        return "token: refused"
    if state.status == "refreshing":
        return "token: refreshing…"
    expires_in = state.expires_in
    # A server may claim any lifetime (1e308, infinity, NaN): past a year it is just "valid".
    if expires_in is None or not expires_in <= LONGEST_SHOWN:
        return "token: valid"
    if expires_in < 1:
        return "token: expired — renewed on the next request"
    seconds = int(expires_in)
    if seconds < 300:  # the last minutes count down by the second
        return f"token: valid {seconds // 60}:{seconds % 60:02d}"
    minutes = -(-seconds // 60)
    if minutes > 120:
        return f"token: valid {minutes // 60} h"
    return f"token: valid {minutes} min"


class StatusHeader(Following, Horizontal):
    """Profile (with its label), host and token state on one line.

    A labelled, demo or read-only profile shows its badge in a distinct colour,
    so production is never mistaken for staging.
    """

    DEFAULT_CSS = """
    StatusHeader {
        height: 1;
        dock: top;
        background: $panel;
        color: $foreground;
        /* What does not fit is cut with an ellipsis, never silently: a host cut
           after its colon reads as whole. A long profile name or label keeps room
           for the host. */
        & > Static { width: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
        & > .profile { max-width: 22%; }
        & > .label-badge { max-width: 19%; }
        & > .app-name { text-style: bold; color: $accent; }
        & > .badge { display: none; text-style: bold; }
        & > .badge.-shown { display: block; }
        & > .label-badge { background: $warning; color: $background; }
        & > .demo-badge { background: $success; color: $background; }
        & > .ro-badge { background: $error; color: $background; }
        & > .mask-badge { background: $secondary; color: $background; }
        & > .host { color: $text-muted; width: 1fr; min-width: 4; }
        & > .token { color: $text-muted; min-width: 21; }
        & > .token.-failed { color: $error; text-style: bold; }
    }
    """

    info: reactive[HeaderInfo | None] = reactive(None, layout=True)
    token: reactive[TokenState] = reactive(TokenState("none"))

    def __init__(self) -> None:
        super().__init__()
        # Built here, not found by a query: the app's clock sets the token state every
        # second, also while the app shuts down and these are already removed.
        self._profile = Static("", classes="profile")
        self._demo = Static("DEMO", classes="badge demo-badge")
        self._label = Static("", classes="badge label-badge")
        self._read_only = Static("READ-ONLY", classes="badge ro-badge")
        self._masked = Static("MASKED", classes="badge mask-badge")
        self._host = Static("", classes="host")
        self._token = Static("", classes="token")

    def compose(self) -> ComposeResult:
        yield Static("tokensales", classes="app-name")
        yield self._profile
        yield self._demo
        yield self._label
        yield self._read_only
        yield self._masked
        yield self._host
        yield self._token

    def watch_info(self, info: HeaderInfo | None) -> None:
        if info is None or not self.is_mounted:
            return
        show(self._profile, line(f"profile {clean_line(info.profile)}"))
        show(self._label, line(info.label or ""))
        self._label.set_class(bool(info.label) and not info.demo, "-shown")
        self._demo.set_class(info.demo, "-shown")
        self._read_only.set_class(info.read_only, "-shown")
        # When the file's profile is not all there is, say what else is used.
        overridden = f"  overridden by {', '.join(info.overridden)}" if info.overridden else ""
        show(self._host, line(info.host) + line(overridden, "bold"))

    def on_mount(self) -> None:
        self.watch_info(self.info)
        self.watch_token(self.token)
        self.show_masking(masking())
        signal = getattr(self.app, "mask_changed_signal", None)
        if signal is not None:
            self.follow(signal, self.show_masking)

    def show_masking(self, on: bool) -> None:
        """Show MASKED while mask mode is on."""
        self._masked.set_class(on, "-shown")

    def watch_token(self, state: TokenState) -> None:
        if not self.is_mounted:
            return
        show(self._token, line(describe_token(state)))
        self._token.set_class(state.status in ("failed", "refused"), "-failed")
