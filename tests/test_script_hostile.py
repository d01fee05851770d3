"""The scripting commands against what a hostile server, a careless file and an impatient
user give them: what reaches a terminal is cleaned, bad input sends nothing and exits 2,
and nothing ends in a traceback. Subprocesses against the emulator on 127.0.0.1, HOME
and XDG isolated, as in ``test_script.py``."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from tokensales_tui import cli
from tokensales_tui.api.client import PAYOUT_UNKNOWN_ADVICE
from tokensales_tui.api.endpoints import check_path
from tokensales_tui.api.errors import OutcomeUnknownError
from tokensales_tui.console import TerminalGate
from tokensales_tui.payouts import MAX_RECORD_BYTES, record_path
from tokensales_tui.script import main as script
from tokensales_tui.script import reads, run
from tokensales_tui.script.output import Printer
from tokensales_tui.script.run import UsageError, message_of
from tokensales_tui.session import Session

from .apifakes import FakeServer, connection
from .test_script import Served, serve_emulator

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\u009b31m\u202egnp"


@pytest.fixture
def served() -> Iterator[Served]:
    yield from serve_emulator(items=12)


@pytest.fixture
def long_list() -> Iterator[Served]:
    """Items enough for a body past the client's in-memory size (256 KB) and a list that
    arrives in several batches."""
    yield from serve_emulator(items=3000)


@pytest.fixture
def hostile() -> Iterator[Served]:
    """Every string hostile; no answer replaced by a hostile one (so every list arrives)."""
    for served in serve_emulator(items=12, faults=["hostile"]):
        served.emulator.injector.rate = 0.0
        yield served


def on_terminal(served: Served, *args: str | bytes) -> tuple[int, bytes]:
    """``tokensales-tui ARGS`` with stdout and stderr on a terminal: its exit code and every
    byte the terminal received."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=served.env,
    )
    os.close(follower)
    received = bytearray()
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, "the command printed nothing for 60 s"
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the command ended and the terminal closed
                break
            if not chunk:
                break
            received += chunk
        return process.wait(60), bytes(received)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()


def assert_no_terminal_controls(shown: bytes) -> None:
    text = shown.decode("utf-8", "replace")
    assert "\x1b" not in text and "\x9b" not in text and "\u202e" not in text, text


# --- what reaches a terminal ----------------------------------------------------------------


def test_text_written_to_a_terminal_passes_the_gate_even_split_between_writes() -> None:
    target = io.BytesIO()
    gate = TerminalGate(target)
    # Half a C1 CSI (0xC2 0x9B) in one write, the rest in the next.
    for part in (b"a\xc2", b"\x9bb\x1b[2J\n", "\u202e\t\n".encode(), b"\xff\n"):
        assert gate.write(part) == len(part)
    assert target.getvalue().decode() == "a\ufffdb\u241b[2J\n\ufffd\t\n\ufffd\n"


INVISIBLE = "\u200b\u200d\ufeff\u200e\u2060\u00ad"
"""ZWSP, ZWJ, BOM, LRM, word joiner, soft hyphen: a terminal shows none of them."""


def test_zero_width_and_format_characters_reach_a_terminal_as_marks() -> None:
    target = io.BytesIO()
    gate = TerminalGate(target)
    text = f"itm_{INVISIBLE}1 \u2028 🇫🇷 👍🏽 का\n"
    gate.write(text.encode())
    # Marks only where nothing shows: a flag, a skin tone and a vowel sign stay.
    assert target.getvalue().decode() == "itm_⸱⸱⸱⸱⸱⸱1 ⸱ 🇫🇷 👍🏽 का\n"


def test_a_servers_error_quoting_zero_width_characters_shows_them_on_a_terminal(
    served: Served,
) -> None:
    # The 404's message quotes the id asked for; its ZWSP, ZWJ and BOM reached the
    # terminal as they were, where they show as nothing at all.
    wanted = f"itm_{INVISIBLE}x"
    code, shown = on_terminal(served, "get", "items", wanted)
    said = shown.decode()
    assert code == 4 and "not found (item itm_⸱⸱⸱⸱⸱⸱x not found)" in said, said
    assert not any(character in said for character in INVISIBLE)
    piped = served.run("get", "items", wanted)  # not a terminal: as the server said it
    assert f"item {wanted} not found" in piped.stderr.decode()


