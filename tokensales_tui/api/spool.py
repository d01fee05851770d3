"""The JSON text of listed objects, kept in a temporary file instead of in memory.

A row of a list keeps the fields its table shows; the whole object as the server sent
it (for the detail view's first look, copying and exporting as JSON, telling whether a
reload changed it) is read back from a :class:`Spool`: the elements of one list body,
written one after the other to a temporary file that only this process can open (0600,
its name removed at once). Each row holds a :class:`Spooled` mark of where its text
lies; the body itself is let go as soon as it is decoded.

A list decoded as it arrives marks no element one by one: the rows decoded from one
stretch of the body share a :class:`Region` (where the stretch lies), and each row
knows only its place in it. Where each element of a region starts is found when one
of them is first read back, by splitting the region once. For 1,000,000 items that is
the difference between 640 MB of body pinned in memory, or 84 MB of per-row marks, and
a few hundred region objects.
"""

from __future__ import annotations

import itertools
import mmap
import os
import queue
import re
import tempfile
import threading
import weakref
from array import array
from collections.abc import Sequence
from typing import Any

import msgspec

__all__ = ["Region", "Spool", "Spooled"]

_LENGTH_BITS = 32
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_GAP = re.compile(rb"[ \t\r\n]*(?:,[ \t\r\n]*)?")


class Spool:
    """An append-only temporary file of JSON texts; closed with its last :class:`Spooled`."""

    __slots__ = ("__weakref__", "_file", "_held", "_lock", "_size", "_writer", "_writers")

    def __init__(self) -> None:
        # TemporaryFile: created 0600 and unlinked at once (O_TMPFILE where it exists).
        # Open as long as a row may read from it: closed when the spool is freed.
        self._file = tempfile.TemporaryFile(prefix="tokensales-tui-", buffering=0)  # noqa: SIM115
        self._lock = threading.RLock()
        self._size = 0
        self._held = bytearray()  # given to append_soon, not yet handed to the writer
        self._writer: _Writer | None = None
        self._writers: list[_Writer] = []  # the writer once there is one, for _release
        # Closed, not left to warn, when freed (by its writer, after the last write).
        weakref.finalize(self, _release, self._file, self._writers)

    def add(self, texts: Sequence[msgspec.Raw | bytes]) -> list[Spooled]:
        """Append ``texts``; the marks to read each back, in order.

        Raises:
            OSError: When the file cannot take them (a full disk): nothing is kept.
        """
        if not texts:
            return []
        lengths = list(map(len, texts))
        with self._lock:
            start = self._size
            self.append(b"".join(texts))
        return self.marks(list(itertools.accumulate(lengths[:-1], initial=start)), lengths)

    def append(self, data: bytes) -> None:
        """Append raw bytes (a list body as it arrives); :meth:`marks` points into them."""
        with self._lock, memoryview(data) as view:
            self.settle()
            _write_all(self._file.fileno(), view)
            self._size += len(view)

    def append_soon(self, data: bytes) -> None:
        """Append ``data`` from a thread of the spool's own, in order, and return at once
        (unless many pieces wait for it). Reads wait for what they need; :meth:`settle`
        waits for all and raises what went wrong (a full disk).

        Pieces are handed to the thread :data:`WRITE_BYTES` at a time: each time that
        thread takes the interpreter lock, a thread reading a socket loses its turn.
        """
        with self._lock:
            self._held += data
            self._size += len(data)
            if len(self._held) >= WRITE_BYTES:
                self._hand_over()

    def _hand_over(self) -> None:
        if not self._held:
            return
        if self._writer is None:
            self._writer = _Writer(self._file.fileno())
            self._writers.append(self._writer)
        held, self._held = self._held, bytearray()
        self._writer.put(held)

    def settle(self, size: int | None = None) -> None:
        """Wait until the first ``size`` bytes (all when None) given to :meth:`append_soon`
        are in the file.

        Raises:
            OSError: When the file could not take them (a full disk).
        """
        size = self._size if size is None else size
        with self._lock:
            if size > self._size - len(self._held):
                self._hand_over()
        writer = self._writer
        if writer is not None:
            writer.wait(size)

    def marks(self, offsets: Sequence[int], lengths: Sequence[int]) -> list[Spooled]:
        """Marks of texts already in the spool, at ``offsets``, of ``lengths`` bytes."""
        return [
            Spooled(self, (at << _LENGTH_BITS) | length)
            for at, length in zip(offsets, lengths, strict=True)
        ]

    def whole(self) -> bytes | mmap.mmap:
        """Everything written, mapped from the file (not read into memory)."""
        self.settle()
        if self._size == 0:
            return b""
        return mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ)

    def read(self, at: int, length: int) -> bytes:
        """The ``length`` bytes at offset ``at``."""
        self.settle(at + length)
        return os.pread(self._file.fileno(), length, at)

    def read_array(self, at: int, length: int) -> bytearray:
        """``[`` + the ``length`` bytes at offset ``at`` + ``]``: elements read back as one
        JSON array, read in place (no copy to add the brackets)."""
        self.settle(at + length)
        array_text = bytearray(length + 2)
        array_text[0], array_text[-1] = ord("["), ord("]")
        with memoryview(array_text) as view:
            place, end = 1, length + 1
            while place < end:
                read = os.preadv(self._file.fileno(), [view[place:end]], at + place - 1)
                if not read:
                    raise OSError(f"the list's temporary file ends before byte {at + length}")
                place += read
        return array_text

    @property
    def size(self) -> int:
        """Bytes appended so far."""
        return self._size

    def fileno(self) -> int:
        """The file's descriptor, to hand to a process reading the spool as it grows (the
        file holds what :meth:`settle` waited for, and more as it is written)."""
        return self._file.fileno()


