"""A frame due while a key is on its way to its widget waits for the key.

Textual draws a screen on the ticks of a 60 Hz timer. A key goes from the terminal's
thread to the app's queue, then to the focused widget's (the screen's when nothing has
the focus), a turn of the event loop each; a tick that falls between two of those turns
draws the screen as it was before the key (15 ms for a table here), and the key's own
frame comes a tick later. :func:`hold_frames_for_keys` has a screen's tick ask its app
(``frame_waits_for_key``) first: while a key is on its way, the tick draws nothing and
the timer ticks on, so a later tick draws the screen with the key handled. The app
bounds the wait (a key whose widget is busy does not hold the screen).

Textual's ``Pilot.pause`` calls the tick itself to draw at once; a key still on its
way then leaves the screen to the timer's next tick.

A key's way starts sooner with :func:`post_input_at_once`: the terminal's driver hands
it to the app's queue in the event loop's next turn, not a turn later.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.driver import Driver
from textual.message import Message
from textual.screen import Screen

from .escape_keys import escape_apart

__all__ = ["hold_frames_for_keys", "post_input_at_once"]

_textual_update = Screen._on_timer_update


def _on_timer_update(self: Screen[Any]) -> None:
    """Textual's frame, unless the app says a key on its way should be in it."""
    waits = getattr(self.app, "frame_waits_for_key", None)
    if waits is not None and waits(self):
        return  # the timer ticks on: the next tick draws the screen, with the key
    _textual_update(self)


def hold_frames_for_keys() -> None:
    """Have every screen's frame ask its app whether to wait for a key (apps with no
    ``frame_waits_for_key`` are drawn as Textual draws them)."""
    Screen._on_timer_update = _on_timer_update  # type: ignore[method-assign]


def _send_message(self: Driver, message: Message) -> None:
    """Put ``message`` in the app's queue in the event loop's next turn (a key that
    came with an escape before it as two: see :mod:`.escape_keys`)."""
    for each in escape_apart(message) if isinstance(message, events.Key) else [message]:
        self._loop.call_soon_threadsafe(self._app.post_message, each)


def post_input_at_once() -> None:
    """Have the terminal's drivers put each key, paste and mouse event in the app's
    queue in the event loop's next turn.

    Textual's driver, in its input thread, has the loop start a task that posts it:
    the task's first step is scheduled in that turn and runs in the next, behind
    every step of work scheduled meanwhile. While a list of 100,000 items arrives,
    those are pieces of the body to decode and slices of rows to index (3-10 ms each):
    a key reached the app's queue 9-34 ms after the terminal had it, before any
    widget saw it. The order of the driver's messages is kept: each goes in the same
    queue of callbacks, in the order it came.
    """
    Driver.send_message = _send_message  # type: ignore[method-assign]