def test_words_a_command_prints_unchecked_reach_a_terminal_cleaned(served: Served) -> None:
    # A jq program's halt_error message goes to stderr as it is, as jq prints it: on a
    # terminal the gate, not the command, keeps its escapes from driving it.
    program = f"{json.dumps(HOSTILE)} | halt_error(1)"
    code, shown = on_terminal(served, "get", "webhooks", "--jq", program)
    assert code == 1 and b"PWNED" in shown
    assert_no_terminal_controls(shown)
    # The profile's name, in the table and in the line above it.
    code, shown = on_terminal(served, "profiles", "--profile", HOSTILE)
    assert code == 0 and shown.count(b"PWNED") == 2
    assert_no_terminal_controls(shown)


def test_a_hostile_servers_lists_reach_a_terminal_cleaned_and_json_intact(
    hostile: Served,
) -> None:
    # Its strings hold escapes, markup and lone surrogates (read as U+FFFD).
    for kind in ("webhooks", "items", "assets", "collections"):
        code, shown = on_terminal(hostile, "get", kind, "-o", "table")
        assert code == 0, shown[-500:]
        assert_no_terminal_controls(shown)
        piped = hostile.run("get", kind, "-o", "jsonl")
        assert piped.returncode == 0, piped.stderr[-500:]
        rows = [json.loads(line) for line in piped.stdout.splitlines()]
        assert rows and all(isinstance(row, dict) for row in rows)


def test_data_formats_reach_a_terminal_cleaned_by_its_gate(served: Served) -> None:
    # CSV and jq's strings leave the printer as they are (a pipe gets them exactly).
    next(iter(served.emulator.items.values()))["note"] = HOSTILE
    for args in (("--jq", ".[0].note"), ("-o", "csv", "--fields", "id,note")):
        code, shown = on_terminal(served, "get", "items", *args)
        assert code == 0 and b"PWNED" in shown, shown[-500:]
        assert_no_terminal_controls(shown)


# --- bodies and pipes -----------------------------------------------------------------------


def test_api_prints_an_answer_larger_than_the_client_keeps_in_memory(long_list: Served) -> None:
    result = long_list.run("api", "GET", "/v1/items")
    assert result.returncode == 0, result.stderr[-500:]
    assert len(result.stdout) > 256 * 1024
    answer = json.loads(result.stdout)
    items = answer if isinstance(answer, list) else next(iter(answer.values()))
    assert len(items) == 3000


