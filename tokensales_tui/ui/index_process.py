"""A second process that indexes a long list while its body arrives.

The event loop of the app reads the body, decodes it into rows and draws them as they
come (see :mod:`~tokensales_tui.api.listing`): that alone keeps one processor busy for
a list of 1,000,000 items. Indexing those rows for the filter (their cells, folded,
and the other fields' texts numbered) takes as long again, and in this process it could
only take turns with the reading. So a list that grows long is indexed by a process of
its own, on another processor, which reads the same body from the temporary file it
is spooled to as it grows, decodes it with the same code, and sends the index back a
piece at a time (:class:`Piece`); the tab adds each piece to its index
(:meth:`~.table.model.RowsIndexer.take`), so that the index is whole, or nearly, when
the body has ended. Once it has ended, a second process may index the last rows of a
long list (:attr:`Setup.first_row`: it reads their elements from the spool as one array),
so that both processors index until the index is whole.

The process gets the spool's descriptor and the app's environment without its
``TOKENSALES_*`` variables (so no credentials), and no terminal (its output is the pipe
to the app, its errors go nowhere). It is in the app's process group, so it stops and
continues with it (ctrl+z, ``fg``: :func:`~.terminal_mode.stop_the_job`), and neither
indexes on while the app is stopped nor counts that time as the body's silence (nor does
the app count it as the process's: :mod:`.running_time`); it ignores SIGINT (a
terminal's ctrl+c is the app's to take). It stops when told, when its pipe closes (the
app has gone) or on anything it cannot read plainly, after saying so (:class:`Failed`):
the tab then indexes the list itself, as it does any list.

Messages, each a 4-byte length then MessagePack: to the process, one :class:`Setup`
then the body's length once it has ended (a second process is told where its rows end
in the :class:`Setup`); from it, :class:`Piece` after :class:`Piece`, then :class:`Done`
(unless the app ends it first: once the body has ended, a second process may index the
last rows, and the first need only index those before).
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
import os
import select
import signal
import struct
import sys
from array import array
from collections.abc import Callable, Sequence
from functools import partial
from typing import IO, TYPE_CHECKING, Any

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

import msgspec
from rich.cells import cell_len

from ..api import models, shapes
from ..api.decode import ListParser
from ..api.stream import ListSplitter
from ..interpreter import python
from .resources import RESOURCES
from .room import quota_processors
from .running_time import running_within
from .table.index import Grouped, IndexPiece
from .table.model import RowsIndexer

if TYPE_CHECKING:
    from ..api.listing import StreamedList
    from .table.cells import Column

__all__ = ["Done", "Failed", "IndexProcess", "Piece", "Setup", "command"]

PIECE_ROWS = 16_384
"""Rows indexed before they are sent (at least: a read of the spool decodes at once)."""

READ_BYTES = 1 << 20
"""Bytes of the spool read at once."""

WAIT = 0.02
"""Seconds the process waits for the spool to grow before looking again."""

QUIET = 30.0
"""Seconds without the spool growing or the body's end after which the process gives up."""

PIPE_BYTES = 1 << 20
"""Bytes the pipe from the process holds, where the system allows (Linux: up to
``/proc/sys/fs/pipe-max-size``, 1 MB unless raised)."""

PIPE_BUFFER = 16 << 20
"""The limit of the app's reader of the process's output: asyncio reads ahead up to
twice this before the process is made to wait (a dozen pieces or more)."""

CLOSE_WAIT = 5.0
"""Seconds to wait for a killed process to be gone."""

_LENGTH = struct.Struct("<I")


class Setup(msgspec.Struct, tag=True):
    """What the process indexes: the list ``what`` of the resource ``resource``, whose
    elements decode into ``model`` (a name in :mod:`tokensales_tui.api.models`)."""

    fd: int
    what: str
    model: str
    resource: str
    columns: list[str]
    """The keys of the columns the tab shows: the process picks the same or gives up."""
    status: int
    content_type: str
    piece_rows: int = PIECE_ROWS
    """Rows indexed before they are sent."""
    first_row: int = 0
    """The row the process starts from: 0, or (once the body has ended) the first row of
    a stretch whose text starts at ``offset``; the process then reads the elements up
    to ``end``, where the last one's text ends, as an array."""
    offset: int = 0
    end: int | None = None


