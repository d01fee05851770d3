"""The search index of a table and the sort orders computed from it; no Textual, no Rich."""

from __future__ import annotations

import heapq
import operator
import threading
from array import array
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Any

from ...api.models import never_walked, paused_gc
from ...clean import settle_width
from .cells import Column, natural_keys

__all__ = ["ExtrasInterner", "IndexPiece", "SearchIndex", "folded_lines", "sort_order"]

_Chunks = tuple["_Chunks | None", bytearray, int]
"""Rows (C ints, as in an ``array("i")``), newest first: the chain of those before, the
newest, their number. Bytes, not arrays: the collector does not track a ``bytearray``,
and untracks a tuple that holds no tracked object, so the chunks and links of thousands
of texts, new at each piece, are not walked by each young collection."""

CHAIN_LONGEST = 4
"""Chunks of a text's rows chained before they are joined into one: each chunk and link
is an object the collector walks (a million rows arriving in pieces would leave a
quarter of a million)."""

BLOCK = 4096
"""Rows folded at once when building the search index."""

FIELD_SEP = "\x1f"  # cells and queries are cleaned, so neither contains it
ROW_SEP = "\n"  # nor this


def fold_block(lines: list[str]) -> bytes:
    """Rows joined by newlines, case-folded, as UTF-8.

    ``bytes.lower`` folds ASCII several times faster than ``str.casefold`` folds a
    string widened by one emoji, so only the non-ASCII rows go through casefold.
    """
    text = ROW_SEP.join(lines)
    if not text.isascii():
        text = ROW_SEP.join([line if line.isascii() else line.casefold() for line in lines])
    return text.encode().lower()


