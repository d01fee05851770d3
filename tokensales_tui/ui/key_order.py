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
the mouse's events that come behind them, or behind a key on its way (a click cannot
move the focus under keys typed before it). A click held while a key opened another
screen is dropped: it was aimed at the screen before.

The wait looks at queues, not at the key itself: any message waiting there counts, and
a widget still in a handler that awaits something has none. It is bounded: once the
keys held have waited :data:`KEY_WAIT` with none sent, the queues busy then are passed
over, and the keys held go on one after the other, each once the other queues on the
way of the one before are done, and those passed over hold neither the key itself nor
a message the widget it went to has sent since (enter's ``Submitted``, on its way up to
the tab or screen that answers it). As the app starts, its first frames keep the
screen's queue full for half a second or more: ``/a``, enter, ``j`` typed ahead went on
at once after the bound, and ``j`` reached the filter before enter had moved the focus
to the table. A queue that holds the keys up for the whole bound again is passed over
in turn, and once a key has sat the whole bound in a queue passed over (a widget
stuck, not slow), the keys go on without following one through such a queue. Once no
key is held, every queue counts again.

A key the app answers itself (a priority binding) waits its turn like any other: it
runs after the keys typed before it, on the screen they left.

Keys typed before the screen shown has finished mounting (typed ahead as the app
starts; a screen may say it still is, by a true ``mounting`` attribute) wait for it
too: a binding of the screen would otherwise reach for widgets not there yet (``2``
typed at start-up switched to a tab its ``TabbedContent`` had not made, and the app
ended with an error). So do keys typed while the app says it is
:meth:`~KeysInOrder.starting` (for this one: until its first session has started,
``n`` typed ahead found no session to add a webhook to, and the URL typed after it
went to the table, where ``p`` opened the profiles). That wait is bounded by
:data:`MOUNT_WAIT`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable
from typing import Any, TypeVar

from textual import events, messages
from textual.app import App, ScreenStackError
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen

__all__ = ["KEY_WAIT", "KeysInOrder"]

log = logging.getLogger(__name__)

ReturnType = TypeVar("ReturnType")

Held = events.Key | events.Paste | events.MouseEvent
"""What waits for the keys held before it."""

Ordered = events.Key | events.Paste | events.MouseDown | events.MouseUp
"""What also waits for a key on its way, and is then followed like a key: what may move
the focus or type (a scroll or a move goes on at once when no key is held)."""

KEY_WAIT = 0.5
"""Longest the keys held wait with none of them sent (a widget that never empties its
queue holds them all this long, no longer; a long burst going on is not cut)."""

MOUNT_WAIT = 10.0
"""Longest the keys held wait for the screen shown to finish mounting (a slow start)."""

QUICK_TURNS = 32
"""Turns of the event loop at each of which held keys check the key before them: a key
goes through a few widgets, a turn each. Past them the check comes every
:data:`SLOW_CHECK` seconds."""

SLOW_CHECK = 0.004


UNTOLD = (
    messages.Update,
    messages.Layout,
    messages.UpdateScroll,
    messages.Prompt,
    events.DescendantFocus,
    events.DescendantBlur,
)
"""Messages that repaint, lay out or tell of a focus already moved: no key waits for
them (while a list loads, the screen's queue is seldom without them)."""


def busy(node: MessagePump) -> bool:
    """Whether a message a key may wait for is in ``node``'s queue (a screen just pushed
    counts, before its task has started; a widget no longer on screen, such as a form
    the key closed, handles nothing more)."""
    if not node.message_queue_size or not node.is_attached:
        return False
    waiting: Iterable[Message | None] | None = getattr(node._message_queue, "values", None)
    if waiting is None:  # a Textual whose queue shows no messages: any of them counts
        return True
    return any(not isinstance(message, UNTOLD) for message in waiting)


def _ours(node: MessagePump, key: Held, target: MessagePump) -> list[Message]:
    """What waits in ``node``'s queue of ``key``: the key itself (a key goes up the
    widgets around ``target``, the one it went to, the same event in the queue of each
    in turn), or a message from ``target`` made since the key was read (enter's
    ``Submitted``, a table's ``RowSelected``, on their way up to whoever answers them)."""
    waiting: Iterable[Message | None] = getattr(node._message_queue, "values", ())
    return [
        queued
        for queued in waiting
        if queued is not None
        and not isinstance(queued, UNTOLD)  # repaints: merged, some never handled
        and (queued is key or (_sent_by(queued) is target and queued.time >= key.time))
    ]


def _sent_by(message: Message) -> object:
    """The widget a message is about (``control``: an action of the widget's that the
    app ran posts it in the app's name), else the one that posted it."""
    control = getattr(message, "control", None)
    return control if control is not None else message._sender


