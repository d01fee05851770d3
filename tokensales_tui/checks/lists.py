"""Lists of values typed or imported from a file: one per line, duplicates, CSV columns."""

from __future__ import annotations

import codecs
import csv
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..files import LocalFileError, read_local_file, typed_path
from .addresses import EVM_ANY_CASE, SOLANA_LIKE
from .text import clip, split_lines


def parse_lines(text: str) -> list[str]:
    """One value per line, trimmed; blank lines are skipped."""
    return [stripped for line in split_lines(text) if (stripped := line.strip())]


def dedupe_key(value: str) -> str:
    """The key under which two list entries count as the same.

    EVM addresses and e-mail addresses compare ignoring case; anything else (a base58 Solana
    address, say) compares exactly.
    """
    text = value.strip()
    if "@" in text or EVM_ANY_CASE.fullmatch(text):
        return text.casefold()
    return text


def find_duplicates(values: Iterable[str]) -> list[str]:
    """Return every entry that repeats an earlier one (by :func:`dedupe_key`), in order."""
    seen: set[str] = set()
    repeats: list[str] = []
    for value in values:
        key = dedupe_key(value)
        if key in seen:
            repeats.append(value)
        else:
            seen.add(key)
    return repeats


@dataclass(frozen=True, slots=True)
class LineProblem:
    """One list entry that was refused, with its line number (from 1)."""

    line_no: int
    value: str
    message: str


@dataclass(frozen=True, slots=True)
class ListReport:
    """The outcome of checking a list.

    Attributes:
        valid: the valid entries to send, trimmed, first occurrences only.
        problems: invalid entries with the reason.
        duplicates: valid entries that repeat an earlier one; the message names that line.
    """

    valid: list[str]
    problems: list[LineProblem]
    duplicates: list[LineProblem]

    @property
    def summary(self) -> str:
        """One line such as ``1,204 valid, 3 invalid, 2 duplicates``."""
        repeats = len(self.duplicates)
        return (
            f"{len(self.valid):,} valid, {len(self.problems):,} invalid, "
            f"{repeats:,} duplicate{'' if repeats == 1 else 's'}"
        )


PAUSE_EVERY: Final = 500
"""Entries checked between two calls of ``check_list``'s ``pause``."""


def check_list(
    values: Sequence[str],
    check: Callable[[str], str | None],
    *,
    line_numbers: Sequence[int] | None = None,
    pause: Callable[[], None] | None = None,
) -> ListReport:
    """Check each entry with ``check`` and find repeats among the valid ones.

    Args:
        values: the entries, e.g. from :func:`parse_lines` or :func:`load_list_file`.
        check: a validator such as ``check_email`` or ``lambda v: check_address(v, chain)``.
        line_numbers: the source line of each entry; by default its position from 1.
        pause: called every :data:`PAUSE_EVERY` entries; a check running in a thread
            passes a short sleep, so that the event loop gets the interpreter in between.
    """
    if line_numbers is not None and len(line_numbers) != len(values):
        raise ValueError("line_numbers must have one number per value")
    valid: list[str] = []
    problems: list[LineProblem] = []
    duplicates: list[LineProblem] = []
    first_line: dict[str, int] = {}
    for index, raw in enumerate(values):
        if pause is not None and index % PAUSE_EVERY == PAUSE_EVERY - 1:
            pause()
        line_no = index + 1 if line_numbers is None else line_numbers[index]
        value = raw.strip()
        message = check(value)
        if message is not None:
            problems.append(LineProblem(line_no, value, message))
            continue
        key = dedupe_key(value)
        first = first_line.get(key)
        if first is not None:
            duplicates.append(LineProblem(line_no, value, f"already listed on line {first}"))
            continue
        first_line[key] = line_no
        valid.append(value)
    return ListReport(valid, problems, duplicates)


# --------------------------------------------------------------------------- list files


MAX_LIST_FILE_BYTES: Final = 50 * 1024 * 1024
"""Largest list file :func:`load_list_file` reads."""

