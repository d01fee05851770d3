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

import contextlib
import copy
import errno
import itertools
import logging
import mmap
import os
import queue
import re
import tempfile
import threading
import weakref
from array import array
from collections.abc import Sequence

import msgspec

__all__ = ["FolderError", "Region", "Spool", "Spooled", "folder_problem"]

log = logging.getLogger(__name__)

_LENGTH_BITS = 32
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_GAP = re.compile(rb"[ \t\r\n]*(?:,[ \t\r\n]*)?")


class Spool:
    """An append-only temporary file of JSON texts.

    Closed by :meth:`close` (a load that fails or is given up closes its spool as it
    ends: the file's space and the writing thread are given back at once, whoever
    still holds the spool or its rows), or else with its last :class:`Spooled`.

    When the disk refuses more (full, over quota, read-only, no longer writable), the
    spool keeps everything in memory instead, where there is room for it, and gives
    the file's space back: :attr:`in_memory` says why. Every write goes through one
    place (:class:`_Store`), so the rule holds for each way of appending.
    """

    __slots__ = (
        "__weakref__",
        "_closed",
        "_held",
        "_lock",
        "_size",
        "_store",
        "_writer",
        "_writers",
    )

    def __init__(self) -> None:
        self._store = _Store()
        self._lock = threading.RLock()
        self._size = 0
        self._held = bytearray()  # given to append_soon, not yet handed to the writer
        self._writer: _Writer | None = None
        self._writers: list[_Writer] = []  # the writer once there is one, for _release
        self._closed = False
        # Closed, not left to warn, when freed (by its writer, after the last write).
        weakref.finalize(self, _release, self._store, self._writers)

    def add(self, texts: Sequence[msgspec.Raw | bytes]) -> list[Spooled]:
        """Append ``texts``; the marks to read each back, in order.

        Raises:
            OSError: When neither the file nor memory can take them: nothing is kept.
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
            self._store.write(view)
            self._size += len(view)

    def append_soon(self, data: bytes) -> None:
        """Append ``data`` from a thread of the spool's own, in order, and return at once
        (unless many pieces wait for it). Reads wait for what they need; :meth:`settle`
        waits for all and raises what went wrong (neither the disk nor memory had room).

        Pieces are handed to the thread :data:`WRITE_BYTES` at a time: each time that
        thread takes the interpreter lock, a thread reading a socket loses its turn.
        """
        with self._lock:
            if self._closed:
                raise _closed_error()
            self._held += data
            self._size += len(data)
            if len(self._held) >= WRITE_BYTES:
                self._hand_over()

    def _hand_over(self) -> None:
        if not self._held or self._closed:
            return
        if self._writer is not None and self._writer.finished:
            raise OSError("the list's temporary file takes no more")
        if self._writer is None:
            self._writer = _Writer(self._store)
            self._writers.append(self._writer)
        held, self._held = self._held, bytearray()
        self._writer.put(held)

    def settle(self, size: int | None = None) -> None:
        """Wait until the first ``size`` bytes (all when None) given to :meth:`append_soon`
        are in the file (or in memory).

        Raises:
            OSError: When they could not be kept, or the spool is closed.
        """
        size = self._size if size is None else size
        with self._lock:
            if self._closed:
                raise _closed_error()
            if size > self._size - len(self._held):
                self._hand_over()
        writer = self._writer
        if writer is not None:
            writer.wait(size)

    def finish(self) -> None:
        """No more is appended (the body has ended): the writing thread ends once it has
        written everything, rather than waiting as long as the rows live."""
        with self._lock:
            self._hand_over()
            writer = self._writer
        if writer is not None and not self._closed:
            writer.finish()

    def close(self) -> None:
        """Give back the file and end the writing thread, now: for a load that failed or
        was given up. What is still queued is not written; waits for it end (with an
        error), and so does every later read. Closing again does nothing.

        A process handed :meth:`fileno` keeps its own descriptor of the file (see
        :mod:`~tokensales_tui.ui.index_process`): it reads on until it is stopped.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._held = bytearray()
        _release(self._store, self._writers)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def in_memory(self) -> OSError | None:
        """Why the text is kept in memory (the disk refused it), or None."""
        return self._store.refused

    def marks(self, offsets: Sequence[int], lengths: Sequence[int]) -> list[Spooled]:
        """Marks of texts already in the spool, at ``offsets``, of ``lengths`` bytes."""
        return [
            Spooled(self, (at << _LENGTH_BITS) | length)
            for at, length in zip(offsets, lengths, strict=True)
        ]

    def whole(self) -> bytes | mmap.mmap:
        """Everything written, mapped from the file (not read into memory); a copy
        where it is kept in memory. A mapping is the caller's to close."""
        self.settle()
        if self._size == 0:
            return b""
        return self._store.whole(self._size)

    def read(self, at: int, length: int) -> bytes:
        """The ``length`` bytes at offset ``at``."""
        self.settle(at + length)
        return self._store.read(at, length)

    def read_array(self, at: int, length: int) -> bytearray:
        """``[`` + the ``length`` bytes at offset ``at`` + ``]``: elements read back as one
        JSON array, read in place (no copy to add the brackets)."""
        self.settle(at + length)
        array_text = bytearray(length + 2)
        array_text[0], array_text[-1] = ord("["), ord("]")
        with memoryview(array_text) as view:
            self._store.read_into(view[1 : length + 1], at)
        return array_text

    @property
    def size(self) -> int:
        """Bytes appended so far."""
        return self._size

    def fileno(self) -> int:
        """The file's descriptor, to hand to a process reading the spool as it grows (the
        file holds what :meth:`settle` waited for, and more as it is written).

        Raises:
            OSError: When the spool is closed or keeps its text in memory (no process
                can read it).
        """
        with self._lock:
            if self._closed:
                raise _closed_error()
            return self._store.fileno()


