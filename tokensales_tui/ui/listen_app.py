"""The terminal app of ``tokensales-tui listen``: one screen of live deliveries.

It follows the config file as the main app does (:mod:`.file_settings`): its ``[keymap]``
moves the keys here too, its theme shows, and a theme chosen here is saved. Nothing else
of the file is used; a file that cannot be read, or is not read within
:data:`~.file_settings.CONFIG_WAIT`, is said in a toast and listen goes on with the default
keys.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from .. import config
from ..webhooks.listen import Ending, Listening, ListenOptions, describe, run_listening
from .file_settings import CONFIG_WAIT, SettingsApp, read_config_within
from .key_hints import either, hint, hint_in, key_in, keys_for
from .screens.deliveries import DeliveriesScreen
from .screens.detail import DetailScreen


class ListenApp(SettingsApp[None]):
    """Shows the deliveries a :class:`Listening` receives, as they arrive, with the keys
    and theme of the config file at ``config_path`` (None: the usual one)."""

    TITLE = "tokensales-tui listen"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, listening: Listening, config_path: Path | None = None) -> None:
        super().__init__()
        self.listening = listening
        self._config_path = config_path
        self.deliveries = DeliveriesScreen(
            listening.receiver, describe(listening, secret=False), quit_on_back=True
        )
        listening.receiver.on_change = self.deliveries.note_change

    @property
    def config_file(self) -> Path | None:
        return self._config_path

    def on_mount(self) -> None:
        self.push_screen(self.deliveries)
        # The deliveries show at once; the keys move when the file has been read.
        self.run_worker(self._use_config_file(), group="config")

    async def _use_config_file(self) -> None:
        try:
            loaded = await read_config_within(self.config_file, CONFIG_WAIT)
        except config.ConfigUnanswered as error:
            # Nothing is known of the file: nothing is saved over it.
            self.notify(
                f"{error}: listen goes on with the default keys and theme, and saves no"
                " theme chosen",
                title="Config file",
                severity="warning",
                markup=False,
            )
            return
        except config.ConfigError as error:
            # Listen needs nothing else of the file: it goes on, as the demo does.
            self.notify(str(error), title="Config file ignored", severity="warning", markup=False)
            loaded = config.ConfigFile()
        self.use_keymap(loaded.keymap)
        self.use_theme(loaded.theme)

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