WRITE_BYTES = 1024 * 1024
"""Bytes given to :meth:`Spool.append_soon` that are handed to its thread at once."""

WRITES_QUEUED = 8
"""Pieces waiting for a spool's writing thread before appending waits for it: at most
:data:`WRITE_BYTES` times as many bytes held in memory."""


WRITE_WAIT = 60.0
"""Longest a read waits for the writing thread to make progress."""


class _Writer:
    """The thread that writes what :meth:`Spool.append_soon` is given (``os.write``
    lets other threads run meanwhile). Holds the file's descriptor, not the spool, so
    the spool is freed (and its file closed) as before; the thread then ends."""

    def __init__(self, fileno: int) -> None:
        self.written = 0
        self._fileno = fileno
        self._file: Any = None
        self._queue: queue.Queue[bytes | bytearray | None] = queue.Queue(WRITES_QUEUED)
        self._done = threading.Condition()
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="list-spool", daemon=True)
        self._thread.start()

    def put(self, data: bytes | bytearray) -> None:
        self._queue.put(data)

    def close(self, file: Any) -> None:
        """Close ``file`` once everything given is written; the thread ends."""
        self._file = file
        self._queue.put(None)

    def wait(self, size: int) -> None:
        """Until the first ``size`` bytes are written; raises :class:`OSError` when the
        writing makes no progress for :data:`WRITE_WAIT` seconds."""
        with self._done:
            while self.written < size and self._error is None:
                before = self.written
                if not self._done.wait(WRITE_WAIT) and self.written == before:
                    raise OSError(f"the list's temporary file took no data for {WRITE_WAIT:.0f} s")
            if self._error is not None:
                raise self._error

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            if self._error is None:
                try:
                    with memoryview(data) as view:
                        _write_all(self._fileno, view)
                except Exception as error:  # any failure ends the writes; reads raise it
                    self._error = error if isinstance(error, OSError) else OSError(str(error))
            with self._done:
                self.written += len(data)
                self._done.notify_all()
        self._file.close()


