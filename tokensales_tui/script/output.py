"""What the commands print: a table, JSON, JSON lines or CSV, ``--fields`` and ``--jq``.

The data formats print the data exactly: JSON is the server's data re-encoded, every
control character, DEL, C1 control and bidi control escaped (``\\u001b``), so a JSON
reader gets the text back exactly; CSV cells and ``--jq``'s bare strings are the text
as it is (a CSV cell a spreadsheet would run as a formula gets a leading ``'``). What
goes to a terminal is cleaned on its way there (:mod:`tokensales_tui.console`), never
here: a pipe gets the data. The table and one object's ``key  value`` lines are views
made for reading, on a terminal or not: one line a row, cut to width, server text
cleaned with :mod:`tokensales_tui.clean` as the app's tables do (a width is only right
for text without controls).

Rows reach a :class:`Printer` as JSON text (``msgspec.Raw``, straight from a streamed
list) or as plain values; a list is printed a batch at a time, never held, except
for a table (its columns need every width) and ``--jq`` (a program sees the whole; its
results are printed as it makes them), and the first rows of a CSV whose columns the
rows name (:data:`COLUMN_SAMPLE`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import re
import secrets
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

import msgspec

from ..api import shapes
from ..clean import cell_text, cell_text_in, cell_width, clean, guard_formula
from ..signals import left_to_default, raising_on

__all__ = ["DEFAULT_FIELDS", "Halted", "OutputError", "Printer", "encode_json", "interruptible"]

DEFAULT_FIELDS: dict[str, tuple[str, ...]] = {
    "webhooks": ("id", "url", "isActive", "events", "createdAt"),
    "items": ("id", "title", "price", "currency", "payout.type"),
    "assets": (),  # none assumed: the keys of the rows (see Printer._column_names)
    "collections": ("id", "name", "blockchain", "contractAddress", "whitelisted"),
    "payouts": ("id", "type", "name", "chain", "account", "usedBy", "source"),
}
"""The table's and CSV's columns when ``--fields`` is not given."""
ID_READERS = {"collections": shapes.COLLECTION_IDS, "assets": shapes.ASSET_IDS}
"""How the id of the objects of a resource is read where the interface does not type it
(a collection's ``_id`` or ``tokenId``; a number as written), as the app reads it."""

CELL_WIDTH = 48
"""Widest table column, in terminal cells (a wide character takes two); longer text
ends with an ellipsis."""
VALUE_WIDTH = 200
"""Most terminal cells of a value on one object's ``key  value`` line."""
COLUMN_SAMPLE = 500
"""Rows whose keys make the columns of a resource that has no usual ones (assets): CSV
holds this many before its header, so a list of any length still streams."""
COLUMN_LIMIT = {"table": 8, "csv": 64}
"""Most columns taken from the rows' keys: a table must fit a screen."""
JQ_BATCH = 64 * 1024
"""Bytes of ``--jq`` results written at once: many small results go in one write (one
write a result costs), a large one goes as soon as it is made. Memory holds about one
result, and a reader that stops (``| head -c 10``) ends the program at the next."""

_ESCAPE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
_ENCODER = msgspec.json.Encoder()
_DECODE = msgspec.json.decode


class OutputError(Exception):
    """The output cannot be made as asked (a broken ``--jq`` program); the message says why."""


class Halted(Exception):
    """The ``--jq`` program called ``halt`` or ``halt_error``: the command ends with
    :attr:`code`, and :attr:`message` (already as ``jq`` prints it) goes to stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message


def _escape(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode())


def encode_json(value: Any) -> bytes:
    """``value`` as compact JSON, every control character escaped; a lone surrogate (no
    text: an argument that is not UTF-8, an escape a server sent) as U+FFFD, as the API
    client reads one."""
    try:
        encoded = _ENCODER.encode(value)
    except UnicodeEncodeError:
        encoded = _ENCODER.encode(shapes.without_surrogates(value))
    return _ESCAPE.sub(_escape, encoded)


def _decode(raw: Any, *, as_sent: bool = False) -> Any:
    """A row as plain values: JSON text is decoded, anything else is taken as it is.
    ``as_sent``: each number with a fraction or an exponent stays the JSON text the
    server wrote (``1.10``, ``1.7e308``, ``3.27e2``), as :func:`.shapes.decode_as_sent`
    keeps it, for a view that prints it (CSV, a table, ``--fields``): as a float it
    was printed as Python writes one (``1.1``, ``1.7e+308``, ``327.0``)."""
    if isinstance(raw, msgspec.Raw | bytes):
        try:
            return (_DECODE_AS_SENT if as_sent else _DECODE)(raw)
        except msgspec.DecodeError:
            # A lone surrogate, a number beyond a float: what the stdlib makes of it, the
            # number kept as it was written. The body was checked to be UTF-8 as it
            # arrived (:mod:`..api.body_text`): nothing here is replaced.
            return json.loads(bytes(raw), parse_float=_number_text if as_sent else _float)
    return raw


def _float(text: str) -> Any:
    """A JSON number with a fraction or an exponent; one no float holds (``1e400``)
    stays JSON text, printed as the server wrote it."""
    value = float(text)
    return _number_text(text) if math.isinf(value) else value


def _number_text(text: str) -> msgspec.Raw:
    return msgspec.Raw(text.encode())


_DECODE_AS_SENT = msgspec.json.Decoder(float_hook=_number_text).decode


def _pad(text: str, cells: int) -> str:
    return text + " " * (cells - cell_width(text))


def pick(row: Any, path: str) -> Any:
    """The value at ``path``: the key of that name where ``row`` has one, else ``a.b``
    reaches inside objects; ``None`` when absent.

    A key may itself hold a dot (``"price.usd"``), at any depth (``meta`` holding
    ``"price.usd"`` is ``meta.price.usd``): such a key is taken as it is, and wins over
    a path of the same name; the shorter key is tried first at each step.
    """
    return _pick(row, path, {})


def _pick(row: Any, path: str, tried: dict[tuple[int, str], Any]) -> Any:
    """:func:`pick`, each object and rest of the path tried once: keys such as ``a`` and
    ``a.a`` at every level would have it try every way to cut a long path."""
    if not isinstance(row, dict):
        return None
    if path in row:
        return row[path]
    if (id(row), path) in tried:
        return tried[id(row), path]
    found = None
    head, dot, rest = path.partition(".")
    while dot and found is None:
        if head in row:
            found = _pick(row[head], rest, tried)
        part, dot, rest = rest.partition(".")
        head = f"{head}.{part}"
    tried[id(row), path] = found
    return found


class Printer:
    """Prints rows in one format to ``stream`` (bytes).

    Args:
        fmt: ``table``, ``json``, ``jsonl`` or ``csv``.
        fields: the keys the user typed to keep (``--fields``; ``a.b`` reaches inside,
            unless a key is named ``a.b``: see :func:`pick`); empty keeps every field,
            except that a table and CSV then show the resource's usual columns. One no
            row has a value for is warned of: its name may be misspelt.
        columns: the keys a command chose to keep itself, kept as ``fields`` are but
            never warned of (the user typed nothing: an optional field, a profile's
            ``label``, may be empty in every row); not with ``fields``.
        jq: a jq program run over the whole output, or ``None``.
        kind: the resource, for the default columns.
        stream: where to write; ``sys.stdout.buffer`` by default.
    """

    def __init__(
        self,
        fmt: str,
        *,
        fields: Sequence[str] = (),
        columns: Sequence[str] = (),
        jq: str | None = None,
        kind: str = "",
        stream: IO[bytes] | None = None,
    ) -> None:
        assert not (fields and columns), "the user's fields or the command's columns"
        self.fmt = fmt
        self.fields = tuple(fields) or tuple(columns)
        self.kind = kind
        self.stream = stream if stream is not None else sys.stdout.buffer
        self._program = _compile(jq) if jq else None
        self._held: list[Any] = []
        self._count = 0
        self._columns: tuple[str, ...] | None = None  # CSV's, once its header is written
        self._as_sent = fmt in ("csv", "table") or bool(self.fields)
        """Numbers are printed as the server wrote them (:func:`_decode`); a list streamed
        whole to JSON or JSON lines decodes them as floats, which costs half as much."""
        self._unfound = dict.fromkeys(fields)
        """The fields the user typed that no row has shown a value for yet (see
        :meth:`_said_unfound`); never a command's own :attr:`columns`."""
        self._looked = False  # at an object, for those fields
        self._keys_named = not (self.fields or DEFAULT_FIELDS.get(kind))
        """The columns are the rows' own keys (:meth:`_column_names`), not paths: a
        column ``price.usd`` is the key ``"price.usd"``, never ``price``'s ``usd``."""

    # --- lists ----------------------------------------------------------------------

    def rows(self, batch: Iterable[Any]) -> None:
        """Print (or, for a table and ``--jq``, keep) a batch of rows of a list."""
        if self._program is not None or self.fmt == "table":
            self._held.extend(map(self._shape, batch))
            return
        if self.fmt == "csv":
            self._csv(list(map(self._shape, batch)), last=False)
            return
        lines = [encode_json(self._shape(row)) for row in batch]
        if not lines:
            return
        if self.fmt == "json":
            lead = b"[\n" if self._count == 0 else b",\n"
            self.stream.write(lead + b",\n".join(lines))
        else:
            self.stream.write(b"\n".join(lines) + b"\n")
        self._count += len(lines)

    def end(self) -> None:
        """The list is complete: print what was kept, close the JSON array."""
        self._said_unfound()
        if self._program is not None:
            self._jq(self._held)
        elif self.fmt == "table":
            self._table(self._held)
        elif self.fmt == "csv":
            self._csv([], last=True)
        elif self.fmt == "json":
            self.stream.write(b"\n]\n" if self._count else b"[]\n")
        self.stream.flush()

    # --- one object -----------------------------------------------------------------

    def one(self, row: Any) -> None:
        """Print one object (``get KIND ID``, an ``api`` answer)."""
        value = self._shape(row)
        self._said_unfound()
        if self._program is not None:
            self._jq(value)
        elif self.fmt == "table":
            self._record(value)
        elif self.fmt == "csv":
            self._csv([value], last=True)
        elif self.fmt == "json":
            self.stream.write(msgspec.json.format(encode_json(value), indent=2) + b"\n")
        else:
            self.stream.write(encode_json(value) + b"\n")
        self.stream.flush()

    # --- the formats ----------------------------------------------------------------

    def _shape(self, row: Any) -> Any:
        value = _decode(row, as_sent=self._as_sent)
        reader = ID_READERS.get(self.kind)
        if reader is not None and isinstance(value, dict) and isinstance(row, msgspec.Raw | bytes):
            # An id that is a number is printed, and read, as the server wrote it: the
            # text a command is then given to address the object (``1e+20``, not ``1e20``).
            value.update(reader.numbers(row))
        if self.fields and isinstance(value, dict):
            picked = {name: self._pick(value, name) for name in self.fields}
            self._looked = True
            if self._unfound:
                for name in [name for name in self._unfound if picked[name] is not None]:
                    del self._unfound[name]
            return picked
        return value

    def _said_unfound(self) -> None:
        """Warn of each field of ``--fields`` that no row had a value for: a name misspelt
        (``--fields nope``) printed a column of nulls without a word. Warned, not refused:
        the fields of a row are the server's (an asset's are its own), and a field may be
        empty in every row of a list."""
        if self._looked and self._unfound:
            from .run import say

            names = ", ".join(name for name in self._unfound)
            say(f"warning: --fields: no row has a value for {names} (check the name)")
            self._unfound = {}

    def _pick(self, row: Any, path: str) -> Any:
        """:func:`pick`; the id of a resource whose objects name it otherwise (a
        collection's ``_id`` or ``tokenId``) is found where the app finds it."""
        reader = ID_READERS.get(self.kind)
        if path == "id" and reader is not None and isinstance(row, dict):
            return shapes.find_id(row, reader.keys)
        if self._keys_named and isinstance(row, dict):
            return row.get(path)  # a column named after a key is that key, dots and all
        return pick(row, path)

    def _column_names(self, rows: Sequence[Any]) -> tuple[str, ...]:
        """The fields asked for, else the resource's usual ones, else the keys of the first
        :data:`COLUMN_SAMPLE` rows in the order they first appear, ``id`` first (an
        asset has fields of its own choosing, and the first may lack some); ``value``
        when there are rows and none is an object."""
        if self.fields:
            return self.fields
        default = DEFAULT_FIELDS.get(self.kind, ())
        if default:
            return default
        keys: dict[str, None] = {}
        for row in rows[:COLUMN_SAMPLE]:
            if isinstance(row, dict):
                keys.update(dict.fromkeys(row))
        names = sorted(keys, key=lambda key: key != "id")  # stable: the rest keep their order
        if not names and rows:
            return ("value",)
        return tuple(names[: COLUMN_LIMIT[self.fmt]])

    def _cells(self, row: Any, columns: Sequence[str]) -> list[str]:
        """A row's cells, made as the app's tables make theirs (:func:`.clean.cell_text`):
        one line, cleaned, every character of disputed width settled."""
        if not isinstance(row, dict):  # an entry that is no object: in the first column
            return [cell_text_in(row, CELL_WIDTH), *([""] * (len(columns) - 1))]
        return [cell_text_in(self._pick(row, name), CELL_WIDTH) for name in columns]

    def _table(self, rows: Sequence[Any]) -> None:
        columns = self._column_names(rows)
        header = [cell_text_in(name.upper(), CELL_WIDTH) for name in columns]
        body = [self._cells(row, columns) for row in rows]
        widths = [cell_width(cell) for cell in header]
        for cells in body:
            widths = [max(w, cell_width(cell)) for w, cell in zip(widths, cells, strict=True)]
        out = io.StringIO()
        for cells in (header, *body):
            out.write("  ".join(_pad(c, w) for c, w in zip(cells, widths, strict=True)).rstrip())
            out.write("\n")
        self.stream.write(out.getvalue().encode("utf-8", "replace"))

    def _record(self, row: Any) -> None:
        """One object as ``key  value`` lines."""
        if not isinstance(row, dict):
            self.stream.write(cell_text(row).encode("utf-8", "replace") + b"\n")
            return
        keys = [cell_text_in(key, CELL_WIDTH) for key in row]
        widest = max((cell_width(key) for key in keys), default=0)
        lines = [
            f"{_pad(key, widest)}  {cell_text_in(value, VALUE_WIDTH)}"
            for key, value in zip(keys, row.values(), strict=True)
        ]
        self.stream.write(("\n".join(lines) + "\n").encode("utf-8", "replace"))

    def _csv(self, rows: list[Any], *, last: bool) -> None:
        """Write ``rows`` as CSV, the header first. Until the columns are known, rows are
        held (at most :data:`COLUMN_SAMPLE`: see :meth:`_column_names`); ``last`` says
        no more will come."""
        out = io.StringIO()
        write = _csv_writer(out)
        if self._columns is None:
            self._held.extend(rows)
            known = self.fields or DEFAULT_FIELDS.get(self.kind)
            if not (known or last or len(self._held) >= COLUMN_SAMPLE):
                return
            self._columns = self._column_names(self._held)
            if self._columns:  # none for an empty list of assets: nothing to name
                write([_csv_cell(name) for name in self._columns])
            rows, self._held = self._held, []
        for row in rows:
            if isinstance(row, dict):
                values = [self._pick(row, name) for name in self._columns]
            else:  # an entry that is no object: in the first column
                values = [row, *([None] * (len(self._columns) - 1))]
            write([_csv_cell(value) for value in values])
        self.stream.write(out.getvalue().encode("utf-8", "replace"))

    def _jq(self, value: Any) -> None:
        """Run the program over ``value``, printing each result as it comes: a reader
        that stops early (``| head``) ends it, and memory holds one result at a time.

        While the program computes, an ending signal takes its default action
        (:func:`~tokensales_tui.signals.left_to_default`): a result that takes long
        (``last(range(1e12))``) is computed inside the jq library, which runs no Python
        handler until it returns, and ctrl+c, SIGTERM and SIGHUP went unheeded. Each write
        runs with the command's handlers, so the output stays whole lines."""
        assert self._program is not None
        results = iter(self._program.input_text(encode_json(value).decode()))
        lines: list[bytes] = []  # written once they hold JQ_BATCH bytes
        held = 0
        with interruptible(), left_to_default() as handled:

            def write(data: bytes) -> None:
                with handled():
                    self.stream.write(data)
                    self.stream.flush()

            while True:
                try:
                    result = next(results)
                except StopIteration:
                    break
                except ValueError as error:  # what it printed before is printed, as jq does
                    write(b"".join(lines))
                    raise _halted(str(error)) or OutputError(f"--jq: {clean(str(error))}") from None
                if isinstance(result, str):  # bare, as jq -r prints it
                    line = result.encode("utf-8", "replace") + b"\n"
                else:
                    line = encode_json(result) + b"\n"
                if _HALT_BYTES in line:  # a halt caught and given out, whole or in part
                    write(b"".join(lines))
                    whole = isinstance(result, dict) and _HALT in result
                    raise (_halted(json.dumps(result)) if whole else None) or Halted(0, "")
                lines.append(line)
                held += len(line)
                if held >= JQ_BATCH:
                    write(lines[0] if len(lines) == 1 else b"".join(lines))
                    lines.clear()
                    held = 0
                del result, line  # not held while the program makes the next
        if lines:
            self.stream.write(b"".join(lines))


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl+C raises KeyboardInterrupt at once while the block runs.

    A command runs in ``asyncio.run``, whose SIGINT handler only cancels the command's
    task, which takes effect at its next ``await``: a jq program never reaches one, and
    went on for as long as it had results; a question on the terminal (``delete``'s,
    a secret's) waited for its answer first. (A single result that takes long, such as
    ``[range(1e9)] | length``, is computed inside the jq library, which only lets Python
    see the signal once it is done: there the signals take their default, see
    :meth:`Printer._jq`.) A SIGINT ignored on entry (a background job's) stays ignored.
    """
    with raising_on([signal.SIGINT]):
        yield


_HALT = f"tokensales-tui halt {secrets.token_hex(8)}"
"""The key of a halt's error, with a nonce of this run: an ``error(…)`` of the data's own
(a server's text) cannot pass for a halt."""
_HALT_BYTES = _HALT.encode()
_HALTING = (
    f'def halt_error($code): error({{"{_HALT}": [$code, .]}}); '
    "def halt_error: halt_error(5); "
    f'def halt: error({{"{_HALT}": [0, null]}}); '
    'def input: error("No more inputs"); '
)
"""``halt`` and ``halt_error`` as errors the command can tell apart: the jq library ends a
program that halts without a word, as if it had printed all it had to. Unlike jq's, they
are errors a ``try`` or ``?`` catches; a halt caught and given out in a result
(``try halt catch .``, ``[try halt catch tostring]``) still halts; one a program changes
further (``ascii_upcase``) is printed as the program made it. A program reads one input,
the whole output: ``input`` finds no more, and says so in jq's words (the jq library's own
said "break")."""


_UNHEARD = f"$tokensales_debug_{secrets.token_hex(8)}"
_HEARING = f"def debug: {_UNHEARD}; def debug($message): {_UNHEARD}; def stderr: {_UNHEARD}; "
"""``debug`` and ``stderr`` as definitions that cannot compile: jq reports a variable
not defined only where a definition is used, so a program compiles after them unless it
uses one of jq's own."""


def _compile(program: str) -> Any:
    import jq

    try:
        jq.compile(program)  # its errors as they are, without the definitions before it
        compiled = jq.compile(_HALTING + program)
    except ValueError as error:
        raise OutputError(f"--jq: {clean(str(error))}") from None
    try:
        jq.compile(_HEARING + program)
    except ValueError:
        # The jq library gives debug and stderr no stderr to write to (jq's own does): a
        # program that uses them is told so, rather than left to wonder.
        from .run import say

        say(
            "warning: --jq: debug and stderr write nothing here (the jq library gives them"
            " no stderr); they pass their input on, as in jq"
        )
    return compiled


def _halted(message: str) -> Halted | None:
    """The :class:`Halted` of a program that halted (see :data:`_HALTING`), else None."""
    if not message.startswith(f'{{"{_HALT}": '):
        return None
    try:
        code, value = json.loads(message)[_HALT]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(code, int) or isinstance(code, bool):
        return Halted(5, "halt_error/1: number required\n")
    if value is None and code == 0:
        return Halted(0, "")
    # jq prints a string as it is, anything else as JSON on a line.
    text = value if isinstance(value, str) else encode_json(value).decode() + "\n"
    return Halted(code & 0xFF, text)


def _csv_writer(out: IO[str]) -> Callable[[list[str]], None]:
    """What writes a CSV row of text cells to ``out``, lines ending in ``\\n``.

    The csv module quotes a cell holding a character of the line end, not one holding a
    lone ``\\r``, which readers take for the end of a row: a row with one is written
    with every cell quoted.
    """
    plain = csv.writer(out, lineterminator="\n")
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def write(cells: list[str]) -> None:
        (quoted if any("\r" in cell for cell in cells) else plain).writerow(cells)

    return write


def _csv_cell(value: Any) -> str:
    """A CSV cell: scalars as text, lists and objects as compact JSON; text a spreadsheet
    would run as a formula gets a leading quote (:func:`.clean.guard_formula`)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, msgspec.Raw):  # a number as the server wrote it
        return bytes(value).decode("utf-8", "replace")
    text = value if isinstance(value, str) else encode_json(value).decode()
    return guard_formula(text)
