"""What the commands print, made by :class:`~tokensales_tui.script.output.Printer` in
process: columns, table cells, ``--jq`` results."""

from __future__ import annotations

import io
from typing import Any

import pytest

from tokensales_tui.script.output import Printer


def _printed(fmt: str, rows: list[object], **options: object) -> list[str]:
    out = io.BytesIO()
    printer = Printer(fmt, stream=out, **options)  # type: ignore[arg-type]
    printer.rows(rows)
    printer.end()
    return out.getvalue().decode().splitlines()


def test_an_asset_column_named_after_a_key_with_a_dot_holds_that_key() -> None:
    assets = [{"id": "ast_1", "symbol": "ETH", "price.usd": 3100.5, "meta.chain": "ethereum"}]
    assert _printed("csv", assets, kind="assets") == [
        "id,symbol,price.usd,meta.chain",
        "ast_1,ETH,3100.5,ethereum",
    ]
    table = _printed("table", assets, kind="assets")
    assert table[1].split() == ["ast_1", "ETH", "3100.5", "ethereum"]


def test_an_asset_column_is_its_key_even_where_a_path_of_that_name_exists() -> None:
    # The second asset has no key "price.usd": its cell is empty, not price's usd.
    assets = [
        {"id": "a", "price.usd": 1, "price": {"usd": 2}},
        {"id": "b", "price": {"usd": 3}},
    ]
    assert _printed("csv", assets, kind="assets") == [
        "id,price.usd,price",
        'a,1,"{""usd"":2}"',
        'b,,"{""usd"":3}"',
    ]


def test_fields_take_a_key_with_a_dot_first_then_reach_inside() -> None:
    rows = [{"id": "a", "price.usd": 1, "price": {"usd": 2}}, {"id": "b", "price": {"usd": 3}}]
    assert _printed("csv", rows, kind="assets", fields=("id", "price.usd")) == [
        "id,price.usd",
        "a,1",
        "b,3",
    ]
    assert _printed("jsonl", rows, fields=("price.usd",)) == ['{"price.usd":1}', '{"price.usd":3}']


def test_fields_reach_a_key_with_a_dot_inside_an_object() -> None:
    # `--fields meta.price.usd` found nothing where `meta` held the key "price.usd".
    rows = [
        {"id": "a", "meta": {"price.usd": 1}},
        {"id": "b", "meta": {"price": {"usd": 2}}},
        {"id": "c", "meta.price": {"usd": 3}},
        {"id": "d", "meta": {"price": 4}},
    ]
    assert _printed("csv", rows, fields=("id", "meta.price.usd")) == [
        "id,meta.price.usd",
        "a,1",
        "b,2",
        "c,3",
        "d,",
    ]


