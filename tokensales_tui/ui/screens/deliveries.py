"""The deliveries screen: webhook deliveries as they arrive, each openable and replayable.

It draws from a receiver (:class:`~tokensales_tui.webhooks.receiver.Receiver`): ``listen``
shows the one it serves, the demo the one its emulator delivers to in-process. Arrivals only
mark the screen stale; a timer redraws at most ten times a second, so a flood of deliveries
costs a few redraws, not one per delivery.

A key is offered only where it can act (``r`` needs a target to replay to, ``s`` a receiver
without a secret, ``x`` a suggested command), and the screen's own lines name the keys as
they are bound, from the same check: what the footer does not show, no line mentions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Static

from ...clean import clean_line
from ...digits import ascii_int
from ...webhooks.headers import Latin1Text
from ...webhooks.receiver import shown_headers
from ..closing import close
from ..key_hints import hint, hints, spoken
from ..safe import content, line, show
from ..safe_app import copy
from ..widgets.delivery_list import DeliveryList
from ..widgets.footer import KeysFooter
from ..work_failures import WorkFailed
from .base import ScreenKeys
from .detail import DetailScreen
from .help import Section, sections_from_bindings
from .webhook_secret import WebhookSecretScreen

REFRESH_SECONDS = 0.1
"""Longest time an arrival waits to be drawn; also the least time between two redraws."""
HEADING_LINE = 1000
"""Characters a heading line keeps (an event list a server made endless is cut)."""


def delivery_detail(delivery: Any, body_limit: int | None = None) -> DetailScreen:
    """The detail view of one delivery: verdict, relay and headers on top, the body below
    (or why it was not kept: over ``body_limit``)."""
    verdict = delivery.verdict
    moment = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(delivery.received))
    size = size_said(delivery, body_limit)
    fields: list[tuple[str, object]] = [
        ("Received", f"{moment}  {delivery.method} {delivery.path}"),
        ("Verdict", verdict.label()),
        ("Why", verdict.reason),
        ("Size", size),
    ]
    if delivery.problem and verdict.status != "error":
        fields.append(("Problem", delivery.problem))
    if delivery.relay is not None:
        fields.append(("Relay", f"{delivery.relay.label()} → {delivery.relay.target}"))
    for replay in delivery.replays:
        signed = "re-signed" if replay.resigned else "as received"
        outcome = "on its way…" if replay.pending else replay.label()
        fields.append(("Replay", f"{outcome} → {replay.target} ({signed})"))
    fields += [
        (name, f"{value}  (not UTF-8: read as Latin-1)" if isinstance(value, Latin1Text) else value)
        for name, value in shown_headers(delivery.headers)
    ]
    return DetailScreen(
        f"Delivery #{delivery.number} {delivery.event_type or ''}",
        fields,
        body_value(delivery.body),
        object_id=verdict.delivery_id,
        absent=f"The body was not kept: {size}" if delivery.too_large else None,
    )


def size_said(delivery: Any, body_limit: int | None) -> str:
    """How large ``delivery``'s body was, in words: ``1,234 bytes``; for one over the
    limit, which was not read to its end, what is known (``at least``, or the size its
    ``Content-Length`` announced) and the limit."""
    if not delivery.too_large:
        return f"{delivery.size:,} bytes"
    announced = ascii_int(delivery.header("content-length") or "", 20)
    if announced is not None and announced >= delivery.size:
        size = f"{announced:,} bytes (its Content-Length)"
    else:
        size = f"at least {delivery.size:,} bytes"
    limit = f"the {body_limit:,}-byte limit" if body_limit else "the limit"
    return f"{size}, over {limit}"


def count_said(source: Any, kept: int) -> str:
    """How many deliveries ``source`` received, how many were cut short (and by listen),
    and how many the list keeps: ``401 received, 400 cut short (400 by listen), 11 listed
    (10 of them cut short)`` — a flood of stalled bodies is counted here, its rows few."""
    said = f"{source.count:,} received"
    cut_short = source.cut_short
    if cut_short:
        closed = source.closed_by_listen
        said += f", {cut_short:,} cut short" + (f" ({closed:,} by listen)" if closed else "")
    if source.count > kept:
        if cut_short:
            said += f", {kept:,} listed ({source.cut_short_kept:,} of them cut short)"
        else:
            said += f", the last {kept:,} kept"
    return said


@dataclass(frozen=True)
class SuggestedCommand:
    """A command the screen suggests: shown whole on lines of its own, copied by a key.

    A command in a sentence is cut where the heading ends, and a wrapped one copied from
    the terminal carries its line breaks; so it stands apart, and a key copies it whole.
    """

    purpose: str
    """What it is for, said before it (the key that copies it is named after)."""
    text: str
    """The command, ready to paste: each word quoted for a shell where it needs it."""


def body_value(body: bytes) -> object:
    """The body as JSON when it is JSON, else as text."""
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


class DeliveriesScreen(ScreenKeys, Screen[None]):
    """Webhook deliveries, live: time, type, size, verdict, relay and its latency.

    Args:
        source: the receiver whose kept deliveries are shown (``deliveries``, ``count``,
            ``cut_short``, ``closed_by_listen``, ``cut_short_kept``, ``replay``,
            ``replay_refusal``, ``target_for``, ``has_target``, ``relay_deadline``,
            ``secret``, ``body_limit``).
        heading: our lines on top: where it listens, where deliveries go. Whether the
            source has a secret is said here, with the key that enters one.
        command: a command to suggest, shown apart and copied by a key.
        quit_on_back: leave the app on escape/q (``listen``) instead of going back.
    """

    DEFAULT_CSS = """
    DeliveriesScreen {
        & > #deliveries-heading {
            height: auto;
            max-height: 6;
            padding: 0 1;
            background: $panel;
        }
        & > #deliveries-command {
            height: auto;
            max-height: 5;
            padding: 0 1;
            background: $panel;
            display: none;
            &.-shown { display: block; }
        }
        & > #deliveries-count {
            height: 1;
            padding: 0 1;
            color: $text-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="deliveries.back"),
        Binding("q", "back", "Back", show=False, id="deliveries.back_q"),
        Binding("enter", "open", "Open", id="deliveries.open"),
        Binding("r", "replay", "Replay", id="deliveries.replay"),
        # Named in the heading, beside what they act on: the footer has no room for them at 80.
        Binding("s", "secret", "Secret", show=False, id="deliveries.secret"),
        Binding("x", "copy_command", "Copy command", show=False, id="deliveries.copy_command"),
        Binding("c", "copy_body", "Copy body", id="deliveries.copy_body"),
        Binding("y", "copy_json", "Copy JSON", id="deliveries.copy_json"),
        Binding("question_mark", "app.help", "Help", id="deliveries.help"),
    ]

    delivery_list = getters.query_one("#deliveries-list", DeliveryList)

    def __init__(
        self,
        source: Any,
        heading: Sequence[str],
        *,
        command: SuggestedCommand | None = None,
        quit_on_back: bool = False,
    ) -> None:
        super().__init__()
        self.source = source
        self.command = command
        self._heading = list(heading)
        self._quit_on_back = quit_on_back
        self._stale = True
        self._secret_from: int | None = None
        """The first delivery judged with a secret entered here, once one was."""

    def compose(self) -> ComposeResult:
        yield Static(id="deliveries-heading")
        yield Static(id="deliveries-command")
        yield Static(id="deliveries-count")
        yield DeliveryList(id="deliveries-list")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.delivery_list.focus()
        self._show_heading()
        self.set_interval(REFRESH_SECONDS, self._redraw)
        self._redraw()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys that cannot act here: replay without a target, a secret where
        one is known, a command's copy where none is suggested."""
        if action == "replay":
            return bool(self.source.has_target)
        if action == "secret":
            return self.source.secret is None
        if action == "copy_command":
            return self.command is not None
        return True

    def _show_heading(self) -> None:
        # Each line one line, whatever a server named its events (a newline, 5,000 characters):
        # the heading has six rows.
        lines = [clean_line(text)[:HEADING_LINE] for text in self._heading]
        if self.source.secret is None:
            enter = hint(self, "secret", "enters the webhook's secret")
            enter = f" — {enter}" if enter else ""
            lines.append(f"no secret given, so signatures are named, not checked{enter}")
        elif self._secret_from is not None:
            lines.append(
                f"secret entered: signatures are checked from delivery #{self._secret_from:,} on"
            )
        show(self.query_one("#deliveries-heading", Static), content("\n".join(lines)))
        command = self.query_one("#deliveries-command", Static)
        if self.command is not None:
            copies = hint(self, "copy_command", "copies it")
            copies = f" ({copies})" if copies else ""
            said = content(f"{clean_line(self.command.purpose)}{copies}:\n")
            show(command, said + content(clean_line(self.command.text), "bold"))
        command.set_class(self.command is not None, "-shown")

    def note_change(self, delivery: object = None) -> None:
        """A delivery arrived or changed: draw it with the next refresh."""
        self._stale = True

    def _redraw(self) -> None:
        if not self._stale or not self.is_mounted:
            return
        self._stale = False
        rows = list(self.source.deliveries)
        self.delivery_list.set_rows(rows)
        keys = hints(self, [("open", "opens one"), ("replay", "replays it")], ", ")
        keys = f" — {keys}" if keys else ""
        show(
            self.query_one("#deliveries-count", Static),
            line(f"{count_said(self.source, len(rows))}{keys}"),
        )

    @on(DeliveryList.Chosen)
    def _chosen(self, event: DeliveryList.Chosen) -> None:
        self.app.push_screen(delivery_detail(event.delivery, self.source.body_limit))

    def action_open(self) -> None:
        """Open the highlighted delivery."""
        delivery = self.delivery_list.highlighted
        if delivery is not None:
            self.app.push_screen(delivery_detail(delivery, self.source.body_limit))

    def action_back(self) -> None:
        """Leave the screen (or, in ``listen``, the app)."""
        if self._quit_on_back:
            self.app.exit()
        else:
            close(self)

    def action_replay(self) -> None:
        """Send the highlighted delivery again to its target, signed anew if possible."""
        delivery = self.delivery_list.highlighted
        if delivery is None:
            self.notify("No delivery to replay", severity="warning")
            return
        refused = self.source.replay_refusal(delivery)
        if refused is not None:
            self.notify(f"#{delivery.number} not replayed: {refused}", severity="warning")
            return
        target = self.source.target_for(delivery.event_type)
        self.notify(
            f"Replaying #{delivery.number} to {clean_line(target)}"
            f" (at most {self.source.relay_deadline:g} s)…"
        )
        self.run_worker(self._replay(delivery), group="replay")

    def on_work_failed(self, event: WorkFailed) -> None:
        """A replay failed in a way not foreseen. Nothing here shows it under way (its
        start and its outcome are toasts): the app says the failure."""

    async def _replay(self, delivery: Any) -> None:
        outcome = await self.source.replay(delivery)
        self.note_change()
        if outcome.status is None:
            self.notify(f"Replay of #{delivery.number}: {outcome.label()}", severity="warning")
            return
        signed = "re-signed with a fresh timestamp" if outcome.resigned else "headers as received"
        severity: SeverityLevel = "information" if 200 <= outcome.status < 300 else "warning"
        self.notify(
            f"Replayed #{delivery.number} to {clean_line(outcome.target)}: {outcome.label()} ({signed})",
            severity=severity,
        )

    def action_secret(self) -> None:
        """Ask for the webhook's secret: the deliveries that arrive from then on are
        checked against it, and replays signed with it."""
        if self.source.secret is not None:
            return

        def entered(secret: str | None) -> None:
            if secret is None:
                self.notify("No secret entered: signatures stay unchecked")
                return
            self.source.secret = secret
            self._secret_from = self.source.count + 1
            self._show_heading()
            self.refresh_bindings()
            before = " (those before keep their verdict)" if self.source.count else ""
            self.notify(
                f"Secret entered: deliveries from #{self._secret_from:,} on are checked"
                f" against it{before}"
            )

        self.app.push_screen(WebhookSecretScreen(), entered)

    def action_copy_command(self) -> None:
        """Copy the command the screen suggests, whole."""
        if self.command is not None:
            text = self.command.text
            copy(self.app, text, f"Copied the command: {text}", line=True)

    def help_sections(self, keymap: Mapping[str, str]) -> list[Section]:
        """The view's own keys that act here (the screen's and its list's) and the app's
        ctrl+z, as bound now (``keymap`` is applied already), for the help."""
        acting = [
            active.binding
            for active in self.active_bindings.values()
            if (active.binding.id or "").startswith("deliveries.") or active.binding.id == "suspend"
        ]
        return sections_from_bindings([("Webhook deliveries", acting)], app=self.app)

    def keys_said(self) -> str:
        """This screen's keys that act here, as bound now, for a line of help."""
        return " · ".join(
            f"{spoken(key, active.binding)} {active.binding.description.lower()}"
            for key, active in self.active_bindings.items()
            if active.node is self
            and (active.binding.id or "").startswith("deliveries.")
            and active.binding.action not in ("back", "app.help")
        )

    def action_copy_body(self) -> None:
        """Copy the highlighted delivery's body."""
        delivery = self.delivery_list.highlighted
        if delivery is not None:
            body = delivery.body.decode("utf-8", "replace")
            said = f"Copied the body of #{delivery.number} ({len(delivery.body):,} bytes)"
            if not delivery.whole:  # cut short, over the limit, or not read
                said += ": it did not arrive whole" if delivery.body else ": none was kept"
            copy(self.app, body, said)

    def action_copy_json(self) -> None:
        """Copy the highlighted delivery — headers, body, verdict — as JSON."""
        delivery = self.delivery_list.highlighted
        if delivery is not None:
            copy(
                self.app,
                json.dumps(delivery.to_json(), indent=2),
                f"Copied delivery #{delivery.number} as JSON",
            )
