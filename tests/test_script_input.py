"""JSON given to the commands by hand (``api --input``, ``--from-file``): how deep it may
nest, and what ``--dry-run`` shows of a body sent as written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tokensales_tui.api.written import MAX_DEPTH, TooDeep, check_nesting, read_written

from .test_script import Served, serve_emulator


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    yield from serve_emulator(items=3)


def _deep(depth: int) -> bytes:
    """A webhook body with its secret given twice and a value nested ``depth`` deep."""
    return (
        b'{"url":"http://127.0.0.1:9/x","events":["item.sold"],'
        b'"secret":"AAA-first","secret":"BBB-second","deep":' + b"[" * depth + b"]" * depth + b"}"
    )


@pytest.mark.parametrize("depth", [MAX_DEPTH, 976, 977, 978, 990, 100_000])
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_body_nested_too_deeply_to_check_is_refused_in_one_line(
    served: Served, tmp_path: Path, depth: int, dry_run: bool
) -> None:
    body = tmp_path / "deep.json"
    body.write_bytes(_deep(depth))
    args = ["api", "POST", "/v1/platform-webhooks", "--input", str(body)]
    result = served.run(*args, *(["--dry-run"] if dry_run else []))
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    assert result.stderr == (
        b"tokensales-tui: --input: the body is nested too deeply to check (at most 500 levels)\n"
    )
    assert served.changes_sent() == {}


def test_a_body_as_deep_as_may_be_is_checked_whole(served: Served, tmp_path: Path) -> None:
    body = tmp_path / "deep.json"
    body.write_bytes(_deep(MAX_DEPTH - 1))  # in the object: MAX_DEPTH levels
    for extra in ([], ["--dry-run"]):
        result = served.run("api", "POST", "/v1/platform-webhooks", "--input", str(body), *extra)
        assert result.returncode == 2
        assert b"the key \xe2\x80\x9csecret\xe2\x80\x9d comes twice" in result.stderr
    assert served.changes_sent() == {}
    body.write_bytes(_deep(MAX_DEPTH - 1).replace(b'"secret":"AAA-first",', b""))
    result = served.run("api", "POST", "/v1/platform-webhooks", "--input", str(body), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert b'"secret":"********"' in result.stdout and b"BBB" not in result.stdout


def test_a_file_of_a_change_nested_too_deeply_is_refused_in_one_line(
    served: Served, tmp_path: Path
) -> None:
    payout = tmp_path / "payout.json"
    payout.write_bytes(b'{"name": "A", "type": "free", "x": ' + b"[" * 980 + b"]" * 980 + b"}")
    result = served.run("add", "payout", "--from-file", str(payout), "--dry-run")
    assert result.returncode == 2
    assert result.stderr.endswith(b"is nested too deeply to check (at most 500 levels)\n")
    assert b"Traceback" not in result.stderr


def test_nesting_is_counted_outside_strings_only() -> None:
    check_nesting(b'["' + b"[" * 5000 + b'"]')
    check_nesting(b'["\\"' + b"{" * 5000 + b'"]')
    check_nesting(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    with pytest.raises(TooDeep):
        check_nesting(b"[" + b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH + b"]")


# --- what --dry-run shows ------------------------------------------------------------------


def test_api_dry_run_shows_the_body_as_it_is_sent(served: Served, tmp_path: Path) -> None:
    written = (
        b'{"url": "https://a.example/h", "events": ["item.sold"],\n'
        b' "a":-0,"b":1E2,"c":0.30000000000000000001,"d":"\\u00e9",'
        b' "secret" : "s3cret-value", "api_s\\u0065cret": 12345,\n'
        b' "nested": {"apiKey": ["k3y-one", 7.5e1, true, null], "note": "\\"secret\\": [x"}}'
    )
    body = tmp_path / "body.json"
    body.write_bytes(written)
    result = served.run("api", "POST", "/v1/platform-webhooks", "--input", str(body), "--dry-run")
    assert result.returncode == 0, result.stderr
    shown = result.stdout.decode().split("\n\n", 1)[1].rstrip("\n")
    assert shown == (
        '{"url": "https://a.example/h", "events": ["item.sold"],\n'
        ' "a":-0,"b":1E2,"c":0.30000000000000000001,"d":"\\u00e9",'
        ' "secret" : "********", "api_s\\u0065cret": "********",\n'
        ' "nested": {"apiKey": ["********", "********", true, null], "note": "\\"secret\\": [x"}}'
    )
    assert served.sent() == {}


def test_every_secret_value_is_found_where_it_lies() -> None:
    written = (
        b'[{"secrets": {"inner": {"k": "v"}, "n": -1.5e3, "list": [[1], {}], "ok": false}},'
        b' {"api_key": "x", "plain": "secret", "Webhook-Secret": "w"}, "secret"]'
    )
    assert read_written(written).masked() == (
        '[{"secrets": {"inner": {"k": "********"}, "n": "********", "list": [["********"], {}],'
        ' "ok": false}}, {"api_key": "********", "plain": "secret", "Webhook-Secret": "********"},'
        ' "secret"]'
    )


def test_an_empty_profile_is_refused_in_one_line(served: Served) -> None:
    for args in (("--profile", "", "get", "webhooks"), ("get", "webhooks", "--profile=")):
        result = served.run(*args)
        assert result.returncode == 2 and result.stdout == b""
        assert result.stderr == (
            b"tokensales-tui: --profile is empty: give a profile's name, or leave --profile out\n"
        )
    assert served.sent() == {}


STDIN_READERS = {
    "delete": (["delete", "webhook", "wh_9019a85bc0a7"], "delete", "pass --yes"),
    "secret": (
        [
            "create",
            "webhook",
            "--url",
            "https://a.example/x",
            "--event",
            "item.sold",
            "--secret-stdin",
            "--dry-run",
        ],
        "--secret-stdin",
        "pass the secret on it",
    ),
    "api-input": (["api", "POST", "/v1/platform-webhooks", "--input", "-"], "--input", ""),
    "from-file": (["add", "collections", "--from-file", "-", "--dry-run"], "--from-file", ""),
}


@pytest.mark.parametrize("reader", STDIN_READERS)
@pytest.mark.parametrize("stdin", ["empty", "closed"])
def test_a_command_reading_stdin_refuses_a_closed_one_in_one_line(reader: str, stdin: str) -> None:
    # Closed (`<&-`: sys.stdin is None), each was an AttributeError traceback.
    import os
    import subprocess
    import sys

    args, what, hint = STDIN_READERS[reader]
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "--demo", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **({"preexec_fn": lambda: os.close(0)} if stdin == "closed" else {}),
    )
    assert "Traceback" not in result.stderr
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"tokensales-tui: {what}")
    if stdin == "closed":
        assert f"{what}: stdin is closed — {hint}" in result.stderr


def test_every_command_reads_stdin_through_the_one_way_that_refuses_a_closed_one() -> None:
    import ast

    import tokensales_tui

    package = Path(tokensales_tui.__file__).parent
    found: list[str] = []
    for folder in ("script", "webhooks"):
        for path in sorted((package / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            allowed = {
                id(node)
                for function in ast.walk(tree)
                if isinstance(function, ast.FunctionDef) and function.name == "standard_input"
                for node in ast.walk(function)
            }
            found += [
                f"{path.name}:{node.lineno}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute)
                and node.attr == "stdin"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
                and id(node) not in allowed
            ]
    assert found == []


LONG = "a" * 70_000


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["get", "item", LONG], "GET /v1/items/{id}: not sent — the id makes its address"),
        (["delete", "webhook", LONG, "--yes"], "DELETE /v1/platform-webhooks/{id}: not sent"),
        (["update", "webhook", LONG, "--url", "https://example.com/h"], "PUT /v1/platform"),
        (["api", "GET", f"/v1/items/{LONG}"], "GET /v1/items/{id}: not sent — the id makes"),
        (["api", "GET", f"/v1/items?q={LONG}"], "GET /v1/items: not sent — its query makes"),
    ],
    ids=["get", "delete", "update", "api-path", "api-query"],
)
def test_an_address_too_long_to_send_is_a_usage_error_naming_it(
    served: Served, args: list[str], said: str
) -> None:
    # httpx refused the URL before sending, and the command said "the answer may be one
    # this client does not understand", exit 1: for a change, that a request may have gone.
    before = served.changes_sent()
    result = served.run(*args)
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert said in err and "more than the 65,536 a request can carry" in err
    assert len(err) < 1200 and err.count("\n") == 1  # one line, the id not repeated whole
    assert served.changes_sent() == before


@pytest.mark.parametrize(
    ("args", "body"),
    [
        (["add", "payout"], b'{"type": "free", "name": "EU", "name": "US"}'),
        (
            ["add", "collections"],
            b'[{"name": "A", "blockchain": "ethereum", "blockchain": "polygon",'
            b' "contractAddress": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}]',
        ),
        (["add", "payout"], b'{"type": "fiat", "name": "EU", "fiatDetails": {"provider": "a",'
         b' "paymentProviderId": "b", "provider": "c"}}'),
    ],
    ids=["payout", "collections", "nested"],
)  # fmt: skip
def test_a_key_given_twice_in_a_file_is_refused_as_in_api_input(
    served: Served, tmp_path: Path, args: list[str], body: bytes
) -> None:
    # The last one counted without a word, where api --input refused the same file.
    before = served.changes_sent()
    given = tmp_path / "given.json"
    given.write_bytes(body)
    for extra in ([], ["--dry-run"]):
        result = served.run(*args, "--from-file", str(given), *extra)
        assert result.returncode == 2, result.stderr
        assert result.stdout == b""
        assert b"comes twice in one object" in result.stderr
        assert result.stderr.startswith(b"tokensales-tui: --from-file: ")
    assert served.changes_sent() == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["get", "webhooks", "--fields", ""], "--fields: name at least one field"),
        (["get", "webhooks", "--fields", ","], "--fields: name at least one field"),
        (["get", "webhooks", "-o", "csv", "--jq", "."], "-o csv and --jq:"),
        (["get", "webhooks", "-o", "table", "--jq", "."], "-o table and --jq:"),
        (["get", "webhooks", "-o", "jsonl", "--jq", "."], "leave out -o"),
    ],
    ids=["fields-empty", "fields-comma", "csv-jq", "table-jq", "jsonl-jq"],
)
def test_output_flags_that_would_be_left_unused_are_refused(
    served: Served, args: list[str], said: str
) -> None:
    # Every field was printed; -o was ignored beside --jq.
    result = served.run(*args)
    assert result.returncode == 2 and result.stdout == b""
    assert said in result.stderr.decode()


def test_an_empty_array_of_collections_is_called_empty(served: Served, tmp_path: Path) -> None:
    given = tmp_path / "none.json"
    given.write_text("[]")
    result = served.run("add", "collections", "--from-file", str(given))
    assert result.returncode == 2
    assert result.stderr.decode() == (
        f"tokensales-tui: --from-file: {given} holds an empty array: give one collection at least\n"
    )


def test_a_pipe_given_as_a_file_points_to_stdin(served: Served, tmp_path: Path) -> None:
    # `--input <(cmd)` was refused as "not a regular file", no way out named.
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in (["api", "POST", "/v1/items", "--input"], ["add", "payout", "--from-file"]):
        result = served.run(*args, str(fifo))
        assert result.returncode == 2
        flag = args[-1]
        assert result.stderr.decode() == (
            f"tokensales-tui: {flag}: {fifo} is not a regular file — pass it on stdin instead:"
            f" {flag} -\n"
        )


WALLET = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def test_a_wallets_file_of_dash_is_read_from_stdin(served: Served) -> None:
    # "there is no file at -", where --input and --from-file take - for stdin.
    flags = ["--name", "Gold", "--blockchain", "ethereum", "--contract", WALLET, "--dry-run"]
    result = served.run(
        "add", "collections", *flags, "--wallets-file", "-", stdin=f"wallet\n{WALLET}\n"
    )
    assert result.returncode == 0, result.stderr
    assert WALLET.lower() in result.stdout.decode().lower().split("wallets")[1]
    result = served.run("add", "collections", *flags, "--wallets-file", "-", "--emails-file", "-")
    assert result.returncode == 2 and b"stdin holds one list" in result.stderr
