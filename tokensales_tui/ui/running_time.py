"""Waits that count only the time the app runs, not the time it spent stopped.

A wait of the event loop is measured by the monotonic clock, which goes on while the
process is stopped (ctrl+z, then ``fg`` an hour later): every wait under way then was
over at once when it ran again, though what it waited for had been stopped too (an index
process, in the app's process group, stops with it). :func:`running_within` waits
again, for as long, when the app was stopped meanwhile; the driver calls
:func:`continued` each time the app runs again (:mod:`.terminal_mode`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["continued", "running_within"]

T = TypeVar("T")

_continued = 0
"""How many times the app ran again after a stop (or might have: a SIGCONT)."""


def continued() -> None:
    """The app runs again after a stop; called in the main thread, before the event loop
    gets to any wait that ended meanwhile."""
    global _continued
    _continued += 1


async def running_within(start: Callable[[], Awaitable[T]], seconds: float) -> T:
    """What ``start()`` gives, waited for ``seconds`` of the app running at most: a wait
    over while the app was stopped starts again (``start()`` called again, so what it
    awaits must leave what it read in place when cancelled, as a stream's ``readexactly``
    does).

    Raises:
        TimeoutError: After ``seconds`` with the app running all along.
    """
    while True:
        before = _continued
        try:
            async with asyncio.timeout(seconds):
                return await start()
        except TimeoutError:
            if _continued == before:
                raise
