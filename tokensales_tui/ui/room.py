"""Whether the reading of a list leaves a processor idle for an index process.

Measured from the rows' first showing (:meth:`Clock.now`) to each new look: the processor
time of the app's process, and where the system says (``/proc/stat``), the idle time of the
whole machine's processors. Standard library only: the Items tab takes the first reading
as its first rows show.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

__all__ = ["Clock", "reading_has_room"]

READING_BUSY = 0.8
"""The share of a processor the app's process may use while a list arrives for the reading
to leave room for an index process (:func:`reading_has_room`): 1,000,000 items read from a
server on the same machine used 1.1-1.7 (its threads together), and paced to 1 Gbit/s
0.7-0.8 at first, less as the reading went on."""

IDLE_NEEDED = 0.8
"""Processors the whole machine must have left idle, on average, for that room: the app
may be waiting for a server that is busy on the same machine."""

ROOM_AFTER = 0.25
"""Seconds of a list arriving before what the processors did tells anything."""


class Clock(NamedTuple):
    """Where the time and the processors stood (see :func:`reading_has_room`)."""

    wall: float
    """:func:`time.monotonic`."""
    used: float
    """The processor time of this process (its threads together)."""
    idle: float | None
    """The seconds every processor of the machine has spent idle; None where unknown."""

    @classmethod
    def now(cls) -> Clock:
        return cls(time.monotonic(), time.process_time(), _idle_seconds())


def _idle_seconds() -> float | None:
    """The machine's processors' idle (and I/O wait) time so far, from ``/proc/stat``."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def reading_has_room(then: Clock, now: Clock) -> bool:
    """Whether, between ``then`` (the rows began to arrive) and ``now``, this process used at
    most :data:`READING_BUSY` of a processor and the machine left :data:`IDLE_NEEDED`
    processors idle (where it says so): the body comes no faster than the network brings
    it, and an index process on the processor left does not slow the reading down, so the
    list is usable soon after its body's end instead of seconds later. A body served on
    this machine is read as fast as the app can, and a server on this machine that is
    slow keeps the processors busy itself: then there is no room."""
    wall = now.wall - then.wall
    if wall < ROOM_AFTER or now.used - then.used > READING_BUSY * wall:
        return False
    if now.idle is None or then.idle is None:
        return True
    return now.idle - then.idle >= IDLE_NEEDED * wall
