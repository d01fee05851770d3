"""Each key reaches the widget that the keys before it left the focus on.

Textual hands a key from the terminal to the focused widget as soon as the app takes it
from its queue. The screen's and the app's bindings (tab, enter in a form, a key that
opens a form) run only once the key has gone up through every widget around the
focused one, a turn of the event loop each. Keys that arrive in one read of the
terminal (typed fast over SSH, sent by tmux, a held key) were all handed to the widget
focused when the first of them came: ``name``, tab, ``chain`` put "namechain" in the
first field, and ``n`` then a URL sent the URL's characters to the table, not to the
new form.

:class:`KeysInOrder` hands a key on only once the key before it is done: nothing
waits in the queue of any widget on its way (the widget it went to, up to the app,
whose queue also takes a widget's ``focus()``), nor in that of the screen shown now or
its focused widget (a form that key opened has mounted and focused its first field).
The keys meanwhile wait in order. A key that a busy widget holds up holds the ones after it
:data:`KEY_WAIT` at most; they then go where Textual would send them.

A key the app answers itself (a priority binding) waits its turn like any other: it
runs after the keys typed before it, on the screen they left. So does a paste: ``n``
then a pasted URL fills the new form.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, TypeVar

from textual import events
from textual.app import App, ScreenStackError
from textual.dom import DOMNode
from textual.message_pump import MessagePump

__all__ = ["KEY_WAIT", "KeysInOrder"]

log = logging.getLogger(__name__)

ReturnType = TypeVar("ReturnType")

KEY_WAIT = 0.5
"""Longest a key waits for the key before it to be done (a widget busy with it, or with
what it asked for, holds the keys after it no longer)."""

QUICK_TURNS = 32
"""Turns of the event loop at each of which a key held checks the key before it: a key
goes through a few widgets, a turn each. Past them, or with no key held, the check comes
every :data:`SLOW_CHECK` seconds."""

SLOW_CHECK = 0.004


def busy(node: MessagePump) -> bool:
    """Whether ``node`` has messages waiting: the key, or what it asked for.

    A node no longer on screen (a form the key closed) handles nothing more.
    """
    return bool(node.message_queue_size and node.is_running and node.is_attached)


class KeysInOrder(App[ReturnType]):
    """An app that hands each key on once the key before it is done (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held_keys: deque[events.Key | events.Paste] = deque()
        self._key_path: tuple[MessagePump, ...] = ()
        """The widgets the last key handed on goes through: where it went, up to the app
        (empty once it is done)."""
        self._key_sent_at = 0.0
        self._key_follow: asyncio.Task[None] | None = None

    @property
    def keys_held(self) -> int:
        """Keys (and pastes) taken from the terminal, waiting for the key before them to
        be done."""
        return len(self._held_keys)

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            await super().on_event(event)
        elif self._held_keys or self._key_on_its_way():
            self._held_keys.append(event)
            self._wait_for_key()
        else:
            await self._send_key(event)

    async def _send_key(self, event: events.Key | events.Paste) -> None:
        """Textual's way with a key from the terminal: a priority binding, or the focused
        widget (the screen when nothing has the focus); then follow it. A paste goes the
        same way (with no binding)."""
        target: DOMNode
        try:
            target = self.focused or self.screen
        except ScreenStackError:  # no screen yet, or any more
            target = self
        await super().on_event(event)
        # Up to the app itself, whose queue takes what the key asks for later (a widget's
        # focus() moves the focus in a turn of the app's), and the key itself when it
        # comes back up to the app's bindings. A key the app answered has only that.
        forwarded = event.is_forwarded and target is not self
        self._key_path = tuple(target.ancestors_with_self) if forwarded else (self,)
        self._key_sent_at = time.monotonic()
        self._wait_for_key()  # followed from now: a key typed later finds it done

    def _key_on_its_way(self) -> bool:
        """Whether the last key handed on is not done yet (module docstring)."""
        if not self._key_path:
            return False
        if time.monotonic() - self._key_sent_at < KEY_WAIT:
            nodes = list(self._key_path)
            try:
                screen = self.screen
            except ScreenStackError:
                pass
            else:
                nodes += [screen] if screen.focused is None else [screen, screen.focused]
            if any(busy(node) for node in nodes):
                return True
        self._key_path = ()
        return False

    def _wait_for_key(self) -> None:
        if self._key_follow is None or self._key_follow.done():
            self._key_follow = asyncio.create_task(self._wait_then_send())

    async def _wait_then_send(self) -> None:
        """Wait for the key on its way, then have the app send the keys held (in its own
        turn, after whatever the key left in the app's queue)."""
        turns = 0
        try:
            while self._key_on_its_way():
                # Every turn while keys wait; a key with none behind it is looked at
                # less often (only a key typed later wants to know it is done).
                quick = self._held_keys and turns < QUICK_TURNS
                await asyncio.sleep(0 if quick else SLOW_CHECK)
                turns += 1
        except Exception:  # never leave keys held: they go on as Textual would send them
            log.exception("waiting for a key on its way")
            self._key_path = ()
        if self._held_keys:
            self.call_later(self._send_held_keys)

    async def _send_held_keys(self) -> None:
        while self._held_keys:
            if self._key_on_its_way():
                self._wait_for_key()
                return
            await self._send_key(self._held_keys.popleft())
