"""Ctrl+C in a command: at a question on the terminal, and while a change waits."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from .test_reliability_network import Reply, ScriptedServer
from .test_script import Served, serve_emulator


@pytest.fixture
def served() -> Iterator[Served]:
    yield from serve_emulator(items=12)


def started(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """``tokensales-tui ARGS`` with a terminal for stdin; the process and that terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", *args],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(follower)
    return process, leader


def read_until(process: subprocess.Popen[bytes], text: bytes, seconds: float = 30) -> bytes:
    """What the process wrote on stderr, up to and with ``text``."""
    assert process.stderr is not None
    seen = b""
    deadline = time.monotonic() + seconds
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0, seen
        if select.select([process.stderr], [], [], left)[0]:
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, seen
            seen += chunk
    return seen


ENDINGS = pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"]
)


@ENDINGS
def test_ctrl_c_at_the_delete_question_ends_the_command_at_once(
    signum: int, served: Served
) -> None:
    # It waited for a line: the next one typed was taken as the answer, and the
    # questions went on before "interrupted". SIGTERM and SIGHUP (the terminal closed)
    # end it as ctrl+c does, through its cleanup: their default left a secret's prompt
    # without echo.
    first, second = list(served.emulator.webhooks)[:2]
    process, terminal = started(["delete", "webhook", first, second], served.env)
    try:
        read_until(process, b"? [y/N] ")
        process.send_signal(signum)
        assert process.wait(30) == 130
        assert process.stderr is not None
        assert process.stderr.read().decode().strip() == "tokensales-tui: interrupted"
    finally:
        process.kill()
        process.wait()
        os.close(terminal)
    assert first in served.emulator.webhooks and second in served.emulator.webhooks
    assert served.changes_sent() == {}


@ENDINGS
def test_ctrl_c_while_a_delete_waits_says_its_outcome_is_unknown(signum: int) -> None:
    # It said "interrupted" alone, and the server deleted the webhook.
    with ScriptedServer() as server:
        server.routes[("DELETE", "/v1/platform-webhooks/wh_1")] = Reply(hang=True)
        env = {
            **os.environ,
            "TOKENSALES_BASE_URL": server.url,
            "TOKENSALES_API_KEY": "key",
            "TOKENSALES_API_SECRET": "secret",
        }
        process, terminal = started(["delete", "webhook", "wh_1", "wh_2", "--yes"], env)
        try:
            deadline = time.monotonic() + 30
            while not server.count("DELETE", "/v1/platform-webhooks/wh_1"):
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
            process.send_signal(signum)
            assert process.wait(30) == 130
            assert process.stderr is not None
            assert process.stderr.read().decode().splitlines() == [
                "tokensales-tui: webhook wh_1: outcome unknown — interrupted once its request"
                " was sent; check with 'tokensales-tui get'",
                "tokensales-tui: interrupted",
            ]
        finally:
            process.kill()
            process.wait()
            os.close(terminal)
        assert server.count("DELETE", "/v1/platform-webhooks/wh_2") == 0
