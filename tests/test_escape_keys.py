"""Escape and the key typed right after it, read by Textual's parser as one, are two."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import constants, events
from textual._xterm_parser import XTermParser

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.escape_keys import PASTE_START, escape_apart, read_escape_apart

from .apphelpers import loaded, wait_for


def keys_of(data: str) -> list[tuple[str, str | None]]:
    """What the app gets for ``data`` from the terminal, parsed as the driver does."""
    read_escape_apart()
    parser = XTermParser()
    parsed = [*parser.feed(data), *parser.feed("")]
    return [
        (key.key, key.character)
        for token in parsed
        if isinstance(token, events.Key)
        for key in escape_apart(token)
    ]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("\x1b2", [("escape", "\x1b"), ("2", "2")]),  # it was "™"
        ("\x1bj", [("escape", "\x1b"), ("j", "j")]),  # it was alt+j: "j" in the filter
        ("\x1bf", [("ctrl+right", None)]),  # Option+→ on macOS: a word on, as before
        ("\x1bb", [("ctrl+left", None)]),  # Option+←
        ("\x1bJ", [("escape", "\x1b"), ("J", "J")]),
        ("\x1b[A", [("up", None)]),  # a real sequence stays one key
        # Signs Textual names by a word: the escape was lost, "/" alone opened the filter.
        ("\x1b/", [("escape", "\x1b"), ("slash", "/")]),
        ("\x1b?", [("escape", "\x1b"), ("question_mark", "?")]),
        ("\x1b ", [("escape", "\x1b"), ("space", " ")]),
        ("\x1b,", [("escape", "\x1b"), ("comma", ",")]),
        # Escape, then enter or tab: the escape was lost, and the filter kept its text.
        ("\x1b\r", [("escape", "\x1b"), ("enter", "\r")]),
        ("\x1b\t", [("escape", "\x1b"), ("tab", "\t")]),
        ("\x1b[Z", [("shift+tab", None)]),  # a terminal's shift+tab
        ("\x1b\x7f", [("ctrl+w", None)]),  # Option+backspace: a word back, as before
        ("\x1b\x1b", [("escape", "\x1b"), ("escape", "\x1b")]),
        ("/", [("slash", "/")]),
    ],
)
def test_escape_then_a_key_is_two_keys(typed: str, expected: list[tuple[str, str | None]]) -> None:
    assert keys_of(typed) == expected


async def test_escape_then_a_tab_digit_typed_fast_leaves_the_filter_for_the_tab() -> None:
    # The filter became "a™" (0 of 10), and the tab stayed.
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash", "a")
        assert app.active_tab.filter_input.value == "a"
        app._driver.send_message(events.Key("alt+2", "2"))  # type: ignore[union-attr]
        await wait_for(lambda: app.active_tab.resource.key == "items", pilot)
        assert "™" not in app.browse.tab("webhooks").filter_input.value


def test_every_app_of_the_package_reads_escape_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # listen's screen lost the escape of "escape, j" typed together: only the main app
    # had the driver split them.
    from textual.driver import Driver

    from tokensales_tui.ui import key_frames
    from tokensales_tui.ui.listen_app import ListenApp
    from tokensales_tui.ui.safe_app import GuardedApp

    assert issubclass(ListenApp, GuardedApp)
    monkeypatch.setattr(Driver, "send_message", lambda self, message: None)
    GuardedApp()
    assert Driver.send_message is key_frames._send_message


def tokens_of(*reads: str) -> list[tuple[str, str]]:
    """What the app gets for the terminal's ``reads``, in turn: keys and pastes."""
    read_escape_apart()
    parser = XTermParser()
    parsed = [token for data in (*reads, "") for token in parser.feed(data)]
    found: list[tuple[str, str]] = []
    for token in parsed:
        if isinstance(token, events.Paste):
            found.append(("paste", token.text))
        elif isinstance(token, events.Key):
            found += [("key", key.key) for key in escape_apart(token)]
    return found


