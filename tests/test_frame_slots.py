"""A late frame is followed by the next frame slot, not the one after."""

from __future__ import annotations

import asyncio
import time

import pytest
from textual.app import App
from textual.timer import Timer

from tokensales_tui.ui import frame_slots
from tokensales_tui.ui.safe_app import GuardedApp

INTERVAL = 0.5
TICK = 0.6  # longer than the interval: the tick ends past the next slot


def test_textuals_timer_still_waits_one_slot_too_many() -> None:
    # When this fails, Textual has changed its timer: see whether a tick that ends past
    # the next slot is still followed by the slot after it; if not, drop frame_slots.
    assert frame_slots.applies()


def test_without_textuals_source_its_timer_stays_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    async def unreadable(self: Timer) -> None:
        pass

    unreadable.__code__ = unreadable.__code__.replace(co_filename="/no/such/textual/timer.py")
    monkeypatch.setattr(frame_slots, "_textual_run", unreadable)
    assert not frame_slots.applies()


async def test_a_tick_that_ends_late_is_followed_by_the_next_slot() -> None:
    assert frame_slots.use_next_slots()
    starts: list[float] = []
    ends: list[float] = []

    async def tick() -> None:
        starts.append(time.monotonic())
        await asyncio.sleep(TICK)
        ends.append(time.monotonic())

    app: App[None] = App()
    async with app.run_test() as pilot:
        timer = app.set_interval(INTERVAL, tick)
        while len(starts) < 2:
            await pilot.pause(0.05)
        timer.stop()
    # The first tick ends 1.1 s after the start, past the slot at 1.0 s: the next slot
    # ahead is at 1.5 s, 0.4 s later (Textual's own timer waited for 2.0 s, 0.9 s).
    assert starts[1] - ends[0] < 0.65


def test_every_app_of_the_package_uses_the_next_slots() -> None:
    GuardedApp()
    assert Timer._run is frame_slots._run
