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
from pathlib import Path
from typing import Any

import pytest

from .test_reliability_network import Reply, ScriptedServer
from .test_script import Served, serve_emulator


@pytest.fixture
def served() -> Iterator[Served]:
    yield from serve_emulator(items=12)


def started(
    args: list[str], env: dict[str, str], *, own_session: bool = False
) -> tuple[subprocess.Popen[bytes], int]:
    """``tokensales-tui ARGS`` with a terminal for stdin; the process and that terminal.
    ``own_session``: started in a session of its own, so that no other terminal (the
    one running the tests) is its controlling one."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", *args],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=own_session,
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


SIGNALS = [
    signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGALRM
]  # fmt: skip
ENDINGS = pytest.mark.parametrize(
    "signum", SIGNALS, ids=[signal.Signals(signum).name[3:] for signum in SIGNALS]
)
"""Ctrl+C, and every other signal that would end a command: SIGQUIT, SIGUSR1, SIGALRM…
killed it on the spot, its cleanup not run (every one ends it with 128 + its number)."""


@ENDINGS
def test_ctrl_c_at_the_delete_question_ends_the_command_at_once(
    signum: int, served: Served
) -> None:
    # It waited for a line: the next one typed was taken as the answer, and the
    # questions went on before "interrupted". SIGTERM and SIGHUP (the terminal closed)
    # end it as ctrl+c does, through its cleanup, with 128 + their number: their default
    # left a secret's prompt without echo.
    first, second = list(served.emulator.webhooks)[:2]
    process, terminal = started(["delete", "webhook", first, second], served.env)
    try:
        read_until(process, b"? [y/N] ")
        process.send_signal(signum)
        assert process.wait(30) == 128 + signum
        assert process.stderr is not None
        assert process.stderr.read().decode().strip() == "tokensales-tui: interrupted"
    finally:
        process.kill()
        process.wait()
        os.close(terminal)
    assert first in served.emulator.webhooks and second in served.emulator.webhooks
    assert served.changes_sent() == {}


CTRL_D = b"\x04"

SECRET_COMMANDS = pytest.mark.parametrize(
    "command",
    [
        ["create", "webhook", "--url", "https://example.com/hook", "--event", "item.created"],
        ["update", "webhook", "wh_1"],
        ["listen", "--print", "--port", "0"],
    ],
    ids=["create", "update", "listen"],
)


@SECRET_COMMANDS
def test_ctrl_d_at_the_secret_question_says_no_secret_was_given(
    command: list[str], served: Served
) -> None:
    # It ended with an EOFError traceback, its last line on the question's.
    process, terminal = started([*command, "--secret-stdin"], served.env, own_session=True)
    try:
        read_until(process, b"(not shown): ")
        os.write(terminal, CTRL_D)
        assert process.wait(30) == 2
        assert process.stderr is not None
        assert process.stderr.read() == (
            b"\ntokensales-tui: --secret-stdin: no secret given (end of input)\n"
        )
    finally:
        process.kill()
        process.wait()
        os.close(terminal)
    assert served.changes_sent() == {}


@SECRET_COMMANDS
def test_a_signal_at_the_secret_question_ends_its_line_first(
    command: list[str], served: Served
) -> None:
    process, terminal = started([*command, "--secret-stdin"], served.env, own_session=True)
    try:
        read_until(process, b"(not shown): ")
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 128 + signal.SIGTERM
        assert process.stderr is not None
        assert process.stderr.read().startswith(b"\n")
    finally:
        process.kill()
        process.wait()
        os.close(terminal)


def test_ctrl_d_at_the_delete_question_deletes_nothing_on_a_line_of_its_own(
    served: Served,
) -> None:
    # "kept" was said on the question's line, and the next question asked.
    first, second = list(served.emulator.webhooks)[:2]
    process, terminal = started(["delete", "webhook", first, second], served.env)
    try:
        read_until(process, b"? [y/N] ")
        os.write(terminal, CTRL_D)
        assert process.wait(30) == 2
        assert process.stderr is not None
        assert process.stderr.read() == (
            b"\ntokensales-tui: delete: no answer given (end of input); nothing was deleted\n"
        )
    finally:
        process.kill()
        process.wait()
        os.close(terminal)
    assert first in served.emulator.webhooks and second in served.emulator.webhooks
    assert served.changes_sent() == {}


def test_a_secret_is_read_without_echo_and_the_echo_put_back(served: Served) -> None:
    process, terminal = started(
        ["create", "webhook", "--url", "https://example.com/hook", "--event", "item.created",
         "--secret-stdin", "--dry-run"],
        served.env,
        own_session=True,
    )  # fmt: skip
    try:
        read_until(process, b"(not shown): ")
        os.write(terminal, b"s3cret-typed\n")
        assert process.wait(30) == 0
        assert process.stdout is not None and process.stderr is not None
        assert b"********" in process.stdout.read()
        assert process.stderr.read().startswith(b"\ntokensales-tui: dry run")
        echoed = b""
        while select.select([terminal], [], [], 0.2)[0]:
            try:
                echoed += os.read(terminal, 4096)
            except OSError:  # the process is gone, and with it the terminal's other end
                break
        assert b"s3cret" not in echoed
    finally:
        process.kill()
        process.wait()
        os.close(terminal)


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
            assert process.wait(30) == 128 + signum
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


def _hanging_server(server: ScriptedServer) -> dict[str, str]:
    """``get items`` waits on ``server`` for good; the environment of a profile on it."""
    server.routes[("GET", "/v1/items")] = Reply(hang=True)
    return {
        **os.environ,
        "TOKENSALES_BASE_URL": server.url,
        "TOKENSALES_API_KEY": "key",
        "TOKENSALES_API_SECRET": "secret",
    }


def _wait_for_request(server: ScriptedServer, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not server.count("GET", "/v1/items"):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)


def test_a_signal_ignored_when_a_command_starts_stays_ignored() -> None:
    # nohup, trap '' HUP: the command took SIGHUP all the same, and the terminal closing
    # ended it. Linux hands pending signals over lowest number first: a SIGHUP or a
    # SIGUSR1 not ignored would end it before the SIGTERM sent after them.
    ignored = (signal.SIGHUP, signal.SIGUSR1)

    def ignoring() -> None:
        for signum in ignored:
            signal.signal(signum, signal.SIG_IGN)

    with ScriptedServer() as server:
        env = _hanging_server(server)
        process = subprocess.Popen(
            [sys.executable, "-m", "tokensales_tui", "get", "items"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, preexec_fn=ignoring,
        )  # fmt: skip
        try:
            _wait_for_request(server, process)
            for signum in ignored:
                process.send_signal(signum)
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 128 + signal.SIGTERM
        finally:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signum", [signal.SIGUSR1, signal.SIGQUIT], ids=["USR1", "QUIT"])
def test_a_command_waiting_for_a_lock_ends_through_its_cleanup(signum: int) -> None:
    # add payout was added, then waited for the record's lock (another process writing
    # it): SIGUSR1 killed it there, and nothing said the definition had been added. The
    # lock is now waited for before anything is sent, and the wait is said.
    import fcntl

    from tokensales_tui.files import lock_path
    from tokensales_tui.payouts import record_path

    with ScriptedServer() as server:
        server.routes[("POST", "/v1/payouts/add")] = Reply(status=201)
        env = _hanging_server(server)
        record = record_path("default", server.url)
        lock = lock_path(record)
        lock.parent.mkdir(parents=True, exist_ok=True)
        with open(lock, "wb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            process = subprocess.Popen(
                [sys.executable, "-m", "tokensales_tui", "add", "payout", "--name", "X",
                 "--type", "free"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env,
            )  # fmt: skip
            try:
                said = read_until(process, b", held by another process\n")
                process.send_signal(signum)
                assert process.wait(30) == 128 + signum
                assert process.stderr is not None
                said += process.stderr.read()
            finally:
                process.kill()
                process.wait()
        assert server.count("POST", "/v1/payouts/add") == 0
    assert said.decode().splitlines() == [
        f"tokensales-tui: waiting for the payout record's lock {lock}, held by another process",
        "tokensales-tui: interrupted",
    ]
    assert not record.exists()
    assert [path.name for path in record.parent.iterdir()] == []  # no temporary file


def _in_process(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TOKENSALES_BASE_URL", "TOKENSALES_API_KEY", "TOKENSALES_API_SECRET"):
        monkeypatch.setenv(name, served.env[name])


def test_a_signal_once_a_payout_is_answered_waits_for_its_record(
    served: Served, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SIGTERM between the service's answer and the record's write skipped the write: the
    # definition was added on the service and nowhere here, and only "added" was said.
    from tokensales_tui import cli
    from tokensales_tui.api.client import ApiClient
    from tokensales_tui.payouts import PayoutRecord

    real = ApiClient.add_payout

    async def answered_then_signalled(self: ApiClient, body: Any) -> Any:
        done = await real(self, body)
        os.kill(os.getpid(), signal.SIGTERM)  # the answer is in, the record not written
        return done

    monkeypatch.setattr(ApiClient, "add_payout", answered_then_signalled)
    _in_process(served, monkeypatch)
    assert cli.main(["add", "payout", "--name", "X", "--type", "free"]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err.splitlines() == [
        "tokensales-tui: added payout definition X (free)",
        "tokensales-tui: interrupted",
    ]
    record = PayoutRecord.for_service("default", served.server.url)
    assert [entry["name"] for entry in record.load()] == ["X"]
    assert served.changes_sent() == {("POST", "/v1/payouts/add"): 1}


def test_a_payout_added_but_not_recorded_says_so_and_exits_6(
    served: Served, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "warning: added, but not recorded" and exit 0: a script took it for done.
    import errno

    from tokensales_tui import cli, files
    from tokensales_tui.payouts import record_path

    real = os.replace

    def full_disk(source: Any, target: Any) -> None:
        if Path(target).suffix == ".json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(source, target)

    monkeypatch.setattr(files.os, "replace", full_disk)
    _in_process(served, monkeypatch)
    assert cli.main(["add", "payout", "--name", "X", "--type", "free"]) == 6
    path = record_path("default", served.server.url)
    assert capsys.readouterr().err.splitlines() == [
        "tokensales-tui: added payout definition X (free)",
        "tokensales-tui: added payout definition X, but not recorded for the Payouts tab:",
        f"tokensales-tui:   the payout record {path} could not be written: No space left on device",
    ]
    assert served.changes_sent() == {("POST", "/v1/payouts/add"): 1}
    assert not path.exists() and list(path.parent.iterdir()) == []
