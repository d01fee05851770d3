"""The terminal app of ``tokensales-tui listen``: one screen of live deliveries."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel

from ..clean import clean, clean_line, escape_unsafe
from ..webhooks.listen import ListenError, Listening, ListenOptions, describe, options_from
from .screens.deliveries import DeliveriesScreen
from .terminal import guarded_driver

if TYPE_CHECKING:
    from textual.driver import Driver


class ListenApp(App[None]):
    """Shows the deliveries a :class:`Listening` receives, as they arrive."""

    TITLE = "tokensales-tui listen"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, listening: Listening) -> None:
        super().__init__()
        self.listening = listening
        self.deliveries = DeliveriesScreen(
            listening.receiver, describe(listening), quit_on_back=True
        )
        listening.receiver.on_change = self.deliveries.note_change

    def get_driver_class(self) -> type[Driver]:
        return guarded_driver(super().get_driver_class())

    def on_mount(self) -> None:
        self.push_screen(self.deliveries)

    def action_help(self) -> None:
        """The keys of this app, in a toast."""
        self.notify(
            "enter open · r replay · c copy body · y copy JSON · j/k/g/G move · "
            "in a delivery: / search, n/N matches · q or escape back, ctrl+c quit",
            title="Keys",
            timeout=10,
        )

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast, always literal and cleaned (``markup`` is ignored)."""
        super().notify(
            clean(message),
            title=clean_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def copy_to_clipboard(self, text: str) -> None:
        """Copy ``text`` with every control character a paste could act on escaped."""
        super().copy_to_clipboard(escape_unsafe(text))


async def listen_in_app(
    options: ListenOptions, args: argparse.Namespace | None = None, **app_options: Any
) -> ListenApp:
    """Listen and show the app until it exits; the webhook registered is deleted after."""
    async with Listening(options, args=args) as listening:
        app = ListenApp(listening)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, app.exit)
        try:
            await app.run_async(**app_options)
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
    return app


def run_listen_app(args: argparse.Namespace) -> int:
    """``tokensales-tui listen`` on a terminal."""
    try:
        options = options_from(args)
        asyncio.run(listen_in_app(options, args))
    except ListenError as error:
        print(f"tokensales-tui: {clean_line(str(error))}", file=sys.stderr)
        return error.code
    return 0
