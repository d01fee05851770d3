"""The terminal app of ``tokensales-tui listen``: one screen of live deliveries."""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from ..webhooks.listen import Ending, Listening, ListenOptions, describe, run_listening
from .key_hints import either, hint, hint_in, key_in, keys_for
from .safe_app import GuardedApp
from .screens.deliveries import DeliveriesScreen
from .screens.detail import DetailScreen


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
            listening.receiver, describe(listening, secret=False), quit_on_back=True
        )
        listening.receiver.on_change = self.deliveries.note_change

    def on_mount(self) -> None:
        self.push_screen(self.deliveries)

    def action_help(self) -> None:
        """The keys of this app that act here, in a toast, as bound now."""
        screen = self.deliveries
        # Of a move's keys, the letter typed as in less (j, k, g, G) rather than an arrow.
        moves = "/".join(filter(None, (_typed(keys_for(screen, move)) for move in LIST_MOVES)))
        search = hint_in(DetailScreen.BINDINGS, "search", "search", screen)
        matches = "/".join(
            filter(None, (key_in(DetailScreen.BINDINGS, way, screen) for way in MATCH_MOVES))
        )
        in_one = ", ".join(filter(None, (search, f"{matches} matches" if matches else "")))
        back = either(keys_for(screen, "back"))
        said = [
            screen.keys_said(),
            f"{moves} move" if moves else "",
            f"in a delivery: {in_one}" if in_one else "",
            ", ".join(filter(None, (f"{back} back" if back else "", hint(screen, "quit", "quit")))),
        ]
        self.notify(" · ".join(filter(None, said)), title="Keys", timeout=10)


LIST_MOVES = ("move(1)", "move(-1)", "jump(0)", "jump(-1)")
"""The list's actions the help names: down, up, first, last."""

MATCH_MOVES = ("next_match", "previous_match")
"""A delivery's actions the help names: its search's next and previous match."""


def _typed(keys: list[str]) -> str | None:
    """Of an action's keys, one typed as a single letter if any (not an arrow: ``↓`` is one
    character too), else the first."""
    return next((key for key in keys if len(key) == 1 and key.isascii()), next(iter(keys), None))


async def listen_in_app(
    options: ListenOptions,
    args: argparse.Namespace | None = None,
    ending: Ending | None = None,
    **app_options: Any,
) -> ListenApp:
    """Listen and show the app until it exits; the webhook registered is deleted after."""
    async with Listening(options, args=args) as listening:
        app = ListenApp(listening)
        if ending is not None:
            # The app takes every signal as it starts (GuardedApp), with nothing awaited
            # before: none falls between. One during the clean-up after it waits for it.
            ending.stopping = _go_on
        await app.run_async(**app_options)
    return app


def _go_on() -> None:
    """A signal once the app is over: the clean-up under way is let finish."""


def run_listen_app(args: argparse.Namespace) -> int:
    """``tokensales-tui listen`` on a terminal: its exit status as ``listen --print``
    gives for the same ending (0 for q or ctrl+c typed, 128 + n for signal n, 129 for a
    terminal gone, 1 for a crash)."""

    async def on_screen(options: ListenOptions, ending: Ending) -> int:
        app = await listen_in_app(options, args, ending)
        return app.return_code or 0

    return run_listening(args, on_screen)
