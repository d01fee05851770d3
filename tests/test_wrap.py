"""Wrapped JSON continues under its key; an address breaks after a sign, where it can."""

from __future__ import annotations

from textual.app import App

from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.wrap import hanging_wrap, wrapped_rows

from .test_detail_screen import screen_lines

URL = "https://cdn.tokensales-demo.io/items/skyline-concert-vip-access.png"


def rows(line: str, width: int) -> list[str]:
    offsets, hang = hanging_wrap(line, width)
    starts = [0, *offsets]
    pieces = [line[a:b] for a, b in zip(starts, [*offsets, len(line)], strict=True)]
    return [pieces[0], *(" " * hang + piece for piece in pieces[1:])]


def test_a_value_moved_to_the_next_row_stays_under_its_key() -> None:
    # It began at column 1: `"imageUrl":` alone, then the address against the edge.
    assert rows(f'  "imageUrl": "{URL}",', 78) == ['  "imageUrl": ', f'    "{URL}",']


def test_a_value_no_row_holds_breaks_after_a_sign_and_keeps_the_indent() -> None:
    wrapped = rows(f'  "imageUrl": "{URL}",', 40)
    assert wrapped[0] == '  "imageUrl": "https://cdn.tokensales-'
    assert all(row.startswith("    ") and len(row) <= 40 for row in wrapped[1:])
    assert "".join(row.strip() for row in wrapped).replace(" ", "") == f'"imageUrl":"{URL}",'


def test_text_wraps_at_spaces_and_wide_characters_count_as_two() -> None:
    assert rows('  "d": "one two three four"', 16) == ['  "d": "one two ', '    three four"']
    line = '  "n": "' + "日本語" * 10 + '"'
    assert all(len(row.encode("utf-16-le")) // 2 <= 40 for row in rows(line, 40))
    assert hanging_wrap("short", 40) == ([], 0)


def test_a_summary_value_breaks_an_address_after_a_slash_or_dash() -> None:
    assert wrapped_rows(URL, 58) == [
        "https://cdn.tokensales-demo.io/items/skyline-concert-vip-",
        "access.png",
    ]


async def test_the_detail_view_at_80_columns_keeps_keys_and_addresses_readable() -> None:
    raw = {"id": "itm_1", "imageUrl": URL, "note": "x " * 50}
    app = App[None]()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(DetailScreen("Item", [("Image", URL)], raw, object_id="itm_1"))
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert f'    "{URL}"' in text  # under its key, not at column 1
        assert "skyline-concert-vip-a\n" not in text


def test_a_text_cut_to_a_width_keeps_each_character_as_drawn_whole() -> None:
    # The tables cut a cell by code point and cell: "👩⸱💻" (a ZWJ sequence as the table
    # shows it) in 4 cells kept "👩⸱", a flag in 1 cell half of it.
    from rich.cells import cell_len

    from tokensales_tui.clean import settle_width
    from tokensales_tui.ui.table.lines import centred, fit
    from tokensales_tui.ui.widgets.delivery_list import fit as fit_delivery
    from tokensales_tui.ui.wrap import cut_to_cells

    coder = settle_width("👩\u200d💻")
    assert coder == "👩⸱💻"
    assert cut_to_cells(f"ab{coder}cd", 6) == "ab    "
    assert cut_to_cells(f"ab{coder}cd", 7) == f"ab{coder}"
    assert cut_to_cells("ab🇫🇷🇩🇪", 5) == "ab🇫🇷 "
    assert cut_to_cells("abe\u0301cd", 3) == "abe\u0301"
    assert cut_to_cells("ab👍⸱cd", 4) == "ab  "
    assert cut_to_cells("日本語", 5) == "日本 "
    for width in range(1, 9):
        for text in (f"ab{coder}cd", "ab🇫🇷🇩🇪", "ab👍⸱cd"):
            for line in (fit(text, width, False), fit_delivery(text, width)):
                assert cell_len(line) == width
                assert coder not in text or coder in line or "👩" not in line, line
                assert "⸱" not in line or "👍⸱" in line or coder in line, line
            assert "💻" not in centred("x" + coder, width, None, None).text or width >= 6  # type: ignore[arg-type]


def test_every_text_cut_to_a_length_or_a_width_is_cut_in_one_place() -> None:
    # The cuts by code point left half a grapheme; each cut now goes through
    # clean.shorten / clean.grapheme_cut or ui/wrap.cut_to_cells.
    import inspect
    import re
    from pathlib import Path

    import tokensales_tui

    root = Path(inspect.getfile(tokensales_tui)).parent
    cut = re.compile(r"\[:[^\]]*-\s*1\]\s*\+\s*(ELLIPSIS|\"…\")|set_cell_size\(")
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in root.rglob("*.py")
        if path.relative_to(root).as_posix() not in ("ui/wrap.py", "clean.py")
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if cut.search(text) and "ASCII: each character is a cell" not in text
    ]
    assert found == []