@pytest.mark.parametrize(
    "reads",
    [
        ["\x1b[200~foo\x1bqbar\x1b[201~"],
        ["\x1b[200~foo\x1b", "qbar\x1b[20", "1~"],  # cut anywhere between reads
        ["\x1b[200~foo\x1bqb", "ar\x1b[201~"],
        ["\x1b[200~foo\x1bqbar\x1b[201", "~"],
        # the start marker cut between reads too (its ESC q had quit the app)
        ["\x1b[20", "0~foo\x1bqbar\x1b[201~"],
        ["\x1b", "[200~foo\x1bqbar\x1b[201~"],
        ["\x1b[", "2", "00", "~foo\x1bqbar\x1b[201~"],
        ["\x1b[200", "~foo\x1b", "qbar\x1b[201~"],
    ],
)
def test_a_paste_holding_escape_is_text_never_keys(reads: list[str]) -> None:
    # "foo ESC q bar" pasted quit the app (ESC q read as escape, then q), "ESC d" asked
    # to delete, and the filter got "^qbarfoo".
    assert tokens_of(*reads) == [("paste", "foo\u241bqbar")]


def test_keys_cut_like_a_paste_marker_stay_keys() -> None:
    # What begins as a paste marker and goes on otherwise is keys: escape, then more.
    assert tokens_of("j\x1b[2", "x") == tokens_of("j\x1b[2x")
    assert tokens_of("\x1b", "q") == tokens_of("\x1bq")


def test_keys_around_a_paste_stay_keys() -> None:
    assert tokens_of("j\x1b[200~a\x1b[31mb\x1b[201~k") == [
        ("key", "j"),
        ("paste", "a\u241b[31mb"),
        ("key", "k"),
    ]


class ParserClock:
    """The clock Textual's parser times its waits by, moved on by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def read_apart(
    parser: XTermParser, clock: ParserClock, *reads: str, pause: float = 0.0
) -> list[object]:
    """What ``parser`` gives for the terminal's ``reads`` with ``pause`` seconds between
    them, ticked every 20 ms meanwhile (the driver ticks it every 0.1 s at most)."""
    parsed: list[object] = []
    for data in reads:
        parsed += parser.feed(data)
        for _ in range(round(pause / 0.02)):
            clock.now += 0.02
            parsed += parser.tick()
    return parsed


def found_in(parsed: list[object]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for token in parsed:
        if isinstance(token, events.MouseEvent):
            found.append(("mouse", f"{type(token).__name__} {token.x:.0f},{token.y:.0f}"))
        elif isinstance(token, events.Paste):
            found.append(("paste", token.text))
        elif isinstance(token, events.Key):
            found += [("key", key.key) for key in escape_apart(token)]
    return found


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ParserClock:
    from textual import _parser

    read_escape_apart()
    clock = ParserClock()
    monkeypatch.setattr(_parser, "get_time", clock)
    return clock


@pytest.fixture
def tokens_read_apart(clock: ParserClock) -> Callable[..., list[tuple[str, str]]]:
    def tokens_read_apart(*reads: str, pause: float = 0.0) -> list[tuple[str, str]]:
        """What the app gets for the terminal's ``reads`` with ``pause`` seconds between
        them by the parser's clock, ticked meanwhile as the driver has it do."""
        parser = XTermParser()
        return found_in([*read_apart(parser, clock, *reads, pause=pause), *parser.feed("")])

    return tokens_read_apart