def test_api_prints_an_answer_that_is_not_json_as_it_came(served: Served) -> None:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    body = "line1\r\nline2 \u202bשלום\u202c \x1b[1mbold ".encode() + b"\xff"

    async def plain(request: Request) -> Response:
        return Response(body, media_type="text/plain")

    served.server.app.router.routes.insert(0, Route("/v1/plain", plain))
    result = served.run("api", "GET", "/v1/plain")
    assert (result.returncode, result.stdout) == (0, body)  # cleaned and given a "\n" before
    code, shown = on_terminal(served, "api", "GET", "/v1/plain")
    assert code == 0 and shown.endswith("bold \ufffd\r\n".encode())  # the pty's line end
    assert_no_terminal_controls(shown)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_a_reader_that_stops_early_ends_a_long_list_quietly(long_list: Served, fmt: str) -> None:
    command = f"{shlex.quote(sys.executable)} -m tokensales_tui get items -o {fmt} | head -n 1"
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        capture_output=True,
        env=long_list.env,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert len(result.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ("api", "POST", "/v1/platform-webhooks", "--input", "{body}"),
        (
            "create",
            "webhook",
            "--url",
            "https://a.example/h",
            "--event",
            "x",
            "--secret-file",
            "{secret}",
        ),
    ],
)
def test_a_server_that_quotes_the_body_it_was_sent_shows_its_secrets_masked(
    args: tuple[str, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    secret, nested = "TOPSECRET_12345", "nested-S3CRET"
    files = {"body": tmp_path / "body.json", "secret": tmp_path / "secret.txt"}
    files["body"].write_text(
        json.dumps(
            {
                "url": "https://a.example/h",
                "events": ["x"],
                "secret": secret,
                "o": {"apiSecret": nested},
            }
        )
    )
    files["secret"].write_text(secret)

    def quoting(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"message": f"refused {request.content.decode()}"})

    server = FakeServer({("POST", "/v1/platform-webhooks"): quoting})
    session = Session(
        "staging", connection(), read_only=False, transport=httpx.MockTransport(server.handle)
    )
    monkeypatch.setattr(run, "open_session", lambda _args: (session, {}))
    argv = [arg.format(**files) for arg in args]
    assert script.main(cli.build_parser().parse_args(argv)) == 2
    shown = capsys.readouterr().err
    assert "refused" in shown and server.count("POST", "/v1/platform-webhooks") == 1
    assert secret not in shown and nested not in shown
    assert shown.count("********") == (2 if "api" in args else 1)


WRITING_COMMANDS = [
    ("get", "items", "-o", "jsonl"),
    ("get", "item", "ITEM"),
    ("get", "webhooks", "--jq", ".[]"),
    ("token",),
    ("api", "GET", "/v1/items"),
    ("profiles",),
    ("completion", "bash"),
    ("emulator", "trigger", "item.sold"),
    ("get", "--help"),
]


def _with_an_item(served: Served, args: tuple[str, ...]) -> list[str]:
    return [next(iter(served.emulator.items)) if word == "ITEM" else word for word in args]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", WRITING_COMMANDS, ids=" ".join)
def test_output_to_a_full_disk_ends_in_one_line_and_exit_1(
    served: Served, args: tuple[str, ...]
) -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "tokensales_tui", *_with_an_item(served, args)],
            stdout=full,
            stderr=subprocess.PIPE,
            env=served.env,
            timeout=60,
            check=False,
        )
    # The line is the same for every command: no token, no data in it.
    assert (result.returncode, result.stderr) == (
        1,
        b"tokensales-tui: cannot write the output: No space left on device\n",
    )


@pytest.mark.parametrize("args", WRITING_COMMANDS, ids=" ".join)
def test_output_to_a_closed_stdout_ends_in_one_line_and_exit_1(
    served: Served, args: tuple[str, ...]
) -> None:
    words = [sys.executable, "-m", "tokensales_tui", *_with_an_item(served, args)]
    result = subprocess.run(
        ["bash", "-c", " ".join(map(shlex.quote, words)) + " >&-"],
        capture_output=True,
        env=served.env,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stderr) == (
        1,
        b"tokensales-tui: cannot write the output: stdout is closed\n",
    )


def test_a_damaged_payout_record_leaves_the_items_payouts_listed(served: Served) -> None:
    path = record_path("default", served.server.url)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe{")
    result = served.run("get", "payouts", "-o", "jsonl")
    assert result.returncode == 0, result.stderr
    assert b"warning: the payout definitions added from here are left out" in result.stderr
    assert result.stdout.splitlines() and b"Traceback" not in result.stderr
    assert path.read_bytes() == b"\xff\xfe{"  # never overwritten


# --- input that cannot be used: exit 2, nothing sent ---------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("delete", "webhook", "wh_1", "..", "--yes"),  # the good one is not deleted either
        ("delete", "item", "", "--yes"),
        ("delete", "collection", ".", "--dry-run"),
        ("update", "webhook", "..", "--url", "https://example.com/h"),
        ("get", "items", ".."),
        ("get", "assets", ""),
        ("api", "GET", "/v1/items/%2e%2e/x"),
    ],
)
def test_an_id_no_request_can_address_sends_nothing_and_exits_2(
    served: Served, args: tuple[str, ...]
) -> None:
    served.emulator.webhooks.setdefault("wh_1", {"id": "wh_1", "url": "https://a.example/h"})
    result = served.run(*args)
    assert result.returncode == 2, result.stderr
    assert served.changes_sent() == {} and "wh_1" in served.emulator.webhooks
    assert b"Traceback" not in result.stderr


