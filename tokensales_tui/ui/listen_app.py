"""The terminal app of ``tokensales-tui listen``: one screen of live deliveries."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from ..clean import clean_line
from ..webhooks.listen import (
    ListenError,
    Listening,
    ListenOptions,
    debug_log,
    describe,
    options_from,
)
from .safe_app import GuardedApp
from .screens.deliveries import DeliveriesScreen


class ListenApp(GuardedApp[None]):
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


async def listen_in_app(
    options: ListenOptions, args: argparse.Namespace | None = None, **app_options: Any
) -> ListenApp:
    """Listen and show the app until it exits; the webhook registered is deleted after."""
    async with Listening(options, args=args) as listening:
        app = ListenApp(listening)
        # SIGTERM and SIGHUP end every app of the package (GuardedApp); ctrl+c is a key.
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, app.exit)
        try:
            await app.run_async(**app_options)
        finally:
            loop.remove_signal_handler(signal.SIGINT)
    return app


def run_listen_app(args: argparse.Namespace) -> int:
    """``tokensales-tui listen`` on a terminal."""
    try:
        options = options_from(args)
        with debug_log(args):
            app = asyncio.run(listen_in_app(options, args))
    except ListenError as error:
        print(f"tokensales-tui: {clean_line(str(error))}", file=sys.stderr)
        return error.code
    # A crash (its traceback shown) is 1; q, ctrl+c, SIGTERM and SIGHUP all end listen.
    return 1 if app.return_code == 1 else 0
