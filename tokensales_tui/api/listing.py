"""A list body decoded while it arrives, its rows shown before it has ended.

:class:`StreamedList` is the ``consume`` function the client hands the sender for a
list: each piece of the body is written to a :class:`~.spool.Spool` (a private
temporary file) and fed to a :class:`~.stream.ListSplitter`; the elements complete so
far are decoded in a thread, straight into the model, each keeping only where its text
lies in the spool. The rows list grows batch by batch, and whoever watches it (the
Items tab) may show it meanwhile; the body itself is never held in memory.

Anything the splitter or the batch decoder does not read plainly (another shape, an
entry that is no object of the model, invalid JSON, too many entries) stops the
decoding; the body keeps going to the spool, and once it has ended
:class:`~.decode.ListParser` reads it whole from there, exactly as it reads any body,
naming the problem in the same words.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import msgspec

from . import shapes
from .decode import OFF_LOOP_BYTES, ListParser, NoFastPath
from .errors import UnexpectedResponse
from .models import Model
from .spool import Spool
from .stream import ListSplitter

if TYPE_CHECKING:
    import httpx

__all__ = ["RowsWatcher", "StreamedList"]

BATCHES_QUEUED = 4
"""Batches cut and waiting for the decoder before reading waits for it."""

UNPLAIN = (UnexpectedResponse, RecursionError, msgspec.DecodeError, ValueError)
"""What the splitter raises on a body it cannot cut: the whole read names it."""

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
            (what, *shapes.LIST_KEYS), status=response.status_code, content_type=content_type
        )
        self.spool = Spool()
        self.rows: list[Any] = []
        """The rows decoded so far; the same list grows."""
        self.what = what
        self._watch = watch
        self._plain = True  # False: read the whole body from the spool at the end

    async def consume(self, pieces: AsyncIterator[bytes]) -> None:
        """Read the body: spool it, cut what is complete, tell the watcher.

        Decoding runs in a task of its own, a thread call per batch, while the next
        pieces are read: the server never waits for the decoder (a few batches queue at
        most, then reading waits).
        """
        batches: asyncio.Queue[tuple[list[msgspec.Raw], list[int]] | None] = asyncio.Queue(
            BATCHES_QUEUED
        )
        decoding = asyncio.get_running_loop().create_task(self._decode_all(batches))
        try:
            async for piece in pieces:
                self.spool.append(piece)
                if self._plain:
                    await self._take(piece, batches)
                if decoding.done():  # it failed: its error ends the read
                    decoding.result()
            if self._plain:
                try:
                    elements = self.splitter.close()
                except UNPLAIN:
                    self._give_up()
                else:
                    await self._queue(elements, self.splitter.offsets, batches)
            await batches.put(None)
            await decoding
        except BaseException:
            decoding.cancel()
            self._give_up()  # the error keeps this object alive: let its rows go now
            self.rows = []
            raise

    async def _take(
        self, piece: bytes, batches: asyncio.Queue[tuple[list[msgspec.Raw], list[int]] | None]
    ) -> None:
        try:
            elements = self.splitter.feed(piece)
        except UNPLAIN:
            self._give_up()
            return
        if self.splitter.whole:
            self._give_up()  # the splitter would hold the whole body: the spool has it
        elif elements:
            await self._queue(elements, self.splitter.offsets, batches)

    async def _queue(
        self,
        elements: list[msgspec.Raw],
        offsets: list[int],
        batches: asyncio.Queue[tuple[list[msgspec.Raw], list[int]] | None],
    ) -> None:
        if not self.splitter.streaming or len(offsets) != len(elements):
            self._give_up()  # re-encoded from an odd shape: not in the body as is
        elif elements:
            await batches.put((elements, offsets))

    def _give_up(self) -> None:
        """Decode no more as the body arrives: it is read whole from the spool at the end."""
        self._plain = False
        self.splitter = ListSplitter(())  # lets the old one's buffer go

    async def _decode_all(
        self, batches: asyncio.Queue[tuple[list[msgspec.Raw], list[int]] | None]
    ) -> None:
        while (batch := await batches.get()) is not None:
            if self._plain:
                await self._decode(*batch)

    async def _decode(self, elements: list[msgspec.Raw], offsets: list[int]) -> None:
        size = sum(map(len, elements))
        try:
            if size > OFF_LOOP_BYTES:
                rows = await asyncio.to_thread(
                    self.parser.batch, elements, offsets, self.spool, len(self.rows)
                )
            else:
                rows = self.parser.batch(elements, offsets, self.spool, len(self.rows))
        except NoFastPath:
            self._give_up()
            return
        if not rows or not self._plain:
            return
        self.rows += rows
        if self._watch is not None:
            self._watch(self.what, self.rows)

    async def result(self) -> list[Any]:
        """The rows, once the body has ended; read whole from the spool where needed."""
        if self._plain:
            return self.rows
        body = self.spool.whole()
        if len(body) > OFF_LOOP_BYTES:
            return await asyncio.to_thread(self.parser, body)  # type: ignore[arg-type]
        return self.parser(body)  # type: ignore[arg-type]