@pytest.mark.parametrize(
    "reads",
    [
        ["\x1b[<35;42;12", "M"],
        ["\x1b[<35;4", "2;12M"],
        ["\x1b[<", "35;42;12M"],
        ["j\x1b[<35;42", ";12", "M"],
    ],
)
def test_a_mouse_report_cut_between_reads_is_one_report(
    reads: list[str], tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # Its start waited 0.1 s in the parser, then was read as keys: the "2" went to Items
    # and the filter was cleared.
    found = tokens_read_apart(*reads, pause=0.3)
    assert [token for token in found if token != ("key", "j")] == [("mouse", "MouseMove 41,11")]


def test_a_mouse_report_cut_off_for_good_is_dropped_never_keys(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    assert tokens_read_apart("\x1b[<35;42;12", "jk", pause=0.3) == [("key", "j"), ("key", "k")]
    assert tokens_read_apart("\x1b[<35;42;12", pause=0.3) == []


def test_a_lone_escape_waits_no_longer_than_textual_s_parser_waits(clock: ParserClock) -> None:
    parser = XTermParser()
    assert [*parser.feed("\x1b")] == []
    clock.now = constants.ESCAPE_DELAY - 0.001
    assert [*parser.tick()] == []
    clock.now = constants.ESCAPE_DELAY
    assert found_in([*parser.tick()]) == [("key", "escape")]


@pytest.mark.parametrize("cut", ["\x1b[", "\x1b[2", "\x1b[20", "\x1b[200"])
def test_a_paste_whose_start_marker_is_cut_between_reads_far_apart_is_a_paste(
    cut: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # The marker's start waited 0.1 s in the parser, then was read as keys, and so was the
    # paste: "see the docs" on Webhooks switched to Items ("2"), sorted ("s"), marked rows
    # (spaces) and asked "Delete 2 marked items?" ("d"); "foo ESC q bar" quit the app.
    rest = PASTE_START[len(cut) :] + "see the docs\x1b[201~"
    assert tokens_read_apart(cut, rest, pause=0.15) == [("paste", "see the docs")]
    rest = PASTE_START[len(cut) :] + "foo\x1bqbar\x1b[201~"
    assert tokens_read_apart(cut, rest, pause=0.4) == [("paste", "foo\u241bqbar")]
    if len(cut) > 2:  # what no key sends waits for the next read however late
        assert tokens_read_apart(cut, rest, pause=30) == [("paste", "foo\u241bqbar")]


def test_a_paste_marker_cut_after_its_escape_is_a_paste_once_the_escape_went_out(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    # A lone escape goes out when it did: it may have been typed. The rest that comes
    # later is a paste all the same (it was keys: its "q" quit the app).
    assert tokens_read_apart("\x1b", "[200~foo\x1bqbar\x1b[201~", pause=0.15) == [
        ("key", "escape"),
        ("paste", "foo\u241bqbar"),
    ]
    assert tokens_read_apart("\x1b", "[20", "0~foo\x1b[201~", pause=0.15) == [
        ("key", "escape"),
        ("paste", "foo"),
    ]
    # Not a marker after all: the escape is not given twice.
    assert tokens_read_apart("\x1b", "[2", "x", pause=0.15) == [
        ("key", "escape"),
        *tokens_of("[2x"),
    ]
    assert tokens_read_apart("\x1b[", "200~foo\x1bqbar\x1b[201~", pause=0.6) == [
        ("key", "escape"),
        ("key", "left_square_bracket"),
        ("paste", "foo\u241bqbar"),
    ]


@pytest.mark.parametrize(
    ("reads", "pause", "expected"),
    [
        (["\x1b[", "<35;42;12M"], 0.15, [("mouse", "MouseMove 41,11")]),
        (["\x1b", "[<35;42;12M"], 0.15, [("key", "escape"), ("mouse", "MouseMove 41,11")]),
        (["\x1b", "[<35;4", "2;12M"], 0.15, [("key", "escape"), ("mouse", "MouseMove 41,11")]),
    ],
)
def test_a_mouse_report_cut_right_after_its_escape_is_one_report(
    reads: list[str],
    pause: float,
    expected: list[tuple[str, str]],
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    # "ESC [", then "<35;42;12M" 0.15 s later cleared the filter (escape) and went to
    # Items (its "2").
    assert tokens_read_apart(*reads, pause=pause) == expected


def test_escape_and_a_bracket_typed_in_one_read_go_out_within_half_a_second(
    clock: ParserClock,
) -> None:
    parser = XTermParser()
    assert [*parser.feed("\x1b[")] == []
    clock.now = 0.499
    assert [*parser.tick()] == []
    clock.now = 0.5
    assert found_in([*parser.tick()]) == [("key", "escape"), ("key", "left_square_bracket")]


@pytest.mark.parametrize("cut", ["\x1b[2", "\x1b[20", "\x1b[200"])
def test_a_marker_s_start_left_without_its_rest_is_the_keys_it_was(
    cut: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # Given on unchanged once a read does not go on with it, or the input ends.
    assert tokens_read_apart(cut, "x", pause=5) == tokens_of(cut + "x")
    assert tokens_read_apart(cut, "~", pause=5) == tokens_of(cut + "~")
    assert tokens_read_apart(cut, pause=5) == tokens_of(cut)
