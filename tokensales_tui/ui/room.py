"""Whether the reading of a list leaves a processor idle for an index process.

Measured from the rows' first showing (:meth:`Clock.now`) to each new look: the processor
time of the app's process, and where the system says, the idle time of the whole machine's
processors (``/proc/stat``) and of the CPU quota of the app's control group. Standard
library only: the Items tab takes the first reading as its first rows show.

Also how many processors the app's control group may keep busy (:func:`quota_processors`),
which may be fewer than the processors it may run on.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import NamedTuple

__all__ = ["Clock", "Quota", "quota_processors", "reading_has_room"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""Where Linux shows the control groups (version 2 there, version 1 in one folder per
controller)."""

READING_BUSY = 0.8
"""The share of a processor the app's process may use while a list arrives for the reading
to leave room for an index process (:func:`reading_has_room`): 1,000,000 items read from a
server on the same machine used 1.1-1.7 (its threads together), and paced to 1 Gbit/s
0.7-0.8 at first, less as the reading went on."""

IDLE_NEEDED = 0.8
"""Processors the whole machine, and the CPU quota of the app's control group where it has
one, must have left idle, on average, for that room: the app may be waiting for a server
that is busy on the same machine, or share its group's quota with other work."""

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
    group_idle: float | None = None
    """The processor seconds the CPU quota of the app's control group has given and its
    processes have not used, counted from an arbitrary start; None where the group has no
    quota or the system does not say what it used."""

    @classmethod
    def now(cls) -> Clock:
        wall = time.monotonic()
        return cls(wall, time.process_time(), _idle_seconds(), _group_idle(wall))


def _idle_seconds() -> float | None:
    """The machine's processors' idle (and I/O wait) time so far, from ``/proc/stat``."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _group_idle(wall: float) -> float | None:
    quota = _group_quota()
    if quota is None or quota.usage is None:
        return None
    used = _used_seconds(quota.usage)
    return None if used is None else quota.processors * wall - used


def _used_seconds(usage: Path) -> float | None:
    """The processor seconds a control group has used, from its ``cpu.stat`` (version 2,
    ``usage_usec``) or its ``cpuacct.usage`` (version 1, nanoseconds)."""
    try:
        text = usage.read_text(encoding="ascii")
        if usage.name != "cpu.stat":
            return int(text) / 1e9
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "usage_usec":
                return int(value) / 1e6
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    return None


def reading_has_room(then: Clock, now: Clock) -> bool:
    """Whether, between ``then`` (the rows began to arrive) and ``now``, this process used at
    most :data:`READING_BUSY` of a processor, and the machine and the quota of the app's
    control group each left :data:`IDLE_NEEDED` processors idle (where the system says
    so): the body comes no faster than the network brings it, and an index process on the
    processor left does not slow the reading down, so the list is usable soon after its
    body's end instead of seconds later. A body served on this machine is read as fast as
    the app can, and a server on this machine that is slow keeps the processors busy
    itself: then there is no room. Nor is there where other work in the app's group uses
    its quota: a process would take turns with the app for it, and the quota would run
    out within each period, holding the event loop until the next."""
    wall = now.wall - then.wall
    if wall < ROOM_AFTER or now.used - then.used > READING_BUSY * wall:
        return False
    return all(
        after is None or before is None or after - before >= IDLE_NEEDED * wall
        for before, after in ((then.idle, now.idle), (then.group_idle, now.group_idle))
    )


class Quota(NamedTuple):
    """The CPU quota of a control group (:func:`quota_processors`)."""

    processors: float
    """The processors it gives: the quota over its period."""
    usage: Path | None
    """The file that says what the group's processes have used (:func:`_used_seconds`);
    None where the system shows none."""


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
    quota = _group_quota()
    return None if quota is None else quota.processors


@functools.cache
def _group_quota() -> Quota | None:
    return _quota(CGROUP_ROOT, Path("/proc/self/cgroup"))


def _quota(root: Path, membership: Path) -> Quota | None:
    try:
        lines = membership.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return None
    groups: dict[str, list[str]] = {}  # the path of each controller's group, in parts
    for line in lines:
        fields = line.split(":", 2)  # hierarchy, controllers, path
        if len(fields) != 3 or not fields[2].startswith("/"):
            continue
        parts = [part for part in fields[2].split("/") if part not in ("", ".")]
        if ".." not in parts:  # a group outside the container's: its folder is not shown
            groups[fields[1]] = parts
    quotas: list[Quota] = []
    for controllers, parts in groups.items():
        if not controllers:  # version 2
            bases = [root, root / "unified"]  # the second where both versions are mounted
        elif "cpu" in controllers.split(","):
            bases = [root / controllers, root / "cpu"]
        else:
            continue
        for base in bases:
            # Inside a container the group's own folder is often the base itself.
            for depth in range(len(parts), -1, -1):
                folder = base.joinpath(*parts[:depth])
                if not controllers:
                    quota = _v2_quota(folder)
                    usage: Path | None = folder / "cpu.stat"
                else:
                    quota = _v1_quota(folder)
                    usage = _v1_usage(root, groups, controllers, parts[:depth])
                if quota is not None:
                    quotas.append(Quota(quota, usage))
    return min(quotas, key=lambda quota: quota.processors, default=None)


def _v1_usage(root: Path, groups: dict[str, list[str]], cpu: str, parts: list[str]) -> Path | None:
    """Where version 1 says what the group of the ``cpu`` controller's folder ``parts``
    used: the ``cpuacct`` controller's folder mounted with it, or else, where its group
    has the same path, the same folder of the ``cpuacct`` hierarchy."""
    for controllers, path in groups.items():
        if "cpuacct" in controllers.split(",") and (controllers == cpu or path == groups[cpu]):
            for base in (root / controllers, root / "cpuacct"):
                usage = base.joinpath(*parts, "cpuacct.usage")
                if usage.is_file():
                    return usage
    return None


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