class Piece(msgspec.Struct, tag=True):
    """Rows ``start`` to ``start + count`` indexed (see :class:`~.table.index.IndexPiece`)."""

    start: int
    count: int
    lines: bytes
    """Their index lines, joined by newlines (no line holds one)."""
    measures: tuple[list[int], list[int], list[int], list[int]]
    """:attr:`~.table.model.RowsIndexer.measures` of every row up to the piece's end."""
    texts: list[bytes] | None = None
    """The other fields' texts first seen in these rows; None: the resource has none."""
    ids: bytes = b""
    """Which text each row has (``array("i")``)."""
    numbers: bytes = b""
    ends: bytes = b""
    rows: bytes = b""
    """These rows grouped by text (:class:`~.table.index.Grouped`: its arrays' bytes)."""


class Done(msgspec.Struct, tag=True):
    """Every row of the body (from :attr:`Setup.first_row` on) has been sent: ``count``
    is where the last one sent ends."""

    count: int


class Failed(msgspec.Struct, tag=True):
    """The process gave up: ``reason``, for the debug log."""

    reason: str


class End(msgspec.Struct, tag=True):
    """The body has ended, ``length`` bytes long."""

    length: int


Message = Piece | Done | Failed
_ENCODE = msgspec.msgpack.Encoder().encode
_FROM_PROCESS = msgspec.msgpack.Decoder(Message)
_TO_PROCESS = msgspec.msgpack.Decoder(Setup | End)


def as_index_piece(piece: Piece) -> IndexPiece:
    """The :class:`~.table.index.IndexPiece` a :class:`Piece` carries.

    Raises:
        ValueError: When its parts do not add up.
    """
    lines = piece.lines.split(b"\n") if piece.count else []
    if len(lines) != piece.count:
        raise ValueError(f"a piece of {piece.count} rows holds {len(lines)} lines")
    interned = None
    if piece.texts is not None:
        ids, numbers, ends, rows = (
            _ints(piece.ids),
            _ints(piece.numbers),
            _ints(piece.ends),
            _ints(piece.rows),
        )
        if len(ids) != piece.count:
            raise ValueError(f"a piece of {piece.count} rows numbers {len(ids)}")
        if not (
            len(numbers) == len(ends)
            and len(rows) == piece.count
            and (ends[-1] if ends else 0) == piece.count
            and all(map(operator.lt, numbers, numbers[1:]))
            and all(map(operator.lt, [0, *ends], ends))
            and (not rows or (min(rows) >= piece.start and max(rows) < piece.start + piece.count))
        ):
            raise ValueError("a piece's rows grouped by text do not add up")
        interned = (piece.texts, ids, Grouped(numbers, ends, rows, piece.start))
    return IndexPiece(piece.start, lines, interned)


def _ints(data: bytes) -> array[int]:
    """``data`` read as C ints (``array("i")``).

    Raises:
        ValueError: When it is no whole number of them.
    """
    ints = array("i")
    try:
        ints.frombytes(data)
    except ValueError:
        raise ValueError("a piece's numbers are not whole numbers") from None
    return ints


def command() -> list[str]:
    """The command line of an index process: this module, run by this interpreter.

    Raises:
        OSError: Where there is no interpreter to run it (:func:`~tokensales_tui.interpreter.python`).
    """
    interpreter = python()
    if interpreter is None:
        raise OSError("no Python interpreter to start")
    return [interpreter, "-m", __name__]


