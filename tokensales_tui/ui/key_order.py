"""Each key reaches the widget that the keys before it left the focus on.

Textual hands a key from the terminal to the focused widget as soon as the app takes it
from its queue. The screen's and the app's bindings (tab, enter in a form, a key that
opens a form) run only once the key has gone up through every widget around the
focused one, a turn of the event loop each, and a widget's ``focus()`` moves the focus
in a later turn of the app's. Keys that arrive in one read of the terminal (typed fast
over SSH, sent by tmux, a held key) were all handed to the widget focused when the
first of them came: ``name``, tab, ``chain`` put "namechain" in the first field, and
``n`` then a URL sent the URL's characters to the table, not to the new form.

:class:`KeysInOrder` hands a key on only once no message waits in the queue of any
widget on the way of the key before it (the widget it went to, up to the app), nor in
that of the screen shown now or its focused widget. The app decides that in its own
turn, after the messages the key left in its queue (a ``focus()``), never while an
action of the key still runs. The keys meanwhile wait in order, and so do a paste and
the mouse's events that come behind them (a click cannot move the focus under keys
typed before it).

The wait looks at queues, not at the key itself: any message waiting there counts, and
a widget still in a handler that awaits something has none. It is bounded: once the
first key held has waited :data:`KEY_WAIT`, every key held goes on at once, where
Textual would send it.

A key the app answers itself (a priority binding) waits its turn like any other: it
runs after the keys typed before it, on the screen they left.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, TypeVar

from textual import events
from textual.app import App, ScreenStackError
from textual.message_pump import MessagePump

__all__ = ["KEY_WAIT", "KeysInOrder"]

log = logging.getLogger(__name__)

ReturnType = TypeVar("ReturnType")

Held = events.Key | events.Paste | events.MouseEvent
"""What waits for the keys before it."""

KEY_WAIT = 0.5
"""Longest a key waits for the keys before it (counted from the first key held: a widget
that never empties its queue holds them all this long, no longer)."""

QUICK_TURNS = 32
"""Turns of the event loop at each of which held keys check the key before them: a key
goes through a few widgets, a turn each. Past them the check comes every
:data:`SLOW_CHECK` seconds."""

SLOW_CHECK = 0.004


def busy(node: MessagePump) -> bool:
    """Whether a message waits in ``node``'s queue (a widget no longer on screen, such as
    a form the key closed, handles nothing more)."""
    return bool(node.message_queue_size and node.is_running and node.is_attached)


class KeysInOrder(App[ReturnType]):
    """An app that hands each key on once the key before it is done (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: deque[tuple[Held, float]] = deque()
        """Keys (pastes, mouse events) held, with when each was taken."""
        self._key_path: tuple[MessagePump, ...] = ()
        """Where the last key sent went: the widget it went to, up to the app."""
        self._key_follow: asyncio.Task[None] | None = None

    @property
    def keys_held(self) -> int:
        """Keys (and pastes, mouse events) waiting for the keys before them."""
        return len(self._held)

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, Held) or event.is_forwarded:
            await super().on_event(event)
        elif self._held or (not isinstance(event, events.MouseEvent) and self._key_on_its_way()):
            self._held.append((event, time.monotonic()))
            self._follow_key()
        elif isinstance(event, events.MouseEvent):
            await super().on_event(event)  # as Textual does: no key before it waits
        else:
            await self._send(event)

    async def _send(self, event: Held) -> None:
        """Textual's way with ``event``: a key to a priority binding or the focused widget
        (the screen when nothing has the focus); then follow it."""
        try:
            target = self.focused or self.screen
        except ScreenStackError:  # no screen yet, or any more: nothing takes it
            return
        await super().on_event(event)
        # Up to the app itself, whose queue takes what the key asks for later (a focus())
        # and the key itself when it comes back up to the app's bindings. A key the app
        # answered has only that.
        self._key_path = tuple(target.ancestors_with_self) if event.is_forwarded else (self,)

    def _key_on_its_way(self) -> bool:
        """Whether the last key sent is not done yet (module docstring)."""
        if not self._key_path:
            return False
        if self._held and time.monotonic() - self._held[0][1] >= KEY_WAIT:
            return False  # held long enough: everything held goes on
        nodes = list(self._key_path)
        try:
            screen = self.screen
        except ScreenStackError:
            pass
        else:
            nodes += [screen] if screen.focused is None else [screen, screen.focused]
        return any(busy(node) for node in nodes)

    def _follow_key(self) -> None:
        if self._key_follow is None or self._key_follow.done():
            self._key_follow = asyncio.create_task(self._wait_then_send())

    async def _wait_then_send(self) -> None:
        """Wait while the key before the held ones looks on its way, then have the app
        send them in its own turn (which looks again: the app decides)."""
        turns = 0
        try:
            while self.is_running and self._held and self._key_on_its_way():
                await asyncio.sleep(0 if turns < QUICK_TURNS else SLOW_CHECK)
                turns += 1
        except Exception:  # never leave keys held: they go on as Textual would send them
            log.exception("waiting for a key on its way")
            self._key_path = ()
        if self._held and self.is_running:
            self.call_later(self._send_held)

    async def _send_held(self) -> None:
        while self._held:
            if self._key_on_its_way():
                self._follow_key()
                return
            event, _ = self._held.popleft()
            await self._send(event)
