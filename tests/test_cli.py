"""The command line: version, help, and the standalone emulator on loopback."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tokensales_tui import __version__
from tokensales_tui.cli import build_parser, main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"tokensales-tui {__version__}"


def test_flags_parse() -> None:
    args = build_parser().parse_args(
        [
            "--profile",
            "prod",
            "--demo",
            "--read-only",
            "--base-url",
            "https://a.example",
            "--auth-url",
            "https://b.example",
            "--console-url",
            "https://c.example",
        ]
    )
    assert (args.profile, args.demo, args.read_only) == ("prod", True, True)
    assert (args.base_url, args.auth_url, args.console_url) == (
        "https://a.example",
        "https://b.example",
        "https://c.example",
    )
    emulator = build_parser().parse_args(
        [
            "emulator",
            "--port",
            "0",
            "--items",
            "5",
            "--seed",
            "3",
            "--faults",
            "slow",
            "--token-lifetime",
            "9",
        ]
    )
    assert (emulator.command, emulator.port, emulator.items, emulator.seed) == ("emulator", 0, 5, 3)


def test_python_dash_m_shows_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert "--demo" in result.stdout and "emulator" in result.stdout


def test_unknown_fault_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["emulator", "--faults", "sloww"]) == 2
    assert "unknown fault sloww" in capsys.readouterr().err


def test_emulator_prints_exports_and_serves_the_interface_on_loopback() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSALES_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "emulator", "--port", "0", "--items", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        exports: dict[str, str] = {}
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        while len(exports) < 5 and time.monotonic() < deadline:
            line = process.stdout.readline()
            if line.startswith("export "):
                name, _, value = line.removeprefix("export ").strip().partition("=")
                exports[name] = value
        assert set(exports) == {
            "TOKENSALES_BASE_URL",
            "TOKENSALES_AUTH_URL",
            "TOKENSALES_CONSOLE_URL",
            "TOKENSALES_API_KEY",
            "TOKENSALES_API_SECRET",
        }
        base = exports["TOKENSALES_BASE_URL"]
        assert base.startswith("http://127.0.0.1:")
        token = httpx.post(
            f"{exports['TOKENSALES_AUTH_URL']}/auth/getAccessToken",
            json={
                "apiKey": exports["TOKENSALES_API_KEY"],
                "apiSecret": exports["TOKENSALES_API_SECRET"],
            },
            timeout=10,
        ).json()["accessToken"]
        headers = {"Authorization": f"Bearer {token}"}
        assert (
            httpx.get(f"{base}/v1/platform-webhooks", headers=headers, timeout=10).status_code
            == 200
        )
        assert len(httpx.get(f"{base}/v1/items", headers=headers, timeout=10).json()["items"]) == 3
        assert httpx.get(f"{base}/v1/items", timeout=10).status_code == 401
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 128 + signal.SIGINT  # ctrl+c: 130, as every program


@pytest.mark.parametrize(
    "signum", [signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT], ids=["HUP", "USR1", "QUIT"]
)
def test_every_signal_that_ends_the_emulator_stops_it_as_ctrl_c_does(signum: int) -> None:
    # uvicorn took SIGINT and SIGTERM only: SIGHUP (its terminal closed), SIGUSR1 and
    # SIGQUIT killed it on the spot, a request it held never answered. Once stopped, it
    # exits with 128 + the signal's number, as every program of the package (uvicorn
    # raised the signal again, which killed the process by it).
    import concurrent.futures

    env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSALES_")}
    argv = [sys.executable, "-m", "tokensales_tui", "emulator", "--port", "0", "--faults", "hang"]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None
        line = ""
        while not line.startswith("export TOKENSALES_BASE_URL="):
            line = process.stdout.readline()
            assert line, "the emulator printed no address"
        base = line.strip().partition("=")[2]
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            held = pool.submit(httpx.get, f"{base}/v1/items", timeout=30)
            time.sleep(0.5)  # received and held (hang); an earlier signal only answers it sooner
            process.send_signal(signum)
            answer = held.result(timeout=30)
        assert (answer.status_code, answer.json()["message"]) == (
            503,
            "server is shutting down",
        )
        assert process.wait(30) == 128 + signum
    finally:
        process.kill()
        process.communicate()


@pytest.mark.parametrize("color_system", [None, "bogus"], ids=["", "bad-colour-system"])
def test_the_app_without_a_terminal_refuses_in_one_line(color_system: str | None) -> None:
    # Textual without a terminal would spin on its input forever; scripts use the commands.
    # The app was made before the check: a bad TEXTUAL_COLOR_SYSTEM was a traceback.
    env = {**os.environ}
    if color_system is not None:
        env["TEXTUAL_COLOR_SYSTEM"] = color_system
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "--demo"],
        input="\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "needs a terminal" in result.stderr


@pytest.mark.parametrize("stderr", ["file", "closed"])
@pytest.mark.parametrize("command", [[], ["listen"]], ids=["app", "listen"])
def test_the_app_with_stderr_away_from_the_terminal_refuses(
    stderr: str, command: list[str], tmp_path: Path
) -> None:
    # Textual draws on stderr: `2>log` had the whole screen written into the log, and a
    # closed stderr left an app drawing nowhere that no key could quit.
    controller, terminal = pty.openpty()
    log = tmp_path / "log"
    try:
        with log.open("wb") as file:
            result = subprocess.run(
                [sys.executable, "-m", "tokensales_tui", "--demo", *command],
                stdin=terminal,
                stdout=terminal,
                stderr=file if stderr == "file" else subprocess.DEVNULL,
                timeout=60,
                check=False,
                **({} if stderr == "file" else {"preexec_fn": lambda: os.close(2)}),
            )
    finally:
        os.close(controller)
        os.close(terminal)
    assert result.returncode == 2
    if stderr == "file":
        assert b"needs a terminal" in log.read_bytes() and b"\x1b[" not in log.read_bytes()


def test_the_scripting_commands_work_without_a_terminal() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "get", "assets", "--demo", "-o", "json"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.lstrip().startswith("[")


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.2", ""])
def test_the_emulator_refuses_an_outside_host_without_expose(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    from tokensales_tui.emulator import server

    # Were it not refused, it would end at once rather than serve (its socket never listens).
    monkeypatch.setattr(server.EmulatorServer, "run", lambda self, on_ready: None)
    assert main(["emulator", "--host", host, "--port", "0", "--items", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "demo credentials are published" in err and "add --expose" in err


@pytest.mark.parametrize(("host", "shown"), [("0.0.0.0", "127.0.0.1"), ("::", "[::1]")])
def test_an_exposed_emulator_warns_and_prints_an_address_to_open(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], host: str, shown: str
) -> None:
    """Not http://0.0.0.0:…, and a word on how other machines reach it (bound to loopback)."""
    import socket

    from tokensales_tui.emulator import server

    def bind(host: str, port: int) -> tuple[socket.socket, str]:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        return sock, f"http://{f'[{host}]' if ':' in host else host}:18598"

    monkeypatch.setattr(server, "bind", bind)

    def run(self: server.EmulatorServer, on_ready: Callable[[str], None]) -> None:
        on_ready(self.url)
        self._socket.close()

    monkeypatch.setattr(server.EmulatorServer, "run", run)
    assert main(["emulator", "--host", host, "--expose", "--items", "1"]) == 0
    out, err = capsys.readouterr()
    assert f"export TOKENSALES_BASE_URL='http://{shown}:18598'" in out or (
        f"export TOKENSALES_BASE_URL=http://{shown}:18598" in out
    )
    assert f"# From another machine: this machine's name or address in place of {shown}." in out
    assert "0.0.0.0" not in out and "[::]" not in out
    assert err.startswith("tokensales-tui: warning: --host") and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--port", "99999"], "argument --port: 99999: choose 0 (a free port) to 65535"),
        (["--port", "-1"], "argument --port: -1: choose 0"),
        (["--port", "x"], "argument --port: 'x' is not a whole number"),
        (["--token-lifetime", "nan"], "argument --token-lifetime: nan: a number of seconds from 1"),
        (["--token-lifetime", "inf"], "--token-lifetime: inf: a number of seconds"),
        (["--token-lifetime", "1e400"], "--token-lifetime: 1e400: a number of seconds"),
        (["--token-lifetime", "0"], "--token-lifetime: 0: a number of seconds"),
        (["--token-lifetime", "-1"], "--token-lifetime: -1: a number of seconds"),
        (["--token-lifetime", "1e9"], "to 31,536,000 (a year)"),
        (["--items", "1000000000"], "argument --items: 1,000,000,000: from 0 to 10,000,000"),
        (["--items", "-3"], "argument --items: -3: from 0 to 10,000,000"),
    ],
)
def test_emulator_flags_out_of_range_are_refused_at_parsing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    from tokensales_tui.emulator import server

    # Were a flag let through, the command would end at once rather than serve.
    monkeypatch.setattr(server.EmulatorServer, "run", lambda self, on_ready: self._socket.close())
    with pytest.raises(SystemExit) as exited:
        main(["emulator", "--port", "0", *flags])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