class IndexProcess:
    """The app's side of an index process: start it, read its pieces, end or stop it."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process

    @classmethod
    async def start(cls, setup: Setup) -> IndexProcess:
        """A new index process for ``setup``.

        Raises:
            OSError: When it cannot be started.
        """
        process = await asyncio.create_subprocess_exec(
            *command(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            pass_fds=(setup.fd,),
            env=environment(),
            # A piece waits here whole while the event loop is busy, rather than in
            # the process, which would stop indexing until it is read.
            limit=PIPE_BUFFER,
        )
        started = cls(process)
        started._send(setup)
        return started

    def _send(self, message: Setup | End) -> None:
        stdin = self._process.stdin
        if stdin is None or stdin.is_closing():
            return
        data = _ENCODE(message)
        stdin.write(_LENGTH.pack(len(data)) + data)  # a few bytes: the pipe takes them

    def end(self, length: int) -> None:
        """Tell the process that the body has ended, ``length`` bytes long."""
        self._send(End(length))

    async def receive(self, within: float) -> Piece | Done | Failed:
        """The process's next message; :class:`Failed` when it sends none within
        ``within`` seconds of the app running (time stopped does not count), ends or
        sends something unreadable."""
        stdout = self._process.stdout
        assert stdout is not None
        try:
            header = await running_within(partial(stdout.readexactly, _LENGTH.size), within)
            (length,) = _LENGTH.unpack(header)
            message: Piece | Done | Failed = _FROM_PROCESS.decode(
                await running_within(partial(stdout.readexactly, length), within)
            )
        except TimeoutError:
            return Failed(f"nothing in {within:g} s")
        except (asyncio.IncompleteReadError, msgspec.DecodeError) as error:
            return Failed(f"{type(error).__name__} reading the index process")
        return message

    async def close(self) -> None:
        """End the process now (it may be done already) and wait for it to be gone."""
        process = self._process
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        if process.stdin is not None:
            process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), CLOSE_WAIT)


def processors() -> int:
    """How many processors this process may keep busy: those it may run on, unless the
    CPU quota of its control group gives it fewer (:func:`.room.quota_processors`, whole
    ones). With one, an index process would only take turns with the app."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = quota_processors()
    return count if quota is None else max(1, min(count, int(quota)))


def environment() -> dict[str, str]:
    """The environment of an index process: the app's, without its credentials."""
    return {name: value for name, value in os.environ.items() if not name.startswith("TOKENSALES_")}


# --- the process --------------------------------------------------------------------


def main() -> int:
    """Index what the :class:`Setup` read from standard input says; see the module."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    commands, out = sys.stdin.fileno(), sys.stdout.buffer
    _widen_pipe(out.fileno())
    try:
        setup = _TO_PROCESS.decode(_read_message(commands))
        if not isinstance(setup, Setup):
            raise ValueError("no setup")
        _Indexing(setup, commands, out).run()
    except BrokenPipeError:
        return 1  # the app has gone
    except Exception as error:  # anything: the app indexes the list itself
        with contextlib.suppress(OSError):
            _write(out, Failed(f"{type(error).__name__}: {error}"))
        return 1
    return 0


def _widen_pipe(fd: int) -> None:
    """Let the pipe to the app hold a piece or so (where the system allows): a piece of
    1.5 MB through the usual 64 KB took two dozen turns of the app's event loop, and
    while the loop was busy the process waited for each instead of indexing."""
    size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if size is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, size, PIPE_BYTES)


def _read_message(fd: int) -> bytes:
    (length,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size))
    return _read_exactly(fd, length)


def _read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``, unbuffered: what follows stays in the pipe for select."""
    data = b""
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            raise EOFError("the app has gone")
        data += more
    return data


def _write(out: IO[bytes], message: Piece | Done | Failed) -> None:
    data = _ENCODE(message)
    out.write(_LENGTH.pack(len(data)) + data)
    out.flush()


