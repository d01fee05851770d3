"""A terminal a few columns wide: every screen is drawn, none ends the app."""

from __future__ import annotations

import pytest
from textual.content import Content

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.narrow import wrap_in_a_cell_at_least
from tokensales_tui.ui.widgets.safe_input import SafeInput, fit_words

from .apphelpers import loaded, screen_text, wait_for


@pytest.mark.parametrize("no_wrap", [False, True])
def test_text_is_wrapped_to_one_cell_at_least(no_wrap: bool) -> None:
    # Rich's divide_line failed on a width of 0: "range() arg 3 must not be zero".
    wrap_in_a_cell_at_least()
    text = Content("Switch profile")
    assert text._wrap_and_format(0, no_wrap=no_wrap)
    assert text._wrap_and_format(-3, line_pad=1, no_wrap=no_wrap)
    assert text.get_height({}, 0) >= 1
    assert [line.plain for line in text.wrap(20)] == ["Switch profile"]


@pytest.mark.parametrize(
    ("key", "screen", "narrow"),
    [
        ("ctrl+p", "SafePalette", 6),
        ("p", "ProfileScreen", 7),
        ("p", "ProfileScreen", 3),
    ],
)
async def test_the_palette_and_the_profile_picker_survive_a_narrow_terminal(
    key: str, screen: str, narrow: int
) -> None:
    # Their OptionList wrapped its options to its width less their padding, 0 here:
    # the app ended with a ValueError (exit 1).
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press(key)
        await wait_for(lambda: type(app.screen).__name__ == screen, pilot)
        await pilot.resize_terminal(narrow, 24)
        await pilot.pause(0.2)
        assert app.is_running and type(app.screen).__name__ == screen
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None
        if screen == "ProfileScreen":
            assert "demo" in screen_text(app)


async def test_the_palette_opened_in_a_terminal_six_columns_wide() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(6, 24)) as pilot:
        await pilot.pause(0.5)
        await pilot.press("ctrl+p")
        await wait_for(lambda: type(app.screen).__name__ == "SafePalette", pilot)
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None


def test_a_hint_is_cut_after_a_whole_word() -> None:
    hint = 'Filter (/): word !word column:word "a phrase"'
    assert fit_words(hint, 60) == hint
    assert fit_words(hint, 40) == "Filter (/): word !word column:word…"
    assert fit_words(hint, 35) == "Filter (/): word !word column:word…"
    assert fit_words(hint, 34) == "Filter (/): word !word…"
    assert fit_words("e.g. its asset id, or its address", 20) == "e.g. its asset id…"
    assert fit_words("日本語の説明 です", 9) == "日本語の…"  # one word wider than the line
    assert fit_words("anything", 0) == ""


async def test_the_filter_hint_beside_marks_and_a_sort_at_80_columns() -> None:
    # 'Filter (/): word !word column:word "a' : cut mid-phrase, with nothing to say so.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("space", "space", "s", "s")
        await pilot.pause()
        tab = app.active_tab
        field = tab.query_one(SafeInput)
        assert "2 marked" in screen_text(app)
        drawn = field.render_line(0).text.rstrip()
        assert drawn.endswith("…") and drawn != field.placeholder
        words = drawn.removesuffix("…").split()
        assert words == field.placeholder.split()[: len(words)]


@pytest.mark.parametrize("columns", [60, 50])
async def test_every_tab_fits_its_columns_at_60_and_50_columns(columns: int) -> None:
    # Below 71 columns the Webhooks tab's URL stayed 20 wide and Events 4, and the dates
    # went off the right edge: at 60 columns Updated was not on screen at all.
    from tokensales_tui.ui.resources import RESOURCES
    from tokensales_tui.ui.table.cells import NARROWEST

    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(columns, 20)) as pilot:
        await loaded(app, pilot)
        for resource in RESOURCES:
            app.browse.action_show_tab(resource.key)
            table = app.browse.active_tab.table
            await wait_for(lambda t=table: t.size.width > 0 and t._fitted_to == t.size.width, pilot)
            await pilot.pause()
            assert table.virtual_size.width <= table.size.width, resource.key  # no scrolling
            header = screen_text(app).splitlines()[table.region.y]
            last = table.columns[-1].label
            assert last[: NARROWEST - 1] in header.rstrip()[-len(last) - 1 :], (
                resource.key,
                header,
            )