def test_arguments_that_are_not_utf8_are_refused_or_shown_replaced(served: Served) -> None:
    def run(*args: bytes) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable.encode(), b"-m", b"tokensales_tui", *args]
        return subprocess.run(command, capture_output=True, env=served.env, timeout=60, check=False)

    result = run(b"api", b"GET", b"/v1/items/\xff")
    assert result.returncode == 2 and served.sent() == {}, result.stderr
    result = run(b"profiles", b"--profile", b"\xff")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["inUse"] == "\ufffd"


@pytest.mark.parametrize(
    "args",
    [
        ("update", "webhook", "wh_1"),
        ("create", "webhook", "--url", "https://example.com/h", "--event", "item.sold"),
    ],
)
def test_a_secret_of_white_space_only_is_empty(served: Served, args: tuple[str, ...]) -> None:
    for written in (" \t \n", "", "\n", "\r\n"):
        result = served.run(*args, "--secret-stdin", stdin=written)
        assert result.returncode == 2 and b"--secret-stdin: the secret is empty" in result.stderr
    assert served.changes_sent() == {}


SECRETS_GIVEN = [
    ("  s3cret with spaces  \n", "  s3cret with spaces  "),
    ("s3cret\r\n", "s3cret"),
    (" s3cret", " s3cret"),
    ("s3cret \n", "s3cret "),
]
"""A secret as written to stdin or a file, and the secret it is: one line ending left
out, every space its own."""


@pytest.mark.parametrize(("written", "secret"), SECRETS_GIVEN)
@pytest.mark.parametrize("source", ["--secret-stdin", "--secret-file"])
def test_a_secret_is_the_bytes_given_less_one_line_ending(
    served: Served, tmp_path: Path, source: str, written: str, secret: str
) -> None:
    # Spaces around it were stripped: the service signed with another secret than the
    # one its owner chose, and every check of a signature with the real one failed.
    where = tmp_path / "secret"
    where.write_bytes(written.encode())
    given = ["--secret-file", str(where)] if source == "--secret-file" else [source]
    url = "https://hooks.example.com/spaces"
    result = served.run(
        "create", "webhook", "--url", url, "--event", "item.sold", *given, stdin=written
    )
    assert result.returncode == 0, result.stderr
    (created,) = [w for w in served.emulator.webhooks.values() if w["url"] == url]
    assert created["secret"] == secret
    result = served.run("update", "webhook", created["id"], *given, stdin=written)
    assert result.returncode == 0, result.stderr
    # listen checks signatures with the same secret, from the same one reader.
    from tokensales_tui.cli import build_parser
    from tokensales_tui.webhooks.listen import options_from

    args = build_parser().parse_args(["listen", "--print", "--secret-file", str(where)])
    assert options_from(args).secret == secret


@pytest.mark.parametrize("written", ["s3cret\n\n", "s3cret\r"])
def test_a_secret_with_a_line_break_left_in_it_is_refused(served: Served, written: str) -> None:
    # One line ending is the file's or echo's; another is inside the secret, which
    # cannot be typed again anywhere.
    args = ("create", "webhook", "--url", "https://example.com/h", "--event", "item.sold")
    result = served.run(*args, "--secret-stdin", stdin=written)
    assert result.returncode == 2
    assert b"--secret-stdin: the secret contains a line break" in result.stderr
    assert b"s3cret" not in result.stderr
    assert served.changes_sent() == {}


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (("--secre", "hunter2"), b"--secre \xe2\x80\xa6"),
        (("--secre=hunter2",), b"--secre=\xe2\x80\xa6"),
        (("-s", "hunter2"), b"-s \xe2\x80\xa6"),
    ],
)
def test_an_option_not_understood_is_named_without_what_it_was_given(
    served: Served, given: tuple[str, ...], named: bytes
) -> None:
    result = served.run("get", "items", *given)
    assert result.returncode == 2
    assert named in result.stderr and b"hunter2" not in result.stderr
    assert served.sent() == {}


