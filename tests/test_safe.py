"""Server text is data: never markup, never terminal escapes."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tokensales_tui.clean import (
    clean,
    clean_line,
    display_value,
    is_clean,
    settle_width,
    visible,
)
from tokensales_tui.ui.safe import clamped, content, line, plain, show, text

MARKUP = [
    "[@click=app.quit]x[/]",
    "a [/] b",
    "[b]bold[/b]",
    "[link=https://x]y[/link]",
    "[on red]$accent[/]",
]

ESCAPES = [
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b[31m",
    "\x9b31m",  # one-byte C1 CSI
    "\u202e",  # right-to-left override
    "\x00",
    "\ud800",  # lone surrogate
    "\x7f",
    "\u2066isolated\u2069",
]

FORBIDDEN = (
    {chr(code) for code in range(0x20)} - {"\n", "\t"}
    | {chr(code) for code in range(0x7F, 0xA0)}
    | {chr(code) for code in range(0x202A, 0x202F)}
    | {chr(code) for code in range(0x2066, 0x206A)}
)


def _forbidden(value: str) -> set[str]:
    return {char for char in value if char in FORBIDDEN or 0xD800 <= ord(char) <= 0xDFFF}


@pytest.mark.parametrize("value", MARKUP)
def test_text_is_literal(value: str) -> None:
    rendered = text(value, "bold")
    assert isinstance(rendered, Text)
    assert rendered.plain == value
    assert rendered.spans == []
    assert str(rendered.style) == "bold"


@pytest.mark.parametrize("value", MARKUP)
def test_content_is_literal(value: str) -> None:
    for rendered in (content(value), content(value, "bold")):
        assert isinstance(rendered, Content)
        assert rendered.plain == value
        for span in rendered.spans:  # at most the one style asked for, over everything
            assert (span.start, span.end, span.style) == (0, len(value), "bold")
        segments = list(rendered.render_segments())
        assert all(not (segment.style and segment.style.meta) for segment in segments)


class StaticApp(App[None]):
    def compose(self) -> ComposeResult:
        for value in MARKUP:
            yield Static(content(value))


async def test_markup_in_a_static_is_shown_and_inert() -> None:
    app = StaticApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        for value, static in zip(MARKUP, app.query(Static), strict=True):
            assert static.visual.plain == value  # type: ignore[union-attr]
            await pilot.click(static, offset=(1, 0))
        await pilot.pause()
        assert app.is_running
        assert app.return_code is None


@pytest.mark.parametrize("value", ESCAPES)
def test_escapes_are_replaced(value: str) -> None:
    for cleaned in (clean(value), clean_line(value), text(value).plain, content(value).plain):
        assert not _forbidden(cleaned)
        assert cleaned  # replaced by a visible marker, not dropped


def test_markers() -> None:
    assert clean("\x1b[31m") == "␛[31m"
    assert clean("\x00\x07\x7f") == "␀␇␡"
    assert clean("\x9b31m") == "\ufffd31m"
    assert clean("a\u202eb") == "a\ufffdb"
    assert clean("\ud800") == "\ufffd"
    assert clean("line\n\tindented") == "line\n\tindented"


def test_clean_returns_clean_text_unchanged() -> None:
    value = "plain text, ünïcödé, 中文 ✨"
    assert clean(value) is value
    assert clean_line(value) is value
    assert is_clean(value) and is_clean(value, line=True)
    assert is_clean("a\nb") and not is_clean("a\nb", line=True)
    assert not is_clean("\x1b")


def test_clean_line_keeps_one_line() -> None:
    assert clean_line("a\r\nb\tc\nd\re") == "a↵b c↵d↵e"
    assert clean_line("\x1b[2J") == "␛[2J"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ""),
        (True, "yes"),
        (False, "no"),
        (3, "3"),
        (3.0, "3"),
        (2.5, "2.5"),
        (-0.1, "-0.1"),
        (10**20, "100000000000000000000"),
        (1e20, "1e+20"),
        ("text", "text"),
        (["a", 1, True], "a, 1, yes"),
        ([{"k": 1}], '{"k":1}'),
        ({"a": 1, "b": [1, 2], "c": "ü"}, '{"a":1,"b":[1,2],"c":"ü"}'),
        (msgspec.UNSET, ""),
        ("two\nlines", "two↵lines"),
        ("\x1b[31mred", "␛[31mred"),
    ],
)
def test_display_value(value: object, expected: str) -> None:
    assert display_value(value) == expected


def test_display_value_struct_is_json() -> None:
    class Point(msgspec.Struct):
        x: int
        y: int

    assert display_value(Point(1, 2)) == '{"x":1,"y":2}'


def test_display_value_truncates() -> None:
    assert display_value("abcdef", 4) == "abc…"
    assert display_value("abcd", 4) == "abcd"
    assert display_value(123456, 3) == "12…"
    long = display_value("x" * 100_000 + "\x1b", 200)
    assert len(long) == 200 and long.endswith("…")
    assert display_value({"k": "v" * 500}, 10) == '{"k":"vvv…'


@given(st.text(st.characters()))
def test_clean_never_lets_controls_through(value: str) -> None:
    cleaned = clean(value)
    assert not _forbidden(cleaned)
    assert len(cleaned) == len(value)  # one marker per character


DANGEROUS = st.sampled_from(["\x1b", "\x9b", "\x07", "\x00", "\r", "\n", "\t", "\u202e", "\ud800"])


@given(st.text(st.one_of(st.characters(), DANGEROUS)), st.integers(min_value=1, max_value=50))
def test_clean_line_and_display_value_are_single_safe_lines(value: str, limit: int) -> None:
    for cleaned in (clean_line(value), display_value(value), display_value(value, limit)):
        assert not _forbidden(cleaned)
        assert "\n" not in cleaned and "\t" not in cleaned
    assert len(display_value(value, limit)) <= limit


def test_settling_leaves_no_character_of_disputed_width_and_each_takes_its_cells() -> None:
    import unicodedata

    from rich.cells import cell_len

    from tokensales_tui.clean import escape_unsettled, settle_width, unsettled

    marks = [chr(c) for c in range(0x900, 0x20000) if unicodedata.category(chr(c)) == "Mc"]
    zero_width = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u3164", "\ufe0f"]
    # Every format character clean() leaves (LRM, the tags of emoji flags…), the line
    # and paragraph separators, the variation selectors beyond the BMP.
    formats = [
        chr(c)
        for c in (*range(0xA0, 0x20000), *range(0xE0000, 0xE0080))
        if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp") and clean(chr(c)) == chr(c)
    ]
    assert {"\u2028", "\u200e", "\U000e0067", "\U000e007f"} <= set(formats)
    selectors = [chr(c) for c in range(0xE0100, 0xE01F0)]
    for char in marks + zero_width + formats + selectors:
        assert unsettled(char), hex(ord(char))
        shown = settle_width("a" + char + "b")
        assert settle_width(shown) == shown and char not in shown
        # Rich's count is the terminal's: ASCII escapes, or letters of one cell.
        assert cell_len(shown) == len(shown), hex(ord(char))
        assert json.loads(f'"{escape_unsettled(char)}"') == char
    assert settle_width("काम") == "कआम"  # a vowel sign reads as its vowel letter
    assert settle_width("\u0903") == "\\u0903"  # a mark with no letter: its escape
    assert settle_width("zero\u200bwidth") == "zero⸱width"
    plain = "plain — ünïcödé 日本 ✓ 😀 \U0001d11e"
    assert settle_width(plain) is plain and not unsettled(plain)


class LinesApp(App[None]):
    """A line that fills its width, one as wide as its text, and a block of lines."""

    def compose(self) -> ComposeResult:
        yield Static(content("status"), id="fill")
        yield Static(content("3 of 40"), id="auto")
        yield Static(content("one\ntwo"), id="block")
        yield Static(content("3 of 40"), id="least")
        with Vertical(id="box"):
            yield Static(content("inside"), id="inner")

    def on_mount(self) -> None:
        self.query_one("#auto").styles.width = "auto"
        least = self.query_one("#least").styles
        least.width, least.min_width, least.padding = "auto", 12, (0, 1)


@pytest.mark.parametrize(
    ("widget_id", "value", "layout"),
    [
        ("fill", "status", None),  # unchanged: not even a repaint
        ("fill", "a longer status, still on one line", False),
        ("fill", "[b]not markup[/b]", False),
        ("fill", "two\nlines", True),
        ("auto", "4 of 40", False),  # as wide as before
        ("auto", "40 of 40", True),
        ("block", "three\nfour", False),
        ("block", "one", True),
        ("least", "12 of 400", False),  # within the minimum width
        ("least", "1,000 of 4,000", True),
    ],
)
async def test_show_lays_the_screen_out_only_when_the_box_may_change(
    widget_id: str, value: str, layout: bool | None
) -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        widget = app.query_one(f"#{widget_id}", Static)
        repaint_before = widget._repaint_required
        layouts_before = widget._layout_updates
        assert not widget._layout_required
        show(widget, value)
        assert widget.visual.plain == value  # type: ignore[union-attr]
        assert widget._layout_required == bool(layout)  # a layout of the screen asked for
        if layout is None:
            assert widget._repaint_required == repaint_before
            assert widget._layout_updates == layouts_before
        await pilot.pause()
        assert app.screen.get_widget_at(*widget.region.offset)[0] is widget
        assert widget.size.height == value.count("\n") + 1
        if widget_id == "auto":
            assert widget.size.width == len(value)
        if widget_id == "least":
            assert widget.outer_size.width == max(12, len(value) + 2)


async def test_a_text_shown_without_a_layout_gets_its_box_at_a_size_seen_before() -> None:
    """Textual keeps a widget's box for each size around it: a text that took no layout
    where it fits must still take its lines once the terminal is narrow again."""
    long = "a status of some fifty cells, on one line at 60"
    app = LinesApp()
    async with app.run_test(size=(30, 12)) as pilot:
        await pilot.pause()
        widget = app.query_one("#fill", Static)
        await pilot.resize_terminal(60, 12)
        await pilot.pause()
        show(widget, long)
        await pilot.pause()
        assert widget.size.height == 1
        await pilot.resize_terminal(30, 12)
        await pilot.pause()
        assert widget.size.height == 2


async def test_a_text_shown_while_hidden_gets_its_box_once_shown() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        box, inner = app.query_one("#box"), app.query_one("#inner", Static)
        box.display = False
        await pilot.pause()
        layouts = inner._layout_updates
        show(inner, "one\ntwo\nthree")
        assert not inner._layout_required  # hidden: no layout of the screen for it
        assert inner._layout_updates > layouts  # but the box kept for it is forgotten
        box.display = True
        await pilot.pause()
        assert inner.size.height == 3


def test_long_words_are_cut_in_the_middle_and_the_rest_kept() -> None:
    from tokensales_tui.clean import cut_long_words

    url = "https://x.example/" + "a" * 500 + "/end"
    cut = cut_long_words(f"Deleted webhook {url} (already gone)")
    assert cut == f"Deleted webhook {url[:106]}…{url[-53:]} (already gone)"
    assert len(cut.split()[2]) == 160
    path = "/home/someone/" + "d/" * 69 + "file.svg"  # 160 characters: whole
    assert cut_long_words(f"Saved in {path}") == f"Saved in {path}"
    assert cut_long_words("word " * 100) == "word " * 100  # long, but in words


@pytest.mark.parametrize("width", [1, 7, 30, 58])
def test_clamped_text_takes_at_most_its_lines_at_any_width(width: int) -> None:
    from rich.console import Console

    from tokensales_tui.ui.safe import clamped

    console = Console(width=width, force_terminal=False)
    for value in ("https://x.example/" + "é" * 300, "a few words " * 60, "short"):
        lines = console.render_lines(clamped(value, 3), console.options, pad=False)
        shown = ["".join(segment.text for segment in line) for line in lines]
        shown = [line for line in shown if line]
        assert 1 <= len(shown) <= 3
        assert all(len(line) <= width for line in shown)
        if value != "short" and width > 1:
            assert shown[-1].endswith("…")
    wide = Console(width=40, force_terminal=False)
    drawn = "".join(s.text for s in wide.render(clamped("[b]x[/b] \x1b[31m", 2)))
    assert "[b]x[/b] ␛[31m" in drawn  # literal, cleaned


def test_skin_tones_take_the_cells_rich_counts_in_a_terminal() -> None:
    # Rich counts 👍🏽 as two cells, a wcwidth terminal four (the tone's swatch beside
    # the hand): whatever came after it on the line was drawn two cells further.
    from rich.cells import cell_len

    from tokensales_tui.clean import SKIN_TONES, settle_in_place, settle_width, unsettled

    from .terminal_width import terminal_width

    texts = ["👍🏽 thumbs tone", "👋🏿👋🏻 wave tones", *(f"a{chr(code)}b" for code in SKIN_TONES)]
    for value in texts:
        assert unsettled(value)
        assert cell_len(value) != terminal_width(value)
        shown = settle_width(value)
        assert cell_len(shown) == terminal_width(shown), value
        assert settle_in_place(value) == shown  # one character for each
    assert settle_width("👍🏽 thumbs tone") == "👍⸱ thumbs tone"
    plain = "🎮 🚀 👍 game"
    assert settle_width(plain) is plain and not unsettled(plain)


def test_text_being_edited_is_settled_one_character_for_each() -> None:
    from tokensales_tui.clean import settle_in_place

    for value in ("का\u0903", "zero\u200bwidth", "👋🏿x"):
        assert len(settle_in_place(value)) == len(value)
    assert settle_in_place("का\u0903") == "कआ⸱"


FORMAT_CHARACTERS = [
    chr(code)
    for code in (*range(0x00A0, 0x20000), *range(0xE0000, 0xE0080))
    if unicodedata.category(chr(code)) == "Cf"
]
"""Every character of Unicode's category Cf: ZWSP, ZWJ, BOM, the word joiner, the soft
hyphen, LRM and RLM, the bidi controls, the tag characters of emoji flags…"""


@pytest.mark.parametrize("made", [text, content, line, plain])
def test_every_way_to_show_text_marks_every_invisible_character(made: Any) -> None:
    # The form's preview, a toast, a confirmation: each showed a ZWSP raw, and
    # "https://pay\u200bpal.com/hook" read as paypal.com; a ZWJ emoji slid the borders.
    value = "https://pay\u200bpal.com/hook 👨\u200d👩\u200d👧 " + "x".join(FORMAT_CHARACTERS)
    drawn = made(value)
    plain_text = drawn if isinstance(drawn, str) else drawn.plain
    assert [c for c in plain_text if unicodedata.category(c) == "Cf"] == []
    assert settle_width(plain_text) == plain_text  # nothing of disputed width is left
    assert "https://pay⸱pal.com/hook 👨⸱👩⸱👧" in plain_text
    assert plain_text.count("x") == len(FORMAT_CHARACTERS) - 1  # one mark each, none lost


def test_clamped_text_marks_every_invisible_character() -> None:
    drawn = clamped("pay\u200bpal\u2060\ufeff", 1).text.plain
    assert drawn == "pay⸱pal⸱⸱"


def test_visible_is_cleaning_and_settling_and_changes_nothing_it_need_not() -> None:
    assert visible("a\x1bb\u200bc\nd") == "a␛b⸱c\nd"
    assert visible("a\x1bb\u200bc\nd", line=True) == "a␛b⸱c↵d"
    already = "plain text, 日本語"
    assert visible(already) is already


async def test_a_text_area_draws_invisible_characters_marked_and_keeps_them() -> None:
    # A wallet list with a ZWSP drew it raw: "0xab\u200bcd" read as 0xabcd, and the
    # cursor stood a column off after each. The tripwire fails this test on a raw one.
    from rich.cells import cell_len

    from tokensales_tui.ui.widgets.safe_text_area import SafeTextArea

    held = "0xab\u200bcd\ufeff\u2060e\nx\u200dy\u00ad\nlast"

    class Area(App[None]):
        def compose(self) -> ComposeResult:
            yield SafeTextArea(held, show_line_numbers=True)

    app = Area()
    async with app.run_test(size=(40, 8)) as pilot:
        area = app.query_one(SafeTextArea)
        area.focus()
        await pilot.pause()
        drawn = [area.render_line(y).text for y in range(3)]
        assert "0xab⸱cd⸱⸱e" in drawn[0] and "x⸱y⸱" in drawn[1], drawn
        assert [c for line in drawn for c in line if unicodedata.category(c) == "Cf"] == []
        assert area.text == held  # what the form reads, as typed
        await pilot.press("end")  # the cursor stands after the last character drawn
        left = area.content_region.x + area.gutter_width
        assert area.cursor_screen_offset.x - left == cell_len("0xab⸱cd⸱⸱e")
        await pilot.press("left", "left", "backspace", "Z")  # a mark is one character
        assert area.text.splitlines()[0] == "0xab\u200bcdZ\u2060e"
        area.select_all()
        assert area.selected_text == area.text  # a copy is the text held
        area.load_text("q\u200br")
        await pilot.pause()
        assert "q⸱r" in area.render_line(0).text and area.text == "q\u200br"


def test_a_short_text_is_checked_without_the_table_and_as_the_table_would() -> None:
    # The table of characters of disputed width takes about 20 ms to build: the first
    # frame's footer ("⏎ Open") built it before anything was drawn.
    from tokensales_tui import clean as clean_module

    clean_module._settle_table.cache_clear()
    assert not clean_module.unsettled("⏎ Open ▏ ^p palette — 例え.jp café")
    assert clean_module._settle_table.cache_info().currsize == 0
    assert clean_module.unsettled("pay\u200bpal")
    table = clean_module._settle_table()[1]
    spans = (range(0, 0x30000), range(0xE0000, 0xE0200))
    wrong = [
        hex(code)
        for span in spans
        for code in span
        if clean_module._settled_char(code) != (code in table)
    ]
    assert wrong == []
