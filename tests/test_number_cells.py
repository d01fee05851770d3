"""Numbers and dates in cells show what the server sent: never a digit it did not send
(a float's made-up digits past its precision), never a number cut from the right so
that it reads as another (``1,000,000,000`` as ``1,000…``), never ``inf``; alignment
never makes a whole cell look cut; text in a date column that is no date is shown,
exported and filtered whole."""

from __future__ import annotations

import csv
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.cells import cell_len

from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.models import Asset, Item, Webhook
from tokensales_tui.emulator import create_app
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.export import export_rows
from tokensales_tui.ui.resources import ASSETS, ITEMS, WEBHOOKS, format_price, short_date
from tokensales_tui.ui.table.cells import column_ceiling, column_cells
from tokensales_tui.ui.table.lines import fit
from tokensales_tui.ui.table.model import TableView, prepare_rows
from tokensales_tui.ui.table.numbers import ROUNDED, fit_number

from .apphelpers import Rigged, emulator_env, loaded, screen_text, wait_for, wait_for_screen

LONG = "123456789012345678901234567890.123456789012345678901234567890"
"""A price of more digits than a float holds."""


def items(*prices: str, currency: str = "USD") -> list[Any]:
    body = ",".join(
        f'{{"id": "itm_{n}", "title": "t{n}", "currency": "{currency}", "price": {price}}}'
        for n, price in enumerate(prices)
    )
    return list(ListParser(Item, "items", 200, "")(f"[{body}]".encode()))


def price_cells(rows: list[Any]) -> list[str]:
    column = next(c for c in ITEMS.columns(rows) if c.key == "price")
    return [column.get(row) for row in rows]  # type: ignore[misc]


# --- no digit that was not sent ----------------------------------------------------------


def test_a_price_a_float_cannot_hold_is_written_from_the_text_sent() -> None:
    rows = items(LONG, "98765432.12345678", "12.5")
    shown = [
        "123,456,789,012,345,678,901,234,567,890.12345679 USD",
        "98,765,432.12345678 USD",
        "12.50 USD",
    ]
    assert price_cells(rows) == shown
    # the detail view's Price field too
    assert [dict(ITEMS.key_fields(row))["Price"] for row in rows] == shown


def test_a_price_a_float_cannot_hold_without_its_text_is_marked_rounded() -> None:
    # A row of no server (its text unknown): what the float knows, said to be rounded.
    assert format_price(float(LONG), "USD") == "≈1.23456789012346e29 USD"
    assert format_price(float("inf"), "USD") == ">1.7e308 USD"
    assert format_price(98765432.12345678, "USD") == "≈98,765,432.1234568 USD"
    # a float that holds the number sent is written so, as before
    assert format_price(1e22, "USD") == "10,000,000,000,000,000,000,000.00 USD"
    assert format_price(10000000.299999999, "USD") == "10,000,000.30 USD"


def test_prices_beyond_a_float_still_sort_as_numbers() -> None:
    rows = items("1e308", "5", LONG, "-1e300", "2")
    view = TableView(len)
    view.load(prepare_rows(ITEMS.columns(rows), rows, width=len))
    view.sort_by("price")
    assert [view.rows[p].id for p in view.view] == ["itm_3", "itm_4", "itm_1", "itm_2", "itm_0"]


def assets(*decimals: str) -> list[Any]:
    body = ",".join(
        f'{{"id": "ast_{n}", "name": "a{n}", "decimals": {d}}}' for n, d in enumerate(decimals)
    )
    return list(ListParser(Asset, "assets", 200, "")(f"[{body}]".encode()))


def test_an_asset_number_a_float_cannot_stand_for_is_shown_as_written() -> None:
    rows = assets("1E+999", "1e308", LONG, "-0", "18", "0.5", "9223372036854775808")
    columns = ASSETS.columns(rows)
    column = next(c for c in columns if c.key == "decimals")
    cells = column_cells(column, rows, width=cell_len)[0]
    assert cells == ["1E+999", "1e308", LONG, "0", "18", "0.5", "9223372036854775808"]
    view = TableView(len)
    view.load(prepare_rows(columns, rows, width=len))
    view.sort_by("decimals")
    assert [view.rows[p].id for p in view.view] == [
        "ast_3",
        "ast_5",
        "ast_4",
        "ast_6",
        "ast_2",
        "ast_1",
        "ast_0",
    ]


# --- never cut from the right ------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "width", "shown"),
    [
        ("1e308 USD", 6, "1e308…"),
        ("1e308 USD", 9, "1e308 USD"),
        ("9,223,372,036,854,775,808.00 USD", 24, "≈9.22337203685478e18 USD"),
        ("100,000,000.00 USD", 10, "   1e8 USD"),
        ("1,234,567.89 EUR", 9, " ≈1e6 EUR"),  # the currency kept first
        ("1.2345678901234568e+29", 12, "≈1.234568e29"),
        ("-1,000,000.00 USD", 7, "  -1e6…"),
        ("1,234.00 USD", 4, "≈1k…"),  # no scientific form fits: the short scale
        ("1,234.00 USD", 3, "  …"),
    ],
)
def test_a_number_too_wide_keeps_its_magnitude(cell: str, width: int, shown: str) -> None:
    assert fit(cell, width, right=True) == shown


