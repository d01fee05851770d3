"""The main app's ways to webhook deliveries: the demo's own webhook, and listening here.

- ``v`` in the demo: the demo's local webhook. On first use it is created through the API,
  like any webhook (``*``: every event), pointing at a receiver inside this process that
  the demo's emulator delivers to; the deliveries view then shows every event the changes
  you make raise. It stays for the session, collecting while you work in the tabs. Each
  ``v`` looks it up in the webhook list: one you deleted is created again, and the view
  names the events of one you edited.
- ``l`` on the Webhooks tab: listen on 127.0.0.1 for the highlighted webhook's events, with
  the ``listen --register`` command that has the service deliver them through a tunnel to
  the same port once the view is closed; stops when the view closes.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..api import ApiError, Done, Secret
from ..api.models import Webhook, WebhookCreate
from ..webhooks.listen import (
    ListenError,
    Listening,
    ListenOptions,
    describe,
    new_secret,
    register_command,
)
from ..webhooks.receiver import Receiver
from .key_hints import hint_in, hints, key_in
from .screens.deliveries import DeliveriesScreen, SuggestedCommand

if TYPE_CHECKING:
    from .app import TokenSalesApp

DEMO_HOOK_HOST = "deliveries.demo.tokensales.invalid"
DEMO_HOOK_URL = f"http://{DEMO_HOOK_HOST}/hook"
"""Where the demo's local webhook points: served inside this process, never on a socket."""


class DemoDeliveries:
    """The demo's local webhook and the in-process receiver it delivers to."""

    def __init__(self, emulator: Any) -> None:
        import httpx

        self.secret = new_secret()
        self.receiver = Receiver(secret=self.secret)
        emulator.deliveries.in_process[DEMO_HOOK_HOST] = httpx.ASGITransport(app=self.receiver)
        self.registered = False
        """Whether it was created once this session (it may have been deleted since)."""

    async def listed(self, app: TokenSalesApp) -> Webhook | None:
        """The demo's webhook as the service lists it now, if it is there."""
        hooks = await app.api.call(lambda client: client.list_webhooks())
        return next((hook for hook in hooks if hook.url == DEMO_HOOK_URL), None)

    async def register(self, app: TokenSalesApp) -> Done:
        """Create the demo's webhook through the API; what the create's answer said."""
        body = WebhookCreate(url=DEMO_HOOK_URL, events=["*"], secret=Secret(self.secret))
        done = await app.api.call(lambda client: client.create_webhook(body))
        self.registered = True
        return done


def what_arrives(hook: Webhook | None) -> str:
    """What the demo's webhook receives, as listed (None: the one just created)."""
    if hook is not None and hook.is_active is False:
        return "is inactive: nothing arrives"
    events = ["*"] if hook is None else hook.events
    if "*" in events:
        return "receives every event (*), signed with its secret"
    if not events:
        return "receives no event: edit it to add some"
    return f"receives only {', '.join(events)}, signed with its secret"


ADDED = (
    f"Added a webhook to the demo's Webhooks tab: {DEMO_HOOK_URL}, every event (*);"
    " the demo delivers to it inside this app, for this view"
)


def stays(app: TokenSalesApp) -> str:
    """How long the demo's webhook stays, and the main screen's keys that take it away
    and bring it back, as bound now."""
    keys = hints(
        app.browse, [("delete", "on its row deletes it"), ("deliveries", "adds it again")], ", "
    )
    return f"until the demo ends; {keys}" if keys else "until the demo ends"


_DEMOS: weakref.WeakKeyDictionary[Any, DemoDeliveries] = weakref.WeakKeyDictionary()


async def open_demo_deliveries(app: TokenSalesApp) -> None:
    """Show the deliveries of the demo's local webhook, creating it the first time."""
    session = app.session
    if session is None or not session.demo or session.emulator is None:
        listen = key_in(app.browse.BINDINGS, "listen", app.browse)
        elsewhere = f"{listen} on the Webhooks tab or listen" if listen else "listen"
        app.notify(f"The deliveries view is part of the demo (--demo); elsewhere, use {elsewhere}")
        return
    demo = _DEMOS.get(session.emulator)
    if demo is None:
        demo = _DEMOS[session.emulator] = DemoDeliveries(session.emulator)
    try:
        hook = await demo.listed(app)
    except ApiError as error:
        app.notify(f"Could not list the webhooks: {error.one_line}", severity="error")
        return
    if hook is None:
        if session.read_only:
            app.notify(
                "read-only profile: the demo's webhook cannot be created", severity="warning"
            )
            return
        again = demo.registered
        try:
            done = await demo.register(app)
        except ApiError as error:
            app.notify(f"Could not create the demo's webhook: {error.one_line}", severity="error")
            return
        # Said every time: a row appears in the Webhooks tab that the user did not make.
        what = "The demo's webhook was gone: created it again" if again else ADDED
        app.notify(
            done.said(what, stays(app)),
            title="Webhook added",
            severity="warning" if done.unusual else "information",
            timeout=12,
        )
        app.browse.active_tab.reload()
    back = hint_in(DeliveriesScreen.BINDINGS, "back", "goes back", app.browse)
    heading = [
        f"The demo's webhook {DEMO_HOOK_URL} {what_arrives(hook)}.",
        "Create, edit or delete things in the tabs"
        + (f" ({back})" if back else "")
        + ": each change arrives here.",
    ]
    screen = DeliveriesScreen(demo.receiver, heading)
    demo.receiver.on_change = screen.note_change
    await app.push_screen(screen)


async def open_listen(app: TokenSalesApp, webhook: Any) -> None:
    """Listen on 127.0.0.1 for ``webhook``'s events until the view closes."""
    events = [str(event) for event in getattr(webhook, "events", [])]
    listening = Listening(ListenOptions(events=events))
    try:
        await listening.__aenter__()
    except ListenError as error:
        app.notify(str(error), severity="error")
        return
    port = listening.port
    back = key_in(DeliveriesScreen.BINDINGS, "back", app.browse)
    command = SuggestedCommand(
        f"For the service's deliveries through a tunnel to port {port}: "
        + (f"{back}, then run this" if back else "close this view, then run this")
        + " with the tunnel's address",
        register_command(port, events),
    )
    heading = [
        *describe(listening, secret=False),
        f"events of {getattr(webhook, 'id', '')}: {', '.join(events) or '(none)'}",
    ]
    screen = DeliveriesScreen(listening.receiver, heading, command=command)
    listening.receiver.on_change = screen.note_change

    async def stop(_: object = None) -> None:
        await listening.__aexit__(None, None, None)

    await app.push_screen(screen, callback=stop)
