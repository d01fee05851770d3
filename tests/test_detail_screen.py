"""The detail screen: literal server text, copying, search, refresh and hostile sizes."""

from __future__ import annotations

import asyncio
import json

import pytest
from textual.app import App
from textual.geometry import Offset
from textual.pilot import Pilot

from tokensales_tui.api.errors import NotFoundError
from tokensales_tui.clean import unsettled
from tokensales_tui.ui.json_text import MAX_CHARS, MAX_LINES
from tokensales_tui.ui.screens.detail import CAPPED_NOTICE, FETCHING, DetailScreen, Fetched
from tokensales_tui.ui.widgets.field_value import share_rows

from .apphelpers import wait_for

MARKUP = "[@click=app.quit]x[/]"
BROKEN = "a [/] b"
OSC52 = "\x1b]52;c;SGVsbG8=\x07"

RAW = {
    "id": "itm_4f3a",
    "name": "Hat",
    "note": MARKUP,
    "tags": ["red", BROKEN],
    "price": {"amount": "12.50", "currency": "EUR"},
    "sold": False,
}
FIELDS: list[tuple[str, object]] = [("Name", MARKUP), ("Tags", BROKEN), ("Sold", False)]


class Host(App[None]):
    """Hosts one detail screen over an empty default screen."""

    def __init__(self, detail: DetailScreen) -> None:
        super().__init__()
        self.detail = detail
        self.notices: list[tuple[str, bool]] = []

    def notify(self, message: str, *, markup: bool = True, **kwargs: object) -> None:
        self.notices.append((message, markup))
        super().notify(message, markup=markup, **kwargs)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.push_screen(self.detail)


def detail_screen(
    raw: object = RAW, fields: list[tuple[str, object]] | None = None, **kwargs: object
) -> DetailScreen:
    kwargs.setdefault("object_id", "itm_4f3a")
    return DetailScreen("Item", FIELDS if fields is None else fields, raw, **kwargs)  # type: ignore[arg-type]


