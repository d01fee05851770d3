"""A signal that ends the app while a change is under way (``ui/in_flight.py``): the app
ends at once, with the signal's status, and each change under way then is said once the
terminal is back, on stderr and in the ``--log`` file, which a terminal gone leaves to
read it in."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.emulator.server import EmulatorServer
from tokensales_tui.signals import signal_name

from .test_app_signals import LEAVE_ALTERNATE_SCREEN, OnTerminal, app_on_terminal, screen_of
from .test_reliability_network import serving

DELETE = ("DELETE", "/v1/platform-webhooks/{id}")
SIZE = (120, 40)


def said(text: str | bytes) -> str:
    """The text of ``text``, without the sequences that set the terminal's modes, its
    lines as a terminal's width wrapped them joined again."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return " ".join(re.sub(r"\x1b\[[0-9;?<>=]*[@-~]", "", text).split())


@contextlib.contextmanager
def deleting(*extra: str) -> Iterator[tuple[OnTerminal, str]]:
    """The app on a terminal, its profile this machine's emulator, deleting the first
    webhook, whose DELETE the emulator has received and never answers; and its id."""
    with serving(EmulatorServer("127.0.0.1", 0, items=5)) as server:
        env = {
            "TOKENSALES_BASE_URL": server.url,
            "TOKENSALES_API_KEY": DEMO_API_KEY,
            "TOKENSALES_API_SECRET": DEMO_API_SECRET,
        }
        with app_on_terminal(size=SIZE, demo=False, extra=extra, **env) as app:

            def shown() -> str:
                return "\n".join(screen_of(app.drawn, *SIZE))

            app.until(lambda: "10 webhooks" in shown())
            server.emulator.set_faults(["hang"])  # every request from now on is held
            os.write(app.input, b"d")
            app.until(lambda: re.search(r"id (wh_\w+) ", shown()) is not None)
            found = re.search(r"id (wh_\w+) ", shown())
            assert found is not None and "Delete this webhook?" in shown()
            os.write(app.input, b"\t\r")  # Cancel is the default: Delete
            app.until(lambda: server.emulator.counts[DELETE] == 1)
            yield app, found[1]


@pytest.mark.parametrize(
    "signum",
    [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT],
    ids=["TERM", "HUP", "INT", "QUIT"],
)
def test_a_signal_during_a_delete_ends_the_app_at_once_and_says_the_delete_after_it(
    signum: int,
) -> None:
    # The app ended with 128 + N and nothing said: whether the webhook was deleted was
    # nobody's to know.
    with deleting() as (app, target):
        app.drawn = b""
        app.process.send_signal(signum)
        assert app.ended() == 128 + signum
    after = said(app.drawn.rsplit(LEAVE_ALTERNATE_SCREEN, 1)[-1])  # the terminal put back
    assert LEAVE_ALTERNATE_SCREEN in app.drawn
    assert after.startswith(
        f"tokensales-tui ended by {signal_name(signum)} with 1 change under way:"
    )
    assert f"(DELETE /v1/platform-webhooks/{target}): outcome unknown — check it" in after


def test_a_hang_up_with_the_terminal_gone_says_the_delete_in_the_log(tmp_path: Path) -> None:
    # The pane killed, the SSH session dropped: the terminal is closed, then SIGHUP comes
    # (or the app finds its terminal gone first, which ends it as a hang-up). Nothing
    # can be read on the terminal: the log file says it, and the app still ends 129.
    log = tmp_path / "debug.log"
    with deleting("--log", str(log)) as (app, target):
        os.close(app.controller)  # the terminal gone
        app.process.send_signal(signal.SIGHUP)
        app.process.wait(60)
    assert app.process.returncode == 128 + signal.SIGHUP
    logged = said(log.read_text())
    assert "tokensales-tui ended by SIGHUP with 1 change under way:" in logged
    assert f"(DELETE /v1/platform-webhooks/{target}): outcome unknown — check it" in logged
    assert "Traceback" not in logged


@pytest.mark.parametrize(
    ("signum", "name"),
    [(signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")]
    + [(signal.SIGRTMIN + 3, "SIGRTMIN+3")] * hasattr(signal, "SIGRTMIN"),
)
def test_a_signal_is_named_as_a_person_names_it(signum: int, name: str) -> None:
    assert signal_name(signum) == name