def test_a_problem_in_a_payout_file_is_named_by_the_files_key(
    served: Served, tmp_path: Path
) -> None:
    given = tmp_path / "payout.json"
    given.write_text('{"name": "  ", "type": "free"}')
    result = served.run("add", "payout", "--from-file", str(given))
    assert result.returncode == 2 and b"--from-file: name:" in result.stderr
    assert b"--name" not in result.stderr and served.changes_sent() == {}


def test_json_given_with_a_lone_surrogate_is_read_as_the_client_reads_one(
    served: Served, tmp_path: Path
) -> None:
    given = tmp_path / "payout.json"
    given.write_text('{"name": "EU \\ud800", "type": "free"}')
    result = served.run("add", "payout", "--from-file", str(given), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "EU \ufffd" in result.stdout.decode()


def test_a_value_inside_the_keymap_is_named_where_it_is(served: Served) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[keymap]\nquit = "q"\nrefresh = 5\n')
    result = served.run("get", "webhooks")
    assert result.returncode == 2
    assert b"config.toml:3:1: keymap.refresh must be text in quotes, not 5" in result.stderr


# --- --jq -----------------------------------------------------------------------------------


def test_jq_halt_error_ends_the_command_with_its_code_and_message(served: Served) -> None:
    program = 'if length > 0 then "too many\\n" | halt_error(3) else . end'
    result = served.run("get", "webhooks", "--jq", program)
    assert (result.returncode, result.stdout, result.stderr) == (3, b"", b"too many\n")
    result = served.run("get", "webhooks", "--jq", "length, halt, 1")
    assert result.returncode == 0 and result.stdout.strip().isdigit()
    result = served.run("get", "webhooks", "--jq", '.[0] | {id}, error("boom")')
    assert result.returncode == 2 and b"--jq: boom" in result.stderr
    assert json.loads(result.stdout)["id"]  # what it printed before its error


def test_jq_a_halt_cannot_be_faked_by_the_data_and_a_caught_one_given_out_still_halts(
    served: Served,
) -> None:
    # The halt marker's key has a nonce of the run: an error(...) of the data's own
    # made the command end with 0 after printing some results.
    faked = 'length, error("{\\"tokensales-tui halt\\": [0, null]}")'
    result = served.run("get", "webhooks", "--jq", faked)
    assert result.returncode == 2 and b"--jq:" in result.stderr
    for caught in ("(try halt catch .)", "(try halt catch tostring)", "[try halt catch .]"):
        result = served.run("get", "webhooks", "--jq", f"length, {caught}, 1")
        assert result.returncode == 0 and result.stdout.strip().isdigit()  # nothing after
        assert b"halt" not in result.stdout
    result = served.run("get", "webhooks", "--jq", 'try ("bye\n" | halt_error(4)) catch .')
    assert (result.returncode, result.stdout, result.stderr) == (4, b"", b"bye\n")


# --- output ---------------------------------------------------------------------------------


class StopReading(Exception):
    """What a reader that has seen enough makes the next write raise."""


class ReadsOnce(io.BytesIO):
    """A stream whose reader takes one write, then goes away."""

    def write(self, data: Any) -> int:
        if self.tell():
            raise StopReading
        return super().write(data)


def test_a_jq_program_prints_as_it_goes_and_ends_when_its_reader_stops() -> None:
    # The results were all computed and held before the first was printed:
    # `range(3000000) | head -1` took 5 s and 837 MB, `range(1e8)` never printed.
    out = ReadsOnce()
    printer = Printer("json", jq='range(100000), error("every result was computed")', stream=out)
    with pytest.raises(StopReading):  # not the program's error: it was never reached
        printer.one([])
    assert out.getvalue().startswith(b"0\n1\n2\n")


def test_ctrl_c_ends_a_jq_program_at_once_with_130(served: Served) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "get", "webhooks", "--jq", "range(1e9)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=served.env,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 20)
        assert ready, "nothing printed in 20 s"
        assert process.stdout.read1(64).startswith(b"0\n1\n")
        process.send_signal(signal.SIGINT)  # once: asyncio's handler used to wait for an await
        code = process.wait(10)
        assert process.stderr is not None
        said = process.stderr.read()
        # While it computes, the signal's default ends it (a shell reports 130); during a
        # write, the command's handler does, once the write is done.
        assert (code, said) in ((-signal.SIGINT, b""), (130, b"tokensales-tui: interrupted\n"))
    finally:
        process.kill()
        process.wait()


JQ_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM]