class SearchIndex:
    """The case-folded text of every row, for substring filtering.

    Two parts per row:

    * ``lines``: the displayed cells, one UTF-8 ``bytes`` object per row, the cells
      separated by ``FIELD_SEP``. Testing 100,000 of them for a substring is a single
      C-level pass (``map`` of ``bytes.count``: see :func:`_containing`), and a line per row costs about
      40 bytes more than the text itself. UTF-8 keeps ASCII rows at one byte a
      character, and sorts like the text it encodes, so :meth:`field` can serve as
      sort keys.
    * the object's other fields (a description, a contract function), which are not
      shown: ``extras`` holds each distinct text once and ``extra_ids`` says which one
      a row has. Rows share most of them (items of one product, one payout setting),
      so a query tests a few hundred texts, then looks each row's answer up.
    """

    __slots__ = (
        "_extra_matches",
        "_fields",
        "_lock",
        "_more",
        "_owned",
        "count",
        "extra_ids",
        "extra_rows",
        "extras",
        "lines",
    )

    def __init__(
        self,
        columns_cells: Sequence[list[str]] = (),
        count: int = 0,
        others: tuple[OtherFields, Sequence[Any]] | None = None,
    ) -> None:
        self.count = 0
        """How many rows this index holds."""
        self.lines: list[bytes] = never_walked([])
        """Their index lines: the first :attr:`count` (an index that extends this one
        may share the list and grow it)."""
        self.extras: list[bytes] = []
        """Each distinct text of the fields no column shows, cleaned and folded."""
        self.extra_ids: array[int] | None = None
        """For each row, which of ``extras`` it has."""
        self.extra_rows: list[array[int]] = []
        """For each of ``extras``, the rows that have it, but those in ``_more``: read
        through :meth:`rows_with`."""
        self._fields: dict[int, list[bytes]] = {}
        self._extra_matches: dict[bytes, array[int]] = {}
        self._more: dict[int, _Chunks] = {}
        """Rows with each of ``extras`` added since its ``extra_rows`` was put together,
        newest chunk first. Only those a query asks for are (:meth:`rows_with`): a list
        arriving adds rows to thousands of texts at each piece, and each piece makes a
        new index, so adding a chunk costs the same however many came before."""
        self._owned: set[int] = set()
        """The texts whose last chunk in ``_more`` this index made, and grows in place;
        the others' are shared with the index this one extends."""
        self._lock = threading.Lock()  # two filters putting the same rows together
        if count:
            interned = None
            if others is not None:
                interned = ExtrasInterner(others[0]).intern(others[1], 0)
            self.take(IndexPiece(0, folded_lines(columns_cells, count), interned))

    def extended(self, piece: IndexPiece) -> SearchIndex:
        """A new index: this one and the rows of ``piece`` after them.

        This index is left as it is, so a filter may go on reading it in a thread while
        the rows that arrive next are indexed.
        """
        if piece.start != self.count:
            raise ValueError(f"piece starts at {piece.start}, index has {self.count} rows")
        index = SearchIndex()
        # The lines, and the cells of the columns filtered on, are shared and grow: rows
        # of this index are never changed, and it reads no further than its count. A
        # copy of a million references would cost a few milliseconds, and frozen frames
        # when the collector walks each copy.
        index.count = self.count
        lines = self.lines
        index.lines = lines if len(lines) == self.count else never_walked(lines[: self.count])
        index.extras = self.extras.copy()
        index.extra_ids = None if self.extra_ids is None else array("i", self.extra_ids)
        with self._lock:
            index.extra_rows = self.extra_rows.copy()  # the arrays themselves never change
            index._more = self._more.copy()
        index._fields = {
            place: cells if len(cells) == self.count else never_walked(cells[: self.count])
            for place, cells in list(self._fields.items())
        }
        index.take(piece)
        return index

    def take(self, piece: IndexPiece) -> None:
        """Add the rows of ``piece`` after those of this index, in place: only for an
        index no one else reads yet (see :meth:`extended`). The piece's arrays become
        the index's own, and grow with the next pieces."""
        if piece.start != self.count:
            raise ValueError(f"piece starts at {piece.start}, index has {self.count} rows")
        for place, cells in self._fields.items():  # a column being filtered on
            cells += split_fields(piece.lines, place)
        self.lines += piece.lines
        self.count += len(piece.lines)
        interned = piece.interned
        if interned is None:
            return
        texts, ids, groups = interned
        if self.extra_ids is None:
            self.extra_ids = array("i", bytes(4 * piece.start))
        self.extra_ids += ids
        self.extras += texts
        self.extra_rows += [_NO_ROWS] * len(texts)
        more, owned = self._more, self._owned
        for number, positions in groups.items():
            if number in owned:
                grown = more[number][1]
                grown += positions  # in place
                continue
            before = more.get(number)
            if before is None:  # the piece's chunk, grown by the next pieces this index takes
                more[number] = (None, positions, 1)
            elif before[2] < CHAIN_LONGEST:
                more[number] = (before, positions, before[2] + 1)
            else:
                joined = _joined(before)
                joined += positions
                more[number] = (None, joined, 1)
            owned.add(number)

    def join_chunks(self) -> None:
        """Put the rows of each text of ``extras`` together (:meth:`rows_with`), for an
        index no more rows come to: each chunk and link is an object the collector
        walks, 20,000 of them after a list of 1,000,000 arrived in pieces."""
        for number in list(self._more):
            self.rows_with(number)

    def rows_with(self, number: int) -> array[int]:
        """The rows (ascending) whose other fields have text ``number`` of ``extras``."""
        if number not in self._more:
            return self.extra_rows[number]
        with self._lock:
            chunks = self._more.pop(number, None)
            self._owned.discard(number)
            if chunks is not None:
                rows = array("i", self.extra_rows[number])
                rows.frombytes(_joined(chunks))
                self.extra_rows[number] = rows
            return self.extra_rows[number]

    def match(self, query: str, candidates: Sequence[int] | None = None) -> array[int]:
        """Positions of the rows that contain ``query`` (cleaned and case-folded).

        A row matches when one of its cells, or one of the object's other fields,
        contains it.

        Args:
            query: Text to look for.
            candidates: Only look at these positions (ascending): all the matches of a
                shorter query that this one contains.

        Returns:
            The matching positions, ascending.
        """
        needle = query.encode()
        lines = self.lines
        count = self.count
        matching = self._extras_containing(needle)
        within: Sequence[int] = range(count)
        if candidates is not None and (
            isinstance(candidates, range) or len(candidates) <= count * SPARSE
        ):
            within = candidates
            shown = sliced(
                len(candidates), lambda a, b: _containing(lines, candidates[a:b], needle)
            )
        elif matching and sum(len(self.rows_with(i)) for i in matching) > count * SPARSE:
            # Most rows match by their other fields: a byte per row, or-ed as one number.
            flags = b"".join(
                bytes(map(bool, map(bytes.count, lines[a : min(a + SLICE, count)], repeat(needle))))
                for a in range(0, count, SLICE)
            )
            either = self._or_extras(flags, matching)
            return sliced(count, lambda a, b: array("i", compress(range(a, b), either[a:b])))
        else:
            # Most rows to look at: one pass over all of them costs less than a lookup each.
            shown = sliced(count, lambda a, b: _containing(lines, range(a, b), needle))
        if not matching:
            return shown
        # The rows whose other fields contain the query are among the candidates (those
        # fields contain the shorter query too): only the cells needed a look there.
        return union(shown, [self.rows_with(i) for i in matching], count, within)

    def matcher(
        self, query: str, place: int | None = None
    ) -> Callable[[Sequence[int]], array[int]]:
        """Like :meth:`match` (:meth:`match_field` in column ``place``), for a filter
        looked for a few thousand rows at a time: a function of some positions
        (ascending) giving those that match, at a cost that follows their number
        (:meth:`match` marks every row of a matching other-field text at each call)."""
        needle = query.encode()
        lines, ids = self.lines, self.extra_ids
        if place is not None:
            kept = self._fields.get(place)
            if kept is not None:
                return lambda positions: _containing(kept, positions, needle)

            def in_column(positions: Sequence[int]) -> array[int]:
                # Split out a step's cells only: all of them would hold the first frame.
                cells = map(split_field, _at(lines, positions), repeat(place))
                return array("i", compress(positions, map(bytes.count, cells, repeat(needle))))

            return in_column
        matching = self._extras_containing(needle)
        if not matching or ids is None:
            return lambda positions: _containing(lines, positions, needle)
        hit = self._hit(matching)

        def rows(positions: Sequence[int]) -> array[int]:
            found = map(bytes.count, _at(lines, positions), repeat(needle))  # see _containing
            extra = map(hit.__getitem__, _at(ids, positions))
            return array("i", compress(positions, map(operator.or_, found, extra)))

        return rows

    def _hit(self, matching: Sequence[int]) -> bytearray:
        """A byte per other-field text: 1 for those numbered in ``matching``."""
        hit = bytearray(len(self.extras))
        deque(map(hit.__setitem__, matching, repeat(1)), maxlen=0)
        return hit

    def _or_extras(self, flags: bytes, matching: Sequence[int]) -> bytes:
        """``flags`` (a byte per row) with a 1 for each row whose other fields match."""
        assert self.extra_ids is not None
        hit = self._hit(matching)
        ids = self.extra_ids
        extra = b"".join(
            bytes(map(hit.__getitem__, ids[a : a + SLICE])) for a in range(0, len(ids), SLICE)
        )
        return (int.from_bytes(flags) | int.from_bytes(extra)).to_bytes(len(flags))

    def _extras_containing(self, needle: bytes) -> array[int]:
        """Which of the distinct other-field texts contain ``needle``.

        The texts containing a shorter needle that this one contains are kept for the
        next key, and only they are looked at then.
        """
        extras = self.extras
        if not extras:
            return array("i")
        known = self._extra_matches
        narrower = [found for text, found in known.items() if text in needle]
        numbers: Sequence[int] = min(narrower, key=len) if narrower else range(len(extras))
        found = map(bytes.count, map(extras.__getitem__, numbers), repeat(needle))
        matching = array("i", compress(numbers, found))
        known.pop(needle, None)
        known[needle] = matching
        while len(known) > EXTRA_MATCHES_KEPT:
            del known[next(iter(known))]
        return matching

    def match_field(
        self, place: int, query: str, candidates: Sequence[int] | None = None
    ) -> array[int]:
        """Like :meth:`match`, in column ``place`` only."""
        if (
            place not in self._fields
            and isinstance(candidates, array)
            and len(candidates) <= self.count * FEW
        ):  # a few rows: their cells only, not the whole column (split out and kept)
            rows, among = candidates, self.matcher(query, place)
            return sliced(len(rows), lambda a, b: among(rows[a:b]))
        needle = query.encode()
        cells = self.field(place, keep=True)
        if candidates is None or (
            not isinstance(candidates, range) and len(candidates) > len(cells) * SPARSE
        ):
            candidates = range(len(cells))
        return sliced(len(candidates), lambda a, b: _containing(cells, candidates[a:b], needle))

    def field(self, place: int, *, keep: bool = False) -> list[bytes]:
        """The case-folded text of column ``place`` for every row, as UTF-8.

        With ``keep``, the list is kept for the next call (a column being filtered on
        is asked again at each key); the last two are kept.
        """
        cells = self._fields.get(place)
        if cells is not None and len(cells) > self.count:
            return cells[: self.count]  # grown by an index that extends this one
        if cells is None:
            cells = never_walked(split_fields(self.lines[: self.count], place))
            if keep:
                while len(self._fields) >= FIELDS_KEPT:
                    del self._fields[next(iter(self._fields))]
                self._fields[place] = cells
        return cells