def screen_lines(app: App[object]) -> list[str]:
    """What a person sees, one string per terminal row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def find(app: App[object], needle: str) -> Offset:
    for y, line in enumerate(screen_lines(app)):
        if needle in line:
            return Offset(line.index(needle), y)
    raise AssertionError(f"{needle!r} is not on screen")


async def test_shows_title_fields_and_json() -> None:
    app = Host(detail_screen())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        lines = screen_lines(app)
        assert lines[0].strip().startswith("Item  itm_4f3a")
        text = "\n".join(lines)
        assert "Name" in text and "Sold" in text and "no" in text
        assert '"currency": "EUR"' in text
        assert app.detail.json_view.lines == json.dumps(RAW, indent=2).split("\n")
        assert not app.detail.query_one("#detail-notice").display


async def test_markup_in_server_text_is_literal_and_inert() -> None:
    app = Host(detail_screen())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        field = find(app, MARKUP)  # the field value comes first
        assert find(app, BROKEN).y < find(app, f'"{BROKEN}"').y
        json_line = find(app, f'"note": "{MARKUP}"')
        await pilot.click(offset=field + Offset(1, 0))
        await pilot.click(offset=json_line + Offset(len('"note": "') + 1, 0))
        await pilot.pause()
        assert app.is_running
        assert app.screen is app.detail


async def test_control_characters_never_reach_the_terminal() -> None:
    raw = {"id": OSC52, "csi": "\x9b2J", "bidi": "\u202egnp.exe", "del": "a\x7fb"}
    app = Host(detail_screen(raw, [("Id", OSC52), ("Csi", "x\x9b2J")], object_id=OSC52))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        code = app.detail.json_view.code
        for shown in (text, code):
            assert not any(char in shown for char in "\x1b\x07\x9b\x7f\u202e")
        assert '"id": "\\u001b]52;c;SGVsbG8=\\u0007"' in code
        assert '"csi": "\\u009b2J"' in code
        assert "␛]52;c;SGVsbG8=␇" in text  # the field and the title


async def test_copy_id_and_the_exact_json() -> None:
    raw = {**RAW, "hostile": OSC52 + "\x9b\u202e\ud800", "deep": [[[{"x": None}]]]}
    app = Host(detail_screen(raw))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        assert app.clipboard == "itm_4f3a"
        assert app.notices == [("Copied id", False)]
        await pilot.press("y")
        # a lone surrogate (which no server's object holds) as U+FFFD, as routes read one
        assert json.loads(app.clipboard) == {**raw, "hostile": OSC52 + "\x9b\u202e\ufffd"}
        assert "\x9b" not in app.clipboard and "\u202e" not in app.clipboard


async def test_an_id_copied_escaped_says_so_and_how() -> None:
    # A bidi control could hide what a paste holds, so it is copied as its escape; the
    # toast said "Copied id" and a paste into `get item` looked up another id.
    app = Host(detail_screen(object_id="itm_\u202eabc\u202c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        assert app.clipboard == "itm_\\u202eabc\\u202c"
        assert app.notices == [
            (
                "Copied id\nEscaped, so not exact: 2 characters a paste could act on or hide"
                " text behind are written as \\u202e \\u202c",
                False,
            )
        ]


async def test_copy_id_without_an_id_says_so() -> None:
    app = Host(detail_screen(object_id=None))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        assert app.clipboard == ""
        assert app.notices == [("This object has no id", False)]


async def search(pilot: Pilot[None], query: str) -> None:
    await pilot.press("slash", *query, "enter")


def matches_label(app: App[object]) -> str:
    return str(app.screen.query_one("#detail-matches").render())


async def test_search_counts_moves_and_closes() -> None:
    raw = {"a": "Apple pie", "b": ["APPLE", "pineapple"], "c": "pear"}
    app = Host(detail_screen(raw))
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot, "apple")
        view = app.detail.json_view
        assert view.match_count == 3
        assert matches_label(app) == "match 1 of 3"
        await pilot.press("n")
        assert matches_label(app) == "match 2 of 3"
        await pilot.press("N", "N")
        assert matches_label(app) == "match 3 of 3"  # wraps around
        await pilot.press("escape")
        assert not app.detail.has_class("-searching")
        assert view.match_count == 0
        assert app.screen is app.detail
        await pilot.press("escape")
        assert app.screen is not app.detail


async def test_search_scrolls_to_the_match_and_reports_none() -> None:
    raw = {f"key{i}": i for i in range(200)} | {"needle": "Found me"}
    app = Host(detail_screen(raw, []))
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, "found ME")
        view = app.detail.json_view
        assert view.scroll_y > 100
        assert '"needle": "Found me"' in "\n".join(screen_lines(app))
        await pilot.press("slash", "ctrl+a", "x", "y", "z", "enter")
        assert view.match_count == 0
        assert matches_label(app) == "no matches"


async def test_a_search_of_a_large_object_says_it_looked_in_the_part_shown() -> None:
    # A wallet past the lines shown was "no matches", though the object holds it.
    wallets = [f"0x{i:040x}" for i in range(60_000)]
    app = Host(detail_screen({"id": "col_1", "wallets": wallets}, []))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.detail.query_one("#detail-notice").display
        await search(pilot, wallets[-1][2:])
        assert matches_label(app) == "no matches in the part shown"
        app.detail.search_input.value = ""
        await search(pilot, wallets[1][2:])  # in the part shown
        assert matches_label(app) == "match 1 of 1"


async def test_less_keys_scroll_the_json() -> None:
    app = Host(detail_screen({f"key{i}": i for i in range(200)}, []))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.detail.json_view
        assert view.has_focus  # the keys work as soon as the view opens
        half = view.scrollable_content_region.height // 2
        await pilot.press("j", "j", "k")
        assert view.scroll_y == 1
        await pilot.press("ctrl+d")
        assert view.scroll_y == 1 + half
        await pilot.press("ctrl+u")
        assert view.scroll_y == 1
        await pilot.press("G")
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y > 150
        assert '"key199": 199' in "\n".join(screen_lines(app))
        await pilot.press("g")
        await pilot.pause()
        assert view.scroll_y == 0


async def test_refresh_replaces_the_data() -> None:
    release = asyncio.Event()
    new_raw = {"id": "itm_4f3a", "name": "Cap"}

    async def refresh() -> Fetched:
        await release.wait()
        return Fetched([("Name", "Cap")], new_raw, "itm_4f3a")

    app = Host(detail_screen(refresh=refresh))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert FETCHING in "\n".join(screen_lines(app))
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert '"name": "Cap"' in text and "Cap" in text
        assert MARKUP not in text and FETCHING not in text
        assert app.detail.raw == new_raw
        assert "another object" not in text


@pytest.mark.parametrize(
    ("answered", "warned"),
    [("itm_999", True), ("itm_4f3a", False), (None, False), ("\x1b[31mitm_" + "9" * 300, True)],
    ids=["another id", "the same id", "no id", "hostile id"],
)
async def test_an_answer_naming_another_object_is_shown_under_a_warning(
    answered: str | None, warned: bool
) -> None:
    # GET /v1/items/itm_4f3a answered with itm_999: shown as it came, never silently as
    # the row's object.
    impostor = {"id": answered, "name": "IMPOSTOR"}

    async def refresh() -> Fetched:
        return Fetched([("Name", "IMPOSTOR")], impostor, answered)

    app = Host(detail_screen(refresh=refresh))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "IMPOSTOR" in text and app.detail.raw == impostor
        assert text.splitlines()[0].strip().startswith("Item  itm_4f3a")
        status = app.detail.query_one("#detail-status")
        assert status.display is warned and status.has_class("-warning") is warned
        assert ("another object" in text) is warned
        if warned:
            warning = str(status.render())
            assert f"asked for itm_4f3a, got ID {answered[:4]}" in warning.replace("␛", "\x1b")
            assert "\x1b" not in warning and "\x1b" not in text and len(warning) < 3 * 100


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (NotFoundError("Item [/] is gone"), "Item [/] is gone — refresh the list"),
        (RuntimeError("boom [b]"), "boom [b]"),
    ],
)
async def test_refresh_failure_keeps_the_old_data(error: Exception, shown: str) -> None:
    async def refresh() -> Fetched:
        raise error

    app = Host(detail_screen(refresh=refresh))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert shown in text
        assert f'"note": "{MARKUP}"' in text
        assert app.detail.raw == RAW


@pytest.mark.parametrize(
    "raw",
    [
        {f"key_{i}": {"name": f"value {i}", "n": i} for i in range(20_000)},
        {"id": "itm_1", "description": "lorem ipsum " * 90_000},
    ],
    ids=["20k-keys", "1MB-string"],
)
async def test_huge_objects_render_capped_and_say_so(raw: dict[str, object]) -> None:
    # How fast this opens is measured in the benchmarks; here: only the capped part is built.
    app = App[None]()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = detail_screen(raw, [("Description", raw.get("description"))])
        await app.push_screen(screen)
        await pilot.pause()
        lines = screen_lines(app)
        assert CAPPED_NOTICE in "\n".join(lines)
        assert screen.query_one("#detail-notice").display
        shown = screen.json_view.lines
        assert len(shown) <= MAX_LINES + 1  # the last one is the "…" marking the cut
        assert sum(len(line) + 1 for line in shown) <= MAX_CHARS + 2
        view = screen.json_view
        width = view.scrollable_content_region.width
        assert view.virtual_size.height <= len(shown) + MAX_CHARS // width + 1  # wrapped rows
        await pilot.press("y")
        assert json.loads(app.clipboard) == raw


@pytest.mark.parametrize("fail", [False, True])
@pytest.mark.parametrize("steps", range(0, 16, 3))
async def test_a_fetch_that_ends_after_the_screen_is_gone_touches_nothing(
    fail: bool, steps: int
) -> None:
    # escape while the current version is still being fetched (a slow server): the
    # answer arrives for a screen that is no longer there, and must be dropped quietly.
    app = Host(detail_screen(refresh=None))

    async def refresh() -> Fetched:
        app.pop_screen()  # the person pressed escape as the answer arrived
        for _ in range(steps):  # the answer lands at some step of the screen's removal
            await asyncio.sleep(0)
        if fail:
            raise NotFoundError("gone")
        return Fetched([("Name", "Cap")], {"id": "itm_4f3a", "name": "Cap"}, "itm_4f3a")

    app.detail = detail_screen(refresh=refresh)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        assert not app.detail.is_attached
    assert app.return_code in (None, 0)


async def test_characters_of_disputed_width_take_one_agreed_width_and_copy_as_they_are() -> None:
    # Devanagari vowel signs and zero-width characters: Rich and terminals count them
    # differently, so the detail view writes them in a form of one width everywhere.
    title = "किताब\u200b का\ufeff"
    raw = {"id": "itm_1", "title": title, "note": "ok"}
    app = Host(detail_screen(raw, [("Title", title), ("Note", "ok")], object_id="itm_1"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert not unsettled(text)
        assert "कइतआब⸱ कआ⸱" in text  # the field
        assert '"title": "क\\u093fत\\u093eब\\u200b क\\u093e\\ufeff"' in text  # the JSON
        assert json.loads('"क\\u093fत\\u093eब\\u200b क\\u093e\\ufeff"') == title
        await pilot.press("y")
        await pilot.pause()
        assert json.loads(app.clipboard)["title"] == title  # a copy keeps the text


async def test_a_refresh_cut_off_by_the_next_never_leaves_the_fields_empty() -> None:
    # `r` pressed again while the answer of the one before was being put on screen cancels
    # that one; its fields were taken down, then the next refresh failed, and the screen
    # showed no fields at all.
    calls = 0

    async def refresh() -> Fetched:
        nonlocal calls
        calls += 1
        if calls == 1:
            asyncio.get_running_loop().call_soon(app.detail.action_refresh)
            return Fetched([("Name", "Cap")], {"id": "itm_4f3a", "name": "Cap"}, "itm_4f3a")
        raise RuntimeError("offline")

    app = Host(detail_screen(refresh=refresh))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(20):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert calls == 2
        grid = app.detail.query_one("#detail-grid")
        labels = [str(cell.render()) for cell in grid.children]
        text = "\n".join(screen_lines(app))
        assert labels == ["Name", "Cap"], labels
        assert "offline" in text and '"name": "Cap"' in text


LONG_FIELDS: list[tuple[str, object]] = [
    ("ID", "itm_" + "A" * 10_000),
    ("Title", "Cap"),
    ("Price", "9" * 300),
    ("Description", "Warm"),
    ("Image", "https://cdn.example/cap.png"),
    ("Payout", "crypto"),
    ("Spender", "0x" + "b" * 5_000),
]


async def test_long_values_share_the_fields_pane_so_every_field_shows() -> None:
    # An id of 10,000 characters took the pane's 40%: Description, Image and Payout
    # fell below its edge, reached only by tab then the arrows, and nothing said so.
    app = Host(detail_screen(fields=LONG_FIELDS, object_id="itm_" + "A" * 10_000))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        pane = app.detail.query_one("#detail-fields")
        assert pane.max_scroll_y == 0 and not pane.border_subtitle
        shown = screen_lines(app)[1 : 1 + pane.size.height]
        labels = [row.split()[0] for row in shown if row.strip() and not row.startswith("  ")]
        assert labels == [label for label, _ in LONG_FIELDS]
        assert sum(row.rstrip().endswith("…") for row in shown) == 2  # the id and the spender
        assert "\n".join(shown).count("9") == 300  # the price whole
        assert "https://cdn.example/cap.png" in "\n".join(shown)


async def test_fields_that_cannot_all_show_say_how_to_scroll_to_them() -> None:
    app = Host(detail_screen(fields=LONG_FIELDS))
    async with app.run_test(size=(40, 15)) as pilot:
        await pilot.pause()
        await pilot.pause()
        pane = app.detail.query_one("#detail-fields")
        assert pane.max_scroll_y > 0
        assert "more fields: tab, then ↑↓" in "\n".join(screen_lines(app))
        await pilot.press("tab", "down")
        assert app.focused is pane and pane.scroll_y == 1
        await pilot.resize_terminal(120, 40)  # room again: all of them show, and it says nothing
        await wait_for(lambda: pane.max_scroll_y == 0 and not pane.border_subtitle, pilot)


def test_the_rows_are_shared_shortest_first_and_evenly() -> None:
    assert share_rows([1, 3, 2], 10) == [1, 3, 2]
    assert share_rows([100, 1, 100, 1], 10) == [4, 1, 4, 1]
    assert share_rows([100, 2, 5], 9) == [4, 2, 3]
    assert share_rows([9, 9, 9], 2) == [1, 1, 1]  # a row each, though they do not fit
