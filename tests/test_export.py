"""Writing rows to a file: formats, what a server sent kept as data, atomic and no-clobber."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

import pytest

from tokensales_tui.files import atomic_writer
from tokensales_tui.ui.export import (
    PROGRESS_EVERY,
    ExportStopped,
    csv_cell,
    default_path,
    export_rows,
    with_extension,
)
from tokensales_tui.ui.table.cells import Column


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An empty folder to export to (``tmp_path`` holds the isolated home)."""
    out = tmp_path / "out"
    out.mkdir()
    return out


@dataclass
class Row:
    name: str
    amount: float
    raw: dict[str, Any]


COLUMNS = [
    Column("name", "Name", attrgetter("name")),
    Column("amount", "Amount", attrgetter("amount")),
]
HOSTILE = '=HYPERLINK("x")\x1b]52;c;aGk=\x07\u202e\x9b'
ROWS = [
    Row("plain", 1.5, {"id": "a", "n": 1}),
    Row(HOSTILE, -2, {"id": "b", "text": HOSTILE, "nested": {"k": [1, None]}}),
]


def test_csv_has_the_columns_shown_cleaned_and_safe_from_spreadsheets(folder: Path) -> None:
    path = folder / "out.csv"
    assert export_rows(path, "csv", COLUMNS, ROWS, attrgetter("raw")) == 2
    with path.open(newline="", encoding="utf-8") as file:
        lines = list(csv.reader(file))
    assert lines[0] == ["Name", "Amount"]
    assert lines[1] == ["plain", "1.5"]
    name, amount = lines[2]
    assert name.startswith("'=")  # a formula is text
    assert not any(char in name for char in "\x1b\x07\u202e\x9b")
    assert amount == "-2"  # a negative number stays a number
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)" and csv_cell("-1,234.5") == "-1,234.5"


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_json_keeps_every_character_but_none_a_terminal_acts_on(folder: Path, kind: str) -> None:
    path = folder / f"out.{kind}"
    export_rows(path, kind, COLUMNS, ROWS, attrgetter("raw"))
    text = path.read_text(encoding="utf-8")
    assert not any(char in text for char in "\x1b\x07\u202e\x9b")
    if kind == "json":
        objects = json.loads(text)
    else:
        objects = [json.loads(line) for line in text.splitlines()]
    assert objects == [row.raw for row in ROWS]


def test_an_empty_json_export_is_an_empty_array(folder: Path) -> None:
    path = folder / "empty.json"
    export_rows(path, "json", COLUMNS, [], attrgetter("raw"))
    assert json.loads(path.read_text(encoding="utf-8")) == []


def test_an_existing_file_is_replaced_only_when_asked(folder: Path) -> None:
    path = folder / "out.csv"
    path.write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError):
        export_rows(path, "csv", COLUMNS, ROWS, attrgetter("raw"))
    assert path.read_text(encoding="utf-8") == "keep me"
    export_rows(path, "csv", COLUMNS, ROWS, attrgetter("raw"), replace=True)
    assert path.read_text(encoding="utf-8").startswith("Name,Amount")
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in folder.iterdir()) == ["out.csv"]  # no temp file left


def test_progress_is_told_and_a_stop_writes_nothing(folder: Path) -> None:
    rows = [Row(str(n), n, {"n": n}) for n in range(PROGRESS_EVERY * 3)]
    told: list[int] = []
    path = folder / "out.jsonl"
    export_rows(path, "jsonl", COLUMNS, rows, attrgetter("raw"), progress=told.append)
    assert told == [PROGRESS_EVERY, PROGRESS_EVERY * 2, len(rows)]
    other = folder / "stopped.jsonl"
    with pytest.raises(ExportStopped):
        export_rows(other, "jsonl", COLUMNS, rows, attrgetter("raw"), stopped=lambda: True)
    assert sorted(p.name for p in folder.iterdir()) == ["out.jsonl"]


def test_a_file_created_while_writing_is_not_replaced(folder: Path) -> None:
    path = folder / "race.txt"
    with pytest.raises(FileExistsError), atomic_writer(path, replace=False) as file:
        file.write(b"new")
        path.write_bytes(b"someone else's")
    assert path.read_bytes() == b"someone else's"
    assert sorted(p.name for p in folder.iterdir()) == ["race.txt"]


def test_default_names_and_extensions() -> None:
    path = default_path("items", "csv", Path("/x"), now=0)
    assert path.parent == Path("/x") and path.name.startswith("items-") and path.suffix == ".csv"
    assert with_extension("/x/items-1.csv", "jsonl") == "/x/items-1.jsonl"
    assert with_extension("/x/notes.txt", "json") == "/x/notes.txt"  # a name of one's own


def test_an_export_keeps_the_text_the_table_settles_for_the_terminal() -> None:
    title = "किताब\u200b का"
    assert csv_cell(title) == title  # the cells show "कइतआब⸱ कआ"; the file has the text