def split_field(line: bytes, place: int) -> bytes:
    """Column ``place``'s text in a row's index line."""
    return line.split(b"\x1f", place + 1)[place]


def split_fields(lines: list[bytes], place: int) -> list[bytes]:
    """Column ``place``'s text in each of ``lines`` (without a Python function call per
    line: a third faster)."""
    after = place + 1
    return [line.split(b"\x1f", after)[place] for line in lines]


def _containing(texts: list[bytes], positions: Sequence[int], needle: bytes) -> array[int]:
    """Those of ``positions`` whose text contains ``needle``.

    Counted, not tested with ``in``: ``bytes.__contains__`` first tries its argument as
    an integer, and the exception it makes and drops costs more than counting a short
    line (about twice the time of a pass over 100,000 lines).
    """
    return array("i", compress(positions, map(bytes.count, _at(texts, positions), repeat(needle))))


def _joined(chunks: _Chunks) -> bytearray:
    """The rows of a chain of chunks, oldest first, in a new chunk."""
    parts = []
    link: _Chunks | None = chunks
    while link is not None:
        link, chunk, _ = link
        parts.append(chunk)
    return bytearray().join(reversed(parts))


def _at(items: Sequence[Any], positions: Sequence[int]) -> Iterable[Any]:
    """The ``items`` at ``positions``: a slice for a run of positions, else one by one."""
    if isinstance(positions, range) and positions.step == 1:
        return items[positions.start : positions.stop]
    return map(items.__getitem__, positions)


