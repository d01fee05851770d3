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
import re
import tempfile
import threading
import weakref
from array import array
from collections.abc import Sequence

import msgspec

__all__ = ["Region", "Spool", "Spooled"]

_LENGTH_BITS = 32
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_GAP = re.compile(rb"[ \t\r\n]*(?:,[ \t\r\n]*)?")


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