def test_a_path_is_cut_into_keys_in_each_way_at_most_once() -> None:
    # Keys "a" and "a.a" at every level of 40: a 40-dot path had 2**40 ways to be cut.
    from tokensales_tui.script import output

    row: dict[str, Any] = {"end": 1}
    for _ in range(40):
        row = {"a": row, "a.a": row}
    calls = 0
    inner = output._pick

    def counting(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 5_000:  # without a bound it would run for ever
            raise AssertionError("the path was cut in too many ways")
        return inner(*args)

    output._pick = counting  # type: ignore[assignment]
    try:
        assert output.pick(row, ".".join(["a"] * 40 + ["end"])) == 1
        assert output.pick(row, ".".join(["a"] * 40 + ["nothing"])) is None
    finally:
        output._pick = inner  # type: ignore[assignment]


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_the_usual_columns_still_reach_inside(fmt: str) -> None:
    items = [{"id": "i", "title": "T", "price": 1, "currency": "EUR", "payout": {"type": "fiat"}}]
    assert _printed(fmt, items, kind="items")[1].replace(",", " ").split()[-1] == "fiat"


ZERO_WIDTH = {
    "ZWJ": "\u200d",
    "ZWSP": "\u200b",
    "word joiner": "\u2060",
    "VS16": "\ufe0f",
    "soft hyphen": "\u00ad",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "LRM": "\u200e",
    "tag": "\U000e0067",
    "cancel tag": "\U000e007f",
    "VS17": "\U000e0100",
    "Thai mark": "\u0e31",  # Mn of class 0: no cell
}


@pytest.mark.parametrize("name", list(ZERO_WIDTH))
def test_a_table_cell_shows_each_zero_width_character_as_the_apps_tables_do(name: str) -> None:
    from rich.cells import cell_len

    from tokensales_tui.ui.table.cells import cell_text

    char = ZERO_WIDTH[name]
    odd = f"a{char}b{char}"
    rows = [
        {"id": "c1", "name": odd, "blockchain": "ethereum"},
        {"id": "c2", "name": "plain", "blockchain": "polygon"},
    ]
    lines = _printed("table", rows, kind="collections")
    # The cell is the app's cell, and the columns after it line up as a terminal counts.
    assert lines[1].split("  ")[1].strip() == cell_text(odd).strip()
    assert cell_text(odd) != odd or name == "Thai mark"
    ends = {
        cell_len(line[: line.index(chain)])
        for line, chain in zip(lines[1:], ("eth", "pol"), strict=True)
    }
    assert len(ends) == 1, lines
    assert cell_len(lines[0][: lines[0].index("BLOCKCHAIN")]) in ends


def test_one_objects_lines_show_zero_width_characters_as_marks() -> None:
    out = io.BytesIO()
    Printer("table", stream=out).one({"na\u200dme": "x\u2028y\U000e0067", "id": "c1"})
    lines = out.getvalue().decode().splitlines()
    assert lines == ["na\u2e31me  x\u2e31y\u2e31", "id     c1"]


class Writes(io.RawIOBase):
    """A stream that keeps the size of each write, and can stop taking them."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.sizes: list[int] = []
        self.stop_after = stop_after

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        if self.stop_after is not None and len(self.sizes) >= self.stop_after:
            raise BrokenPipeError(32, "Broken pipe")
        size = len(data)  # type: ignore[arg-type]
        self.sizes.append(size)
        return size


def test_large_jq_results_are_written_one_by_one_and_small_ones_together() -> None:
    large = Writes()
    Printer("json", jq="range(6) | tostring * 300000", stream=large).one(None)  # type: ignore[arg-type]
    assert large.sizes == [300_001] * 6  # memory holds one result, not a batch of them
    small = Writes()
    Printer("json", jq="range(200000)", stream=small).one(None)  # type: ignore[arg-type]
    assert sum(small.sizes) == sum(len(f"{n}\n") for n in range(200_000))
    assert len(small.sizes) < 30  # many results in one write


def test_a_reader_that_stops_ends_a_program_of_large_results_at_the_next() -> None:
    stopped = Writes(stop_after=1)
    printer = Printer("json", jq="range(1e9) | tostring * 100000", stream=stopped)  # type: ignore[arg-type]
    with pytest.raises(BrokenPipeError):
        printer.one(None)
    assert stopped.sizes == [100_001]


def test_jq_input_finds_no_more_inputs_in_jqs_words() -> None:
    from tokensales_tui.script.output import OutputError

    with pytest.raises(OutputError, match=r"^--jq: No more inputs$"):
        Printer("json", jq="input", stream=io.BytesIO()).one({"a": 1})
    out = io.BytesIO()
    Printer("json", jq="try input catch ., [inputs], first(inputs)?", stream=out).one([1])
    assert out.getvalue() == b"No more inputs\n[]\n"


def test_a_field_no_row_has_a_value_for_is_warned_of_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `--fields nope` printed a column of nulls without a word.
    rows = [{"id": "a", "url": "u"}, {"id": "b", "url": None, "late": 1}]
    assert _printed("csv", rows, fields=("id", "nope", "late")) == ["id,nope,late", "a,,", "b,,1"]
    assert capsys.readouterr().err == (
        "tokensales-tui: warning: --fields: no row has a value for nope (check the name)\n"
    )
    out = io.BytesIO()
    Printer("json", stream=out, fields=("id", "nope")).one({"id": "a"})
    assert "no row has a value for nope" in capsys.readouterr().err
    assert _printed("csv", [], fields=("id", "nope")) == ["id,nope"]  # no row: nothing to say
    assert _printed("jsonl", rows, fields=("id",)) == ['{"id":"a"}', '{"id":"b"}']
    assert capsys.readouterr().err == ""


def test_columns_a_command_chose_itself_are_never_warned_of(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `profiles` warned "--fields: no row has a value for label" when no profile had a
    # label: its own columns were taken for ones the user had typed.
    for fmt in ("table", "csv", "json"):
        out = io.BytesIO()
        printer = Printer(fmt, columns=("name", "label"), stream=out)
        printer.rows([{"name": "emu", "label": None}])
        printer.end()
        assert b"emu" in out.getvalue()
        Printer(fmt, columns=("name", "label"), stream=io.BytesIO()).one({"name": "emu"})
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "program", [".[0] | debug | .id", "map(.id | stderr) | length", 'debug("x") | length']
)
def test_a_jq_program_using_debug_or_stderr_is_told_they_write_nothing(
    program: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # jq writes them to stderr; the jq library gives them none, and nothing was said.
    assert _printed("json", [{"id": "a"}], jq=program) != []
    assert "debug and stderr write nothing here" in capsys.readouterr().err


@pytest.mark.parametrize("program", [".[0].id", "def debug: 1; debug", '"debug" | length'])
def test_a_jq_program_without_jqs_debug_hears_nothing_of_it(
    program: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _printed("json", [{"id": "a"}], jq=program)
    assert capsys.readouterr().err == ""


NUMBERS = (
    b'{"id":"a","x":1.10,"y":1.7e308,"z":3.27e2,"w":1e400,'
    b'"n":{"p":1.50,"q":[2.50]},"l":[1.0,{"r":0.10}]}'
)


def test_csv_a_table_and_fields_print_numbers_as_the_server_wrote_them() -> None:
    # CSV printed Python's repr (1.7e+308, 327.0, 1.1), unlike the text the server sent.
    import msgspec

    row = msgspec.Raw(NUMBERS)
    csv_lines = _printed("csv", [row], kind="assets")
    assert (
        csv_lines[1]
        == 'a,1.10,1.7e308,3.27e2,1e400,"{""p"":1.50,""q"":[2.50]}","[1.0,{""r"":0.10}]"'
    )
    table = _printed("table", [row], kind="assets")
    assert table[1].split()[:5] == ["a", "1.10", "1.7e308", "3.27e2", "1e400"]
    assert '{"p":1.50,"q":[2.50]}' in table[1] and '{"r":0.10}' in table[1]
    assert _printed("jsonl", [row], fields=("x", "n")) == ['{"x":1.10,"n":{"p":1.50,"q":[2.50]}}']
    out = io.BytesIO()
    Printer("table", stream=out).one(row)
    record = [line.split() for line in out.getvalue().decode().splitlines()[1:4]]
    assert record == [["x", "1.10"], ["y", "1.7e308"], ["z", "3.27e2"]]


SEQUENCES = {
    "a ZWJ emoji": "👩\u200d💻",
    "a family": "👨\u200d👩\u200d👧\u200d👦",
    "a skin tone": "👍🏽",
    "a combining accent": "e\u0301",
    "a flag": "🇫🇷",
    "an emoji with VS16": "❤\ufe0f",
}


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_a_table_cell_cut_to_its_width_keeps_a_sequence_whole_or_leaves_it_out(name: str) -> None:
    # A cell cut at 48 characters kept "👩" of "👩‍💻", "🇫" of "🇫🇷", an "e" without its
    # accent: half of what the terminal draws as one character.
    from tokensales_tui.clean import cell_text_in, cell_width, settle_width
    from tokensales_tui.script.output import CELL_WIDTH

    sequence = SEQUENCES[name]
    for lead in range(CELL_WIDTH - len(sequence) - 3, CELL_WIDTH):
        text = "x" * lead + sequence + "yyyy"
        shown = "x" * lead + settle_width(sequence) + "yyyy"
        (cell,) = [line.split("  ")[0] for line in _printed("table", [{"id": text}])[1:]]
        if cell == shown:  # it fits
            assert cell_width(shown) <= CELL_WIDTH
            continue
        assert cell.endswith("…")
        kept = cell[: -len("…")]
        assert shown.startswith(kept)
        assert kept == "x" * lead or kept.startswith("x" * lead + settle_width(sequence))
        assert cell == cell_text_in(text, CELL_WIDTH)


WIDE = {
    "Japanese": "東京都渋谷区のトークン販売サービス用の長い説明文がここに続きます。まだ続きます。さらに続きます。",
    "emoji": "🎉" * 40,
    "ZWJ emoji": "👩\u200d💻" * 30,
    "mixed": "Token 限定版 🎨 アート NFT — édition spéciale 東京 " * 3,
}


def _ends_at(line: str, text: str) -> int:
    """The cell (as a terminal counts, Rich's measure) where ``text`` starts in ``line``."""
    from rich.cells import cell_len

    return cell_len(line[: line.index(text)])


@pytest.mark.parametrize("name", list(WIDE))
def test_a_table_cell_of_wide_text_is_cut_to_the_column_width_in_cells(name: str) -> None:
    # Cut at 48 characters, a column of Japanese or emoji took 96 cells: the table ran
    # past the terminal, and wrapped rows broke every column after it.
    from rich.cells import cell_len

    from tokensales_tui.clean import settle_width
    from tokensales_tui.script.output import CELL_WIDTH

    text = WIDE[name]
    rows = [
        {"id": "c1", "name": text, "blockchain": "ethereum"},
        {"id": "c2", "name": "plain", "blockchain": "polygon"},
        {"id": "c3", "name": text[:7], "blockchain": "solana"},
    ]
    lines = _printed("table", rows, kind="collections")
    cell = lines[1].split("  ")[1]
    assert cell.endswith("…")
    # As wide as it holds whole characters as drawn (a settled "👩⸱💻" takes 5 cells).
    assert CELL_WIDTH - 5 <= cell_len(cell) <= CELL_WIDTH, (cell, cell_len(cell))
    assert settle_width(text).startswith(cell[: -len("…")])  # a whole sequence, or none
    # The columns after it line up, as a terminal counts the cells.
    starts = {
        _ends_at(line, chain)
        for line, chain in zip(lines[1:], ("ethereum", "polygon", "solana"), strict=True)
    }
    assert starts == {_ends_at(lines[0], "BLOCKCHAIN")}, lines


def test_one_objects_keys_of_wide_text_are_cut_in_cells_and_their_values_line_up() -> None:
    from rich.cells import cell_len

    from tokensales_tui.script.output import CELL_WIDTH

    out = io.BytesIO()
    Printer("table", stream=out).one({WIDE["Japanese"]: "a", "id": "b", "名前": "c"})
    lines = out.getvalue().decode().splitlines()
    assert cell_len(lines[0].split("  ")[0]) <= CELL_WIDTH
    assert len({cell_len(line) - 1 for line in lines}) == 1, lines  # each value at one cell


def test_the_profiles_table_lines_up_labels_of_wide_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `profiles`: its table is the commands' table.
    import argparse
    import os
    from pathlib import Path

    from rich.cells import cell_len

    from tokensales_tui.script.output import CELL_WIDTH
    from tokensales_tui.script.reads import profiles_without_session

    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[profiles.tokyo]\nbase_url = "https://a.example"\nlabel = "{WIDE["Japanese"]}"\n'
        '[profiles.paris]\nbase_url = "https://b.example"\nlabel = "Paris"\n'
    )
    config.chmod(0o600)
    profiles_without_session(argparse.Namespace(output="table"))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["NAME", "tokyo", "paris"]
    label = lines[1].index("東")
    assert cell_len(lines[1][label:]) <= CELL_WIDTH, lines
    refs = ("BASEURL", "https", "https")
    assert len({_ends_at(line, ref) for line, ref in zip(lines, refs, strict=True)}) == 1
    assert (
        len(
            {_ends_at(line, ref) for line, ref in zip(lines, ("LABEL", "東", "Paris"), strict=True)}
        )
        == 1
    )
