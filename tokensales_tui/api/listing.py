"""A list body decoded while it arrives, its rows shown before it has ended.

:class:`StreamedList` is the ``consume`` function the client hands the sender for a
list. On the event loop, between two reads of the body, it hands each piece to a
:class:`~.spool.Spool` (a private temporary file, written by a thread of its own a
megabyte at a time), feeds it to a :class:`~.stream.ListSplitter` and decodes each
stretch the splitter cuts in one call, straight into the model: a cut that is not
between two elements cannot decode, so the check and the decoding are one pass. The
rows of a stretch share one :class:`~.spool.Region` (where their text lies in the spool)
and each knows its place in it. The rows list grows at most twenty times a second, and
whoever watches it (the Items tab) may show it meanwhile; the body itself is never held
in memory.

Why on the event loop and not in a thread: the reading gives up the interpreter at
every read of the socket, and a thread busy decoding then keeps it until its turn ends
(up to 5 ms, or a whole call into the decoder): a GET of the 614 MB body of 1,000,000
items took 4.7 s alone and 49 s beside a thread decoding without pause. Decoded between
two reads, one stretch (:data:`~.stream.SPLIT_BYTES`, a few milliseconds) at a time,
nothing waits for a turn, and keys and frames take theirs between two stretches.

Every piece is first checked to be UTF-8 (:class:`~.body_text.DataPieces`): a body that
is not is refused as it arrives, as every route refuses it, even where its text is not
decoded then (a list of items only counted, a member the model skips).

Anything the splitter or the decoder does not read plainly (another shape, an entry
that is no object of the model, invalid JSON, too many entries) stops the decoding;
the body keeps going to the spool, and once it has ended :class:`~.decode.ListParser`
reads it whole from there, exactly as it reads any body, naming the problem in the
same words.
"""

from __future__ import annotations

import asyncio
import contextlib
import mmap
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import msgspec

from . import shapes
from .arriving import ArrivingRows
from .body_text import DataPieces
from .decode import OFF_LOOP_BYTES, ListParser, NoFastPath
from .errors import UnexpectedResponse
from .models import Model, never_walked
from .paging import Paging
from .spool import Region, Spool
from .stream import ListSplitter

if TYPE_CHECKING:
    import httpx

__all__ = ["BetweenReads", "RowsWatcher", "StreamedList"]

TELL_EVERY = 0.05
"""Seconds between two times the rows decoded are added to the list (and its watcher
told): at most twenty a second, whatever the size of a stretch."""

UNPLAIN = (UnexpectedResponse, RecursionError, msgspec.DecodeError, ValueError, NoFastPath)
"""What the splitter or the decoder raises on a body it cannot read plainly: the whole
read names it."""

RowsWatcher = Callable[[str, "StreamedList"], None]
"""Told ``(what, arrival)`` each time the rows of a list arriving grew (``arrival.rows``,
the same list), and once more when its body has ended (``arrival.ended``)."""

BetweenReads = Callable[[], Awaitable[None]]
"""Awaited after each piece of a list body is decoded, before the next is read: an app
lets a key typed meanwhile reach its frame first (the decoding of the next pieces
would otherwise come between them, a few milliseconds each). It must return soon and
raise nothing but a cancellation: an error of it is an error of the read."""