class _Indexing:
    """Reads the spool as it grows, decodes and indexes the rows, sends the pieces."""

    def __init__(self, setup: Setup, commands: int, out: IO[bytes]) -> None:
        self.setup, self.commands, self.out = setup, commands, out
        model = getattr(models, setup.model)
        self.resource = next(r for r in RESOURCES if r.key == setup.resource)
        self.parser = ListParser(model, setup.what, setup.status, setup.content_type)
        self.splitter = ListSplitter(
            (setup.what, *shapes.LIST_KEYS),
            status=setup.status,
            content_type=setup.content_type,
            decode=self.parser.decode_region,
        )
        self._new_indexer: Callable[[Sequence[Column]], RowsIndexer] = partial(
            RowsIndexer, width=cell_len, other_fields=self.resource.other_fields
        )
        self.indexer: RowsIndexer | None = None
        self.decoded = setup.first_row  # rows decoded (with those before the first)
        self.sent = setup.first_row  # rows sent (likewise)
        self.pending: list[Any] = []

    def run(self) -> None:
        fd, at, end = self.setup.fd, self.setup.offset, self.setup.end
        within = end is not None  # elements from inside the list, as an array
        if within:
            self._take(self.splitter.feed(b"["))
        quiet = 0.0
        while end is None or at < end:
            size = os.fstat(fd).st_size
            if size < at:  # emptied: the disk was full, the app keeps the text in memory
                raise OSError(f"the spool was emptied at {at:,} bytes")
            if end is not None:
                size = min(size, end)
            if size > at:
                data = os.pread(fd, min(size - at, READ_BYTES), at)
                at += len(data)
                self._take(self.splitter.feed(data))
                quiet = 0.0
                continue
            if quiet >= QUIET:
                raise TimeoutError(f"the spool stayed at {at:,} bytes for {QUIET:g} s")
            readable, _, _ = select.select([self.commands], [], [], WAIT)
            quiet += WAIT
            if readable:
                message = _TO_PROCESS.decode(_read_message(self.commands))
                if isinstance(message, End):
                    end = message.length
        if within:
            self._take(self.splitter.feed(b"]"))
        self._take(self.splitter.close())
        self._send_pending()
        _write(self.out, Done(self.sent))

    def _take(self, rows: list[Any]) -> None:
        # As the app's reading does (StreamedList), which reads such a body whole.
        if self.splitter.whole or (rows and not self.splitter.streaming):
            raise ValueError("the body is not a list the app streams")
        if not rows:
            return
        self.parser.keep(rows, None, self.decoded)
        self.decoded += len(rows)
        if self.indexer is None:
            columns = self.resource.columns(rows)
            if [column.key for column in columns] != self.setup.columns:
                raise ValueError("the columns are not those the app shows")
            self.indexer = self._new_indexer(columns)
        self.pending += rows
        if len(self.pending) >= self.setup.piece_rows:
            self._send_pending()

    def _send_pending(self) -> None:
        rows, self.pending = self.pending, []
        if not rows or self.indexer is None:
            return
        piece = self.indexer.piece(rows, self.sent)
        interned = piece.interned
        message = Piece(
            start=piece.start,
            count=len(piece.lines),
            lines=b"\n".join(piece.lines),
            measures=self.indexer.measures,
        )
        if interned is not None:
            texts, ids, groups = interned
            message.texts = texts
            message.ids = ids.tobytes()
            message.numbers = groups.numbers.tobytes()
            message.ends = groups.ends.tobytes()
            message.rows = groups.rows.tobytes()
        _write(self.out, message)
        self.sent += len(rows)


def setup_for(
    arrival: StreamedList,
    resource_key: str,
    columns: Sequence[Column],
    within: tuple[int, int, int] | None = None,
) -> Setup:
    """The :class:`Setup` for indexing a list arriving; once its body has ended, for
    its rows ``within`` (first row, where its text starts, where the last one's ends:
    :meth:`~tokensales_tui.api.arriving.ArrivingRows.cut_at`)."""
    parser = arrival.parser
    first_row, offset, end = (0, 0, None) if within is None else within
    return Setup(
        first_row=first_row,
        offset=offset,
        end=end,
        piece_rows=PIECE_ROWS,
        fd=arrival.spool.fileno(),
        what=parser.what,
        model=parser.model.__name__,
        resource=resource_key,
        columns=[column.key for column in columns],
        status=parser.status,
        content_type=parser.content_type,
    )


if __name__ == "__main__":
    sys.exit(main())