COMMANDS_THAT_READ_THE_CONFIG = {
    "get": ["get", "items"],
    "token": ["token"],
    "profiles": ["profiles"],
    "serve": ["serve", "--port", "0"],
}


@pytest.mark.parametrize("command", list(COMMANDS_THAT_READ_THE_CONFIG))
def test_a_config_file_whose_file_system_does_not_answer_ends_a_command_in_one_line(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A home on a network gone away: each command waited for its config file for good.
    from tokensales_tui import config, files

    from .hung_files import hung

    monkeypatch.setattr(files, "FILE_WAIT", 0.3)
    config.save_config(config.ConfigFile(theme="nord"))
    with hung(monkeypatch, config.config_path()):
        assert main(COMMANDS_THAT_READ_THE_CONFIG[command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{config.config_path()}: cannot read the file: its file system did not answer" in err


@pytest.mark.parametrize("command", list(COMMANDS_THAT_READ_THE_CONFIG))
def test_a_config_file_nested_too_deep_ends_a_command_in_one_line(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The TOML reader ran out of stack: a 3,000-line RecursionError traceback, exit 1.
    from tokensales_tui import config

    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x = " + b"[" * 600 + b"]" * 600 + b"\n")
    assert main(COMMANDS_THAT_READ_THE_CONFIG[command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err[-500:]
    assert f"{path}:1:604: a value nests lists or tables 600 deep" in err