class StreamedList:
    """One attempt at reading a list body as it arrives (a new one for each attempt).

    Args:
        model: What each element is decoded into.
        what: The list's name ("items"), for messages and for ``watch``.
        response: The response whose body arrives.
        watch: Told each time :attr:`rows` grew.
        between_reads: Awaited after each piece is decoded (see :data:`BetweenReads`).
    """

    def __init__(
        self,
        model: type[Model],
        what: str,
        response: httpx.Response,
        watch: RowsWatcher | None = None,
        between_reads: BetweenReads | None = None,
    ) -> None:
        content_type = response.headers.get("content-type", "")
        self.parser = parser = ListParser(model, what, response.status_code, content_type)
        self.text = DataPieces(what, status=response.status_code, content_type=content_type)
        """Checks that the body is UTF-8 as it arrives, whether it is decoded then or not."""
        counted = parser.counts and watch is not None
        self.splitter = ListSplitter(
            (what, *shapes.LIST_KEYS),
            status=response.status_code,
            content_type=content_type,
            decode=parser.count_region if counted else parser.decode_region,
        )
        self.spool = Spool()
        self.rows: list[Any] = never_walked(
            ArrivingRows(parser.decode_regions, parser.blank, _whole_read(self.spool, parser))
            if counted
            else []
        )
        """The rows so far; the same list grows. Of a list that is counted as it arrives
        (:attr:`ListParser.counts`, and someone watches it grow), an
        :class:`~.arriving.ArrivingRows`: its rows are decoded when read, and the rest by
        whoever reads them all (:func:`~.arriving.whole`). (Unwatched, counting first
        would only add to the decoding.)"""
        self.what = what
        self.length = 0
        """Bytes of the body read so far (all given to the spool)."""
        self.ended = False
        """Whether the whole body has been read (:attr:`length` is its length)."""
        self._watch = watch
        self._between_reads = between_reads
        self._plain = True  # False: read the whole body from the spool at the end
        self._pending: list[Any] = []  # decoded, not yet added to self.rows
        self._counted: list[tuple[Region, int]] = []  # ... or counted (ArrivingRows)
        self._counted_rows = 0
        self._told = 0.0

    async def consume(self, pieces: AsyncIterator[bytes]) -> None:
        """Read the body: spool, split and decode each piece as it comes, on the event
        loop, one stretch at a time; tell the watcher at most twenty times a second."""
        between_reads = self._between_reads
        try:
            async for piece in pieces:
                self.text(piece)
                self.spool.append_soon(piece)  # written by the spool's own thread
                self.length += len(piece)
                if self._plain:
                    self._take(piece)
                    if between_reads is not None:
                        await between_reads()
            self.text.end()
            if self._plain:
                try:
                    rows = self.splitter.close()
                except UNPLAIN:
                    self._give_up()
                else:
                    self._keep(rows)
            self.ended = True
            self._tell()
            # The body is all in the file (or the disk is full): waited for in a thread.
            await asyncio.to_thread(self.spool.settle)
            self.spool.finish()  # its thread ends; the rows read from the file
        except BaseException:
            self._plain = False
            self.rows, self._pending, self._counted = [], [], []  # kept alive by the error
            self.close()
            raise

    @property
    def paging(self) -> Paging | None:
        """Once the rows are read (:meth:`result`): what the body said of more on the
        server beside its list (:mod:`.paging`), if anything."""
        return self.splitter.paging if self._plain else self.parser.paging

    def close(self) -> None:
        """Give back the spool (its file and writing thread) now: for an attempt that
        failed or was given up, whose rows no one keeps. Whatever still refers to this
        attempt (an error's frames, a tab's last look at it) holds no file then, even
        where the collector would free it much later or, frozen, never
        (:func:`~.models.settle_collections`)."""
        self.spool.close()

    def _take(self, piece: bytes) -> None:
        try:
            rows = self.splitter.feed(piece)
        except UNPLAIN:
            self._give_up()
            return
        if self.splitter.whole:
            self._give_up()  # the splitter would hold the whole body: the spool has it
        elif rows:
            self._keep(rows)

    def _keep(self, rows: list[Any]) -> None:
        if not self.splitter.streaming:
            self._give_up()  # re-encoded from an odd shape: not in the body as is
            return
        if not rows:
            return
        region = Region(self.spool, *self.splitter.region)
        before = len(self.rows) + len(self._pending) + self._counted_rows
        try:
            self.parser.keep(rows, region, before)
        except NoFastPath:
            self._give_up()
            return
        if isinstance(self.rows, ArrivingRows):
            self._counted.append((region, len(rows)))
            self._counted_rows += len(rows)
        else:
            self._pending += rows
        if time.monotonic() - self._told >= TELL_EVERY:
            self._tell()

    def _tell(self) -> None:
        """Add the rows decoded since last time to :attr:`rows`; tell the watcher."""
        self._told = time.monotonic()
        if not self._plain or not (self._pending or self._counted or self.ended):
            return
        rows = self.rows
        if isinstance(rows, ArrivingRows):
            for region, count in self._counted:
                rows.add(region, count)
            self._counted, self._counted_rows = [], 0
        else:
            rows += self._pending
            self._pending = []
        if self._watch is not None:
            self._watch(self.what, self)

    def _give_up(self) -> None:
        """Decode no more as the body arrives: it is read whole from the spool at the end."""
        self._plain = False
        self.splitter = ListSplitter(())  # lets the old one's buffer go
        self._pending, self._counted = [], []  # never shown: the whole read gives the rows

    async def result(self) -> list[Any]:
        """The rows, once the body has ended; read whole from the spool where needed.

        Rows counted as they arrived (an :class:`~.arriving.ArrivingRows`) come back as
        they are, their stretches decoded when read: whoever holds them awaits
        :func:`~.arriving.whole` before reading them all, which decodes the rest (see
        :meth:`decoded`) and raises where the whole read would. Their watcher may have
        had them decoded elsewhere meanwhile (the Items tab's index processes decode
        every row again), and the load need not wait for the rest on the event loop.
        """
        rows = self.rows
        if self._plain and isinstance(rows, ArrivingRows):
            return rows
        return await self.decoded()

    async def decoded(self) -> list[Any]:
        """:meth:`result` with every row decoded: rows counted as they arrived are
        decoded by :meth:`~.arriving.ArrivingRows.decoded`, a few stretches at a time,
        after the response is closed and outside the time the request may take; when
        one does not fit, the whole body is read, which names the problem."""
        rows = self.rows
        if self._plain and isinstance(rows, ArrivingRows):
            return await rows.decoded(self._between_reads)
        if self._plain:
            return rows
        try:
            return await _whole_read(self.spool, self.parser)()
        finally:
            self.close()  # the rows read whole keep their text in a spool of their own


def _whole_read(spool: Spool, parser: ListParser) -> Callable[[], Awaitable[list[Any]]]:
    """What reads the whole body from ``spool`` with ``parser``, in a thread if long
    (it refers to neither a :class:`StreamedList` nor its rows)."""

    async def read() -> list[Any]:
        body = spool.whole()
        try:
            if len(body) > OFF_LOOP_BYTES:
                return await asyncio.to_thread(parser, body)  # type: ignore[arg-type]
            return parser(body)  # type: ignore[arg-type]
        finally:
            if isinstance(body, mmap.mmap):
                # The mapping holds a descriptor of its own: an error's frames would keep
                # it (and the file's space) as long as the error. The rows copied their
                # text to a spool of their own.
                with contextlib.suppress(BufferError):
                    body.close()

    return read