WRITE_BYTES = 1024 * 1024
"""Bytes given to :meth:`Spool.append_soon` that are handed to its thread at once."""

WRITES_QUEUED = 8
"""Pieces waiting for a spool's writing thread before appending waits for it: at most
:data:`WRITE_BYTES` times as many bytes held in memory."""


WRITE_WAIT = 60.0
"""Longest a read waits for the writing thread to make progress."""

REFUSED = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}
)
"""What a write to the temporary folder fails with when the folder, not the spool, is at
fault: the text goes to memory instead (see :class:`_Store`)."""

MEMORY_MARGIN = 256 * 1024 * 1024
"""Memory left free, beyond twice the text, for the text to move there from a full disk
(the rest of the body is bounded by the profile's ``max_body``)."""


class _Store:
    """The spool's file, or its text in memory once the disk refused a write; shared by
    the spool and its writing thread (and never refers to either). Every write and read
    holds the lock: no read meets a descriptor closed, or a file emptied, under it."""

    __slots__ = ("closed", "file", "length", "lock", "memory", "refused")

    def __init__(self) -> None:
        # TemporaryFile: created 0600 and unlinked at once (O_TMPFILE where it exists).
        try:
            self.file = tempfile.TemporaryFile(prefix="tokensales-tui-", buffering=0)  # noqa: SIM115
        except OSError as error:
            if error.errno in REFUSED:
                raise folder_error(error) from None
            raise
        self.lock = threading.Lock()
        self.length = 0  # bytes kept, in the file or in memory
        self.memory: bytearray | None = None
        self.refused: OSError | None = None
        self.closed = False

    def write(self, view: memoryview) -> None:
        with self.lock:
            if self.closed:
                raise _closed_error()
            if self.memory is None:
                try:
                    _write_all(self.file.fileno(), view)
                except OSError as error:
                    if error.errno not in REFUSED:
                        raise
                    self._to_memory(error.with_traceback(None))
                else:
                    self.length += len(view)
                    return
            assert self.memory is not None
            self.memory += view
            self.length += len(view)

    def _to_memory(self, error: OSError) -> None:
        """Move what the file holds to memory, empty and close the file (its space is
        given back at once, a process reading it too sees it empty); or, without room in
        memory, empty it all the same and raise why, naming the folder."""
        fileno = self.file.fileno()
        try:
            if not _memory_has_room(self.length):
                self.closed = True  # nothing kept: a read after says so, as of a closed spool
                raise folder_error(error)
            memory = bytearray(self.length)
            with memoryview(memory) as view:
                _read_all(fileno, view, 0)
            self.memory, self.refused = memory, error
        finally:
            os.ftruncate(fileno, 0)  # for index processes too (their own descriptors)
            self.file.close()  # every read and write looks at memory first
        log.warning("the temporary folder refused the list (%s): kept in memory", error.strerror)

    def read(self, at: int, length: int) -> bytes:
        with self.lock:
            self._check_open()
            if self.memory is not None:
                return bytes(self.memory[at : at + length])
            return os.pread(self.file.fileno(), length, at)

    def read_into(self, view: memoryview, at: int) -> None:
        with self.lock:
            self._check_open()
            if self.memory is not None:
                if at + len(view) > len(self.memory):
                    raise _short(at + len(view))
                view[:] = self.memory[at : at + len(view)]
            else:
                _read_all(self.file.fileno(), view, at)

    def whole(self, size: int) -> bytes | mmap.mmap:
        with self.lock:
            self._check_open()
            if self.memory is not None:
                return bytes(self.memory[:size])
            return mmap.mmap(self.file.fileno(), size, access=mmap.ACCESS_READ)

    def fileno(self) -> int:
        with self.lock:
            self._check_open()
            if self.memory is not None:
                raise OSError(errno.EBADF, "the list's text is kept in memory, not in a file")
            return self.file.fileno()

    def close(self) -> None:
        with self.lock:
            self.closed, self.memory = True, None
            self.file.close()

    def _check_open(self) -> None:
        if self.closed:
            raise _closed_error()