_HEADER_NAMES: Final[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = (
    # (exact header names, words a header may contain), normalised: lower case, letters/digits
    (
        ("wallet", "wallets", "walletaddress", "walletaddresses", "address", "addresses"),
        ("wallet",),
    ),
    (("email", "emails", "emailaddress", "emailaddresses", "mail"), ("email", "mail")),
)


def _normalise_header(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _header_names(column_hint: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    hint = _normalise_header(column_hint)
    if not hint:
        return (), ()
    for exact, words in _HEADER_NAMES:
        if hint in exact or hint.removesuffix("s") in exact:
            return exact, words
    return (hint, hint + "s"), (hint,)


def _header_rank(cell: str, names: tuple[tuple[str, ...], tuple[str, ...]]) -> int | None:
    """How well a header cell matches the hint: lower is better, ``None`` is no match."""
    exact, words = names
    key = _normalise_header(cell)
    if not key:
        return None
    if key in exact:
        return exact.index(key)
    return len(exact) if any(word in key for word in words) else None


def _looks_like_value(cell: str) -> bool:
    text = cell.strip()
    return "@" in text or text[:2] in ("0x", "0X") or bool(SOLANA_LIKE.fullmatch(text))


def _unquote(cell: str) -> str:
    if len(cell) >= 2 and cell[0] == cell[-1] == '"':
        return cell[1:-1].replace('""', '"').strip()
    return cell


def _guess_delimiter(line: str) -> str | None:
    """The most frequent of comma, tab and semicolon on the first line, if any."""
    counts = {sep: line.count(sep) for sep in (",", "\t", ";")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else None


class ListFileError(Exception):
    """A list file could not be read; ``str(error)`` is the message to show."""


@dataclass(frozen=True, slots=True)
class ImportedList:
    """Values read from a list file, each with the line it came from (counting from 1).

    Attributes:
        path: the file read, with ``~`` expanded.
        values: the non-blank values, trimmed.
        line_numbers: the source line of each value.
        column: the header of the column read, or ``None`` when there was no header.
        warning: something the person should know, such as which column was read when none
            matched the hint.
        missing_lines: CSV rows with other content but an empty cell in the column read.
    """

    path: Path
    values: list[str]
    line_numbers: list[int]
    column: str | None = None
    warning: str | None = None
    missing_lines: list[int] = field(default_factory=list)

    def check(self, check: Callable[[str], str | None]) -> ListReport:
        """Run :func:`check_list` over the values with their source line numbers."""
        return check_list(self.values, check, line_numbers=self.line_numbers)


def _read_text(path: Path) -> str:
    shown = str(path)
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise ListFileError(f"there is no file at {shown} — check the path") from None
    except PermissionError:
        raise ListFileError(f"cannot open {shown}: permission denied") from None
    except OSError as exc:
        raise ListFileError(f"cannot open {shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ListFileError(f"{shown} is a folder — choose a file inside it")
    not_regular = ListFileError(f"{shown} is not a regular file — choose a text or CSV file")
    if not stat.S_ISREG(info.st_mode):
        raise not_regular
    too_big = ListFileError(
        f"{shown} is larger than {MAX_LIST_FILE_BYTES // 2**20} MB — split the list into smaller files"
    )
    if info.st_size > MAX_LIST_FILE_BYTES:
        raise too_big
    try:
        # Checked again on the open file: it may have been swapped for a FIFO meanwhile.
        data = read_local_file(path, limit=MAX_LIST_FILE_BYTES)
    except LocalFileError:
        raise too_big if info.st_size > MAX_LIST_FILE_BYTES else not_regular from None
    except PermissionError:
        raise ListFileError(f"cannot read {shown}: permission denied") from None
    except OSError as exc:
        raise ListFileError(f"cannot read {shown}: {exc.strerror or exc}") from None
    return _decoded(data, shown)


def _decoded(data: bytes, shown: str) -> str:
    """The text of a list's bytes, UTF-8 (a BOM left out); :class:`ListFileError` naming
    ``shown`` for bytes of another kind."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ListFileError(
            f"{shown} is saved as UTF-16 — save it as UTF-8 (CSV UTF-8) and try again"
        )
    if data.startswith(b"PK\x03\x04"):
        raise ListFileError(f"{shown} is a spreadsheet or archive — export it as CSV (UTF-8) first")
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[skipped:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = skipped + exc.start
        line = data.count(b"\n", 0, offset) + 1
        raise ListFileError(
            f"{shown} is not UTF-8 text: byte 0x{data[offset]:02X} at offset {offset} "
            f"(line {line}) cannot be read — save the file as UTF-8 (CSV UTF-8) and try again"
        ) from None
    if "\x00" in text:
        raise ListFileError(
            f"{shown} contains NUL bytes, so it is not a text list — choose a text or CSV file"
        )
    return text


def load_list_file(
    path: str | Path, *, column_hint: str, data: bytes | None = None
) -> ImportedList:
    """Read a list of wallets or e-mails from a text or CSV file.

    The file is UTF-8 (a BOM is ignored), at most :data:`MAX_LIST_FILE_BYTES`, with any line
    endings. If its first non-blank line holds a comma, tab or semicolon it is read as CSV with
    that delimiter; otherwise it is one value per line. A first row counts as a header when a cell
    matches ``column_hint`` (``"wallet"`` also matches wallets/address/Wallet Address, ``"email"``
    also e-mail/emails/Email Address) or, for CSV, when none of its cells looks like an address or
    e-mail. The column whose header matches best is read; failing that, the first column whose
    first cell looks like a value, else the first column. Values are not validated here: pass the
    result to :meth:`ImportedList.check`.

    ``data``: the list's bytes, already read (from stdin), which ``path`` only names.

    Raises:
        ListFileError: the file is missing, a folder, unreadable, too large, or not UTF-8 text.
    """
    try:
        resolved = typed_path(str(path))
    except LocalFileError as error:
        raise ListFileError(f"cannot open {path}: {error}") from None
    text = _read_text(resolved) if data is None else _decoded(data, str(path))
    lines = split_lines(text)
    names = _header_names(column_hint)
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start == len(lines):
        return ImportedList(resolved, [], [])
    first = lines[start]
    delimiter = _guess_delimiter(first)

    if delimiter is None:
        header = _unquote(first.strip())
        has_header = _header_rank(header, names) is not None
        values: list[str] = []
        numbers: list[int] = []
        for index in range(start + 1 if has_header else start, len(lines)):
            value = _unquote(lines[index].strip())
            if value:
                values.append(value)
                numbers.append(index + 1)
        return ImportedList(resolved, values, numbers, header if has_header else None)

    reader = csv.reader(lines[start:], delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    consumed = 0
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((start + consumed + 1, row))
            consumed = reader.line_num
    except csv.Error as exc:
        raise ListFileError(
            f"{resolved} cannot be read as CSV at line {start + consumed + 1}: {exc}"
        ) from None
    if not rows:
        return ImportedList(resolved, [], [])
    head = [cell.strip() for cell in rows[0][1]]
    ranks = [
        (rank, i) for i, cell in enumerate(head) if (rank := _header_rank(cell, names)) is not None
    ]
    has_header = bool(ranks) or not any(_looks_like_value(cell) for cell in head)
    data_rows = rows[1:] if has_header else rows
    warning = None
    if ranks:
        column = min(ranks)[1]
    else:
        sample = data_rows[0][1] if data_rows else []
        column = next((i for i, cell in enumerate(sample) if _looks_like_value(cell)), 0)
        if has_header and column < len(head):
            unnamed = f"no column is named like '{clip(column_hint.strip(), 20)}' — "
            warning = (
                f"{unnamed if column_hint.strip() else ''}"
                f"reading column {column + 1} ('{clip(head[column], 30)}')"
            )
    values = []
    numbers = []
    missing: list[int] = []
    for line_no, row in data_rows:
        cell = row[column].strip() if column < len(row) else ""
        if cell:
            values.append(cell)
            numbers.append(line_no)
        else:
            missing.append(line_no)
    header_name = head[column] if has_header and column < len(head) else None
    return ImportedList(resolved, values, numbers, header_name, warning, missing)
