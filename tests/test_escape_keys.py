"""Escape and the key typed right after it, read by Textual's parser as one, are two."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual import constants, events
from textual._xterm_parser import XTermParser

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.control_sequences import SEQUENCE_WAIT, is_string
from tokensales_tui.ui.control_strings import STRING_OPEN
from tokensales_tui.ui.escape_keys import escape_apart, read_escape_apart
from tokensales_tui.ui.pastes import (
    PASTE_END,
    PASTE_OPEN,
    PASTE_OPEN_MOST,
    PASTE_START,
    PASTE_WAIT,
)

from .apphelpers import loaded, wait_for


def keys_of(data: str) -> list[tuple[str, str | None]]:
    """What the app gets for ``data`` from the terminal, parsed as the driver does."""
    return keys_read(data)


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


@pytest.mark.parametrize(
    "reads",
    [
        ["\x1b?", "\x1b", "?"],  # escape and ? read at once, the next escape soon after
        ["\x1b?\x1b?"],
        ["\x1b?", "\x1b?", "\x1b?"],
        ["\x1bj", "\x1bk"],
        ["\x1bO", "\x1b?"],  # ESC O is the start of F1 (ESC O P): escape, O, escape, ?
        ["\x1bO\x1b?"],
        ["\x1b\x1b?", "\x1b"],
    ],
)
def test_an_escape_is_never_lost_to_the_escape_typed_after_it(
    reads: list[str], clock: ParserClock
) -> None:
    # Textual's parser waited 0.1 s for more after ESC ?, and an escape within it made it
    # read the first escape as "^" (circumflex_accent): escape, ?, escape every 50 ms left
    # the help open. Each key goes out as the read that holds it comes, in order.
    parser = XTermParser()
    found = found_in([*read_apart(parser, clock, *reads, pause=0.02), *parser.feed("")])
    typed = "".join(reads)
    expected = [("key", "escape" if c == "\x1b" else keys_read(c)[0][0]) for c in typed]
    assert found == expected


def test_escape_o_that_ends_a_read_is_held_for_its_rest_no_longer_than_an_escape(
    clock: ParserClock,
) -> None:
    parser = XTermParser()
    assert [*parser.feed("\x1bO")] == []
    assert found_in([*parser.feed("P")]) == [("key", "f1")]  # its rest came: F1
    assert [*parser.feed("\x1bO")] == []
    clock.now = constants.ESCAPE_DELAY
    assert found_in([*parser.tick()]) == [("key", "escape"), ("key", "O")]


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
    # Not a marker after all: the escape is not given twice, and the sequence "[2x" ends
    # it as, which no terminal sends, is dropped as it is after a start held whole (a
    # key typed half a second on is that key).
    assert tokens_read_apart("\x1b", "[2", "x", pause=0.15) == [("key", "escape")]
    assert tokens_read_apart("\x1b", "[2", "x", pause=0.6) == [("key", "escape"), ("key", "x")]
    assert tokens_read_apart("\x1b", "[", "2", "x", pause=0.15) == [
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
def test_a_marker_s_start_left_without_its_rest_is_no_keys(
    cut: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # A key typed long after it is that key (see the test below); a final byte that
    # makes it a key or a marker is that key or marker (the paste ends once it has
    # waited PASTE_WAIT); left alone, it is dropped, as no key sends it.
    assert tokens_read_apart(cut, "x", pause=5) == [("key", "x")]
    assert tokens_read_apart(cut, "~", pause=5) == tokens_of(cut + "~" + PASTE_END)
    assert tokens_read_apart(cut, pause=5) == []


def keys_read(*reads: str) -> list[tuple[str, str | None]]:
    """The keys, and the character each types, that the app gets for ``reads``."""
    read_escape_apart()
    parser = XTermParser()
    parsed = [token for data in (*reads, "") for token in parser.feed(data)]
    return [
        (key.key, key.character)
        for token in parsed
        if isinstance(token, events.Key)
        for key in escape_apart(token)
    ]


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("\x1b[97;1:3u", []),  # a kitty key release: nothing
        ("\x1b[97;1:1u", [("a", "a")]),  # a press and a repeat: the key
        ("\x1b[97;1:2u", [("a", "a")]),
        ("\x1b[97:65;2u", [("A", "A")]),  # with its shifted key
        ("\x1b[97;5:1u", [("ctrl+a", None)]),
        ("\x1b[99999999u", []),  # no character
        ("\x1b[1114112u", []),
        ("\x1b[999999999999999999999A", []),
        pytest.param("\x1b[" + "9" * 5000 + "u", [], id="5000-digits"),
        ("\x1b[1;5:3A", []),
        ("\x1b[1;5:1A", [("ctrl+up", None)]),
        ("\x1b[1;99999999A", []),
        ("\x1b[97;1:9u", []),  # no such event
    ],
)
def test_a_kitty_key_of_any_form_is_the_key_it_names_or_nothing_never_a_crash(
    sent: str, expected: list[tuple[str, str | None]]
) -> None:
    # Each raised in Textual's reading of the key (ValueError, OverflowError) and ended
    # the app with status 1.
    assert keys_read("j" + sent + "k") == [("j", "j"), *expected, ("k", "k")]


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        # xterm's modifyOtherKeys: it typed the letter into a field.
        ("\x1b[27;5;97~", "ctrl+a"),
        ("\x1b[27;5;117~", "ctrl+u"),
        ("\x1b[27;5;119~", "ctrl+w"),
        ("\x1b[27;5;59~", "ctrl+semicolon"),
        ("\x1b[117;5u", "ctrl+u"),  # the kitty form, as before
    ],
)
def test_a_modified_key_is_that_key_never_its_letter_typed(sent: str, expected: str) -> None:
    assert keys_read(sent) == [(expected, None)]


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("\x1b[97;2u", "A"),  # shift+a, no text reported: it typed nothing
        ("\x1b[97;2;65u", "A"),  # with the text
        ("\x1b[233;2u", "É"),
    ],
)
def test_a_shifted_letter_types_its_capital(sent: str, expected: str) -> None:
    assert keys_read(sent) == [(expected, expected)]


# Replies a terminal sends to questions (its own, another program's, or ours answered
# late): each is no key.
TERMINAL_REPLIES = [
    "\x1b[>0;95;0c",  # DA2
    "\x1b[?62;22;52c",  # DA1
    "\x1b[?25u",  # kitty keyboard flags
    "\x1b[8;40;120t",  # window size
    "\x1b[?1;2;0S",  # XTSMGRAPHICS
    "\x1b]11;rgb:0000/0000/0000\x1b\\",  # OSC 11, ended by ST
    "\x1b]10;rgb:ffff/ffff/ffff\x07",  # OSC 10, ended by BEL
    "\x1b]52;c;Zm9vIHEgYmFy\x07",  # a clipboard: "foo q bar"
    "\x1bP>|xterm(388)\x1b\\",  # XTVERSION
    "\x1bP1$r0m\x1b\\",  # DECRQSS
    "\x1b_Gi=1;OK\x1b\\",  # APC (kitty graphics)
    "\x1b^private\x1b\\",  # PM
    "\x1bXstring\x1b\\",  # SOS
]


@pytest.mark.parametrize("reply", TERMINAL_REPLIES)
def test_a_terminal_reply_is_dropped_whole_never_keys(reply: str) -> None:
    # Each was escape, then its text typed: DA2 switched tabs and copied an id, DA1
    # opened the help, XTVERSION the export dialog; a form asked to discard.
    assert tokens_of("j" + reply + "k") == [("key", "j"), ("key", "k")]


@pytest.mark.parametrize("reply", TERMINAL_REPLIES)
def test_a_terminal_reply_cut_anywhere_between_reads_is_dropped_whole(
    reply: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    for cut in range(1, len(reply)):
        assert tokens_of("j" + reply[:cut], reply[cut:] + "k") == [("key", "j"), ("key", "k")]
        if cut > 1:  # past a lone escape, which goes out when it did
            sent = ("j" + reply[:cut], reply[cut:] + "k")
            assert tokens_read_apart(*sent, pause=0.15) == [("key", "j"), ("key", "k")]


@pytest.mark.parametrize(
    ("handled", "read_as"),
    [
        ("\x1b[12;40R", "CursorPosition"),
        ("\x1b[?2026;2$y", "TerminalSupportsSynchronizedOutput"),  # a mode report
        ("\x1b[I", "AppFocus"),
        ("\x1b[48;40;120;800;1200t", "Resize"),  # in-band
        ("\x1b[<35;42;12M", "MouseMove"),
    ],
)
def test_a_sequence_textual_reads_still_reaches_it(handled: str, read_as: str) -> None:
    read_escape_apart()
    parser = XTermParser()
    parsed = [*parser.feed("j" + handled), *parser.feed("")]
    assert [type(token).__name__ for token in parsed] == ["Key", read_as]


@pytest.mark.parametrize("key", ["\x1b[[A", "\x1b[15~", "\x1b[1;5A", "\x1b[Z", "\x1bOP"])
def test_keys_of_every_terminal_stay_keys(key: str) -> None:
    read_escape_apart()
    parser = XTermParser()
    parsed = [*parser.feed("j" + key + "k"), *parser.feed("")]
    keys = [token for token in parsed if isinstance(token, events.Key)]
    assert len(keys) == 3 and keys[1].key not in {"escape", "circumflex_accent"}


def test_a_string_never_ended_lets_keys_through_once_given_up(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    # An OSC with no BEL or ST swallowed every key after it. A key typed into it is
    # dropped with it (no read tells it from the string's rest), STRING_OPEN at most.
    assert tokens_read_apart("\x1b]11;rgb:00", "q", "j", pause=STRING_OPEN * 0.6) == [("key", "j")]
    # Escape, or a key sent as a sequence, cuts it short at once (the escape was lost).
    assert tokens_read_apart("\x1b]11;rgb:00", "\x1b[A", "j", pause=0.2) == [
        ("key", "up"),
        ("key", "j"),
    ]
    assert tokens_read_apart("\x1b]11;rgb:00", "\x1b", "j", pause=SEQUENCE_WAIT + 0.1) == [
        ("key", "escape"),
        ("key", "j"),
    ]
    # ESC and P typed in one read are still escape and P.
    assert tokens_read_apart("\x1bP", pause=STRING_OPEN + 0.1) == [
        ("key", "escape"),
        ("key", "P"),
    ]


STRING_REPLIES = [
    *(reply for reply in TERMINAL_REPLIES if is_string(reply)),
    "\x9d11;rgb:0000/0000/0000\x9c",
    "\x90>|xterm(388)\x9c",
    "\x1b]lquick notes\x1b\\",  # a window title
]


@pytest.mark.parametrize("reply", STRING_REPLIES)
@pytest.mark.parametrize("pause", [SEQUENCE_WAIT + 0.1, STRING_OPEN - 0.2, STRING_OPEN + 1, 60])
def test_a_string_cut_anywhere_is_dropped_up_to_its_end_however_late_its_rest_comes(
    reply: str, pause: float, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # OSC 11 cut after ESC ], its rest half a second later or more: "11;rgb:…" was typed,
    # its 1 switched to the first tab, r reloaded, d asked to delete.
    seven_bit = reply[0] == "\x1b"
    for cut in range(2 if seven_bit else 1, len(reply)):  # past a lone escape, as ever
        found = tokens_read_apart("j" + reply[:cut], reply[cut:] + "k", pause=pause)
        # An introducer alone once it is given up, and an ESC that waited for its "\\"
        # longer than ESC [ waits, were escape (and its letter) typed.
        typed = ["escape"] if reply[cut - 1] == "\x1b" and pause > SEQUENCE_WAIT else []
        if seven_bit and cut == 2 and pause > STRING_OPEN:
            typed = ["escape", keys_read(reply[1])[0][0]]
        assert found == [("key", "j"), *(("key", key) for key in typed), ("key", "k")], (
            cut,
            pause,
        )


def test_a_string_s_rest_after_it_was_given_up_is_dropped_and_keys_before_it_act(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    pause = STRING_OPEN + 0.2
    found = tokens_read_apart("\x1b]11;rgb:ff", "j", "ff/ffff/ffff\x07k", pause=pause)
    assert found == [("key", "j"), ("key", "k")]
    # Once a key sent as a sequence shows the terminal went on, a BEL is ctrl+g again.
    found = tokens_read_apart("\x1b]11;rgb:ff", "\x1b[A", "x\x07", pause=pause)
    assert found == [("key", "up"), ("key", "x"), ("key", "ctrl+g")]


def test_what_follows_escape_and_a_bracket_gone_out_as_keys_is_typed_or_a_sequence_s_rest(
    clock: ParserClock, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    typed = [("key", "escape"), ("key", "left_square_bracket")]
    # A key typed after them is that key, at once (it went out only with the next key,
    # and the 1 switched no tab).
    parser = XTermParser()
    parsed = read_apart(parser, clock, "\x1b[", "1", "2", pause=SEQUENCE_WAIT + 0.1)
    assert found_in(parsed) == [*typed, ("key", "1"), ("key", "2")]
    parser = XTermParser()  # and typed fast, then escape: keys as typed
    parsed = read_apart(parser, clock, "\x1b[", pause=SEQUENCE_WAIT + 0.1)
    parsed += read_apart(parser, clock, "1", "2", "\x1b", pause=0.1)
    assert found_in(parsed) == [*typed, ("key", "1"), ("key", "2"), ("key", "escape")]
    # A sequence's rest, which waits for its end however late, cut short by another key's
    # ESC is dropped as its start would be (its 1 and 5 switched tabs); a reply's start
    # is never keys (its ? opened the help).
    pause = SEQUENCE_WAIT + 0.1
    assert tokens_read_apart("\x1b[", "1;5", "\x1b[A", pause=pause) == [*typed, ("key", "up")]
    assert tokens_read_apart("\x1b[", "?62;22", "\x1b[A", pause=pause) == [*typed, ("key", "up")]
    assert tokens_read_apart("\x1b[", "4;5", "j", pause=pause) == [*typed, ("key", "j")]
    parser = XTermParser()  # a sequence no terminal sends, ended within half a second
    parsed = read_apart(parser, clock, "\x1b[", pause=pause)
    assert found_in([*parsed, *read_apart(parser, clock, "4;5", "A", pause=0.1)]) == typed
    # A reply's marker read alone is a key typed (it was dropped: the help did not open).
    assert tokens_read_apart("\x1b[", "?", pause=pause) == [*typed, ("key", "question_mark")]


def test_a_paste_never_ended_is_a_paste_and_keys_act_again(
    tokens_read_apart: Callable[..., list[tuple[str, str]]], clock: ParserClock
) -> None:
    # Its end marker lost, every key after it went into the paste for good: q, ctrl+q and
    # escape did nothing. Once it has stalled and then had no byte for PASTE_OPEN, keys
    # act again.
    assert tokens_read_apart("\x1b[200~hello", "q", pause=PASTE_OPEN + 0.1) == [
        ("paste", "hello"),
        ("key", "q"),
    ]
    assert tokens_read_apart("\x1b[200~hel\x1b[20", "q", pause=PASTE_OPEN + 0.1) == [
        ("paste", "hel"),
        ("paste", "\u241b[20"),
        ("key", "q"),
    ]
    # A key typed within it is pasted (no key of a paste's rest acts)...
    assert tokens_read_apart("\x1b[200~hello", "q", pause=PASTE_WAIT + 0.5) == [
        ("paste", "hello"),
        ("paste", "q"),
    ]
    # ... and keys typed on, a second apart, keep it open PASTE_OPEN_MOST after it
    # stalled, no longer.
    parser = XTermParser()
    stalled = clock.now + PASTE_WAIT
    parsed = read_apart(parser, clock, "\x1b[200~hello", pause=PASTE_WAIT + 0.5)
    typed: list[str] = []
    while clock.now < stalled + PASTE_OPEN_MOST + 5:
        typed.append("x" if clock.now < stalled + PASTE_OPEN_MOST else "y")
        parsed += read_apart(parser, clock, typed[-1], pause=1.0)
    assert found_in(parsed) == [
        ("paste", "hello"),
        ("paste", "x" * typed.count("x")),
        *[("key", "y")] * typed.count("y"),
    ]


def test_a_paste_whose_bytes_keep_coming_is_one_paste(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    assert tokens_read_apart("\x1b[200~he", "l", "lo", "\x1b[201~", pause=0.8) == [
        ("paste", "hello")
    ]


@pytest.mark.parametrize("stall", [PASTE_WAIT + 0.5, PASTE_OPEN - 1])
def test_a_paste_whose_bytes_stall_is_text_up_to_its_end_marker_never_keys(
    stall: float, clock: ParserClock
) -> None:
    # An SSH link that paused mid-paste for more than 2 s: the paste was ended there, and
    # its rest read as keys: on the table "d" asked to delete, "r" reloaded, "q" quit.
    parser = XTermParser()
    parsed = read_apart(parser, clock, "\x1b[200~see the ", pause=stall)
    parsed += read_apart(parser, clock, "docs, r", pause=stall)
    parsed += read_apart(parser, clock, "d q\x1b[20", pause=0.3)
    parsed += read_apart(parser, clock, "1~j", pause=0.3)
    assert found_in([*parsed, *parser.feed("")]) == [
        ("paste", "see the "),
        ("paste", "docs, r"),
        ("paste", "d q"),
        ("key", "j"),
    ]


def test_a_paste_is_given_in_parts_of_a_bounded_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual's parser held a paste whole (a list of its characters) until its end.
    from tokensales_tui.ui import pastes

    monkeypatch.setattr(pastes, "PASTE_PART", 8)
    text = "abcdefghijklmnopq\x1brstu"
    for reads in (
        ["\x1b[200~" + text + "\x1b[201~"],
        ["\x1b[200~abc", "defghijk", "lmnopq\x1brstu\x1b[201~"],
        ["\x1b[200~abcdefgh", "ijklmnop", "q\x1brstu\x1b[201~"],
    ):
        found = tokens_of(*reads)
        assert [len(pasted) for _, pasted in found] == [8, 8, 6]
        assert "".join(pasted for _, pasted in found) == text.replace("\x1b", "\u241b")


@pytest.mark.parametrize(
    "reads",
    [
        ["\x1b[1;5", "A"],
        ["\x1b[1", ";5A"],
        ["\x1b[", "1;5A"],
        ["\x1b[", "1;5", "A"],
        ["\x1b", "[1;5A"],
        ["\x9b1;5", "A"],
        ["\x9b", "1;5", "A"],
    ],
)
@pytest.mark.parametrize("pause", [0.05, 0.6, 3.0])
def test_a_key_cut_between_reads_is_that_key_however_late_its_rest_comes(
    reads: list[str], pause: float, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # ESC [ held half a second went out as escape and [, and the rest that came later as
    # keys: "1;5A", the 1 switching to the first tab.
    found = tokens_read_apart(*reads, pause=pause)
    assert found[-1] == ("key", "ctrl+up")
    assert set(found[:-1]) <= {("key", "escape"), ("key", "left_square_bracket")}


@pytest.mark.parametrize(
    "start", ["\x1b[1;5", "\x1b[2", "\x1b[20", "\x1b[<35;4", "\x9b1;5", "\x9b"]
)
def test_a_key_typed_after_a_start_whose_rest_never_came_is_that_key(
    start: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # "j" typed after ESC [ 1 ; 5 (a ctrl+arrow cut short) ended that sequence, one no key
    # has, and was dropped with it: held until the next read, the start took any final byte.
    assert tokens_read_apart(start, "j", pause=0.6) == [("key", "j")]
    assert tokens_read_apart(start, "jk", pause=0.6) == [("key", "j"), ("key", "k")]
    # Cut short by another key: the start is dropped, never keys (its 1 and 5 switched
    # tabs, and its escape was read as "^").
    assert tokens_read_apart(start, "\x1b[A", pause=0.6) == [("key", "up")]
    assert tokens_read_apart(start + "\x1b[A", pause=0.6) == [("key", "up")]
    # Its rest coming soon after is still the sequence it was: no key (a mouse report's
    # start is dropped alone, as ever).
    if start not in ("\x9b", "\x1b[<35;4"):
        assert tokens_read_apart(start, "j", pause=0.05) == []


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("\x9b1;5A", [("key", "ctrl+up")]),  # it was shift+escape, then 1 ; 5 A
        ("\x9bA", [("key", "up")]),
        ("\x9b117;5u", [("key", "ctrl+u")]),
        ("\x8fP", [("key", "f1")]),  # SS3 P
        ("\x9b?62;22;52c", []),  # DA1 with an 8-bit CSI: it opened the help
        ("\x9b>0;95;0c", []),
        ("\x9d52;c;Zm9vIHEgYmFy\x07", []),  # an OSC: its text typed
        ("\x9d11;rgb:0000/0000/0000\x9c", []),
        ("\x9d11;rgb:0000/0000/0000\x1b\\", []),
        ("\x90>|xterm(388)\x9c", []),  # a DCS
        ("\x9fGi=1;OK\x9c", []),  # an APC
        ("\x9eprivate\x9c", []),
        ("\x98string\x9c", []),
        ("\x9c", []),  # a lone ST, and every other C1 control: no key
        ("\x85", []),
        ("\x8e", []),
        ("\x9b\x1b", [("key", "escape")]),  # an introducer that begins nothing
        ("\x9b1;5\r", [("key", "enter")]),
        ("\x8f1", []),
        ("\x9b200~2d\x1bq\x9b201~", [("paste", "2d\u241bq")]),  # an 8-bit paste
    ],
)
def test_an_8_bit_control_is_read_as_its_7_bit_form_never_typed(
    sent: str, expected: list[tuple[str, str]]
) -> None:
    assert tokens_of("j" + sent + "k") == [("key", "j"), *expected, ("key", "k")]


def test_an_8_bit_control_inside_a_paste_is_text_and_ends_nothing() -> None:
    # CSI 201 ~ in its 8-bit form inside a paste would end it, and what follows act.
    assert tokens_of("\x1b[200~a\x9b201~q\x9d0;x\x07\x1b[201~k") == [
        ("paste", "a\u241b[201~q\u241b]0;x\x07"),
        ("key", "k"),
    ]


@pytest.mark.parametrize(
    "reply", ["\x9b?62;22;52c", "\x9d11;rgb:0000/0000/0000\x9c", "\x90>|xterm(388)\x9c", "\x9b1;5A"]
)
def test_an_8_bit_sequence_cut_anywhere_between_reads_is_no_keys(
    reply: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    expected = tokens_of("j" + reply + "k")
    for cut in range(1, len(reply)):
        for pause in (0.0, 0.15, 0.6, STRING_OPEN - 0.2):
            sent = ("j" + reply[:cut], reply[cut:] + "k")
            assert tokens_read_apart(*sent, pause=pause) == expected, (cut, pause)


_NUMBER = st.integers(0, 2**70).map(str) | st.just("")
_PARAMETERS = st.lists(
    st.lists(_NUMBER, min_size=1, max_size=3).map(":".join), min_size=1, max_size=4
).map(";".join)
# Sequences no key is made of, by the grammar of each: CSI replies with a private marker
# or a final no key has, and strings up to BEL or ST.
_NOT_KEYS = st.one_of(
    st.builds(
        lambda csi, marker, parameters, final: f"{csi}{marker}{parameters}{final}",
        st.sampled_from(["\x1b[", "\x9b"]),
        st.sampled_from("?>="),
        _PARAMETERS,
        st.sampled_from("cnRStuyx"),
    ),
    st.builds(lambda parameters: f"\x1b[{parameters}t", _PARAMETERS).filter(
        lambda sequence: not sequence.startswith("\x1b[48;")
    ),
    st.builds(
        lambda start, body, end: f"{start}{body}{end}",
        st.sampled_from(["\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX", *"\x9d\x90\x9f\x9e\x98"]),
        st.text(st.characters(codec="utf-8", exclude_characters="\x07\x1b\x9c"), max_size=40),
        st.sampled_from(["\x07", "\x1b\\", "\x9c"]),
    ),
)
_KEYS = st.sampled_from(
    [("j", [("j", "j")]), ("\x1b[A", [("up", None)]), ("\x1b[117;5u", [("ctrl+u", None)])]
)


@given(
    st.lists(st.tuples(st.booleans(), _KEYS, _NOT_KEYS), max_size=6),
    st.lists(st.integers(0, 400), max_size=5),
)
def test_no_key_ever_comes_from_inside_a_sequence_that_is_none_however_the_reads_cut_it(
    parts: list[tuple[bool, tuple[str, list[tuple[str, str | None]]], str]], cuts: list[int]
) -> None:
    sent = "".join(sequence if is_key else other for is_key, (sequence, _), other in parts)
    expected = [key for is_key, (_, keys), _ in parts if is_key for key in keys]
    assert keys_read(*cut_at(sent, cuts)) == expected


@given(
    st.lists(
        st.sampled_from(["\x1b", "[", "]", "P", ";", ":", "?", ">", "<", "u", "~", "A", "M"])
        | _NUMBER
        | st.sampled_from(["\x07", "\\", "$", "a", "\x9c", "200~", "201~", "\x9b", "\x8f", "\x9d"]),
        max_size=30,
    ),
    st.lists(st.integers(0, 200), max_size=5),
)
def test_no_bytes_of_control_sequences_cut_anywhere_end_the_parser(
    pieces: list[str], cuts: list[int]
) -> None:
    keys_read(*cut_at("".join(pieces), cuts))


def cut_at(sent: str, cuts: list[int]) -> list[str]:
    """``sent`` as reads cut at ``cuts``."""
    at = sorted({min(cut, len(sent)) for cut in cuts} | {0, len(sent)})
    return [sent[start:end] for start, end in itertools.pairwise(at)]


# Strings a terminal sends, in either form, up to BEL or either ST; their bodies hold no
# introducer's letter, which may go out as a key typed with its escape.
_STRINGS = st.builds(
    lambda start, body, end: f"{start}{body}{end}",
    st.sampled_from(["\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX", *"\x9d\x90\x9f\x9e\x98"]),
    st.text(st.characters(codec="utf-8", exclude_characters="\x07\x1b\x9c]P_^X"), max_size=30),
    st.sampled_from(["\x07", "\x1b\\", "\x9c"]),
)
_TYPED = st.sampled_from(["j", "1", "d", "q", "r", " ", "\r"])
_SHORT_PAUSE = st.sampled_from([0.0, 0.05, 0.3, SEQUENCE_WAIT + 0.1])


_OSC_11 = (False, "", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\")


@settings(deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), _TYPED, _STRINGS), min_size=1, max_size=4),
    st.lists(st.tuples(st.floats(0, 1), _SHORT_PAUSE), max_size=3),
    st.none() | st.tuples(st.floats(0, 1), st.sampled_from([STRING_OPEN + 0.5, 30.0])),
)
@example([_OSC_11, (True, "1", "")], [(2 / 28, 0.6), (0.5, 0.6)], None)
@example([_OSC_11, (True, "d", "")], [(0.25, 0.3)], (0.5, 30.0))
@example([(False, "", "\x1b]0\x07")], [(0.0, 0.3), (0.25, 0.3), (0.5, 0.3)], None)
def test_no_key_ever_comes_from_inside_a_string_however_late_its_pieces_come(
    parts: list[tuple[bool, str, str]],
    cuts: list[tuple[float, float]],
    late: tuple[float, float] | None,
) -> None:
    # Reads cut anywhere (at a fraction of what is sent), a short pause after each (the
    # rest of a string comes within STRING_OPEN of its start), and at most one pause
    # past it, after which the rest comes in one read. An ESC that ended a read longer
    # than the escape key waits went out as escape, and a read of one character after
    # it is a key typed (escape, ], 1: no terminal tells the one from the other): the
    # letter after such an ESC comes with more.
    from textual import _parser

    sent = "".join(key if is_key else string for is_key, key, string in parts)
    pauses = {round(cut * len(sent)): pause for cut, pause in cuts}
    if late is not None:
        pauses[max([round(late[0] * len(sent)), *pauses])] = late[1]
    for cut, pause in list(pauses.items()):
        if sent[cut - 1 : cut] == "\x1b" and pause >= constants.ESCAPE_DELAY:
            pauses.pop(cut + 1, None)
    at = sorted({min(cut, len(sent)) for cut in pauses} | {0, len(sent)})
    clock = ParserClock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_parser, "get_time", clock)
        read_escape_apart()
        parser = XTermParser()
        parsed: list[object] = []
        for start, end in itertools.pairwise(at):
            parsed += read_apart(parser, clock, sent[start:end], pause=pauses.get(end, 0.0))
        parsed += parser.feed("")
    # An escape (cut from its string's letter, or ST cut between its two bytes) and the
    # introducer typed alone are what such a cut makes of them: anything else is a key.
    allowed = {"escape", *(keys_read(letter)[0][0] for letter in "]P_^X")}
    found = [token for token in found_in(parsed) if token[1] not in allowed]
    assert found == [("key", keys_read(key)[0][0]) for is_key, key, _ in parts if is_key]


@pytest.mark.parametrize("key", ["P", "X", "]", "_", "^", "["])
def test_a_key_typed_after_the_escape_key_is_that_key_however_late(
    key: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # Escape, then P: the escape, held once it had gone out, took the P as a DCS string's
    # start, and every key for two seconds after went into it (the P too); "[" began a
    # CSI that held each key typed after it for half a second.
    typed = [("key", "escape"), ("key", keys_read(key)[0][0]), ("key", "2")]
    for pause in (0.3, 1.0, 10.0):
        assert tokens_read_apart("\x1b", key, "2", pause=pause) == typed


def test_a_reply_s_marker_typed_after_escape_and_a_bracket_is_a_key(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    # The ? was dropped as a reply's start (the help did not open), and keys after it lost.
    expected = [("key", "escape"), ("key", "left_square_bracket"), ("key", "question_mark")]
    assert tokens_read_apart("\x1b", "[", "?", "2", pause=0.3) == [*expected, ("key", "2")]
    assert tokens_read_apart("\x1b[", "?", "2", pause=SEQUENCE_WAIT + 0.1) == [
        *expected,
        ("key", "2"),
    ]


def test_keys_typed_slowly_after_escape_come_at_once(clock: ParserClock) -> None:
    # Fake clock: (0, ESC) (0.3, P) (0.5, a) (0.7, b) (1.0, c) gave only the escape.
    parser = XTermParser()
    parsed: list[object] = []
    for at, data in [(0, "\x1b"), (0.3, "P"), (0.5, "a"), (0.7, "b"), (1.0, "c")]:
        while clock.now < at - 1e-9:
            clock.now += 0.02
            parsed += parser.tick()
        parsed += parser.feed(data)
    assert found_in(parsed) == [("key", key) for key in ["escape", "P", "a", "b", "c"]]


@pytest.mark.parametrize(
    ("start", "key"),
    [("\x1b[?62;22", "j"), ("\x1b[>0;95", "c"), ("\x1b[?62;22", "c"), ("\x9b?62;22", "j")],
)
def test_a_key_typed_long_after_a_reply_s_start_cut_off_is_that_key(
    start: str, key: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # Held until the next read, the reply's start took the key as its final byte: lost.
    for pause in (SEQUENCE_WAIT + 0.1, 10.0):
        assert tokens_read_apart(start, key, pause=pause) == [("key", key)]


def test_digits_typed_after_a_key_s_start_cut_off_are_keys(
    tokens_read_apart: Callable[..., list[tuple[str, str]]],
) -> None:
    # ESC [ 1 ; 5 held until a final byte took every digit typed after it, however late.
    found = tokens_read_apart("\x1b[1;5", "2", "3", "j", pause=SEQUENCE_WAIT + 0.1)
    assert found == [("key", "2"), ("key", "3"), ("key", "j")]


@pytest.mark.parametrize("start", ["\x8f", "\x9b"])
def test_a_lone_8_bit_introducer_waits_no_longer_than_escape_and_a_bracket(
    start: str, tokens_read_apart: Callable[..., list[tuple[str, str]]]
) -> None:
    # SS3 held until the next read made a "j" typed 10 s on keypad "*" (SS3 j).
    assert tokens_read_apart(start, "j", pause=10.0) == [("key", "j")]
    assert tokens_read_apart(start, "A", pause=SEQUENCE_WAIT + 0.1) == [("key", "A")]
    assert tokens_read_apart(start, "j", "k", pause=1.0) == [("key", "j"), ("key", "k")]


def test_a_held_start_is_bounded_in_size(clock: ParserClock) -> None:
    # A CSI's parameter bytes without end grew the start held, and each read re-read it.
    from tokensales_tui.ui import escape_keys

    parser = XTermParser()
    parsed = [*parser.feed("\x1b[1")]
    for _ in range(200):
        parsed += parser.feed("2;" * 50)
        held = escape_keys._cut_of(parser).start
        assert len(held) <= 80
    # Its bytes are no keys up to its end, and keys after it act.
    parsed += parser.feed("Aj")
    assert found_in([*parsed, *parser.feed("")]) == [("key", "j")]


def test_a_held_start_is_bounded_in_time(clock: ParserClock) -> None:
    # Held until the next read, however late: a start no key sends, or an escape gone out.
    from tokensales_tui.ui import escape_keys

    parser = XTermParser()
    read_apart(parser, clock, "\x1b[20", pause=escape_keys.START_HELD_MOST + 0.1)
    assert escape_keys._cut_of(parser).start == ""
    read_apart(parser, clock, "\x1b", pause=escape_keys.START_HELD_MOST + 0.1)
    assert escape_keys._cut_of(parser).start == ""


_PRINTABLE = st.characters(codec="ascii", categories=["L", "N", "P", "S", "Zs"])


@settings(deadline=None)
@given(
    st.lists(st.tuples(_PRINTABLE | st.just("\x1b"), st.floats(0.12, 0.6)), min_size=1, max_size=8)
)
@example([("\x1b", 0.3), ("P", 0.2), ("a", 0.2), ("b", 0.3), ("c", 0.3)])
@example([("\x1b", 1.0), ("[", 1.0), ("?", 0.5), ("4", 0.5)])
def test_keys_typed_one_per_read_are_never_lost_nor_held(typed: list[tuple[str, float]]) -> None:
    # Each key typed (the escape key, any printable one) a read of its own, 0.12 s to
    # 0.6 s apart: each comes within 0.15 s of its read, in order.
    from textual import _parser

    clock = ParserClock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_parser, "get_time", clock)
        read_escape_apart()
        parser = XTermParser()
        expected = [("key", "escape" if k == "\x1b" else keys_read(k)[0][0]) for k, _ in typed]
        found: list[tuple[str, str]] = []
        for count, (key, pause) in enumerate(typed, 1):
            found += found_in([*parser.feed(key)])
            for _ in range(round(0.15 / 0.02)):
                clock.now += 0.02
                found += found_in([*parser.tick()])
            assert found == expected[:count]
            clock.now += pause - 0.15
            found += found_in([*parser.tick()])
