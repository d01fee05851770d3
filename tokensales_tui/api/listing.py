"""A list body decoded while it arrives, its rows shown before it has ended.

:class:`StreamedList` is the ``consume`` function the client hands the sender for a
list. The event loop only hands each piece of the body to a thread of its own; that
thread writes it to a :class:`~.spool.Spool` (a private temporary file), feeds it to a
:class:`~.stream.ListSplitter` and decodes each stretch the splitter cuts in one call,
straight into the model: a cut that is not between two elements cannot decode, so the
check and the decoding are one pass. The rows of a stretch share one
:class:`~.spool.Region` (where their text lies in the spool) and each knows its place
in it. The rows list grows stretch by stretch on the event loop, and whoever watches it
(the Items tab) may show it meanwhile; the body itself is never held in memory.

Each call into the decoder takes one stretch (:data:`~.stream.SPLIT_BYTES`, a few
milliseconds), so the event loop gets the interpreter back at least that often.

Anything the splitter or the decoder does not read plainly (another shape, an entry
that is no object of the model, invalid JSON, too many entries) stops the decoding;
the body keeps going to the spool, and once it has ended :class:`~.decode.ListParser`
reads it whole from there, exactly as it reads any body, naming the problem in the
same words.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import msgspec

from . import shapes
from .decode import OFF_LOOP_BYTES, ListParser, NoFastPath
from .errors import UnexpectedResponse
from .models import Model
from .spool import Region, Spool
from .stream import ListSplitter

if TYPE_CHECKING:
    import httpx

__all__ = ["RowsWatcher", "StreamedList"]

TELL_EVERY = 0.05
"""Seconds between two times the rows decoded are handed to the event loop (and its
watcher): at most twenty a second, whatever the size of a stretch."""

QUEUED_BYTES = 8 * 1024 * 1024
"""Body handed to the decoding thread and not yet read by it before reading waits."""

UNPLAIN = (UnexpectedResponse, RecursionError, msgspec.DecodeError, ValueError, NoFastPath)
"""What the splitter or the decoder raises on a body it cannot read plainly: the whole
read names it."""

RowsWatcher = Callable[[str, list[Any]], None]
"""Told ``(what, rows)`` each time the rows of a list arriving grew (the same list)."""


class StreamedList:
    """One attempt at reading a list body as it arrives (a new one for each attempt).

    Args:
        model: What each element is decoded into.
        what: The list's name ("items"), for messages and for ``watch``.
        response: The response whose body arrives.
        watch: Told each time :attr:`rows` grew.
    """

    def __init__(
        self,
        model: type[Model],
        what: str,
        response: httpx.Response,
        watch: RowsWatcher | None = None,
    ) -> None:
        content_type = response.headers.get("content-type", "")
        self.parser = ListParser(model, what, response.status_code, content_type)
        self.splitter = ListSplitter(
            (what, *shapes.LIST_KEYS),
            status=response.status_code,
            content_type=content_type,
            decode=self.parser.decode_region,
        )
        self.spool = Spool()
        self.rows: list[Any] = []
        """The rows decoded so far; the same list grows."""
        self.what = what
        self._watch = watch
        self._plain = True  # False: read the whole body from the spool at the end
        self._decoded = 0  # rows decoded by the thread (it may be ahead of self.rows)
        # Between the event loop and the thread:
        self._inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._given = 0  # bytes put in the inbox
        self._taken = 0  # bytes the thread has dealt with
        self._waiting = False  # the event loop waits for the thread to catch up
        self._stop = False
        self._error: BaseException | None = None
        self._pending: list[Any] = []  # decoded, not yet handed to the event loop
        self._told = 0.0

    async def consume(self, pieces: AsyncIterator[bytes]) -> None:
        """Read the body: hand each piece to the decoding thread, tell the watcher.

        The server never waits for the decoder unless :data:`QUEUED_BYTES` of the body
        are waiting for it; then reading waits.
        """
        loop = asyncio.get_running_loop()
        room = asyncio.Event()
        ended = loop.create_future()
        thread = threading.Thread(
            target=self._work, args=(loop, room, ended), name="list-decoder", daemon=True
        )
        thread.start()
        try:
            async for piece in pieces:
                while not ended.done() and not self._has_room(room):
                    await room.wait()
                if ended.done():  # it failed: its error ends the read
                    break
                with self._lock:
                    self._given += len(piece)
                self._inbox.put(piece)
            self._inbox.put(None)
            await ended
            if self._error is not None:
                raise self._error
        except BaseException:
            self._stop = True
            self._inbox.put(None)
            self._plain = False
            self.rows = []  # the error keeps this object alive: let its rows go now
            raise

    def _has_room(self, room: asyncio.Event) -> bool:
        with self._lock:
            if self._given - self._taken <= QUEUED_BYTES:
                return True
            self._waiting = True
            room.clear()
            return False

    def _work(
        self, loop: asyncio.AbstractEventLoop, room: asyncio.Event, ended: asyncio.Future[None]
    ) -> None:
        """The decoding thread: spool, split and decode each piece as it comes."""
        try:
            while (piece := self._inbox.get()) is not None and not self._stop:
                self.spool.append_soon(piece)  # written by the spool's own thread
                if self._plain:
                    self._take(piece, loop)
                with self._lock:
                    self._taken += len(piece)
                    wake = self._waiting and self._given - self._taken <= QUEUED_BYTES // 2
                    if wake:
                        self._waiting = False
                if wake:
                    loop.call_soon_threadsafe(room.set)
            if self._plain and not self._stop:
                try:
                    rows = self.splitter.close()
                except UNPLAIN:
                    self._give_up()
                else:
                    self._keep(rows, loop)
            self.spool.settle()  # the body is all in the file (or the disk is full)
            self._tell(loop)
        except BaseException as error:  # told to the event loop, which raises it
            self._error = error
        finally:
            with contextlib.suppress(RuntimeError):  # the loop has closed meanwhile
                loop.call_soon_threadsafe(_end, ended, room)

    def _take(self, piece: bytes, loop: asyncio.AbstractEventLoop) -> None:
        try:
            rows = self.splitter.feed(piece)
        except UNPLAIN:
            self._give_up()
            return
        if self.splitter.whole:
            self._give_up()  # the splitter would hold the whole body: the spool has it
        elif rows:
            self._keep(rows, loop)

    def _keep(self, rows: list[Any], loop: asyncio.AbstractEventLoop) -> None:
        if not self.splitter.streaming:
            self._give_up()  # re-encoded from an odd shape: not in the body as is
            return
        if not rows:
            return
        region = Region(self.spool, *self.splitter.region)
        try:
            self.parser.keep(rows, region, self._decoded)
        except NoFastPath:
            self._give_up()
            return
        self._decoded += len(rows)
        self._pending += rows
        now = time.monotonic()
        if now - self._told >= TELL_EVERY:
            self._tell(loop)

    def _tell(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand the rows decoded since last time to the event loop."""
        if self._pending:
            loop.call_soon_threadsafe(self._arrived, self._pending)
            self._pending = []
        self._told = time.monotonic()

    def _arrived(self, rows: list[Any]) -> None:
        """On the event loop: the rows of one more stretch."""
        if not self._plain or self._stop:
            return
        self.rows += rows
        if self._watch is not None:
            self._watch(self.what, self.rows)

    def _give_up(self) -> None:
        """Decode no more as the body arrives: it is read whole from the spool at the end."""
        self._plain = False
        self.splitter = ListSplitter(())  # lets the old one's buffer go

    async def result(self) -> list[Any]:
        """The rows, once the body has ended; read whole from the spool where needed."""
        if self._plain:
            return self.rows
        body = self.spool.whole()
        if len(body) > OFF_LOOP_BYTES:
            return await asyncio.to_thread(self.parser, body)  # type: ignore[arg-type]
        return self.parser(body)  # type: ignore[arg-type]


def _end(ended: asyncio.Future[None], room: asyncio.Event) -> None:
    room.set()
    if not ended.done():
        ended.set_result(None)