@pytest.mark.parametrize(
    ("cell", "width", "shown"),
    [
        ("123.45 USD", 9, "123.45 U…"),  # what is cut is past the point
        ("1,234,567.89 EUR", 12, "1,234,567.8…"),
        ("5.00 USD", 3, "5.…"),
        ("Price▲", 3, "Pr…"),  # no number
    ],
)
def test_a_cut_that_keeps_the_magnitude_is_a_cut(cell: str, width: int, shown: str) -> None:
    assert fit(cell, width, right=True) == shown


SHOWN = re.compile(r"(≈?)(-?[\d,]+(?:\.\d*)?)(?:e(-?\d+)|([kMBT]))?")
SCALE = {"k": "3", "M": "6", "B": "9", "T": "12"}


@pytest.mark.parametrize("width", range(3, 32))
def test_no_number_is_ever_shown_as_another(width: int) -> None:
    """Whatever the width, a number cell shows the number's integer part whole (cut
    past it), or a scientific form of it, marked where rounded; or only "…"."""
    for number in (
        Decimal(LONG),
        Decimal("1e308"),
        Decimal(2**63),
        Decimal("-1234567.5"),
        Decimal("999999.5"),
        Decimal("123456789012"),
    ):
        cell = f"{number:,f} USD"
        shown = fit(cell, width, right=True).strip()
        if shown == "…":
            continue
        found = SHOWN.match(shown)
        assert found is not None, shown
        mark, digits, exponent, scale = found.groups()
        exponent = SCALE[scale] if scale else exponent
        if exponent is None:  # as written, cut past its integer part only
            assert cell.startswith(shown.rstrip("…")), shown
            assert found.end() < len(shown) and shown[found.end(2) - 1] != ",", shown
            assert "." in digits or shown[found.end()] == " ", shown
            continue
        value = Decimal(digits.replace(",", "") + "e" + exponent)
        places = len(value.as_tuple().digits)
        assert abs(value - number) <= Decimal(10) ** (value.adjusted() - places + 1) / 2, shown
        assert bool(mark) == (value != number), shown


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("1,234,567", ["≈1M", "≈1e6", "≈1e6", "≈1.2e6"]),
        ("-1,234,567", ["…", "≈-1M", "≈-1e6", "≈-1e6"]),
        ("999,999,999", ["≈1B", "≈1e9", "≈1e9", "≈1e9"]),
        ("45,000,000,000,000 USD", ["…", "45T…", "45T…", "≈4e13…"]),
        ("2,000 USD", ["2k…", "2e3…", "2e3…", "2e3…"]),
    ],
)
def test_a_number_in_a_cell_three_to_six_wide_keeps_its_magnitude(
    cell: str, shown: list[str]
) -> None:
    # Three or four cells held no scientific form (≈1e6 is four, ≈-1e6 five): the cell
    # showed "…" alone where a thousand and a trillion look alike.
    assert [fit(cell, width, right=True).strip() for width in range(3, 7)] == shown


def test_fit_number_leaves_what_is_no_number_to_be_cut() -> None:
    assert fit_number("not a number", 4) is None
    assert fit_number("12ab", 3) is None
    assert ROUNDED == "≈"


# --- alignment never looks cut -----------------------------------------------------------


@pytest.mark.parametrize(
    "long_currency", ["日本語のタイトル漢字", "日本語のタイトル漢字テスト全角文字列"]
)
def test_one_long_currency_never_makes_the_other_prices_look_cut(long_currency: str) -> None:
    rows = items("1", "2.5", "1234.5") + items("3", currency=long_currency)
    column = next(c for c in ITEMS.columns(rows) if c.key == "price")
    cells = column_cells(column, rows, width=cell_len)[0]
    ceiling = column_ceiling(column)
    # the prices that fit the column fit padded: their points in line
    assert all(cell_len(cell) <= ceiling for cell in cells[:3]), cells
    assert len({len(cell) - cell.index(".") for cell in cells[:3]}) == 1
    # Measured over the whole list (its index) and over a sample (rows shown at once,
    # before they are indexed), in terminal cells as the table measures: the same
    # column either way, or it jumps once indexing ends.
    indexed = TableView(cell_len)
    indexed.load(prepare_rows([column], rows, width=cell_len))
    sampled = TableView(cell_len)
    sampled.show([column], rows)
    assert (sampled.natural, sampled.tails) == (indexed.natural, indexed.tails)
    assert [sampled.cells_of(row) for row in rows] == [indexed.cells_of(row) for row in rows]
    for view in (indexed, sampled):
        assert view.natural[0] == cell_len("1,234.50 USD")  # no blanks past the prices
        for row in rows[:3]:
            cell = view.cells_of(row)[0]
            for width in range(len(cell.rstrip()), view.natural[0] + 1):
                shown = fit(cell, width, right=True)
                assert "…" not in shown, (shown, width)