@pytest.mark.parametrize(
    "signum", JQ_SIGNALS, ids=[signal.Signals(signum).name for signum in JQ_SIGNALS]
)
def test_a_signal_ends_a_jq_program_inside_one_long_result(served: Served, signum: int) -> None:
    # The jq library computes a result without letting Python run a handler: ctrl+c
    # (however often), SIGTERM and SIGHUP went unheeded at 100% CPU until SIGKILL.
    program = "([range(20000)] | tostring), last(range(1e12))"  # a first line, then no end
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "get", "webhooks", "--jq", program],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=served.env,
    )
    try:
        assert process.stdout is not None
        first = b""
        while not first.endswith(b"\n"):
            ready, _, _ = select.select([process.stdout], [], [], 30)
            assert ready, "the first result was not printed in 30 s"
            chunk = process.stdout.read1(1 << 20)
            assert chunk
            first += chunk
        assert first.startswith(b"[0,1,2,")
        time.sleep(1)  # past the write of that line: into the result that never ends
        process.send_signal(signum)
        assert process.wait(10) == -signum  # the shell's 128 + n
        assert process.stdout.read() == b""
    finally:
        process.kill()
        process.wait()


def test_csv_of_assets_holds_a_sample_to_name_its_columns_then_streams() -> None:
    from tokensales_tui.script.output import COLUMN_SAMPLE

    out = io.BytesIO()
    printer = Printer("csv", kind="assets", stream=out)
    printer.rows([{"name": "A"}] * (COLUMN_SAMPLE - 1))
    assert out.getvalue() == b""  # held: the next asset may name another column
    printer.rows([{"id": "ast_1", "symbol": "S"}] * 2)
    lines = out.getvalue().decode().splitlines()
    assert lines[0] == "id,name,symbol" and len(lines) == COLUMN_SAMPLE + 2
    printer.rows([{"other": 1}])  # past the sample: a row, in the columns chosen
    printer.end()
    assert out.getvalue().decode().splitlines()[-1] == ",,"


def test_a_table_keeps_its_columns_when_an_entry_is_no_object() -> None:
    out = io.BytesIO()
    printer = Printer("table", kind="items", stream=out)
    printer.rows([msgspec.Raw(b'{"id":"a","title":"A"}'), msgspec.Raw(b'"oops"')])
    printer.rows([msgspec.Raw(b'{"id":"b","title":"B"}')])
    printer.end()
    lines = out.getvalue().decode().splitlines()
    assert lines[0].split() == ["ID", "TITLE", "PRICE", "CURRENCY", "PAYOUT.TYPE"]
    assert [line.split() for line in lines[1:]] == [["a", "A"], ["oops"], ["b", "B"]]


def test_a_number_beyond_a_float_is_printed_as_the_server_wrote_it() -> None:
    out = io.BytesIO()
    printer = Printer("jsonl", stream=out)
    printer.rows(
        [msgspec.Raw(b'{"id":"a","big":1E400,"small":-2.5e-3,"whole":12345678901234567890}')]
    )
    printer.end()
    assert (
        out.getvalue() == b'{"id":"a","big":1E400,"small":-0.0025,"whole":12345678901234567890}\n'
    )


def test_a_collections_id_is_found_under_the_keys_the_app_reads() -> None:
    out = io.BytesIO()
    printer = Printer("csv", kind="collections", stream=out)
    printer.rows(
        [msgspec.Raw(b'{"_id":"c1","name":"A"}'), msgspec.Raw(b'{"tokenId":7,"name":"B"}')]
    )
    printer.end()
    assert out.getvalue().decode().splitlines()[1:] == ["c1,A,,,", "7,B,,,"]


