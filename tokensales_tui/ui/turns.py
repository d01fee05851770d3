"""Turns of the event loop between the steps of work done on it."""

from __future__ import annotations

import asyncio
import logging

from textual.dom import DOMNode

__all__ = ["between_steps", "keys_drawn"]

log = logging.getLogger(__name__)


async def between_steps(node: DOMNode) -> None:
    """A turn of the event loop between two steps of work done on it for ``node``: the
    reading of a body, the keys and the frames have theirs.

    After a key, the next step waits for the key's frame (the app's ``key_drawn``,
    where it has one): a key goes through several widgets, a turn each, and would
    otherwise wait a step at each of them.
    """
    await asyncio.sleep(0)
    await keys_drawn(node.app)


async def keys_drawn(app: object) -> None:
    """Return once the keys sent to ``app`` so far are drawn (its ``key_drawn``, where it
    has one), or at once; never raise but to be cancelled: the wait is for the keys'
    sake only, and the work waiting goes on."""
    key_drawn = getattr(app, "key_drawn", None)
    if key_drawn is None:
        return
    try:
        await key_drawn()
    except Exception:
        log.exception("waiting for a key's frame")
