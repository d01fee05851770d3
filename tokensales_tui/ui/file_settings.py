"""The settings of the config file every app of this package follows: its keymap and theme.

``tokensales-tui`` and ``tokensales-tui listen`` read the same file (``config_path()``, or
the one their launch names). Each applies the ``[keymap]`` with the same checks, said in a
toast each (:meth:`SettingsApp.use_keymap`), shows the saved theme and saves a theme chosen
in the palette into the file (:meth:`SettingsApp.use_theme`): a theme is the product's, not
one screen's, so the next start of either shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeVar

from textual.binding import Binding, BindingType

from .. import config
from ..clean import clean_line
from .config_saves import ask_overwrite, save_config_change
from .keys import (
    bound,
    clashing_keys,
    every_binding_id,
    field_taken_keys,
    unknown_keymap_ids,
    untypable_keys,
    usable_keymap,
)
from .safe_app import GuardedApp

__all__ = ["CONFIG_WAIT", "SettingsApp", "read_config_within"]

ReturnType = TypeVar("ReturnType")


CONFIG_WAIT = 5.0
"""Most seconds an app waits for the config file to be read at its start (a network home
gone away); the read itself gives up sooner on a step its file system leaves unanswered
(``files.FILE_WAIT``)."""


async def read_config_within(path: Path | None, seconds: float) -> config.ConfigFile:
    """The config file at ``path`` (None: the usual one), read off the event loop: how
    every app of this package reads it at its start.

    Read in a daemon thread: a read that hangs (a network home gone away) costs that thread
    only, and an app that ends meanwhile ends (a thread of asyncio's executor would be
    waited for at the end of ``asyncio.run``).

    Raises:
        config.ConfigUnanswered: It was not read within ``seconds``, or its file system
            did not answer (nothing is known of it: nothing should be saved over it).
        config.ConfigError: It cannot be read or does not parse.
        Exception: Any other failure of the read, raised as it is (never a time-out).
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[config.ConfigFile] = loop.create_future()

    def settle(result: config.ConfigFile | None, error: Exception | None) -> None:
        if answer.done():  # given up on
            return
        if error is not None:
            answer.set_exception(error)
        else:
            assert result is not None
            answer.set_result(result)

    def read() -> None:
        # Whatever the read raises is handed over as it is: a failure left in this thread
        # was waited for until the time-out, then said to be one ("not read within 5 s").
        try:
            result, error = config.load_config(path), None
        except Exception as failed:  # raised again on the loop
            result, error = None, failed
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=read, name="read-config", daemon=True).start()
    try:
        return await asyncio.wait_for(answer, seconds)
    except TimeoutError:
        raise config.ConfigUnanswered(
            f"cannot read the file: it was not read within {seconds:g} s"
            " (a network mount gone away?)",
            path=path or config.config_path(),
        ) from None


class SettingsApp(GuardedApp[ReturnType]):
    """An app that applies the config file's keymap and theme, and saves a theme chosen.

    Its subclass says where the file is (:attr:`config_file`) and whether a theme chosen
    is saved (:meth:`saves_theme`); it calls :meth:`use_keymap` and :meth:`use_theme` once
    it has read the file.
    """

    def __init__(self) -> None:
        super().__init__()
        self.keymap: Mapping[str, str] = {}
        """The config file's ``[keymap]``, as applied."""
        self._theme_in_file: str | None = None
        """The config file's theme as this app last read or wrote it."""
        self._config_writes = config.OwnWrites()
        """What this app's saves wrote into the config file: never another program's."""

    @property
    def config_file(self) -> Path | None:
        """The config file this app reads and writes (None: the usual one)."""
        return None

    def saves_theme(self) -> bool:
        """Whether a theme chosen here is written into the config file."""
        return True

    def bound(self, bindings: Iterable[BindingType]) -> list[Binding]:
        """``bindings`` with the user's keymap applied: the keys as they work now."""
        return bound(bindings, self.keymap)

    def use_keymap(self, keymap: Mapping[str, str]) -> None:
        """Apply ``keymap`` (the config file's ``[keymap]``) and say, a toast each, what
        in it cannot work as written; the rest applies."""
        if not keymap:
            return
        self.keymap, problems = usable_keymap(keymap)
        self.set_keymap(self.keymap)
        problems += unknown_keymap_ids(keymap, every_binding_id())
        problems += untypable_keys(self.keymap) + clashing_keys(self.keymap)
        problems += field_taken_keys(self.keymap)
        for problem in problems:
            self.notify(clean_line(problem), title="Config file", severity="warning", markup=False)

    def use_theme(self, theme: str | None) -> None:
        """Show ``theme`` (the one saved, when Textual knows it), then save each new choice."""
        self._theme_in_file = theme
        if theme in self.available_themes:
            self.theme = theme
        elif theme is not None:
            self.notify(
                f"theme {theme!r} is not one this version has; using {self.theme!r}",
                title="Config file",
                severity="warning",
            )
        self.watch(self, "theme", self._save_theme, init=False)

    def _save_theme(self, theme: str) -> None:
        if not self.saves_theme():
            return
        self.run_worker(self._write_theme(theme), group="save-theme", exclusive=True)

    async def _write_theme(self, theme: str) -> None:
        def mutate(seen: config.ConfigFile) -> None:
            seen.theme = theme

        # Made from the theme as this app last read or wrote it: one that another program
        # saved since is written over only once asked.
        change = config.ConfigChange.of(config.ConfigFile(theme=self._theme_in_file), mutate)
        try:
            saved = await save_config_change(
                change,
                self.config_file,
                waiting=lambda text: self.notify(f"The theme is not saved yet: {text}"),
                overwrite=lambda conflict: ask_overwrite(self, conflict, "the app read it"),
                own=self._config_writes,
            )
        except config.ConfigConflict as conflict:
            (kept,) = conflict.conflicts
            self._theme_in_file = None if kept.theirs is config.MISSING else kept.theirs
            self.notify(f"The theme is not saved: {kept.theirs_text()}", severity="warning")
            return
        except config.ConfigError as error:
            why = error.message.removeprefix("not saved: ")
            self.notify(f"The theme is not saved: {why}", severity="warning")
            return
        self._theme_in_file = theme
        if saved.kept is not None:
            self.notify(config.kept_note(saved.kept), markup=False, timeout=15)