def test_messages_speak_to_a_shell_user() -> None:
    error = OutcomeUnknownError(
        "POST /v1/payouts/add on h: outcome unknown (no answer in time)"
        " — refresh to check before trying again"
    )
    assert "check with 'tokensales-tui get'" in message_of(error)
    assert "refresh" not in message_of(error)
    # No command lists payout definitions: a payout add says where else to look.
    payout = OutcomeUnknownError(
        "POST /v1/payouts/add on h: outcome unknown (no answer in time)",
        advice=PAYOUT_UNKNOWN_ADVICE,
    )
    assert message_of(payout).endswith(f"— {PAYOUT_UNKNOWN_ADVICE}")
    assert "tokensales-tui get" not in message_of(payout)


def test_ctrl_c_before_a_command_began_ends_it_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["get", "items"]) == 130
    assert capsys.readouterr().err == "tokensales-tui: interrupted\n"


def test_csv_cells_a_spreadsheet_would_run_get_a_quote_as_in_the_apps_export() -> None:
    from tokensales_tui.ui.export import csv_cell

    titles = ["\t=1", "\r=1", "\n=1", "=SUM(A1)", "@x", "-1,234.5", "plain"]
    out = io.BytesIO()
    printer = Printer("csv", fields=("title",), stream=out)
    printer.rows([{"title": title} for title in titles])
    printer.end()
    cells = [row[0] for row in csv.reader(io.StringIO(out.getvalue().decode(), newline=""))][1:]
    assert cells == ["'\t=1", "'\r=1", "'\n=1", "'=SUM(A1)", "'@x", "-1,234.5", "plain"]
    # The app's export flattens cells to one line first (a tab is a space, a new line
    # "↵"), so none of those starts a formula there; the same rule guards the rest.
    assert [csv_cell(title) for title in titles] == [
        " =1",
        "↵=1",
        "↵=1",
        "'=SUM(A1)",
        "'@x",
        "-1,234.5",
        "plain",
    ]


def test_get_one_item_answered_with_another_object_prints_nothing(served: Served) -> None:
    # The app's detail view warns; a script would take the other object for the one asked.
    wanted = next(iter(served.emulator.items))
    served.emulator.items[wanted]["id"] = "itm_impostor"
    result = served.run("get", "items", wanted, "-o", "json")
    assert result.returncode == 1 and result.stdout == b""
    assert b"answered with another object, ID itm_impostor; not printed" in result.stderr
    assert wanted.encode() in result.stderr


# --- api: the path by whole segments, the query as a query ----------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/v1/items?next=https://a.example/x",
        "/v1/items?q=a/../b",
        "/v1/items?filter=a//b",
        "/v1/items?q=a\\b&r=%2e%2e%2f",
        "/collections?from=/v1/",
        "/collection/c_1",
        "/v1",
    ],
)
def test_api_judges_a_query_as_a_query(target: str) -> None:
    endpoint = reads.endpoint_of("GET", target)
    assert endpoint.path == target
    check_path(endpoint)  # the sender's own check lets it go as well


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("/collectionsXYZ/admin", "under /v1/, /collections and /collection/ only"),
        ("/v1x/items", "under /v1/, /collections and /collection/ only"),
        ("/auth/getAccessToken", "under /v1/, /collections and /collection/ only"),
        ("/", "under /v1/, /collections and /collection/ only"),
        ("//evil.example/v1/items", "under /v1/, /collections and /collection/ only"),
        ("/v1/\\..\\..\\admin", "\\"),
        ("/v1/items\\x", "\\"),
        ("/v1/items/%2e%2e", "“..”"),
        ("/v1/items/.%2E/x", "“..”"),
        ("/v1/items/%2e?q=1", "“.”"),
        ("/v1/items/a%2Fb", "an encoded / or \\"),
        ("/v1/items/a%5cb", "an encoded / or \\"),
        ("/v1/items//x", "empty segment"),
        ("/v1/items/", "empty segment"),
        ("/v1/items/%ff", "cannot be sent"),
        ("/v1/platform-webhooks/wh_1/..#", "fragment"),  # sent as DELETE /v1/platform-webhooks
        ("/v1/..#", "fragment"),
        ("/v1/items#?limit=1", "fragment"),
        ("/v1/items/..;x", "dot segment followed by parameters"),
        ("/v1/items/.%3Bx", "dot segment followed by parameters"),
        ("https://evil.example/v1/items", "not a path"),
        ("/v1/items?q=a b", "not a path"),
    ],
)
def test_api_refuses_a_path_that_could_reach_another_in_one_line_about_the_path(
    target: str, words: str
) -> None:
    with pytest.raises(UsageError) as refused:
        reads.endpoint_of("GET", target)
    message = str(refused.value)
    assert message.startswith("PATH: ") and words in message, message
    assert "\n" not in message and "the id" not in message


