"""The terminal guard (every write) and the tripwire (every test) catch foreign sequences."""

from __future__ import annotations

import base64

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

from tokensales_tui.ui.terminal import foreign_sequences, guarded_driver, neutralize

from .tripwire import Tripwire


def osc52(text: str, end: str = "\x07") -> str:
    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}{end}"


FOREIGN = [
    "\x1b]52;c;SGVsbG8=\x07",  # a clipboard write inside drawn text
    "\x1b]0;owned\x07",  # the window title
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",  # a hyperlink
    "\x1bP$q m\x1b\\",  # DCS (a status request)
    "\x1b_Gi=1;AAAA\x1b\\",  # APC (kitty graphics)
    "\x1b^private\x1b\\",  # PM
    "\x1bXstart of string\x1b\\",  # SOS
    "\x9b31m",  # a one-byte C1 CSI
    "\x9d0;title\x9c",  # C1 OSC ... C1 ST
    "\x1b]52;c;unterminated",  # swallows the rest, as a terminal would
]


@pytest.mark.parametrize("sequence", FOREIGN)
def test_the_guard_removes_every_foreign_sequence(sequence: str) -> None:
    data = f"\x1b[1;1Hbefore {sequence} after\x1b[0m"
    assert foreign_sequences(data)
    cleaned = neutralize(data)
    assert not foreign_sequences(cleaned)
    assert cleaned.startswith("\x1b[1;1Hbefore ")
    for part in ("]52", "]0;", "]8;", "\x1bP", "\x1b_", "\x1b^", "\x1bX", "\x9b", "\x9d"):
        assert part not in cleaned


@pytest.mark.parametrize(
    "own",
    [
        "\x1b[?1049h\x1b[?25l",  # Textual's mode changes
        "\x1b[38;2;10;20;30mtext\x1b[0m\x1b[12;40H",  # drawing
        osc52('{\n  "id": "x"\n}'),  # an explicit copy, alone in its write
        osc52("id", "\x1b\\"),
        "\x1b]22;pointer\x07",  # Textual's pointer shape
    ],
)
def test_the_guard_lets_our_own_sequences_through(own: str) -> None:
    assert foreign_sequences(own) == []
    assert neutralize(own) is own


@pytest.mark.parametrize("copied", ["line\x1b[2Jclear", "a\x9bb", "bell\x07"])
def test_a_copy_whose_text_holds_a_control_is_refused(copied: str) -> None:
    assert foreign_sequences(osc52(copied)) != []
    assert neutralize(osc52(copied)) == ""


def test_a_copy_inside_drawn_text_is_foreign() -> None:
    assert foreign_sequences("row " + osc52("id") + " more")


def test_a_guarded_driver_writes_only_what_the_guard_keeps() -> None:
    written: list[str] = []

    class Driver:
        def write(self, data: str) -> None:
            written.append(data)

    guarded = guarded_driver(Driver)()
    guarded.write("a\x1b]0;title\x07b")
    guarded.write("\x1b[0m")
    assert written == ["ab", "\x1b[0m"]
    assert issubclass(type(guarded), Driver)


def test_every_app_of_the_package_reads_input_that_is_not_utf8_as_u_fffd() -> None:
    # One such byte ended the app (and listen's screen) with a UnicodeDecodeError.
    from textual.drivers import linux_driver, web_driver

    from tokensales_tui.ui.listen_app import ListenApp
    from tokensales_tui.ui.safe_app import GuardedApp

    assert issubclass(ListenApp, GuardedApp)
    assert issubclass(GuardedApp().get_driver_class(), linux_driver.LinuxDriver)
    guarded_driver(web_driver.WebDriver)  # the driver of serve's tabs
    for module in (linux_driver, web_driver):
        decode = module.getincrementaldecoder("utf-8")().decode
        # A mouse report whose column came as one raw byte stays a report of 3 after M.
        assert decode(b"a\xffb\x1b[M \x84%") == "a\ufffdb\x1b[M \ufffd%"


async def test_a_crash_ends_the_app_with_status_1() -> None:
    # Textual's panic, how a failure of its input thread ends the app, left the status
    # unset: the app ended with a traceback and 0.
    from tokensales_tui.ui.safe_app import GuardedApp

    app: GuardedApp[None] = GuardedApp()
    async with app.run_test():
        app.panic("the input thread failed")
    assert app.return_code == 1


def test_a_crash_of_listens_screen_ends_listen_with_status_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from tokensales_tui import cli
    from tokensales_tui.ui import listen_app

    async def crashed(*args: object, **kwargs: object) -> object:
        return SimpleNamespace(return_code=1)

    async def signalled(*args: object, **kwargs: object) -> object:
        return SimpleNamespace(return_code=143)  # SIGTERM: as listen --print ends on it

    args = cli.build_parser().parse_args(["listen"])
    monkeypatch.setattr(listen_app, "listen_in_app", crashed)
    assert listen_app.run_listen_app(args) == 1
    monkeypatch.setattr(listen_app, "listen_in_app", signalled)
    assert listen_app.run_listen_app(args) == 143  # it was 0: a script saw a success


class Leaky(App[None]):
    """An app that draws server text without the gate: what the tripwire must catch."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(Content(self.text))  # the unsafe way, on purpose


@pytest.mark.parametrize(
    "text", ["\x1b]52;c;SGVsbG8=\x07", "\x1b[2J", "\x9b1m", "\x1b]0;title\x07"]
)
async def test_the_tripwire_catches_a_control_drawn_on_screen(
    text: str, terminal_tripwire: Tripwire
) -> None:
    async with Leaky(text).run_test() as pilot:
        await pilot.pause()
    assert terminal_tripwire.updates > 0
    assert terminal_tripwire.problems, "the tripwire missed a control character on screen"
    terminal_tripwire.problems.clear()  # caught, as it should be: not this test's failure


async def test_the_tripwire_records_an_explicit_copy(terminal_tripwire: Tripwire) -> None:
    tripwire = terminal_tripwire
    async with Leaky("plain").run_test() as pilot:
        pilot.app.copy_to_clipboard("wh_1")
        await pilot.pause()
    assert tripwire.clipboard == ["wh_1"]
    assert tripwire.problems == []
