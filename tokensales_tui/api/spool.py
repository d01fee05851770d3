"""The JSON text of listed objects, kept in a temporary file instead of in memory.

A row of a list keeps the fields its table shows; the whole object as the server sent
it (for the detail view's first look, copying and exporting as JSON, telling whether a
reload changed it) is read back from a :class:`Spool`: the elements of one list body,
written one after the other to a temporary file that only this process can open (0600,
its name removed at once). Each row holds a :class:`Spooled` mark of where its text
lies; the body itself is let go as soon as it is decoded. For 1,000,000 items that is
the difference between 640 MB of body pinned in memory and 64 MB of marks.
"""

from __future__ import annotations

import itertools
import mmap
import os
import tempfile
import threading
import weakref
from collections.abc import Sequence

import msgspec

__all__ = ["Spool", "Spooled"]

_LENGTH_BITS = 32


class Spool:
    """An append-only temporary file of JSON texts; closed with its last :class:`Spooled`."""

    __slots__ = ("__weakref__", "_file", "_lock", "_size")

    def __init__(self) -> None:
        # TemporaryFile: created 0600 and unlinked at once (O_TMPFILE where it exists).
        # Open as long as a row may read from it: closed when the spool is freed.
        self._file = tempfile.TemporaryFile(prefix="tokensales-tui-", buffering=0)  # noqa: SIM115
        self._lock = threading.RLock()
        self._size = 0
        weakref.finalize(self, self._file.close)  # closed, not left to warn, when freed

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
            written = 0
            while written < len(view):
                written += self._file.write(view[written:]) or 0
            self._size += len(view)

    def marks(self, offsets: Sequence[int], lengths: Sequence[int]) -> list[Spooled]:
        """Marks of texts already in the spool, at ``offsets``, of ``lengths`` bytes."""
        return [
            Spooled(self, (at << _LENGTH_BITS) | length)
            for at, length in zip(offsets, lengths, strict=True)
        ]

    def whole(self) -> bytes | mmap.mmap:
        """Everything written, mapped from the file (not read into memory)."""
        if self._size == 0:
            return b""
        return mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ)

    def read(self, at: int, length: int) -> bytes:
        """The ``length`` bytes at offset ``at``."""
        return os.pread(self._file.fileno(), length, at)

    @property
    def size(self) -> int:
        """Bytes written so far."""
        return self._size


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