def test_api_sends_a_query_as_written_and_nothing_outside_the_interfaces_paths(
    served: Served,
) -> None:
    for target in ("/collectionsXYZ/admin", "/v1/\\..\\..\\admin", "/v1/items/%2e%2e%2fadmin"):
        result = served.run("api", "DELETE", target)
        assert result.returncode == 2, (target, result.stderr)
        assert result.stderr.count(b"\n") == 1 and b"PATH: " in result.stderr
    assert served.sent() == {}  # not even a token request
    listed = served.run(
        "api", "GET", "/v1/items?next=https://a.example/x&q=a/../b", "--jq", ".total"
    )
    assert listed.returncode == 0 and listed.stdout == b"12\n", listed.stderr


@pytest.mark.parametrize("kind", ["damaged", "too large", "fifo", "folder", "lock folder"])
def test_add_payout_sends_nothing_while_its_record_cannot_take_it(
    served: Served, kind: str
) -> None:
    # It sent the definition, then said "warning: added, but not recorded" and exited 0.
    path = record_path("default", served.server.url)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "damaged":
        path.write_bytes(b"{")
    elif kind == "too large":
        with path.open("wb") as file:
            file.truncate(MAX_RECORD_BYTES + 1)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        cache = Path(os.environ["XDG_CACHE_HOME"]) / "tokensales-tui"
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text("")  # no lock folder can be made: fails even for root
    result = served.run("add", "payout", "--name", "X", "--type", "free")
    said = result.stderr.decode()
    assert result.returncode == 2, said
    assert said.startswith(f"tokensales-tui: the payout record {path} ")
    assert said.endswith("; nothing was sent\n") and said.count("\n") == 1
    assert served.changes_sent() == {}


def test_a_profile_on_another_service_keeps_its_own_payout_record(
    served: Served, tmp_path: Path
) -> None:
    # TOKENSALES_BASE_URL=… --profile other recorded into other.json, the record of the
    # profile's own service; a record from before stays that service's.
    from tokensales_tui import config
    from tokensales_tui.payouts import legacy_record_path

    config.config_path().parent.mkdir(parents=True)
    config.config_path().write_text(
        '[profiles.other]\nbase_url = "https://other.example.com"\napi_key = "k"\n'
    )
    legacy = legacy_record_path("other")
    legacy.parent.mkdir(parents=True)
    legacy.write_text('{"version": 1, "definitions": [{"type": "free", "name": "Old"}]}')
    result = served.run("add", "payout", "--name", "X", "--type", "free", "--profile", "other")
    assert result.returncode == 0, result.stderr
    recorded = json.loads(record_path("other", served.server.url).read_text())
    assert recorded["service"] == served.server.url
    assert [d["name"] for d in recorded["definitions"]] == ["X"]
    assert "Old" in legacy.read_text()  # the profile's own service's, kept for it
    listed = json.loads(served.run("get", "payouts", "--profile", "other").stdout)
    assert [row["name"] for row in listed if row["source"] == "added from here"] == ["X"]