_NO_ROWS = array("i")
"""The rows of a text before any (never grown: :meth:`SearchIndex.rows_with` makes new arrays)."""

SLICE = 65_536
"""Rows one C-level pass over an index takes at once (a few milliseconds). A filter of a
long list runs in a thread, and a thread hands the interpreter back to the event loop
only between two calls: one pass over 1,000,000 rows held it for up to 350 ms."""


def sliced(count: int, part: Callable[[int, int], array[int]]) -> array[int]:
    """``part(start, stop)`` for each :data:`SLICE` of ``range(count)``, joined."""
    out = array("i")
    for start in range(0, count, SLICE):
        out += part(start, min(start + SLICE, count))
    return out


SPARSE = 0.6
"""Below this share of the rows, work on positions; above it, on a byte per row."""

FEW = 0.1
"""Below this share of the rows, a column term reads those rows' cells alone: above it,
splitting the whole column out once, and keeping it for the next keys, costs less."""

EXTRA_MATCHES_KEPT = 8
"""Needles whose matching other-field texts are kept (the steps of a word being typed)."""


def union(
    positions: array[int], groups: Sequence[array[int]], count: int, within: Sequence[int]
) -> array[int]:
    """The ``positions`` and those of every group, ascending, each once.

    All of them are among ``within`` (ascending, of ``count`` rows): only those are read.
    """
    mask = bytearray(count)
    for part in (positions, *groups):
        for start in range(0, len(part), SLICE):
            deque(map(mask.__setitem__, part[start : start + SLICE], repeat(1)), maxlen=0)
    if isinstance(within, range) and within.step == 1:
        first = within.start
        return sliced(
            len(within),
            lambda a, b: array("i", compress(within[a:b], mask[first + a : first + b])),
        )
    return sliced(
        len(within),
        lambda a, b: array("i", compress(within[a:b], map(mask.__getitem__, within[a:b]))),
    )


FIELDS_KEPT = 2
"""Columns whose cells :meth:`SearchIndex.field` keeps split out for column filters."""


@dataclass(frozen=True)
class OtherFields:
    """The fields of a row object that no column shows, which the filter matches too."""

    text: Callable[[Any], str]
    """Their text: each value cleaned as a cell is (``clean_line``), the values kept
    apart by ``FIELD_SEP`` so that no match spans two."""
    key: Callable[[Any], Hashable] | None = None
    """What rows with the same text have in common, cheaper to get than the text, which
    is then made once per key (None: the text is its own key)."""


Interned = tuple[list[bytes], "array[int]", dict[int, bytearray]]
"""Other-field texts seen first in a slice of rows (folded), which one each row of the
slice has, and the rows (positions in the whole list) that have each text, as the
chunks of a :class:`SearchIndex` hold them (C ints)."""


@dataclass(frozen=True, eq=False)
class IndexPiece:
    """A slice of rows indexed (:func:`folded_lines`, :class:`ExtrasInterner`), to be
    added to a :class:`SearchIndex` by :meth:`SearchIndex.extended`."""

    start: int
    """Position of the slice's first row in the whole list."""
    lines: list[bytes]
    interned: Interned | None = None


