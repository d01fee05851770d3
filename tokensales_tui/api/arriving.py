"""The rows of a list whose body still arrives: counted at once, decoded when read.

Decoding 1,000,000 items into the model and sharing their equal nested objects and
strings took the event loop 5 to 6 s while their body arrived, more than the body took
to arrive. Only counting them, which checks that each element of a stretch is a JSON
object and that the stretch was cut between two elements, takes a fifth of that. So a
long list's stretches are counted as they arrive (:meth:`ArrivingRows.add`), and each
is decoded the first time one of its rows is read: the rows drawn, the rows a filter
looks at. Once the body has ended, whoever holds the rows has the rest decoded a few
stretches at a time (:func:`whole`, :meth:`ArrivingRows.fill_some`), with keys and frames
taking their turns in between: before reading them all, or, where other readers have
decoded every row already (the Items tab's index processes), after showing them.

:class:`ArrivingRows` is a ``list``: whoever is handed it once it is whole uses it as
any list. Until then, reading a row by index, by slice or by iterating decodes its
stretch first; a stretch is decoded once, so a row is always the same object.
"""

from __future__ import annotations

import asyncio
import bisect
import copy
import itertools
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, SupportsIndex, overload

from .spool import Region

__all__ = ["ArrivingRows", "RegionsDecoder", "still_arriving", "whole"]

RegionsDecoder = Callable[[Sequence[Region], Sequence[int]], list[Any]]
"""Decodes the rows of consecutive regions of a body (given with their counts), in
order; raises when an element does not fit the model."""

FILL_BYTES = 512 * 1024
"""Text of the body decoded in one call by :meth:`ArrivingRows.fill_some` (a few
milliseconds)."""