def test_decimal_points_line_up_in_terminal_cells_past_wide_characters() -> None:
    # A currency of wide characters takes two cells each: padded by characters, its
    # point stood one cell left of the others'.
    rows = items("1.5", currency="円") + items("12.25", "3")
    column = next(c for c in ITEMS.columns(rows) if c.key == "price")
    indexed = TableView(cell_len)
    indexed.load(prepare_rows([column], rows, width=cell_len))
    sampled = TableView(cell_len)
    sampled.show([column], rows)
    for cells in (
        column_cells(column, rows, width=cell_len)[0],
        [indexed.cells_of(row)[0] for row in rows],
        [sampled.cells_of(row)[0] for row in rows],
    ):
        assert cells[0].startswith("1.50 円"), cells
        assert len({cell_len(cell[cell.index(".") :]) for cell in cells}) == 1, cells


def test_padding_that_does_not_fit_is_given_up_before_anything_is_cut() -> None:
    assert fit("1.00 EUR" + " " * 15, 20, right=True) == "1.00 EUR" + " " * 12
    assert fit("1.00 EUR" + " " * 15, 8, right=True) == "1.00 EUR"


# --- dates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("2025-01-01T00:00:00Z", "2025-01-01"),
        ("9999-12-31T23:59:59.999999999+14:00", "9999-12-31"),
        ("2025-01-01", "2025-01-01"),
        ("not a date 日本", "not a date 日本"),
        ("2025-13-45T00:00:00Z", "2025-13-45T00:00:00Z"),
        ("2025-01-01Tgarbage", "2025-01-01Tgarbage"),
        ("Z̷̢̛̛̛a̵̡̛l̶̢̛g̷̛̛o̸̧̢ c̈̈̈̈̈̈ombining", "Z̷̢̛̛̛a̵̡̛l̶̢̛g̷̛̛o̸̧̢ c̈̈̈̈̈̈ombining"),
        (None, ""),
    ],
)
def test_only_a_timestamp_is_shortened_to_its_date(value: str | None, shown: str) -> None:
    assert short_date(value) == shown


def webhooks(*dates: str) -> list[Any]:
    body = ",".join(
        f'{{"id": "wh_{n}", "url": "https://h.example/{n}", "events": [], '
        f'"createdAt": "{d}", "lastUpdatedAt": "{d}"}}'
        for n, d in enumerate(dates)
    )
    return list(ListParser(Webhook, "webhooks", 200, "")(f"[{body}]".encode()))


def test_a_date_column_filters_and_exports_text_that_is_no_date_whole(tmp_path: Path) -> None:
    rows = webhooks("2025-01-01T00:00:00Z", "not a date 日本")
    columns = WEBHOOKS.columns(rows)
    view = TableView(len)
    view.load(prepare_rows(columns, rows, width=len))
    view.set_filter("created:日本")
    assert [view.rows[p].id for p in view.view] == ["wh_1"]
    target = tmp_path / "hooks.csv"
    export_rows(target, "csv", columns, rows, WEBHOOKS.raw)
    with target.open(encoding="utf-8") as handle:
        exported = list(csv.DictReader(handle))
    assert [row["Created"] for row in exported] == ["2025-01-01", "not a date 日本"]


# --- in the app --------------------------------------------------------------------------


PRICES = [LONG, "1e308", "9223372036854775808", "1.00", "2.50"]


class Serving(Rigged):
    """The emulator, its items list these prices, one with a long currency."""

    def __init__(self) -> None:
        super().__init__(create_app(seed=0))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/v1/items":
            body = ",".join(
                f'{{"id": "itm_{n}", "title": "t{n}", "currency": "USD", "price": {p}}}'
                for n, p in enumerate(PRICES)
            )
            body += ',{"id": "itm_9", "title": "t9", "currency": "日本語のタイトル漢字テスト", "price": 3}'
            return httpx.Response(
                200, content=f"[{body}]".encode(), headers={"content-type": "application/json"}
            )
        return await super().handle_async_request(request)


@pytest.mark.parametrize("size", [(120, 40), (60, 20)])
async def test_the_items_tab_shows_each_price_with_its_magnitude(size: tuple[int, int]) -> None:
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: Serving()))
    async with app.run_test(size=size) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        await wait_for(lambda: "t4" in screen_text(app), pilot)
        text = screen_text(app)
        assert "680,000" not in text and "e+29" not in text  # no digit not sent
        assert not re.search(r"\d,\d{0,2}…", text), text  # no number cut mid-integer
        assert not re.search(r"\.\d\d USD *…", text), text  # no padding cut
        if size[0] == 120:
            assert "≈1.23456789012346e29 USD" in text and "1e308 USD" in text
            assert "≈9.22337203685478e18 USD" in text
            await pilot.press("enter")  # the detail view: the price as sent, in full
            await wait_for_screen(app, pilot, "DetailScreen")
            await wait_for(lambda: "567,890.12345679 USD" in screen_text(app), pilot)
            assert "123,456,789,012,345,678,901,234,567,890.12345679 USD" in screen_text(app)
        else:
            assert "≈1.2346e29 USD" in text and "≈9.2234e18 USD" in text
