"""Every save of the config file from the app goes through :func:`save_config_change`.

A save writes only what the person changed (see :mod:`tokensales_tui.config.store`), in a
thread: the event loop never waits for the file's lock, which another program may hold
(a second instance, ``flock``). The wait is bounded, said after a moment, and ends when
the save is stopped (escape, the app quitting). A stop is honoured up to the moment the
file is written (:class:`~tokensales_tui.files.WriteStop`), never after: a save
stopped while it writes ends as it ends, and is said so. A setting changed both in the file and
here is written over only once the person chose "Overwrite".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from textual.app import App

from .. import config
from ..files import WriteStop

__all__ = ["WAITING", "WRITE_WAIT", "ask_overwrite", "save_config_change"]

WAITING: Final = "waiting for the config file's lock (held by another tokensales-tui?)…"
WRITE_WAIT: Final = 10.0
"""Most seconds a save stopped past its point of no return is waited for, to say how it
ended; past that its outcome is said to be unknown."""


async def save_config_change(
    change: config.ConfigChange,
    path: Path | None,
    *,
    waiting: Callable[[str], object],
    overwrite: Callable[[config.ConfigConflict], Awaitable[bool]],
    own: config.OwnWrites | None = None,
    stop: WriteStop | None = None,
) -> config.Saved:
    """Write ``change`` off the event loop; ask ``overwrite`` about each conflict.

    Args:
        change: What the save changes, from the config it was made from.
        path: The config file (None: the usual one).
        waiting: Shows :data:`WAITING` (called on the event loop) when the lock has
            not been free for a moment.
        overwrite: Asks whether to write over settings changed in the file meanwhile.
        own: The saves of the same app: what they wrote, a save given up included (its
            thread may have held the lock already, and written), is never asked about
            as another program's change.
        stop: What stops the save (see :class:`~tokensales_tui.files.WriteStop`): until
            the file is written, it ends the save with ``ConfigError``; from then on it
            is refused, and the save ends as it ends. Cancelling the caller stops it too.

    Raises:
        config.ConfigConflict: The answer was no; nothing was written.
        config.ConfigError: Not saved (the lock stayed held, the file does not parse…);
            its message says why.
    """
    loop = asyncio.get_running_loop()
    stop = stop or WriteStop()

    def lock_waited(lock: Path) -> None:
        loop.call_soon_threadsafe(waiting, WAITING)

    try:
        while True:
            try:
                return await asyncio.to_thread(
                    config.update_config, change, path, waiting=lock_waited, stop=stop, own=own
                )
            except config.ConfigConflict as conflict:
                if not await overwrite(conflict):
                    raise
                change = conflict.overwriting()
    finally:
        # Cancelled (the app quitting, the screen gone): the thread stops, unless it is
        # writing already; then it ends its write, the executor's threads waited for.
        stop.stop()


async def ask_overwrite(app: App[Any], conflict: config.ConfigConflict, since: str) -> bool:
    """Ask whether to write over the settings of ``conflict``, changed in the file since
    ``since`` ("this form opened"). Cancel is the default. Call it from a worker."""
    changed = "; ".join(each.theirs_text() for each in conflict.conflicts)
    yours = "; ".join(each.yours_text() for each in conflict.conflicts)
    from .screens.confirm import ConfirmScreen

    dialog = ConfirmScreen(
        "Overwrite a change made in the config file?",
        f"Since {since}, another program changed the config file: {changed}",
        detail=f"Yours: {yours}",
        confirm_label="Overwrite",
    )
    try:
        answer: bool = await app.push_screen_wait(dialog)
        return answer
    except asyncio.CancelledError:
        dialog.withdraw()  # the save was given up: its question goes with it
        raise