class ArrivingRows(list[Any]):
    """A list of rows whose stretches are decoded when first read.

    Args:
        decode: Decodes the rows of consecutive regions.
        blank: Makes a row to stand for one whose stretch cannot be decoded (see
            :attr:`failed`).
        read_whole: Reads the whole body, naming what does not fit (see :meth:`decoded`);
            it must not refer to this list.
    """

    __slots__ = (
        "_blank",
        "_decode",
        "_decoding",
        "_lock",
        "_next",
        "_outcome",
        "_pending",
        "_read_whole",
        "_regions",
        "_spans",
        "_starts",
        "_waiters",
        "failed",
        "paging",
    )

    def __init__(
        self,
        decode: RegionsDecoder,
        blank: Callable[[], Any],
        read_whole: Callable[[], Awaitable[list[Any]]] | None = None,
    ) -> None:
        super().__init__()
        self._decode = decode
        self._blank = blank
        self._read_whole = read_whole
        self._decoding: asyncio.Future[None] | None = None
        self._waiters = 0  # awaiting the decoding: when the last leaves, it stops
        self._outcome: list[Any] | Exception | None = None  # of the whole read
        self._lock = threading.Lock()
        self._starts: list[int] = []  # the first row of each region
        self._regions: list[Region | None] = []  # None once decoded
        self._spans: list[tuple[int, int]] = []  # where each region's text lies in the spool
        self._pending = 0  # regions not decoded yet
        self._next = 0  # no region before this one is pending
        self.failed: Exception | None = None
        """Why a stretch could not be decoded (its rows are blank): the list must be read
        whole, which names the problem."""
        self.paging: Any = None
        """What the body said of more on the server (:func:`~.paging.with_paging`)."""

    def add(self, region: Region, count: int) -> None:
        """Append the ``count`` rows of ``region``, to be decoded when first read."""
        if not count:
            return
        with self._lock:
            self._starts.append(len(self))
            self._regions.append(region)
            self._spans.append((region.at, region.at + region.length))
            self._pending += 1
            self.extend(itertools.repeat(None, count))

    @property
    def whole(self) -> bool:
        """Whether every row added so far is decoded."""
        return not self._pending

    def cut_at(self, row: int) -> tuple[int, int, int] | None:
        """Where the rows from about ``row`` on lie in the spool, for another reader: the
        first row of the first stretch that starts at or after ``row``, where its text
        starts, and where the text of the last stretch so far ends (between the two,
        elements and their separators only); None when no stretch starts there."""
        with self._lock:
            k = bisect.bisect_left(self._starts, row)
            if k >= len(self._starts):
                return None
            return self._starts[k], self._spans[k][0], self._spans[-1][1]

    async def decoded(self, between: Callable[[], Awaitable[None]] | None = None) -> list[Any]:
        """The rows, every one decoded, once the body has ended: the rest a few stretches
        at a time, keys and frames having their turns between two (awaiting ``between``
        too, where given). When a stretch does not fit the model, the whole body is read
        (``read_whole``), which names the problem (or reads it after all, into another
        list). Whoever asks first starts it; others wait for the same, and once none
        waits any more (their loads cancelled), it stops.

        Nothing this list refers to refers back to it (the collector never walks it, so
        it would find no such cycle): ``between`` is not kept, and the decoding's task
        and its outcome are let go or kept without a reference to the list.
        """
        if self._decoding is None and self._outcome is None:
            if not self._pending and self.failed is None:
                self.close()  # every row read already
            else:
                self._decoding = asyncio.ensure_future(self._decode_rest(between))
        task = self._decoding
        if task is not None:
            self._waiters += 1
            try:
                await asyncio.shield(task)
            finally:
                self._waiters -= 1
                if not self._waiters and not task.done():
                    task.cancel()  # no one wants the rows any more
        outcome = self._outcome
        if isinstance(outcome, Exception):
            # A copy: a raise leaves its frames on the exception, this one's among them.
            raise _copy_of(outcome)
        return self if outcome is None else outcome

    async def _decode_rest(self, between: Callable[[], Awaitable[None]] | None) -> None:
        try:
            while self.fill_some() and self.failed is None:
                await asyncio.sleep(0)  # no socket read between two: a turn for the others
                if between is not None:
                    await between()
            if self.failed is None:
                self.close()
                return
            if self._read_whole is None:
                raise ValueError("these rows cannot be read whole")
            try:
                self._outcome = await self._read_whole()
            except Exception as error:
                self._outcome = error.with_traceback(None)
        finally:
            self._decoding = None

    def fill(self, start: int, stop: int) -> None:
        """Decode the stretches of the rows from ``start`` to ``stop`` (not included)."""
        if not self._pending or start >= stop:
            return
        first = max(0, bisect.bisect_right(self._starts, start) - 1)
        last = bisect.bisect_left(self._starts, stop)
        self._fill_regions(first, last)

    def fill_some(self) -> bool:
        """Decode the next stretches not decoded yet, about :data:`FILL_BYTES` of text;
        whether any is left."""
        with self._lock:
            if not self._pending:
                return False
            regions = self._regions
            first = self._next  # a region at or after it is pending: _pending says so
            while regions[first] is None:
                first += 1
            self._next = first
        self._fill_run(first, len(regions))
        return bool(self._pending)

    def close(self) -> None:
        """No more rows come, and all are decoded: let go of the decoder and the regions
        (the rows keep their own region each)."""
        with self._lock:
            if self._pending:
                raise ValueError("rows are left to decode")
            self._regions, self._starts, self._spans, self._next = [], [], [], 0
            self._decode = self._blank = _closed
            self._read_whole = None

    def _fill_regions(self, first: int, last: int) -> None:
        """Decode the regions ``first`` to ``last`` (not included) still pending, runs of
        consecutive ones up to :data:`FILL_BYTES` in one call each. The lock is held for
        one call at a time: a thread decoding many (an export) lets the event loop
        decode the rows it draws in between."""
        k = first
        while k < last:
            k = self._fill_run(k, last)

    def _fill_run(self, k: int, last: int) -> int:
        """Decode the run of pending regions from ``k`` on (before ``last``); where the
        next run may start."""
        with self._lock:
            if not self._pending:  # decoded meanwhile, and maybe closed: nothing left
                return last
            regions, starts = self._regions, self._starts
            while k < last and regions[k] is None:
                k += 1
            if k < last:
                end, size = k, 0
                while end < last and regions[end] is not None and size < FILL_BYTES:
                    size += regions[end].length  # type: ignore[union-attr]
                    end += 1
                bounds = [*starts[k:end], starts[end] if end < len(starts) else len(self)]
                counts = [b - a for a, b in itertools.pairwise(bounds)]
                try:
                    rows = self._decode(regions[k:end], counts)  # type: ignore[arg-type]
                    if len(rows) != bounds[-1] - bounds[0]:
                        raise ValueError("a stretch decoded into another number of rows")
                except Exception as error:  # the whole read names it; any reader goes on
                    self.failed = error.with_traceback(None)  # its frames hold this list
                    rows = [self._blank() for _ in range(bounds[-1] - bounds[0])]
                list.__setitem__(self, slice(bounds[0], bounds[-1]), rows)
                regions[k:end] = [None] * (end - k)
                self._pending -= end - k
                k = end
            return k

    # --- reading decodes first -----------------------------------------------------

    @overload
    def __getitem__(self, key: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, key: slice) -> list[Any]: ...
    def __getitem__(self, key: SupportsIndex | slice) -> Any:
        if self._pending:
            self._fill_for(key)
        return list.__getitem__(self, key)

    def __iter__(self) -> Iterator[Any]:
        if self._pending:  # over the rows so far: more may come meanwhile, undecoded
            count = len(self)
            self.fill(0, count)
            return iter(list.__getitem__(self, slice(0, count)))
        return list.__iter__(self)

    def _fill_for(self, key: SupportsIndex | slice) -> None:
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step == 1:
                self.fill(start, stop)
            elif step == -1:
                self.fill(stop + 1, start + 1)
            else:
                for at in range(start, stop, step):
                    self.fill(at, at + 1)
            return
        at = key.__index__()
        if at < 0:
            at += len(self)
        self.fill(at, at + 1)


def _closed(*_: Any) -> Any:
    raise ValueError("no more rows come to this list")


def _copy_of(error: Exception) -> Exception:
    """``error`` copied (the API's errors copy whole), or itself where it cannot be."""
    try:
        return copy.copy(error)
    except Exception:
        return error


def still_arriving(rows: Sequence[Any]) -> bool:
    """Whether ``rows`` hold rows not decoded yet (read one by one, each decodes its
    stretch: what reads them all must wait for the list or go to a thread)."""
    return isinstance(rows, ArrivingRows) and not rows.whole


async def whole(
    rows: Sequence[Any], between: Callable[[], Awaitable[None]] | None = None
) -> Sequence[Any]:
    """``rows`` with every row decoded (:meth:`ArrivingRows.decoded`), or as they are."""
    if isinstance(rows, ArrivingRows):
        return await rows.decoded(between)
    return rows
