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