def _names(nodes: Iterable[MessagePump]) -> str:
    """The classes of ``nodes``, for the log (a widget's repr may show what was typed)."""
    return ", ".join(type(node).__name__ for node in nodes)


def _enter(newline: events.Key) -> events.Key:
    """Enter, in place of the newline key (ctrl+j) from the terminal, as readline reads
    it: enter typed ahead as the app starts, before it has the terminal to itself,
    reaches it as a newline (the terminal's line discipline still turns a return into
    one). It keeps the time the newline was read: a dialog that opened since ignores it,
    as it does every key typed ahead of it."""
    enter = events.Key("enter", "\r")
    enter.time = newline.time
    return enter


class KeysInOrder(App[ReturnType]):
    """An app that hands each key on once the key before it is done (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: deque[tuple[Held, Screen[Any] | None]] = deque()
        """Keys (pastes, mouse events) held, each with the screen shown when it came."""
        self._held_since = 0.0
        """When the keys held last made progress: the first was held, or one was sent."""
        self._key_sent_at = 0.0
        """When the last key was sent: it is followed :data:`KEY_WAIT` at most."""
        self._key_path: tuple[MessagePump, ...] = ()
        """Where the last key sent went: the widget it went to, up to the app."""
        self._key_follow: asyncio.Task[None] | None = None
        self._key_sent: Held | None = None
        """The last key sent, while it is followed."""
        self._passed_over: set[MessagePump] = set()
        """Where the keys held waited :data:`KEY_WAIT` for a busy queue: waited for
        again only for the key sent last and what its widget sent since (see
        :attr:`_followed`), until no key is held."""
        self._stuck = False
        """A key waited :data:`KEY_WAIT` in a queue passed over: none is followed
        through one again until no key is held."""
        self._followed: dict[int, Message] = {}
        """What of the key sent last (itself, what its widget sent since) was seen in a
        queue passed over and has not been handled there yet, by id (a message may
        not be hashable)."""
        self._ready_wait_since: float | None = None
        """When the keys held began to wait for the app to get ready."""
        self._key_arrived: events.Key | None = None
        """The last key that came back up to the app, whose bindings it has been to."""

    @property
    def keys_held(self) -> int:
        """Keys (and pastes, mouse events) waiting for the keys before them."""
        return len(self._held)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.key == "ctrl+j" and not event.is_forwarded:
            event = _enter(event)
        if not isinstance(event, Held) or event.is_forwarded:
            await super().on_event(event)
            if isinstance(event, events.Key) and event.is_forwarded:
                self._key_arrived = event  # up from the widget it went to, its bindings run
        elif self._held or (
            isinstance(event, Ordered)
            and (self._key_on_its_way() or (self._getting_ready() and not self._own_key(event)))
        ):
            if not self._held:
                self._held_since = time.monotonic()
            self._held.append((event, self._screen_now()))
            self._follow_key()
        elif isinstance(event, Ordered):
            await self._send(event)
        else:
            await super().on_event(event)  # as Textual does: no key before it waits

    def _screen_now(self) -> Screen[Any] | None:
        try:
            return self.screen
        except ScreenStackError:
            return None

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
        self._key_sent = None if self._stuck else event
        self._followed.clear()  # what the key before left is its own
        self._key_sent_at = time.monotonic()
        self._follow_key()  # so that a key typed later finds it done, not its queues busy

    def _key_on_its_way(self) -> bool:
        """Whether the last key sent is not done yet (module docstring). Once the keys
        held have waited too long, the queues they wait for are passed over."""
        if not self._held and self._passed_over:
            self._forget_passed_over()
        if not self._key_path:
            return False
        if not self._held and time.monotonic() - self._key_sent_at >= KEY_WAIT:
            return False  # followed long enough
        nodes = list(self._key_path)
        try:
            screen = self.screen
        except ScreenStackError:
            pass
        else:
            nodes += [screen] if screen.focused is None else [screen, screen.focused]
        passed_over, key, target = self._passed_over, self._key_sent, self._key_path[0]
        if key is not None:
            for node in passed_over:
                for message in _ours(node, key, target):
                    self._followed[id(message)] = message
        waiting = [node for node in nodes if node not in passed_over and busy(node)]
        # Queues passed over, a key is followed until it has reached the app or a widget
        # has stopped it (between two queues a widget is handling it), and so is what
        # its widget sent until handled.
        followed = bool(passed_over) and (self._travelling(key) or bool(self._followed))
        if (waiting or followed) and self._held_too_long():
            log.debug("keys held %.1f s: passing over %s", KEY_WAIT, _names(waiting))
            if followed:
                # The key spent the whole bound on its way through queues passed over:
                # stuck, not slow; the keys after it go on without following one.
                self._key_sent = None
                self._followed.clear()
                self._stuck = True
            self._pass_over(waiting)
            return False
        return bool(waiting) or followed

    def _pass_over(self, nodes: Iterable[MessagePump]) -> None:
        for node in nodes:
            if node not in self._passed_over:
                self._passed_over.add(node)
                # let go: the app follows a node's queue, not a node the app; all of
                # them are dropped once no key is held (_forget_passed_over).
                node.message_signal.subscribe(self, self._handled, immediate=True)

    def _handled(self, message: Message) -> None:
        """A queue passed over has handled ``message``."""
        self._followed.pop(id(message), None)

    def _forget_passed_over(self) -> None:
        for node in self._passed_over:
            node.message_signal.unsubscribe(self)
        self._passed_over.clear()
        self._followed.clear()
        self._stuck = False

    def _travelling(self, key: Held | None) -> bool:
        """Whether ``key``, sent to a widget, is still on its way up to the app."""
        return (
            isinstance(key, events.Key)
            and self._key_path != (self,)
            and not key._stop_propagation
            and key is not self._key_arrived
        )

    def _own_key(self, event: Held) -> bool:
        """Whether ``event`` is the app's own quit key (a priority binding): quitting
        needs nothing ready, so it waits for nothing (a slow start could hold it
        :data:`MOUNT_WAIT`)."""
        if not isinstance(event, events.Key):
            return False
        bindings = self._bindings.key_to_bindings.get(event.key, ())
        return any(binding.priority and binding.action == "quit" for binding in bindings)

    def starting(self) -> bool:
        """Whether the app is still getting ready for keys, beyond mounting its screen
        (a subclass says): keys typed meanwhile wait, as for a screen to mount."""
        return False

    def _getting_ready(self) -> bool:
        """Whether the screen shown is still mounting its widgets, or the app
        :meth:`starting`: for at most :data:`MOUNT_WAIT` from the first key held
        meanwhile, once for all the keys (then they go on, and so do keys typed later,
        until the app is ready and a new wait may begin)."""
        screen = self._screen_now()
        mounted = screen is None or (screen.is_mounted and not getattr(screen, "mounting", False))
        if mounted and not self.starting():
            self._ready_wait_since = None
            return False
        if self._ready_wait_since is None:
            if not self._held:
                return True  # the key that asks is held, and its wait begins
            self._ready_wait_since = time.monotonic()
        return time.monotonic() - self._ready_wait_since < MOUNT_WAIT

    def _held_too_long(self) -> bool:
        """Whether the keys held have waited :data:`KEY_WAIT` with none of them sent
        (the screen shown mounted meanwhile)."""
        if not self._held or self._getting_ready():
            return False
        return time.monotonic() - self._held_since >= KEY_WAIT

    def _follow_key(self) -> None:
        if self._key_follow is None or self._key_follow.done():
            self._key_follow = asyncio.create_task(self._wait_then_send())

    async def _wait_then_send(self) -> None:
        """Wait while the last key sent looks on its way, then have the app look again in
        its own turn (the app decides) and send the keys held."""
        turns = 0
        try:
            while self.is_running and (self._key_on_its_way() or self._getting_ready()):
                # Every turn while keys wait; otherwise less often (only a key typed
                # later wants to know the last one is done).
                quick = self._held and turns < QUICK_TURNS
                await asyncio.sleep(0 if quick else SLOW_CHECK)
                turns += 1
        except Exception:  # never leave keys held: they go on as Textual would send them
            log.exception("waiting for a key on its way")
            self._key_path = ()
        if self.is_running:
            self.call_later(self._send_held)

    async def _send_held(self) -> None:
        """In the app's turn: the last key sent is done (then forgotten, so that a key
        typed later goes on at once), or the held keys wait on; the held keys go on."""
        if not self._held:
            if self._key_on_its_way():
                self._follow_key()
            else:
                self._key_path = ()
            return
        if self._getting_ready():
            self._follow_key()
            return
        while self._held:
            if self._key_on_its_way():
                self._follow_key()
                return
            event, screen = self._held.popleft()
            self._held_since = time.monotonic()
            if isinstance(event, events.MouseEvent) and screen is not self._screen_now():
                continue  # aimed at a screen a key before it has replaced
            await self._send(event)
            if self._key_path == (self,):
                # The app answered it (a priority binding): what it asked of the app,
                # such as a screen to show, comes in the app's next turns.
                self._follow_key()
                return