def _release(file: Any, writers: list[_Writer]) -> None:
    if writers:
        writers[0].close(file)  # after the writes still queued
    else:
        file.close()


def _write_all(fileno: int, view: memoryview) -> None:
    written = 0
    while written < len(view):
        written += os.write(fileno, view[written:])


class Spooled:
    """Where one JSON text lies in a :class:`Spool`: 64 bytes a row instead of the text."""

    __slots__ = ("_place", "spool")

    def __init__(self, spool: Spool, place: int) -> None:
        self.spool = spool
        self._place = place  # offset << 32 | length: one int object, not two

    def text(self) -> bytes:
        """The JSON text, read back from the file."""
        place = self._place
        return self.spool.read(place >> _LENGTH_BITS, place & ((1 << _LENGTH_BITS) - 1))

    def __len__(self) -> int:
        return self._place & ((1 << _LENGTH_BITS) - 1)


class Region:
    """A stretch of a list body in a :class:`Spool`: JSON elements separated by commas.

    The rows decoded from it hold the region and their index in it; :meth:`text` and
    :meth:`texts` read their JSON back. The places of the elements are found the first
    time one is read (the region is read and split once), 8 bytes an element.

    Args:
        spool: The spool holding the body.
        at: Where the stretch starts in the spool.
        length: Its length in bytes (the text between two elements' separators).
    """

    __slots__ = ("_lengths", "_starts", "at", "length", "spool")

    def __init__(self, spool: Spool, at: int, length: int) -> None:
        self.spool = spool
        self.at = at
        self.length = length
        self._starts: array[int] | None = None
        self._lengths: array[int] | None = None

    def text(self, index: int) -> bytes:
        """The JSON text of element ``index``."""
        if self._starts is None or self._lengths is None:
            return self.texts()[index]
        return self.spool.read(self.at + self._starts[index], self._lengths[index])

    def texts(self, indexes: Sequence[int] | None = None) -> list[bytes]:
        """The JSON texts of the elements at ``indexes`` (all when None), read at once."""
        if self._starts is None or self._lengths is None or indexes is None:
            return self._split(indexes)
        if not indexes:
            return []
        starts, lengths = self._starts, self._lengths
        first, last = min(indexes), max(indexes)
        low, high = starts[first], starts[last] + lengths[last]
        if len(indexes) < 4 and high - low > 64 * 1024:  # a few, far apart: one read each
            return [self.text(index) for index in indexes]
        with memoryview(self.spool.read(self.at + low, high - low)) as view:
            return [bytes(view[starts[i] - low : starts[i] - low + lengths[i]]) for i in indexes]

    def spooled(self, index: int) -> Spooled:
        """A :class:`Spooled` mark of element ``index`` (made when asked, not kept)."""
        if self._starts is None or self._lengths is None:
            self._split(())
        assert self._starts is not None and self._lengths is not None
        start, length = self._starts[index], self._lengths[index]
        return Spooled(self.spool, ((self.at + start) << _LENGTH_BITS) | length)

    def _split(self, indexes: Sequence[int] | None) -> list[bytes]:
        data = self.spool.read(self.at, self.length)
        elements = _ELEMENTS.decode(b"[" + data + b"]")
        lengths = array("I", map(len, elements))
        if sum(lengths) + len(lengths) - 1 == len(data):  # compact: a comma between
            starts = array("I", itertools.accumulate([n + 1 for n in lengths[:-1]], initial=0))
        else:
            starts, gap, at = array("I"), _GAP.match, _GAP.match(data, 0).end()  # type: ignore[union-attr]
            for length in lengths:
                starts.append(at)
                at = gap(data, at + length).end()  # type: ignore[union-attr]
        if not elements:
            starts = array("I")
        self._starts, self._lengths = starts, lengths
        if indexes is None:
            return list(map(bytes, elements))
        return [bytes(elements[index]) for index in indexes]
