"""The search index of a table and the sort orders computed from it; no Textual, no Rich."""

from __future__ import annotations

import heapq
import operator
import threading
import unicodedata
from array import array
from bisect import bisect_left
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from typing import Any, NamedTuple

from ...api.models import never_walked, paused_gc
from ...clean import settle_width
from .cells import Column, natural_keys

__all__ = [
    "ExtrasInterner",
    "Grouped",
    "IndexPiece",
    "SearchIndex",
    "folded_lines",
    "grouped",
    "sort_order",
]

MERGE_ROWS = 16_384
"""Rows up to which the groups of small slices taken one after another are merged (see
:meth:`SearchIndex.take`): a text's rows are gathered from every slice not merged."""

BLOCK = 4096
"""Rows folded at once when building the search index."""

FIELD_SEP = "\x1f"  # cells and queries are cleaned, so neither contains it
ROW_SEP = "\n"  # nor this


def fold(text: str) -> str:
    """``text`` as the filter compares it: case-folded, and composed (NFC), so that an
    accent typed as a mark of its own (``e`` and U+0301, as macOS input and some pastes
    give it) finds the accented letter, and the other way round."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFC", text.casefold())


def fold_block(lines: list[str]) -> bytes:
    """Rows joined by newlines, each folded as :func:`fold` folds it, as UTF-8.

    ``bytes.lower`` folds ASCII several times faster than ``str.casefold`` folds a
    string widened by one emoji, so only the non-ASCII rows go through casefold.
    """
    text = ROW_SEP.join(lines)
    if not text.isascii():  # composed in one pass over the block: the check is in C
        folded = ROW_SEP.join([line if line.isascii() else line.casefold() for line in lines])
        text = unicodedata.normalize("NFC", folded)
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
        "_folded",
        "_folded_last",
        "_lock",
        "_pending",
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
        """For each of ``extras``, the rows that have it, but those of the slices in
        ``_pending`` not folded in yet: read through :meth:`rows_with`."""
        self._fields: dict[int, list[bytes]] = {}
        self._extra_matches: dict[bytes, array[int]] = {}
        self._pending: list[Grouped] = []
        """The rows of each text, slice by slice, for the slices taken since the rows of
        every text were last put together (:meth:`gather_pending`). Only the texts a query
        asks for are (:meth:`rows_with`): a list arriving adds rows to thousands of texts
        at each piece, and each piece makes a new index; adding a slice costs the same
        however many texts it has or came before."""
        self._folded: dict[int, int] = {}
        """For a text whose rows were gathered since the last :meth:`gather_pending`, the
        row up to which ``extra_rows`` holds them; the other texts' rows are gathered
        from every pending slice."""
        self._folded_last = 0
        """The last row up to which a text's rows were folded: slices before it are
        never merged (a text's rows would be folded twice, or not at all)."""
        self._lock = threading.Lock()  # two filters putting the same rows together
        if count:
            interned = None
            if others is not None:
                interned = ExtrasInterner(others[0]).intern(others[1], 0)
            self.take(IndexPiece(0, folded_lines(columns_cells, count), interned))

    def per_row(self) -> list[Sequence[Any]]:
        """The lists that may hold as many entries as there are rows (the lines, the
        cells of a column filtered on, the other fields' texts and their rows): what may
        be long to free (see :func:`.model.release`)."""
        return [self.lines, self.extras, self.extra_rows, *self._fields.values()]

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
            index._folded = self._folded.copy()
            index._folded_last = self._folded_last
            index._pending = self._pending.copy()  # each slice's arrays never change
        index._fields = {
            place: cells if len(cells) == self.count else never_walked(cells[: self.count])
            for place, cells in list(self._fields.items())
        }
        index.take(piece)
        return index

    def take(self, piece: IndexPiece) -> None:
        """Add the rows of ``piece`` after those of this index, in place: only for an
        index no one else reads yet (see :meth:`extended`). The piece's lines join the
        index's, and its rows grouped by text wait in ``_pending`` (:meth:`rows_with`)."""
        if piece.start != self.count:
            raise ValueError(f"piece starts at {piece.start}, index has {self.count} rows")
        interned = piece.interned
        if interned is not None:
            texts, ids, groups = interned
            known = len(self.extras) + len(texts)
            numbers = groups.numbers
            if (ids and not 0 <= min(ids) <= max(ids) < known) or (
                numbers and not 0 <= numbers[0] <= numbers[-1] < known
            ):
                raise ValueError(f"a piece names texts outside the {known} known")
            if groups.first != piece.start or len(groups.rows) != len(ids):
                raise ValueError("a piece's rows grouped by text are not its rows")
        for place, cells in self._fields.items():  # a column being filtered on
            cells += split_fields(piece.lines, place)
        self.lines += piece.lines
        self.count += len(piece.lines)
        if interned is None:
            return
        if self.extra_ids is None:
            self.extra_ids = array("i", bytes(4 * piece.start))
        self.extra_ids += ids
        self.extras += texts
        self.extra_rows += [_NO_ROWS] * len(texts)
        pending = self._pending
        pending.append(groups)
        # Slices taken a few rows at a time (indexed on the event loop) would leave
        # thousands to look through for a text's rows: the newest merge, as the digits
        # of a counter carry, into slices of up to MERGE_ROWS rows.
        while len(pending) > 1:
            older, newer = pending[-2], pending[-1]
            together = len(older.rows) + len(newer.rows)
            if (
                together > MERGE_ROWS
                or len(older.rows) > 2 * len(newer.rows)
                or older.first < self._folded_last
            ):
                break
            merged = self.extra_ids[older.first : older.first + together]
            pending[-2:] = [grouped(merged, older.first)]

    def gather_pending(self) -> None:
        """Put the rows of each text of ``extras`` together (:meth:`rows_with`), for an
        index no more rows come to: nothing is left to gather at the next query."""
        with self._lock:
            pending, rows = self._pending, self.extra_rows
            if not pending:
                return
            gathered: dict[int, list[array[int]]] = {}
            for slice_ in pending:
                numbers, ends, found = slice_.numbers, slice_.ends, slice_.rows
                starts = [0, *ends[:-1]]
                for number, start, end in zip(numbers, starts, ends, strict=True):
                    if self._folded.get(number, 0) <= slice_.first:
                        gathered.setdefault(number, [rows[number]]).append(found[start:end])
            for number, parts in gathered.items():
                rows[number] = array("i", b"".join(parts))
            self._pending, self._folded, self._folded_last = [], {}, 0

    def rows_with(self, number: int) -> array[int]:
        """The rows (ascending) whose other fields have text ``number`` of ``extras``."""
        if not self._pending or self._folded.get(number, 0) >= self.count:
            return self.extra_rows[number]  # nothing to gather (or just gathered)
        with self._lock:  # read again: another thread may have gathered meanwhile
            pending, upto = self._pending, self._folded.get(number, 0)
            if not pending or upto >= self.count:
                return self.extra_rows[number]
            parts = [self.extra_rows[number]]
            parts += [slice_.rows_of(number) for slice_ in pending if slice_.first >= upto]
            rows = array("i", b"".join(parts))
            self.extra_rows[number] = rows
            self._folded[number] = self._folded_last = self.count
            return rows

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


class Grouped(NamedTuple):
    """The rows of a slice of a list, grouped by their other-field text: each text the
    slice has (ascending), where its rows end in ``rows``, and the rows (positions in the
    whole list), those of each text together and ascending. Arrays of C ints: no
    collection walks them, and an index process sends them as bytes."""

    numbers: array[int]
    ends: array[int]
    rows: array[int]
    first: int
    """The slice's first row."""

    def rows_of(self, number: int) -> array[int]:
        """The rows of the slice whose text is ``number``."""
        numbers = self.numbers
        at = bisect_left(numbers, number)
        if at == len(numbers) or numbers[at] != number:
            return _NO_ROWS
        return self.rows[self.ends[at - 1] if at else 0 : self.ends[at]]


def grouped(ids: Sequence[int], first: int) -> Grouped:
    """The rows from ``first`` on, grouped by text: ``ids`` says which text each has.

    One stable sort of the positions by text, in C, gathers each text's rows in order.
    """
    counts = sorted(Counter(ids).items())
    order = sorted(range(len(ids)), key=ids.__getitem__)
    return Grouped(
        array("i", [number for number, _ in counts]),
        array("i", accumulate(size for _, size in counts)),
        array("i", map(first.__add__, order)),
        first,
    )


Interned = tuple[list[bytes], "array[int]", Grouped]
"""Other-field texts seen first in a slice of rows (folded), which one each row of the
slice has, and the slice's rows grouped by text."""


@dataclass(frozen=True, eq=False)
class IndexPiece:
    """A slice of rows indexed (:func:`folded_lines`, :class:`ExtrasInterner`), to be
    added to a :class:`SearchIndex` by :meth:`SearchIndex.extended`."""

    start: int
    """Position of the slice's first row in the whole list."""
    lines: list[bytes]
    interned: Interned | None = None

    def cut(self, stop: int) -> IndexPiece:
        """The piece's rows before row ``stop`` only. Its texts are all kept: those only
        the rows cut off have are a row's no longer, and match none."""
        keep = max(0, stop - self.start)
        if keep >= len(self.lines):
            return self
        interned = self.interned
        if interned is not None:
            texts, ids, _ = interned
            kept = ids[:keep]
            interned = (texts, kept, grouped(kept, self.start))
        return IndexPiece(self.start, self.lines[:keep], interned)

    def numbered_from(self, first: int) -> IndexPiece:
        """The piece, indexed apart (its texts numbered from 0), with its texts numbered
        from ``first`` on: to follow an index that has ``first`` texts. A text both have
        is then there twice, which changes no answer."""
        if self.interned is None or not first:
            return self
        texts, ids, groups = self.interned
        shift = first.__add__
        numbers = array("i", map(shift, groups.numbers))
        return IndexPiece(
            self.start,
            self.lines,
            (texts, array("i", map(shift, ids)), groups._replace(numbers=numbers)),
        )


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
        """The texts first seen in ``rows`` (the list's rows from ``start`` on).

        Each pass over the rows runs in C (``map``, ``sorted``, ``Counter``); only the
        rows whose key this interner has not met before take a step in Python.
        """
        fields, number = self.fields, self._number
        first = len(number)
        keys = list(map(fields.key or fields.text, rows))
        numbers: list[Any] = list(map(number.get, keys))
        firsts: list[Any] = []
        if None in numbers:
            get = number.get
            for offset in compress(range(len(keys)), map(operator.is_, numbers, repeat(None))):
                key = keys[offset]
                found = get(key)
                if found is None:
                    found = number[key] = len(number)
                    firsts.append(key if fields.key is None else rows[offset])
                numbers[offset] = found
        groups = grouped(numbers, start)
        distinct: list[str] = firsts if fields.key is None else list(map(fields.text, firsts))
        # Settled as the cells and the query are, so one query finds both.
        distinct = list(map(settle_width, distinct))
        texts: list[bytes] = []
        # Fewer at a time than cells: these texts are longer, and a block is folded whole.
        for block in range(0, len(distinct), EXTRAS_BLOCK):
            texts += fold_block(distinct[block : block + EXTRAS_BLOCK]).split(b"\n")
        assert len(texts) == len(number) - first
        return texts, array("i", numbers), groups


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