class _Writer:
    """The thread that writes what :meth:`Spool.append_soon` is given (``os.write``
    lets other threads run meanwhile). Holds the store, not the spool, so the spool is
    freed (and its file closed) as before; the thread then ends."""

    def __init__(self, store: _Store) -> None:
        self.written = 0
        self._store = store
        self._stopped = False
        self._ended = False  # the thread has ended (finished, or closed)
        self._close_store = False  # the store is to be closed when it ends
        self._queue: queue.Queue[bytes | bytearray | None] = queue.Queue(WRITES_QUEUED)
        self._done = threading.Condition()
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="list-spool", daemon=True)
        self._thread.start()

    def put(self, data: bytes | bytearray) -> None:
        self._queue.put(data)

    finished = False
    """Whether :meth:`finish` was called: nothing more is written."""

    def finish(self) -> None:
        """End the thread once everything given is written; the store stays open."""
        self.finished = True
        self._queue.put(None)

    def close(self) -> None:
        """Close the store once the write under way ends, the pieces still queued let go;
        the thread ends. Never waits: whoever waits for a write is told it is closed."""
        self._stopped = True
        with self._done:
            self._error = self._error or _closed_error()
            self._done.notify_all()
            self._close_store = True
            ended = self._ended
        if ended:  # finished: no write can be under way
            self._store.close()
            return
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        self._queue.put(None)  # room for it: the spool is closed, nothing else is put

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (tests)."""
        self._thread.join(timeout)

    def wait(self, size: int) -> None:
        """Until the first ``size`` bytes are written; raises :class:`OSError` when the
        writing makes no progress for :data:`WRITE_WAIT` seconds.

        The error raised is a copy each time: raising the one kept would add this frame
        (and the spool it reads for) to it, a cycle only the collector would free.
        """
        with self._done:
            while self.written < size and self._error is None:
                before = self.written
                if not self._done.wait(WRITE_WAIT) and self.written == before:
                    raise OSError(f"the list's temporary file took no data for {WRITE_WAIT:.0f} s")
            if self._error is not None:
                raise _copy_of(self._error)

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            if self._error is None and not self._stopped:
                try:
                    with memoryview(data) as view:
                        self._store.write(view)
                except Exception as error:  # any failure ends the writes; reads raise it
                    error = error if isinstance(error, OSError) else OSError(str(error))
                    with self._done:
                        self._error = error.with_traceback(None)
            with self._done:
                self.written += len(data)
                self._done.notify_all()
        with self._done:
            self._ended = True
            close = self._close_store
        if close:
            self._store.close()


def _release(store: _Store, writers: list[_Writer]) -> None:
    """Close ``store``: through its writing thread, if there is one (it may be writing
    to the descriptor), at once otherwise."""
    if writers:
        writers[0].close()
    else:
        store.close()


def _write_all(fileno: int, view: memoryview) -> None:
    written = 0
    while written < len(view):
        written += os.write(fileno, view[written:])


def _read_all(fileno: int, view: memoryview, at: int) -> None:
    place = 0
    while place < len(view):
        read = os.preadv(fileno, [view[place:]], at + place)
        if not read:
            raise _short(at + len(view))
        place += read


def _short(end: int) -> OSError:
    return OSError(f"the list's temporary file ends before byte {end}")


def _closed_error() -> OSError:
    return OSError(errno.EBADF, "the list's temporary file is closed (its load has ended)")


def _copy_of(error: OSError) -> OSError:
    copied = copy.copy(error)
    return copied.with_traceback(None)


def _memory_has_room(size: int) -> bool:
    """Whether ``size`` bytes may move to memory: twice as much is available, and
    :data:`MEMORY_MARGIN` more (``MemAvailable`` where Linux tells it)."""
    available = None
    with contextlib.suppress(OSError, ValueError), open("/proc/meminfo", "rb") as meminfo:
        for line in meminfo:
            if line.startswith(b"MemAvailable:"):
                available = int(line.split()[1]) * 1024
                break
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            return True  # nothing tells: the body's limit bounds it
    return 2 * size + MEMORY_MARGIN <= available


class FolderError(OSError):
    """A write to the temporary folder failed, in words naming the folder and its room."""


def folder_error(error: OSError) -> FolderError:
    """``error`` of a write to the temporary folder, as a :class:`FolderError`."""
    return FolderError(error.errno, _folder_text(error))


def folder_problem(error: BaseException) -> str | None:
    """What a person reads of a :class:`FolderError` found in ``error`` or what caused
    it; None when there is none."""
    seen: BaseException | None = error
    while seen is not None and not isinstance(seen, FolderError):
        seen = seen.__cause__ or seen.__context__
    return None if seen is None else seen.strerror


def _folder_text(error: OSError) -> str:
    """The cause of ``error``, the temporary folder and its free space: "no space left
    in the temporary folder /tmp (0 MB free)"."""
    folder = tempfile.gettempdir()
    free = ""
    with contextlib.suppress(OSError):
        room = os.statvfs(folder)
        free = f" ({room.f_bavail * room.f_frsize // (1024 * 1024)} MB free)"
    number = error.errno or 0
    cause = _CAUSES.get(number, os.strerror(number).lower())
    return f"{cause} in the temporary folder {folder}{free}"


_CAUSES = {
    errno.ENOSPC: "no space left",
    errno.EDQUOT: "over the disk quota",
    errno.EROFS: "read-only file system",
    errno.EACCES: "no permission to write",
    errno.EPERM: "no permission to write",
    errno.EFBIG: "the file grew too large",
}


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
