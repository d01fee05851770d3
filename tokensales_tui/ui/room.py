"""Whether the reading of a list leaves a processor idle for an index process.

Measured from the rows' first showing (:meth:`Clock.now`) to each new look: the processor
time of the app's process, and where the system says (``/proc/stat``), the idle time of the
whole machine's processors. Standard library only: the Items tab takes the first reading
as its first rows show.

Also how many processors the app's control group may keep busy (:func:`quota_processors`),
which may be fewer than the processors it may run on.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import NamedTuple

__all__ = ["Clock", "quota_processors", "reading_has_room"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""Where Linux shows the control groups (version 2 there, version 1 in one folder per
controller)."""

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


@functools.cache
def quota_processors() -> float | None:
    """The processors the CPU quota of this process's control group gives it, the least
    along the group's path (its own and those above it that the system shows: a
    container sees its own group only); None where there is no quota or the system does
    not say. Read once: a quota changed later is not seen.

    A container limited to one processor on a machine of many may run on them all
    (``os.sched_getaffinity``), but only keep one busy: an index process there takes
    turns with the app, and the group's time runs out before the period's end, which
    holds every thread of the app, the event loop too, until the next one.
    """
    return _quota(CGROUP_ROOT, Path("/proc/self/cgroup"))


def _quota(root: Path, membership: Path) -> float | None:
    try:
        lines = membership.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return None
    quotas: list[float] = []
    for line in lines:
        fields = line.split(":", 2)  # hierarchy, controllers, path
        if len(fields) != 3 or not fields[2].startswith("/"):
            continue
        controllers, path = fields[1], fields[2]
        parts = [part for part in path.split("/") if part not in ("", ".")]
        if ".." in parts:  # a group outside the container's: its folder is not shown
            continue
        if not controllers:  # version 2
            bases = [root, root / "unified"]  # the second where both versions are mounted
            read = _v2_quota
        elif "cpu" in controllers.split(","):
            bases = [root / controllers, root / "cpu"]
            read = _v1_quota
        else:
            continue
        for base in bases:
            # Inside a container the group's own folder is often the base itself.
            for depth in range(len(parts), -1, -1):
                quota = read(base.joinpath(*parts[:depth]))
                if quota is not None:
                    quotas.append(quota)
    return min(quotas, default=None)


def _v2_quota(folder: Path) -> float | None:
    try:
        limit, period = (folder / "cpu.max").read_text(encoding="ascii").split()
        return None if limit == "max" else _share(int(limit), int(period))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _v1_quota(folder: Path) -> float | None:
    try:
        limit = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
        period = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return _share(limit, period)


def _share(limit: int, period: int) -> float | None:
    return limit / period if limit > 0 and period > 0 else None
