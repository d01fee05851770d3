"""The webhook form: register a webhook, or change the URL, events or secret of one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import UNSET
from textual.app import ComposeResult
from textual.widgets import Static

from ...api import ApiClient, ApiError, Secret
from ...api.body_paths import wire_paths
from ...api.endpoints import Endpoint, webhook_endpoint
from ...api.models import Webhook, WebhookCreate, WebhookUpdate
from ...api.preview import Change
from ...checks import parse_events, secret_as_given, split_list, suggest_events
from ...checks.forms import Problem, webhook_problems
from ...clean import clean_line
from ...mask import ELLIPSIS, shown
from ..key_hints import key_for
from ..safe import content
from ..screens.confirm import ConfirmScreen
from ..widgets.safe_input import SafeInput
from ..widgets.secret_input import SecretInput
from ..worker import ApiWorker
from .base import FormResult, FormScreen, Outgoing, Problems, form_field, show_line
from .inputs import ListInput, ListSuggester

__all__ = ["CREATE_WEBHOOK", "WebhookForm", "kept_as_stored", "known_events"]

CREATE_WEBHOOK = Endpoint("POST", "base", "/v1/platform-webhooks")
HINT_LIMIT = 5
BODY_FIELDS = {path: path for path in wire_paths(WebhookCreate, WebhookUpdate)}
"""Each member of the body is read from the field named as it (``url``, ``events``, ``secret``)."""


def known_events(webhooks: Sequence[Webhook]) -> list[str]:
    """Event names existing webhooks use, the most used first (the service lists none).

    Names are server text: control characters show as visible marks, here and wherever a
    suggestion puts a name into the field.
    """
    counts: dict[str, int] = {}
    for webhook in webhooks:
        for name in map(clean_line, webhook.events):
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))


def kept_as_stored(typed: Sequence[str], stored: Sequence[str]) -> list[str]:
    """The event names ``typed`` (read from the field), each stored name still there as stored.

    The field shows each stored name cleaned (control characters made visible), and reading
    it back splits on commas and trims: a stored ``"a,b"`` reads back as ``a`` and ``b``,
    ``" padded"`` as ``padded``. A stored name all of whose parts are still typed goes back
    as the service stored it, where its first part is; the other names go as typed. A stored
    name that shows as nothing (empty, or only commas) was not the user's to remove.
    """
    present = set(typed)
    parts = [parse_events(clean_line(name)) for name in stored]
    owners: dict[str, list[int]] = {}
    for index, names in enumerate(parts):
        if names and present.issuperset(names):
            for name in names:
                owners.setdefault(name, []).append(index)
    kept: set[int] = set()
    result: list[str] = []
    for name in typed:
        if name not in owners:
            result.append(name)
            continue
        for index in owners[name]:
            if index not in kept:
                kept.add(index)
                result.append(stored[index])
    result.extend(stored[index] for index, names in enumerate(parts) if not names)
    return result


def _changed_meanwhile(before: Webhook, now: Webhook | None, update: WebhookUpdate) -> str:
    """What changed on the server, of what ``update`` replaces, since the form read ``before``
    ("" when nothing did). Events in another order are no change."""
    if now is None:
        return "it is no longer listed"
    changed = []
    if update.url is not UNSET and now.url != before.url:
        changed.append(f"its URL is now {now.url}")
    if update.events is not UNSET and set(now.events) != set(before.events):
        changed.append("its events are now " + ", ".join(now.events))
    return "; ".join(changed)


class WebhookForm(FormScreen):
    """Creates a webhook, or edits ``webhook``: URL, events, secret (in that order).

    Creating sends ``POST /v1/platform-webhooks`` with the URL, the events and the secret
    when one is typed. Editing sends ``PUT /v1/platform-webhooks/{id}`` with only the
    fields the user edited into something else (a field left as filled is never read back:
    a stored URL with spaces around it stays as stored); an empty secret leaves the stored
    one as it is (the service never shows it), and events in another order are no change.

    Args:
        api: the session's API worker.
        known_events: event names to suggest (server text, shown literally).
        webhook: the webhook to edit; ``None`` creates one.
    """

    TEXT_FIELDS = (SafeInput, ListInput, SecretInput)

    def __init__(
        self,
        api: ApiWorker,
        *,
        known_events: Sequence[str] = (),
        webhook: Webhook | None = None,
    ) -> None:
        super().__init__(
            api,
            title="Edit webhook" if webhook else "New webhook",
            discard_question="Discard your changes?" if webhook else "Discard this new webhook?",
        )
        self.webhook = webhook
        self.known_events = list(known_events)
        # What the fields show of the stored webhook, and what "unchanged" compares with:
        # server text with control characters made visible, and in mask mode the URL
        # masked as the table shows it (its secret path is no field's to show).
        self.before_url = shown(clean_line(webhook.url)) if webhook else ""
        self.url_masked = webhook is not None and self.before_url != clean_line(webhook.url)
        self.before_events = [clean_line(name) for name in webhook.events] if webhook else []
        self.before_events_text = ", ".join(self.before_events)

    def compose_fields(self) -> ComposeResult:
        webhook = self.webhook
        if webhook is not None:
            yield Static(content(f"id {clean_line(webhook.id)}"), classes="form-hint")
        yield from form_field(
            "URL",
            SafeInput(
                self.before_url,
                placeholder="https://example.com/hooks/tokensales",
                id="url",
            ),
        )
        yield from form_field(
            "Events",
            ListInput(
                self.before_events_text,
                placeholder="item.sold, payment.succeeded",
                suggester=ListSuggester(self.known_events),
                id="events",
            ),
            hint=self._events_hint(""),
        )
        yield from form_field(
            "Secret",
            SecretInput(
                password=True,
                placeholder="unchanged — type a new one to replace it"
                if webhook
                else "optional — signs the deliveries",
                id="secret",
            ),
        )

    def show_problems(self, problems: Problems) -> None:
        super().show_problems(problems)
        # One line per problem: while the events' problem shows, the hint under it does not.
        self.query_one("#events-hint", Static).display = not self.problem_shown("events")

    def field_changed(self, widget: Any) -> None:
        if widget.id == "events":
            show_line(self.query_one("#events-hint", Static), self._events_hint(widget.value))

    def _events_hint(self, typed: str) -> Any:
        if not self.known_events:
            return content("Separate names with commas. The service does not list event kinds.")
        *before, fragment = split_list(typed)
        fragment = fragment.strip()
        earlier = {name.strip().casefold() for name in before}
        if fragment and fragment.casefold() in earlier:
            return content(f"{clean_line(fragment)} is in the list already — it is sent once.")
        names = suggest_events(typed, self.known_events)
        if not names:  # the names in use that match may all be in the list already
            listed = [
                n for n in suggest_events(fragment, self.known_events) if n.casefold() in earlier
            ]
            if listed:
                return content(
                    "In use, and in the list already: "
                    + " · ".join(clean_line(n) for n in listed[:HINT_LIMIT])
                )
            return content("No webhook uses a name like that yet — it is sent as typed.")
        more = " · …" if len(names) > HINT_LIMIT else ""
        return content(
            "In use: "
            + " · ".join(clean_line(n) for n in names[:HINT_LIMIT])
            + more
            + "  (→ completes)"
        )

    # --- checks and request ----------------------------------------------------------

    def check(self) -> Problems:
        # An edit judges only what changed: a stored value the service accepted is not
        # this form's to refuse, and the user may just want to change another field.
        url, events = self.text("url"), self.text("events")
        editing = self.webhook is not None
        if editing:  # names already stored are the service's; judge the ones typed here
            names = parse_events(events)
            shown = parse_events(self.before_events_text)
            added = [name for name in names if name not in shown]
            events = ", ".join(added) if names else events
        changed_url = not editing or self.edited("url")
        changed_events = not editing or (self.edited("events") and bool(events))
        problems = webhook_problems(
            url if changed_url else None,
            events if changed_events else None,
            self.text("secret"),
        )
        if changed_url and self.url_masked and ELLIPSIS in url:
            # Sent, the mask's "…" would replace the hidden part of the stored URL.
            problems["url"] = Problem("shown masked: type the whole new one, or leave it as it was")
        return problems

    def outgoing(self) -> Outgoing | None:
        url = self.text("url").strip()
        events = parse_events(self.text("events"))
        secret = secret_as_given(self.text("secret"))
        if self.webhook is None:
            body = WebhookCreate(url=url, events=events, secret=Secret(secret) if secret else UNSET)
            return Outgoing(CREATE_WEBHOOK, body)
        update = WebhookUpdate()
        changes: list[Change] = []
        if self.edited("url") and url != self.before_url:
            update.url = url
            changes.append(Change("url", self.before_url, url))
        if self.edited("events"):
            sending = kept_as_stored(events, self.webhook.events)
            if set(sending) != set(self.webhook.events):  # another order is no change
                update.events = sending
                changes.append(Change("events", self.before_events, list(map(clean_line, sending))))
        if secret:
            update.secret = Secret(secret)
            changes.append(Change("secret", None, None, secret=True))
        if update.is_empty():
            return None
        return Outgoing(webhook_endpoint("PUT", self.webhook.id), update, tuple(changes))

    async def before_sending(self, outgoing: Outgoing) -> Outgoing | None:
        """Read the server's copy before replacing its URL or events: a change made there
        since the form opened is said, and overwritten only once the user agrees."""
        webhook = self.webhook
        update = outgoing.body
        if webhook is None or (update.url is UNSET and update.events is UNSET):
            return outgoing  # a create, or a new secret only: nothing of theirs is replaced
        self.set_status(f"Reading the server's copy of {clean_line(webhook.id)} first…", "busy")
        try:
            listed = await self.api.call(lambda client: client.list_webhooks())
        except ApiError as error:
            self.set_status(
                f"Nothing was sent: the server's copy could not be read first — {error.message}",
                "error",
            )
            return None
        now = next((w for w in listed if w.id == webhook.id), None)
        changed = _changed_meanwhile(webhook, now, update)
        if not changed:
            return outgoing
        self.set_status(f"Changed on the server since the form opened: {changed}", "error")
        yours = []
        if update.url is not UNSET:
            yours.append(f"URL {update.url}")
        if update.events is not UNSET:
            yours.append("events " + ", ".join(update.events))
        overwrite = await self.app.push_screen_wait(
            ConfirmScreen(
                "Overwrite a change made on the server?",
                f"Since this form opened, webhook {webhook.id} changed on the server: {changed}",
                detail="Yours replaces it with " + "; ".join(yours),
                confirm_label="Overwrite",
            )
        )
        if not overwrite:
            # The advice first: a long value from the server cuts the line's end.
            cancel = key_for(self, "cancel") or "Cancel"
            submit = key_for(self, "submit") or "Submit"
            self.set_status(
                f"Nothing was sent ({cancel} and edit it again, or {submit}, then Overwrite):"
                f" on the server, {changed}",
                "error",
            )
            return None
        return outgoing

    def body_fields(self, index: int | None) -> Mapping[str, str]:
        return BODY_FIELDS

    async def send(self, client: ApiClient, outgoing: Outgoing) -> Any:
        if self.webhook is None:
            return await client.create_webhook(outgoing.body)
        return await client.update_webhook(self.webhook.id, outgoing.body)

    def succeeded(self, outgoing: Outgoing, answer: Any) -> FormResult:
        if self.webhook is None:
            body: WebhookCreate = outgoing.body
            url, events = body.url, body.events
            return FormResult(
                f"Created webhook {url}",
                highlight=lambda row: row.url == url and row.events == events,
            )
        webhook_id = self.webhook.id
        changed = ", ".join(change.field for change in outgoing.changes)
        return FormResult(
            f"Updated webhook {webhook_id}: {changed}",
            highlight=lambda row: row.id == webhook_id,
        )

    def on_copied(self) -> str:
        note = super().on_copied()
        if self.text("secret"):
            return note + "; the secret is masked — type it in yourself"
        return note
