"""A late frame is followed by the next frame slot, not the one after.

Textual draws a screen on the ticks of a 60 Hz timer (``Timer``, skipping ticks it
is late for). When a tick runs past the next slot, as a frame of the table does on a
slow machine (17-24 ms), Textual 8's timer computes the slot to wait for one interval
too far: the next frame waits up to two intervals (33 ms) instead of one. Measured
with page-down on 100,000 rows, sessions alternating: 41, 29 and 20 frames a second
with it (the slower the frames of a session, the more of them late), 41-42 with the
next slot.

:func:`use_next_slots` replaces ``Timer._run`` with the same loop and the next slot,
only where Textual's own loop has that computation (so a Textual that changes its
timer keeps its own, and ``tests/test_frame_slots.py`` says so).
"""

from __future__ import annotations

import linecache

from textual import _time
from textual.timer import EventTargetGone, Timer

__all__ = ["use_next_slots"]

_LATE_SLOT = "count = int((now - start) / _interval + 1)"
"""Textual's computation of the slot after a late tick (one interval too far)."""

_textual_run = Timer._run


async def _run(self: Timer) -> None:
    """Tick every ``self._interval`` seconds while active, as Textual's ``Timer._run``
    does; a tick that ends past the next slot is followed by the first slot still ahead."""
    count = 0
    repeat = self._repeat
    interval = self._interval
    await self._active.wait()
    start = _time.get_time()
    while repeat is None or count <= repeat:
        next_tick = start + (count + 1) * interval
        now = _time.get_time()
        if self._skip and next_tick < now:
            count = int((now - start) / interval)  # the first slot ahead is count + 1
            continue
        await _time.sleep(max(0.0, next_tick - now))
        count += 1
        await self._active.wait()
        if self._reset:
            start = _time.get_time()
            count = 0
            self._reset = False
            continue
        try:
            await self._tick(next_timer=next_tick, count=count)
        except EventTargetGone:
            break


def applies() -> bool:
    """Whether Textual's timer computes the slot after a late tick as this module fixes."""
    code = _textual_run.__code__
    # The file's lines, read as they are (``inspect.findsource`` would first look for
    # the module among all those loaded: 30 ms at start-up). No source installed: no
    # lines, and Textual's timer stays as it is.
    lines = linecache.getlines(code.co_filename)
    last = max((line for *_, line in code.co_lines() if line is not None), default=0)
    return _LATE_SLOT in "".join(lines[code.co_firstlineno - 1 : last])


def use_next_slots() -> bool:
    """Have every Textual timer follow a late tick with the next slot; whether it does."""
    if Timer._run is _run:
        return True
    if not applies():
        return False
    Timer._run = _run  # type: ignore[method-assign]
    return True
