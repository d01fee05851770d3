"""Escape and the key typed right after it, read by Textual's parser as one, are two."""

from __future__ import annotations

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.escape_keys import escape_apart, read_escape_apart

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


def tokens_read_apart(*reads: str, pause: float = 0.0) -> list[tuple[str, str]]:
    """What the app gets for the terminal's ``reads`` with ``pause`` seconds between
    them, the parser's clock ticking meanwhile as the driver has it do."""
    import time

    read_escape_apart()
    parser = XTermParser()
    parsed: list[object] = []
    for data in reads:
        parsed += parser.feed(data)
        deadline = time.monotonic() + pause
        while time.monotonic() < deadline:
            time.sleep(0.02)
            parsed += parser.tick()
    parsed += parser.feed("")
    found: list[tuple[str, str]] = []
    for token in parsed:
        if isinstance(token, events.MouseEvent):
            found.append(("mouse", f"{type(token).__name__} {token.x:.0f},{token.y:.0f}"))
        elif isinstance(token, events.Key):
            found += [("key", key.key) for key in escape_apart(token)]
    return found


@pytest.mark.parametrize(
    "reads",
    [
        ["\x1b[<35;42;12", "M"],
        ["\x1b[<35;4", "2;12M"],
        ["\x1b[<", "35;42;12M"],
        ["j\x1b[<35;42", ";12", "M"],
    ],
)
def test_a_mouse_report_cut_between_reads_is_one_report(reads: list[str]) -> None:
    # Its start waited 0.1 s in the parser, then was read as keys: the "2" went to Items
    # and the filter was cleared.
    found = tokens_read_apart(*reads, pause=0.3)
    assert [token for token in found if token != ("key", "j")] == [("mouse", "MouseMove 41,11")]


def test_a_mouse_report_cut_off_for_good_is_dropped_never_keys() -> None:
    assert tokens_read_apart("\x1b[<35;42;12", "jk", pause=0.3) == [("key", "j"), ("key", "k")]
    assert tokens_read_apart("\x1b[<35;42;12", pause=0.3) == []


def test_a_lone_escape_waits_no_longer_for_mouse_reports() -> None:
    import time

    read_escape_apart()
    parser = XTermParser()
    assert list(parser.feed("\x1b")) == []
    time.sleep(0.15)
    assert [key.key for key in parser.tick() if isinstance(key, events.Key)] == ["escape"]
