"""What a widget or screen follows in something that outlives it is let go of when it
unmounts.

A node that subscribes to a signal of the app, or watches one of the app's reactives,
is held by the app. A signal keeps each subscriber's callbacks under a weak key, but a
callback calls its node, so the key never dies while the signal lives. Textual keeps a
watcher ``(node, callback)`` in the watched object's list and drops the closed nodes
only when that attribute next changes. A detail view opened and closed 200 times stayed
200 times in memory, until the theme changed.

:class:`Following` is the one way a node of ``ui/`` follows a signal, and a reactive of
the app is followed through the signal the app publishes for it (``theme`` through
``theme_changed_signal``). When the node unmounts, every subscription it made through
:meth:`Following.follow` is dropped, and so is every watcher the app holds for it:
Textual's own ``TextArea`` watches the app's theme. ``tests/test_let_go.py`` fails on
any other subscription, or watch of another object, in ``ui/``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.dom import DOMNode
from textual.signal import Signal

__all__ = ["Following", "drop_watchers"]

T = TypeVar("T")


class Following:
    """For a widget or screen that follows a signal of something that outlives it; put
    it first among the class's bases. What the node follows is dropped on unmount."""

    _followed: tuple[Signal[Any], ...] = ()

    def follow(
        self, signal: Signal[T], callback: Callable[[T], object], *, immediate: bool = False
    ) -> None:
        """Call ``callback`` with each value ``signal`` publishes, once the messages
        already queued for this node are handled (at once, in the publisher's turn, if
        ``immediate``), until this node unmounts."""
        node = self._node()
        signal.subscribe(node, callback, immediate=immediate)
        self._followed += (signal,)

    def _on_unmount(self) -> None:
        # Textual calls the handler of each class among the bases: this one too.
        node = self._node()
        for signal in self._followed:
            signal.unsubscribe(node)
        self._followed = ()
        drop_watchers(node.app, node)

    def _node(self) -> DOMNode:
        assert isinstance(self, DOMNode), "Following is for widgets and screens"
        return self


def drop_watchers(watched: DOMNode, node: DOMNode) -> None:
    """Drop every watcher ``watched`` holds for ``node``.

    Textual keeps them in a dict of lists under the attribute ``__watchers``, set with
    ``setattr`` (not name-mangled), and has no call that removes one.
    """
    watchers: dict[str, list[tuple[Any, Any]]] = getattr(watched, "__watchers", {})
    for held in watchers.values():
        held[:] = [(watcher, callback) for watcher, callback in held if watcher is not node]