def folded_lines(columns_cells: Sequence[list[str]], count: int) -> list[bytes]:
    """One case-folded UTF-8 line per row: its cells joined by ``FIELD_SEP``.

    A row's line depends on that row only, so a list indexed a slice at a time gets the
    lines the whole list would.
    """
    if not columns_cells:
        columns_cells = [[""] * count]
    lines: list[bytes] = []
    for start in range(0, count, BLOCK):
        rows = map(
            FIELD_SEP.join,
            zip(*(cells[start : start + BLOCK] for cells in columns_cells), strict=True),
        )
        lines += fold_block(list(rows)).split(b"\n")
    return lines


class ExtrasInterner:
    """Numbers each distinct text of the other fields, across slices of one list.

    Not thread-safe: one slice at a time.
    """

    def __init__(self, fields: OtherFields) -> None:
        self.fields = fields
        self._number: dict[Hashable, int] = {}

    def intern(self, rows: Sequence[Any], start: int) -> Interned:
        """The texts first seen in ``rows`` (the list's rows from ``start`` on)."""
        fields, number = self.fields, self._number
        get = number.get
        first = len(number)
        ids = array("i", bytes(4 * len(rows)))
        groups: dict[int, array[int]] = {}
        firsts: list[Any] = []
        for offset, key in enumerate(map(fields.key or fields.text, rows)):
            found = get(key)
            if found is None:
                found = number[key] = len(number)
                firsts.append(key if fields.key is None else rows[offset])
            ids[offset] = found
            group = groups.get(found)
            if group is None:
                group = groups[found] = array("i")
            group.append(start + offset)
        distinct: list[str] = firsts if fields.key is None else list(map(fields.text, firsts))
        # Settled as the cells and the query are, so one query finds both.
        distinct = list(map(settle_width, distinct))
        texts: list[bytes] = []
        # Fewer at a time than cells: these texts are longer, and a block is folded whole.
        for block in range(0, len(distinct), EXTRAS_BLOCK):
            texts += fold_block(distinct[block : block + EXTRAS_BLOCK]).split(b"\n")
        assert len(texts) == len(number) - first
        return texts, ids, {found: bytearray(group) for found, group in groups.items()}


EXTRAS_BLOCK = 256
"""Other-field texts folded at once."""


def sort_order(
    columns: Sequence[Column],
    rows: Sequence[Any],
    index: SearchIndex,
    column_key: str,
    reverse: bool,
    *,
    in_runs: bool = False,
) -> array[int]:
    """All row positions sorted by one column (stable; text folded, ``2`` before ``10``).

    With ``in_runs`` (for a thread), no single step holds the interpreter for long: see
    :func:`sorted_positions`.
    """
    place = next(i for i, c in enumerate(columns) if c.key == column_key)
    with paused_gc():
        keys = sort_keys(columns[place], place, rows, index)
        try:
            positions = sorted_positions(keys, reverse, in_runs=in_runs)
        except TypeError:  # a sort_key returned values that do not compare
            keys = index.field(place)
            positions = sorted_positions(keys, reverse, in_runs=in_runs)
    return array("i", positions)


RUN = 16_384
"""Positions sorted in one call when sorting in runs (~10 ms of a slow machine)."""

RUNS_AT_ONCE = 8
"""Up to this many runs' worth of positions are sorted in one call (~20 ms of bytes
keys at 100,000 rows): merging runs in Python code costs more than it hands over."""


def sorted_positions(keys: Sequence[Any], reverse: bool, *, in_runs: bool = False) -> list[int]:
    """The positions of ``keys`` in the order of their keys (stable).

    One ``sorted`` call holds the interpreter lock to its end: a million rows, half a
    second or more in which a thread leaves the event loop no turn. ``in_runs`` sorts
    runs of :data:`RUN` positions, then merges them in Python code, which hands the
    lock over every few milliseconds. Equal keys keep their order either way: runs
    hold ascending positions and the merge takes from earlier runs first.
    """
    get = keys.__getitem__
    count = len(keys)
    if not in_runs or count <= RUN * RUNS_AT_ONCE:
        return sorted(range(count), key=get, reverse=reverse)
    runs = [
        sorted(range(start, min(start + RUN, count)), key=get, reverse=reverse)
        for start in range(0, count, RUN)
    ]
    return list(heapq.merge(*runs, key=get, reverse=reverse))


def sort_keys(column: Column, place: int, rows: Sequence[Any], index: SearchIndex) -> list[Any]:
    try:
        if column.row_key is not None:
            return list(map(column.row_key, rows))
        if column.sort_key is not None:
            return list(map(column.sort_key, map(column.get, rows)))
    except Exception:  # server data the key did not expect: sort by the text
        pass
    return natural_keys(index.field(place))
