"""The scripting commands, run as a user runs them: a subprocess against the emulator on
127.0.0.1 (its request counts prove what was sent), with HOME and XDG isolated."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tokensales_tui.checks.forms import payout_problems, webhook_problems
from tokensales_tui.config import config_path
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.emulator.server import EmulatorServer

SECRET = "whsec-0f1e2d3c4b5a"
WALLET = "0x52908400098527886E0F7030069857D2E4169EE7"  # an EIP-55 test vector
HOSTILE = "evil\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u202egnp.exe"


class Served:
    """The emulator on loopback, and a way to run the command line against it."""

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.emulator = server.emulator
        self.env = {
            **os.environ,
            "TOKENSALES_BASE_URL": server.url,
            "TOKENSALES_API_KEY": DEMO_API_KEY,
            "TOKENSALES_API_SECRET": DEMO_API_SECRET,
        }

    def run(
        self, *args: str, stdin: str | bytes = b"", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """``tokensales-tui ARGS`` with stdin not a terminal; stdout and stderr as bytes."""
        return subprocess.run(
            [sys.executable, "-m", "tokensales_tui", *args],
            input=stdin.encode() if isinstance(stdin, str) else stdin,
            capture_output=True,
            env={**self.env, **(env or {})},
            timeout=60,
            check=False,
        )

    def sent(self) -> dict[tuple[str, str], int]:
        """The requests that reached the emulator, by method and route."""
        return {key: count for key, count in self.emulator.counts.items() if count}

    def changes_sent(self) -> dict[tuple[str, str], int]:
        """The requests sent that change data (neither a GET nor a token request)."""
        return {
            key: n
            for key, n in self.sent().items()
            if key[0] != "GET" and key[1] != "/auth/getAccessToken"
        }


@pytest.fixture
def served() -> Iterator[Served]:
    yield from serve_emulator(items=12)


def serve_emulator(**options: Any) -> Iterator[Served]:
    """The emulator on loopback (seed 3) for as long as the generator runs."""
    server = EmulatorServer("127.0.0.1", 0, seed=3, **options)
    ready = threading.Event()
    thread = threading.Thread(target=server.run, args=(lambda _url: ready.set(),), daemon=True)
    thread.start()
    assert ready.wait(20)
    try:
        yield Served(server)
    finally:
        server.stop()
        thread.join(20)


def text(result: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    return result.stdout.decode(), result.stderr.decode()


# --- get ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["webhooks", "items", "assets", "collections"])
def test_get_prints_the_servers_list_in_every_format(served: Served, kind: str) -> None:
    stored = {
        "webhooks": served.emulator.webhooks,
        "items": served.emulator.items,
        "assets": served.emulator.assets,
        "collections": served.emulator.collections,
    }[kind]
    piped = served.run("get", kind)  # not a terminal: JSON
    assert piped.returncode == 0, piped.stderr
    listed = json.loads(piped.stdout)
    assert [row["id"] for row in listed] == list(stored)
    if kind != "webhooks":  # the list shows every field the server sent
        assert listed == list(stored.values())

    lines = served.run("get", kind, "-o", "jsonl").stdout.decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(stored)

    rows = list(csv.reader(io.StringIO(served.run("get", kind, "-o", "csv").stdout.decode())))
    assert rows[0][0] == "id" and [row[0] for row in rows[1:]] == list(stored)

    table = served.run("get", kind, "-o", "table").stdout.decode().splitlines()
    assert table[0].startswith("ID") and len(table) == len(stored) + 1
    assert all(
        line.split()[0] == object_id for line, object_id in zip(table[1:], stored, strict=True)
    )


@pytest.mark.parametrize(
    ("assets", "expected"),
    [
        # The first asset named no column: an empty header, then one as a row.
        ([{}, {"id": "ast_1", "name": "A"}], [["id", "name"], ["", ""], ["ast_1", "A"]]),
        # The first is no object: it was a row before the header.
        ([["x"], {"id": "ast_1", "name": "A"}], [["id", "name"], ['["x"]', ""], ["ast_1", "A"]]),
        # The first lacks fields the others have: they were left out.
        (
            [{"name": "A"}, {"id": "ast_2", "symbol": "S"}],
            [["id", "name", "symbol"], ["", "A", ""], ["ast_2", "", "S"]],
        ),
    ],
)
def test_asset_columns_come_from_every_asset_and_the_header_comes_first(
    served: Served, assets: list[Any], expected: list[list[str]]
) -> None:
    served.emulator.assets.clear()
    served.emulator.assets.update({str(n): asset for n, asset in enumerate(assets)})
    result = served.run("get", "assets", "-o", "csv")
    assert result.returncode == 0, result.stderr
    assert list(csv.reader(io.StringIO(result.stdout.decode(), newline=""))) == expected
    table = served.run("get", "assets", "-o", "table").stdout.decode().splitlines()
    assert table[0].split() == [name.upper() for name in expected[0]]


def test_get_payouts_of_items_some_of_which_cannot_be_read_warns_and_lists_the_rest(
    served: Served,
) -> None:
    # One item whose price is text had failed the whole command.
    items = list(served.emulator.items.values())
    items[2]["price"] = "cheap"
    listed = served.run("get", "payouts")
    assert listed.returncode == 0, listed.stderr
    used = sum(row["usedBy"] for row in json.loads(listed.stdout))
    assert used == sum(1 for item in items if item.get("payout")) - bool(items[2].get("payout"))
    assert listed.stderr.decode() == (
        "tokensales-tui: warning: 1 of 12 items could not be read and is left out;"
        " items[2]: Expected `int | float`, got `str` - at `$.price`; their payouts are left out\n"
    )


def test_get_payouts_and_one_object_by_id(served: Served) -> None:
    payouts = json.loads(served.run("get", "payouts").stdout)
    used = sum(row["usedBy"] for row in payouts)
    assert used == sum(1 for item in served.emulator.items.values() if item.get("payout"))

    item_id = next(iter(served.emulator.items))
    one = served.run("get", "item", item_id)
    assert one.returncode == 0 and json.loads(one.stdout) == served.emulator.items[item_id]
    webhook_id = next(iter(served.emulator.webhooks))
    one = served.run("get", "webhooks", webhook_id, "-o", "jsonl")
    assert json.loads(one.stdout)["id"] == webhook_id
    collection_id = next(iter(served.emulator.collections))
    one = served.run("get", "collection", collection_id, "-o", "table")
    assert one.stdout.decode().startswith("id ") and collection_id in one.stdout.decode()

    for kind in ("item", "webhook", "collection", "asset"):
        missing = served.run("get", kind, "nope")
        assert missing.returncode == 4, (kind, missing.stderr)
        assert missing.stdout == b"" and b"nope" in missing.stderr


def test_fields_and_jq(served: Served) -> None:
    chosen = served.run("get", "items", "--fields", "id,payout.type", "-o", "jsonl")
    first = json.loads(chosen.stdout.decode().splitlines()[0])
    item = next(iter(served.emulator.items.values()))
    assert first == {"id": item["id"], "payout.type": (item.get("payout") or {}).get("type")}

    ids = served.run("get", "items", "--jq", ".[].id")
    assert ids.stdout.decode().split() == list(served.emulator.items)
    count = served.run("get", "webhooks", "--jq", "map(select(.isActive)) | length")
    active = sum(1 for hook in served.emulator.webhooks.values() if hook.get("isActive"))
    assert count.stdout == f"{active}\n".encode()

    broken = served.run("get", "items", "--jq", ".[")
    assert broken.returncode == 2 and broken.stderr.startswith(b"tokensales-tui: --jq:")


def test_server_text_reaches_a_pipe_exactly_and_the_table_cleaned(served: Served) -> None:
    webhook = next(iter(served.emulator.webhooks.values()))
    webhook["url"] = "https://example.com/" + HOSTILE
    webhook["events"] = [HOSTILE]
    forbidden = (b"\x1b", b"\x07", b"\xc2\x9b", b"\xe2\x80\xae")
    for fmt in ("json", "jsonl", "table"):
        result = served.run("get", "webhooks", "-o", fmt)
        assert result.returncode == 0
        assert not any(bad in result.stdout for bad in forbidden), fmt
        if fmt == "json":  # escaped, so a JSON reader gets the text back exactly
            assert json.loads(result.stdout)[0]["events"] == [HOSTILE]
    # CSV and jq's bare strings are the text as it is: a pipe gets the data (a terminal's
    # gate cleans it: test_script_hostile.py). They were cleaned here: \r became ␍, ESC ␛.
    result = served.run("get", "webhooks", "-o", "csv", "--fields", "url,events")
    rows = list(csv.reader(io.StringIO(result.stdout.decode(), newline="")))
    assert rows[1] == ["https://example.com/" + HOSTILE, json.dumps([HOSTILE])]
    note = "line1\r\nline2 \u202bשלום\u202c \u001b[1mbold"
    next(iter(served.emulator.items.values()))["note"] = note
    result = served.run("get", "items", "--jq", ".[0].note")
    assert (result.returncode, result.stdout) == (0, note.encode() + b"\n")
    result = served.run("get", "items", "-o", "csv", "--fields", "note")
    assert list(csv.reader(io.StringIO(result.stdout.decode(), newline="")))[1] == [note]


def test_default_output_is_json_when_piped_and_data_only_on_stdout(served: Served) -> None:
    result = served.run("get", "webhooks")
    assert result.stdout.startswith(b"[\n{") and result.stderr == b""
    failed = served.run("get", "items", env={"TOKENSALES_API_KEY": "wrong"})
    assert failed.returncode == 3 and failed.stdout == b""
    assert b"refused the credentials" in failed.stderr and failed.stderr[-1:] == b"\n"
    # The wrong key came from the environment: said so, not "the profile's".
    assert (
        failed.stderr.decode()
        .rstrip()
        .endswith(
            ", given by TOKENSALES_API_KEY and TOKENSALES_API_SECRET"
            " — check TOKENSALES_API_KEY and TOKENSALES_API_SECRET"
        )
    )


# --- changes ------------------------------------------------------------------------------


def test_create_webhook_with_the_secret_from_stdin_or_a_file(
    served: Served, tmp_path: Path
) -> None:
    result = served.run(
        "create",
        "webhook",
        "--url",
        "https://hooks.example.com/a",
        "--event",
        "item.sold, item.created",
        "--secret-stdin",
        stdin=SECRET + "\n",
    )
    assert result.returncode == 0, result.stderr
    created = [w for w in served.emulator.webhooks.values() if w["url"].endswith("/a")]
    assert created[0]["events"] == ["item.sold", "item.created"]
    assert created[0]["secret"] == SECRET
    assert SECRET.encode() not in result.stdout + result.stderr

    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "-2\n")
    result = served.run(
        "create",
        "webhook",
        "--url",
        "https://hooks.example.com/b",
        "--event",
        "x",
        "--event",
        "y",
        "--secret-file",
        str(secret_file),
    )
    assert result.returncode == 0
    created = [w for w in served.emulator.webhooks.values() if w["url"].endswith("/b")]
    assert created[0]["secret"] == SECRET + "-2" and created[0]["events"] == ["x", "y"]


def test_a_secret_in_argv_is_refused_without_repeating_it(served: Served) -> None:
    for secret_args in (["--secret", SECRET], [f"--secret={SECRET}"]):
        result = served.run(
            "create", "webhook", "--url", "https://a.example", "--event", "e", *secret_args
        )
        assert result.returncode == 2
        assert b"--secret-stdin" in result.stderr and SECRET.encode() not in result.stderr
    assert served.sent() == {}


def test_validation_errors_name_the_flag_in_the_forms_words_and_send_nothing(
    served: Served,
) -> None:
    result = served.run("create", "webhook", "--url", "ftp://files.example", "--event", "a b")
    assert result.returncode == 2 and result.stdout == b""
    expected = webhook_problems("ftp://files.example", "a b")
    stderr = result.stderr.decode()
    assert f"--url: {expected['url'].message}" in stderr
    assert f"--event: {expected['events'].message}" in stderr

    result = served.run(
        "add", "payout", "--name", "USDC out", "--type", "stablecoin", "--blockchain", "polygon"
    )
    assert result.returncode == 2
    expected = payout_problems("USDC out", "stablecoin", {"blockchainId": "polygon"})
    assert f"--spender: {expected['detail-spender'].message}" in result.stderr.decode()
    assert f"--token-id: {expected['detail-tokenId'].message}" in result.stderr.decode()
    assert served.sent() == {}


def test_update_webhook_sends_only_the_flags_given(served: Served) -> None:
    webhook_id, before = next(iter(served.emulator.webhooks.items()))
    url_before = before["url"]
    result = served.run("update", "webhook", webhook_id, "--event", "a,b")
    assert result.returncode == 0, result.stderr
    after = served.emulator.webhooks[webhook_id]
    assert after["events"] == ["a", "b"] and after["url"] == url_before
    missing = served.run("update", "webhook", "wh_nope", "--url", "https://x.example")
    assert missing.returncode == 4
    nothing = served.run("update", "webhook", webhook_id)
    assert nothing.returncode == 2 and b"nothing to change" in nothing.stderr


def test_delete_refuses_without_a_terminal_and_reports_each_id(served: Served) -> None:
    first, second = list(served.emulator.webhooks)[:2]
    refused = served.run("delete", "webhook", first)
    assert refused.returncode == 2 and b"--yes" in refused.stderr
    assert first in served.emulator.webhooks and served.sent() == {}

    result = served.run("delete", "webhook", first, "wh_missing", second, "--yes")
    assert result.returncode == 4
    stderr = result.stderr.decode()
    assert f"deleted webhook {first}" in stderr and f"deleted webhook {second}" in stderr
    assert "wh_missing" in stderr and "not found" in stderr
    assert first not in served.emulator.webhooks and second not in served.emulator.webhooks

    item = next(iter(served.emulator.items))
    collection = next(iter(served.emulator.collections))
    assert served.run("delete", "item", item, "-y").returncode == 0
    assert served.run("delete", "collection", collection, "-y").returncode == 0
    assert item not in served.emulator.items and collection not in served.emulator.collections


def test_delete_counts_a_404_on_the_repeat_of_a_lost_answer_as_deleted() -> None:
    # The server deletes, then closes the connection before it answers; the repeat finds
    # nothing. The id given twice is deleted once (the ids are told apart as given).
    from .test_reliability_network import Reply, ScriptedServer

    with ScriptedServer() as server:
        server.routes[("DELETE", "/v1/items/itm_1")] = [
            Reply(drop=True),
            Reply.json(404, {"message": "item not found"}),
        ]
        server.routes[("DELETE", "/v1/items/ITM_1")] = Reply.json(404, {"message": "no"})
        command = ["delete", "item", "itm_1", "itm_1", "ITM_1", "--yes"]
        result = subprocess.run(
            [sys.executable, "-m", "tokensales_tui", *command],
            capture_output=True,
            env={
                **os.environ,
                "TOKENSALES_BASE_URL": server.url,
                "TOKENSALES_API_KEY": "key",
                "TOKENSALES_API_SECRET": "secret",
            },
            timeout=60,
            check=False,
        )
        sent = server.count("DELETE", "/v1/items/itm_1"), server.count("DELETE", "/v1/items/ITM_1")
    stderr = result.stderr.decode()
    assert [line for line in stderr.splitlines() if "retrying" not in line] == [
        "tokensales-tui: deleted item itm_1 (it was already gone when the request was repeated)",
        "tokensales-tui: item ITM_1: DELETE /v1/items/ITM_1: not found (no)",
    ]
    assert result.returncode == 4  # ITM_1 is not found
    assert sent == (2, 1)


def run_against(url: str, *command: str) -> subprocess.CompletedProcess[bytes]:
    """``tokensales-tui COMMAND`` against a server at ``url`` (profile "default")."""
    return subprocess.run(
        [sys.executable, "-m", "tokensales_tui", *command],
        capture_output=True,
        env={
            **os.environ,
            "TOKENSALES_BASE_URL": url,
            "TOKENSALES_API_KEY": "key",
            "TOKENSALES_API_SECRET": "secret",
        },
        timeout=60,
        check=False,
    )


def test_deletes_answered_204_with_a_body_each_reach_the_server_once() -> None:
    # The body sent with each 204 is none of it: never the answer to the next DELETE.
    from .test_reliability_network import KeptAlive, raw_answer

    ids = ["wh_1", "wh_2", "wh_3"]
    listed = json.dumps([{"id": id_, "url": f"https://{id_}.test"} for id_ in ids]).encode()
    routes: dict[tuple[str, str], bytes | list[bytes]] = {
        ("GET", "/v1/platform-webhooks"): raw_answer(200, listed, "Content-Type: application/json")
    }
    for id_ in ids:
        routes[("DELETE", f"/v1/platform-webhooks/{id_}")] = (
            b"HTTP/1.1 204 No Content\r\nContent-Length: 18\r\n\r\n"
            + b'{"deleted":"%s"}' % id_.encode()
        )
    with KeptAlive(routes) as server:
        result = run_against(server.url, "delete", "webhook", *ids, "--yes")
        sent = [server.count("DELETE", f"/v1/platform-webhooks/{id_}") for id_ in ids]
    assert result.returncode == 0, result.stderr
    assert sent == [1, 1, 1]
    assert result.stderr.decode().splitlines() == [
        f"tokensales-tui: deleted webhook {id_}" for id_ in ids
    ]


def test_add_payout_answered_201_with_a_body_it_cannot_read_is_added_and_recorded() -> None:
    from tokensales_tui.payouts import PayoutRecord

    from .test_reliability_network import KeptAlive, raw_answer

    answer = raw_answer(201, b"\x1b\x0f\x00\xf8", "Content-Encoding: br")
    with KeptAlive({("POST", "/v1/payouts/add"): answer}) as server:
        result = run_against(server.url, "add", "payout", "--name", "X", "--type", "free")
        sent = server.count("POST", "/v1/payouts/add")
    assert result.returncode == 0, result.stderr
    assert sent == 1
    assert result.stderr.decode().splitlines() == [
        "tokensales-tui: added payout definition X (free; its answer's body could not be read:"
        " the body is encoded as “br”, which was not asked for)"
    ]
    assert [entry["name"] for entry in PayoutRecord.for_service("default", server.url).load()] == [
        "X"
    ]


def test_add_payout_says_on_stderr_that_it_waits_for_the_records_lock() -> None:
    # Another process holding the record's lock left the command hanging, unsaid. It says
    # so, sends nothing while it waits, and adds and records once the lock is free.
    from tokensales_tui.files import lock_path, locked
    from tokensales_tui.payouts import PayoutRecord, record_path

    from .test_reliability_network import KeptAlive, raw_answer
    from .test_script_interrupts import read_until

    answer = raw_answer(201, b'{"id": "po_1"}', "Content-Type: application/json")
    with KeptAlive({("POST", "/v1/payouts/add"): answer}) as server:
        record = record_path("default", server.url)
        command = subprocess.Popen(
            [sys.executable, "-m", "tokensales_tui", "add", "payout", "--name", "X",
             "--type", "free"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "TOKENSALES_BASE_URL": server.url, "TOKENSALES_API_KEY": "key",
                 "TOKENSALES_API_SECRET": "secret"},
        )  # fmt: skip
        try:
            with locked(record):  # as another process would hold it
                said = read_until(command, b", held by another process\n")
                sent_while_waiting = server.count("POST", "/v1/payouts/add")
            assert command.wait(timeout=60) == 0
            assert command.stderr is not None
            said += command.stderr.read()
        finally:
            command.kill()
            command.wait()
        sent = server.count("POST", "/v1/payouts/add")
    assert said.decode().splitlines() == [
        f"tokensales-tui: waiting for the payout record's lock {lock_path(record)},"
        " held by another process",
        "tokensales-tui: added payout definition X (free)",
    ]
    assert (sent_while_waiting, sent) == (0, 1)
    assert [entry["name"] for entry in PayoutRecord.for_service("default", server.url).load()] == [
        "X"
    ]


def test_add_payout_from_flags_and_file_is_recorded_for_the_payouts_tab(
    served: Served, tmp_path: Path
) -> None:
    result = served.run(
        "add",
        "payout",
        "--name",
        "USDC out",
        "--type",
        "Stablecoin",
        "--blockchain",
        "polygon",
        "--token-id",
        "ast_1",
        "--spender",
        WALLET,
    )
    assert result.returncode == 0, result.stderr
    assert served.emulator.payouts[-1]["stablecoinDetails"]["spender"] == WALLET
    assert served.emulator.payouts[-1]["type"] == "stablecoin"

    definition = tmp_path / "payout.json"
    definition.write_text(
        json.dumps({"type": "fiat", "name": "EU", "fiatDetails": {"provider": "stripe"}})
    )
    result = served.run(
        "add", "payout", "--from-file", str(definition), "--payment-provider-id", "acct_1"
    )
    assert result.returncode == 0, result.stderr
    assert served.emulator.payouts[-1]["fiatDetails"] == {
        "provider": "stripe",
        "paymentProviderId": "acct_1",
    }
    listed = json.loads(served.run("get", "payouts").stdout)
    added = [row for row in listed if row["source"] == "added from here"]
    # as the Payouts tab lists them: newest first, each keeping the id it was given
    assert [(row["name"], row["id"]) for row in added] == [
        ("EU", "added-2"),
        ("USDC out", "added-1"),
    ]


def test_add_collections_from_json_and_from_flags_with_a_csv_whitelist(
    served: Served, tmp_path: Path
) -> None:
    before = len(served.emulator.collections)
    collections = tmp_path / "collections.json"
    collections.write_text(
        json.dumps(
            [
                {
                    "name": "Gold pass",
                    "blockchain": "polygon",
                    "contractAddress": WALLET,
                    "whitelisted": True,
                    "wallets": [WALLET, WALLET.lower()],
                    "emails": ["a@example.com"],
                },
                {"name": "Silver", "blockchain": "ethereum", "contractAddress": WALLET},
            ]
        )
    )
    result = served.run("add", "collections", "--from-file", str(collections))
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["created"]) == 2
    assert b"repeated wallet" in result.stderr  # a warning: sent once
    stored = list(served.emulator.collections.values())[before:]
    assert stored[0]["whitelistingInfo"]["list"]["wallets"] == [WALLET]
    assert stored[0]["whitelisted"] == "true" and stored[1]["whitelisted"] == "false"
    for number in (1, 0, 1.0):  # equal to True or False in Python, and not booleans
        odd = [
            {
                "name": "Odd",
                "blockchain": "polygon",
                "contractAddress": WALLET,
                "whitelisted": number,
            }
        ]
        collections.write_text(json.dumps(odd))
        refused = served.run("add", "collections", "--from-file", str(collections), "--dry-run")
        assert refused.returncode == 2 and b"whitelisted is true or false" in refused.stderr

    whitelist = tmp_path / "wallets.csv"
    whitelist.write_text(f"Name,Wallet Address\nann,{WALLET}\nbob,0x1234\n")
    args = ["add", "collection", "--name", "Bronze", "--blockchain", "polygon"]
    args += ["--contract", WALLET, "--wallets-file", str(whitelist)]
    refused = served.run(*args)
    assert refused.returncode == 2
    assert b"--wallets-file: 1 invalid wallet" in refused.stderr and b"line 3" in refused.stderr
    whitelist.write_text(f"Name,Wallet Address\nann,{WALLET}\n")
    assert served.run(*args, "--whitelisted").returncode == 0
    assert list(served.emulator.collections.values())[-1]["name"] == "Bronze"


def test_dry_run_prints_the_request_with_secrets_masked_and_sends_nothing(
    served: Served, tmp_path: Path
) -> None:
    webhook_id = next(iter(served.emulator.webhooks))
    body = tmp_path / "body.json"
    body.write_text('{"name": "x"}')
    runs: list[tuple[list[str], str]] = [
        (
            ["create", "webhook", "--url", "https://a.example/h", "--event", "e", "--secret-stdin"],
            "POST {url}/v1/platform-webhooks",
        ),
        (
            ["update", "webhook", webhook_id, "--url", "https://b.example", "--secret-stdin"],
            f"PUT {{url}}/v1/platform-webhooks/{webhook_id}",
        ),
        (["delete", "webhook", webhook_id, "wh_2"], "DELETE {url}/v1/platform-webhooks/wh_2"),
        (["add", "payout", "--name", "Free", "--type", "free"], "POST {url}/v1/payouts/add"),
        (
            ["add", "collections", "--name", "N", "--blockchain", "polygon", "--contract", WALLET],
            "POST {url}/collections",
        ),
        (["api", "POST", "/v1/payouts/add", "--input", str(body)], "POST {url}/v1/payouts/add"),
    ]
    for args, request in runs:
        result = served.run(*args, "--dry-run", stdin=SECRET)
        assert result.returncode == 0, (args, result.stderr)
        out = result.stdout.decode()
        assert request.format(url=served.server.url) in out, args
        assert SECRET not in out + result.stderr.decode()
        if "--secret-stdin" in args:
            assert '"secret": "********"' in out
    assert served.sent() == {}  # not even a token request


def test_api_dry_run_masks_every_secret_key_of_the_body_however_deep(
    served: Served, tmp_path: Path
) -> None:
    body = tmp_path / "webhook.json"
    body.write_text(
        json.dumps(
            {
                "url": "https://a.example/h",
                "events": ["x"],
                "secret": SECRET,
                "apiSecret": "api-s3cret-value",
                "options": [{"signing": {"secret": "nested-s3cret", "rounds": 3}}],
                "isSecret": True,
                "webhookSecrets": ["list-s3cret", {"value": "object-s3cret"}],
            }
        )
    )
    for method, path in (("POST", "/v1/platform-webhooks"), ("PUT", "/v1/platform-webhooks/wh_1")):
        result = served.run("api", method, path, "--input", str(body), "--dry-run")
        assert result.returncode == 0, result.stderr
        out = result.stdout.decode()
        secrets = (SECRET, "api-s3cret-value", "nested-s3cret", "list-s3cret", "object-s3cret")
        for secret in secrets:
            assert secret not in out + result.stderr.decode()
        assert out.count('"********"') == 5, out
        assert '"rounds": 3' in out and '"isSecret": true' in out  # the rest as given
    assert served.sent() == {}
    # A key given twice: the preview would show one value, the bytes would send both.
    body.write_bytes(b'{"url": "https://a.example/h", "secret": "first-s3cret", "secret": "2nd"}')
    result = served.run("api", "POST", "/v1/platform-webhooks", "--input", str(body))
    assert result.returncode == 2 and served.sent() == {}
    assert b"the key \xe2\x80\x9csecret\xe2\x80\x9d comes twice" in result.stderr
    assert b"first-s3cret" not in result.stdout + result.stderr


def test_read_only_refuses_every_change_before_sending(served: Served) -> None:
    webhook_id = next(iter(served.emulator.webhooks))
    for args in (
        ["create", "webhook", "--url", "https://a.example", "--event", "e"],
        ["update", "webhook", webhook_id, "--url", "https://a.example"],
        ["delete", "webhook", webhook_id, "--yes"],
        ["add", "payout", "--name", "Free", "--type", "free"],
        ["api", "DELETE", f"/v1/platform-webhooks/{webhook_id}"],
    ):
        result = served.run(*args, "--read-only")
        assert result.returncode == 5, (args, result.stderr)
        assert b"read-only" in result.stderr
    assert served.changes_sent() == {}
    assert served.run("get", "webhooks", "--read-only").returncode == 0

    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[profiles.prod]\nbase_url = "{served.server.url}"\napi_key = "{DEMO_API_KEY}"\n'
        f'api_secret = "{DEMO_API_SECRET}"\nread_only = true\n'
    )
    env = {"TOKENSALES_BASE_URL": "", "TOKENSALES_API_KEY": "", "TOKENSALES_API_SECRET": ""}
    result = served.run("delete", "item", "x", "--yes", "--profile", "prod", env=env)
    assert result.returncode == 5 and served.changes_sent() == {}


def test_api_sends_a_raw_request_to_the_host_of_its_path(served: Served, tmp_path: Path) -> None:
    listed = served.run("api", "get", "/v1/items", "--jq", ".total")
    assert listed.returncode == 0 and listed.stdout == b"12\n"
    body = tmp_path / "payout.json"
    body.write_text(json.dumps({"type": "free", "name": "Raw"}))
    added = served.run("api", "POST", "/v1/payouts/add", "--input", "-", stdin=body.read_bytes())
    assert added.returncode == 0, added.stderr
    assert served.emulator.payouts[-1]["name"] == "Raw"
    assert served.run("api", "GET", "/v1/items/nope").returncode == 4
    for path in ("/elsewhere", "https://evil.example/v1/items", "/v1/../auth/getAccessToken"):
        refused = served.run("api", "GET", path)
        assert refused.returncode == 2, path
    bad = served.run("api", "POST", "/v1/payouts/add", "--input", "-", stdin="{not json")
    assert bad.returncode == 2 and b"--input" in bad.stderr
    assert served.changes_sent() == {("POST", "/v1/payouts/add"): 1}


def test_token_prints_a_token_the_service_accepts(served: Served) -> None:
    result = served.run("token")
    assert result.returncode == 0 and result.stderr == b""
    token = result.stdout.decode().strip()
    answer = httpx.get(
        f"{served.server.url}/v1/platform-webhooks",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert answer.status_code == 200


def test_profiles_say_where_each_setting_came_from(served: Served) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'default_profile = "staging"\n'
        '[profiles.staging]\nbase_url = "https://api.staging.example.com"\napi_key = "k"\n'
        'api_secret = "file-secret-value"\n'
        '[profiles.prod]\nbase_url = "https://api.example.com"\napi_key = "k"\nread_only = true\n'
    )
    result = served.run("profiles", "-o", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert [p["name"] for p in shown["profiles"]] == ["staging", "prod"]
    assert [p["default"] for p in shown["profiles"]] == [True, False]
    sources = {s["setting"]: s["from"] for s in shown["settings"]}
    assert sources["profile"] == "default_profile"
    assert sources["base_url"] == "TOKENSALES_BASE_URL"
    assert sources["api_secret"] == "TOKENSALES_API_SECRET"
    assert sources["read_only"] == "default"  # staging does not set it
    prod = json.loads(served.run("--profile", "prod", "profiles", "-o", "json").stdout)
    assert {s["setting"]: s["from"] for s in prod["settings"]}["read_only"] == (
        "[profiles.prod] read_only"
    )
    table = served.run("profiles", "-o", "table", "--read-only")
    assert b"--read-only" in table.stdout
    # No profile has a label: its column was warned of as a --fields no one gave.
    assert b"--fields" not in table.stderr and b"label" not in table.stderr, table.stderr
    for secret in (b"file-secret-value", DEMO_API_SECRET.encode(), DEMO_API_KEY.encode()):
        assert secret not in result.stdout + table.stdout


def test_exit_codes_of_failures(served: Served) -> None:
    served.emulator.set_faults(["flaky"])
    served.emulator.fault_rate = 1.0
    broken = served.run("get", "webhooks")
    assert broken.returncode == 1 and b"failed" in broken.stderr and broken.stdout == b""
    served.emulator.set_faults([])

    closed = served.run("get", "webhooks", "--base-url", "http://127.0.0.1:9")
    assert closed.returncode == 1 and b"127.0.0.1:9" in closed.stderr
    unusable = served.run("get", "webhooks", "--base-url", "ftp://x")
    assert unusable.returncode == 2
    assert served.run("get", "nothing").returncode == 2
    incomplete = served.run("get", "items", env={"TOKENSALES_BASE_URL": ""})
    assert incomplete.returncode == 2 and b"TOKENSALES_BASE_URL is not set" in incomplete.stderr
    unset = {name: "" for name in served.env if name.startswith("TOKENSALES_")}
    nothing = served.run("get", "items", env=unset)
    assert nothing.returncode == 2 and b"--demo" in nothing.stderr


def test_demo_works_on_every_command_without_a_server(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSALES_")}

    def demo(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "tokensales_tui", *args, "--demo"],
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )

    assert len(json.loads(demo("get", "items").stdout)) == 40
    assert demo("token").stdout.count(b".") == 2  # a JWT
    added = demo("add", "payout", "--name", "Free", "--type", "free")
    assert added.returncode == 0 and b"added payout definition Free" in added.stderr
    assert not (tmp_path / "home" / ".local" / "share" / "tokensales-tui").exists()


# --- completion ---------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "completion", shell],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0 and "tokensales-tui" in result.stdout
    assert "_ARGCOMPLETE" in result.stdout


def completions(line: str, tmp_path: Path) -> list[str]:
    """What the completion answers a bash user who pressed tab at the end of ``line``."""
    answers = tmp_path / "answers"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_SHELL": "bash",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answers),
    }
    subprocess.run(
        [sys.executable, "-m", "tokensales_tui"], env=env, timeout=60, check=False, input=b""
    )
    return answers.read_text().split()


def test_the_completion_answers_with_the_commands(tmp_path: Path) -> None:
    assert completions("tokensales-tui get it", tmp_path) == ["items"]


def test_the_completion_offers_the_payout_types_after_type(tmp_path: Path) -> None:
    # It offered the files of the current folder.
    line = "tokensales-tui add payout --name EU --type "
    assert sorted(completions(line, tmp_path)) == ["fiat", "free", "native", "stablecoin"]
    assert completions(line + "f", tmp_path) == ["free", "fiat"]


@pytest.mark.parametrize(
    "line",
    [
        "tokensales-tui --profile st",
        "tokensales-tui get items --profile st",
        "tokensales-tui serve --profile st",
    ],
)
def test_the_completion_offers_the_profiles_of_the_config_file(line: str, tmp_path: Path) -> None:
    # It offered the files of the current folder.
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '[profiles.staging]\nbase_url = "https://a.example/v1"\n'
        '[profiles.stage2]\nbase_url = "https://b.example/v1"\n'
        '[profiles.prod]\nbase_url = "https://c.example/v1"\n'
    )
    assert sorted(completions(line, tmp_path)) == ["stage2", "staging"]
    path.write_text("[profiles.staging\n")  # a file that does not load offers nothing
    assert completions(line, tmp_path) == []


# --- what a command loads -----------------------------------------------------------------


def test_the_commands_never_load_textual_or_rich(served: Served) -> None:
    code = (
        "import contextlib, io, sys\n"
        "from tokensales_tui.cli import main\n"
        "for args in (['get', 'items', '-o', 'table'], ['get', 'payouts'], ['token'],\n"
        "             ['profiles'], ['completion', 'fish'],\n"
        "             ['create', 'webhook', '--url', 'https://a.example', '--event', 'e',\n"
        "              '--dry-run'], ['delete', 'item', 'x', '--dry-run']):\n"
        "    out = io.TextIOWrapper(io.BytesIO())\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        assert main(args) == 0, args\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(loaded[:5], file=sys.stderr)\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=served.env, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr.decode()[-2000:]


# --- on a terminal ------------------------------------------------------------------------


def test_delete_on_a_terminal_asks_naming_each_object(served: Served) -> None:
    first, second = list(served.emulator.webhooks)[:2]
    url = served.emulator.webhooks[first]["url"]
    leader, follower = pty.openpty()
    try:
        os.write(leader, b"y\nn\n")  # the answers wait in the terminal's input
        result = subprocess.run(
            [sys.executable, "-m", "tokensales_tui", "delete", "webhook", first, second, "wh_x"],
            stdin=follower,
            capture_output=True,
            env=served.env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(leader)
        os.close(follower)
    stderr = result.stderr.decode()
    assert f"Delete webhook {first} ({url})? [y/N]" in stderr
    assert f"deleted webhook {first}" in stderr and f"webhook {second}: kept" in stderr
    assert "webhook wh_x: not found" in stderr and result.returncode == 4
    assert first not in served.emulator.webhooks and second in served.emulator.webhooks


def test_the_token_is_never_printed_on_a_terminal(served: Served) -> None:
    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tokensales_tui", "token"],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=served.env,
            timeout=60,
            check=False,
        )
        os.set_blocking(leader, False)
        try:
            shown = os.read(leader, 65536)
        except BlockingIOError:
            shown = b""
    finally:
        os.close(leader)
        os.close(follower)
    assert result.returncode == 2 and b"TOKENSALES_TOKEN=$(" in result.stderr
    assert shown == b"" and served.sent() == {}


# --- odds and ends ------------------------------------------------------------------------


def test_profiles_list_the_file_even_when_none_can_be_chosen(served: Served) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[profiles.a]\nbase_url = "https://a.example.com"\napi_key = "k"\n'
        '[profiles.b]\nbase_url = "https://b.example.com"\napi_key = "k"\n'
    )
    env = {"TOKENSALES_BASE_URL": "", "TOKENSALES_API_KEY": "", "TOKENSALES_API_SECRET": ""}
    result = served.run("profiles", "-o", "table", env=env)
    assert result.returncode == 2 and b"none is chosen" in result.stderr
    assert [line.split()[0] for line in result.stdout.decode().splitlines()] == ["NAME", "a", "b"]


def test_log_records_the_commands_requests_without_secrets(served: Served, tmp_path: Path) -> None:
    log = tmp_path / "requests.log"
    result = served.run("--log", str(log), "get", "webhooks")
    assert result.returncode == 0
    written = log.read_text()
    assert "GET" in written and "/v1/platform-webhooks" in written
    assert DEMO_API_SECRET not in written and "Bearer" not in written
    assert (log.stat().st_mode & 0o777) == 0o600


def test_add_payout_from_a_file_names_every_key_it_leaves_out(
    served: Served, tmp_path: Path
) -> None:
    details = {"blockchainId": "polygon", "tokenId": "ast_1", "spender": WALLET}
    definition = tmp_path / "payout.json"
    definition.write_text(
        json.dumps(
            {
                "type": "stablecoin",
                "name": "USDC out",
                "note": "x",
                "bad\x1b[31mkey": 1,
                "stablecoinDetails": {**details, "fee": 1, "cap": "9"},
                "fiatDetails": {"provider": "stripe"},
            }
        )
    )
    result = served.run("add", "payout", "--from-file", str(definition))
    _out, err = text(result)
    assert result.returncode == 0, err
    assert served.emulator.payouts[-1]["stablecoinDetails"] == details
    for key in ("note", "bad␛[31mkey", "stablecoinDetails.fee", "stablecoinDetails.cap"):
        assert f"warning: --from-file: {key} is not part of a stablecoin payout; left out" in err
    assert "warning: --from-file: fiatDetails is not part of a stablecoin payout" in err
    assert "\x1b" not in err and "name is not" not in err and "blockchainId" not in err


def test_a_key_misspelt_in_a_file_is_named_before_the_value_it_left_missing(
    served: Served, tmp_path: Path
) -> None:
    # "spender is required" came alone: the warning naming "spendr" was never printed.
    definition = tmp_path / "payout.json"
    details = {"blockchainId": "polygon", "tokenId": "ast_1", "spendr": WALLET}
    definition.write_text(
        json.dumps({"type": "stablecoin", "name": "USDC out", "stablecoinDetails": details})
    )
    result = served.run("add", "payout", "--from-file", str(definition))
    _out, err = text(result)
    assert result.returncode == 2
    assert "stablecoinDetails.spendr is not part of a stablecoin payout" in err
    assert err.index("spendr is not part") < err.index("spender")
    collections = tmp_path / "collections.json"
    collections.write_text(json.dumps([{"nmae": "Gold", "blockchain": "polygon"}]))
    result = served.run("add", "collections", "--from-file", str(collections))
    _out, err = text(result)
    assert result.returncode == 2
    assert "collection 1: nmae is not part of a collection" in err


def test_add_collections_from_a_file_names_every_key_it_leaves_out(
    served: Served, tmp_path: Path
) -> None:
    collections = tmp_path / "collections.json"
    info = {"list": {"wallets": [WALLET], "more": 2}, "emails": ["a@example.com"], "note": 3}
    row = {"name": "Gold", "blockchain": "polygon", "contractAddress": WALLET}
    collections.write_text(
        json.dumps([row, {**row, "name": "Silver", "whitelistingInfo": info, "extra": 1}])
    )
    result = served.run("add", "collections", "--from-file", str(collections), "--dry-run")
    out, err = text(result)
    assert result.returncode == 0, err
    for key in ("extra", "whitelistingInfo.list.more", "whitelistingInfo.note"):
        assert (
            f"warning: --from-file: collection 2: {key} is not part of a collection; left out"
            in err
        )
    assert "collection 1" not in err and "wallets is not" not in err and "emails is not" not in err
    assert WALLET in out and "a@example.com" in out


@pytest.mark.parametrize(
    ("info", "refusal"),
    [
        (
            {"list": "notadict", "emails": []},
            "whitelistingInfo.list must be an object (wallets), not a string",
        ),
        # It made a collection with no whitelisted wallets.
        ({"list": [WALLET]}, "whitelistingInfo.list must be an object (wallets), not an array"),
        (None, "whitelistingInfo must be an object (list, emails), not null"),
        ("x", "whitelistingInfo must be an object (list, emails), not a string"),
    ],
)
def test_add_collections_from_a_file_refuses_a_known_key_of_another_shape(
    served: Served, tmp_path: Path, info: object, refusal: str
) -> None:
    # It was called "not part of a collection" and its values sent empty, exit 0.
    collections = tmp_path / "collections.json"
    row = {"name": "Gold", "blockchain": "polygon", "contractAddress": WALLET}
    collections.write_text(json.dumps([row, {**row, "name": "Silver", "whitelistingInfo": info}]))
    result = served.run("add", "collections", "--from-file", str(collections))
    _out, err = text(result)
    assert result.returncode == 2, err
    assert f"--from-file: collection 2: {refusal}" in err
    assert "not part of" not in err and served.sent() == {}


@pytest.mark.parametrize(
    ("details", "shape"), [("notadict", "a string"), (None, "null"), ([WALLET], "an array")]
)
def test_add_payout_from_a_file_refuses_its_type_s_details_of_another_shape(
    served: Served, tmp_path: Path, details: object, shape: str
) -> None:
    # "stablecoinDetails is not part of a stablecoin payout", then the details missing.
    definition = tmp_path / "payout.json"
    definition.write_text(
        json.dumps({"type": "stablecoin", "name": "USDC out", "stablecoinDetails": details})
    )
    result = served.run("add", "payout", "--from-file", str(definition))
    _out, err = text(result)
    assert result.returncode == 2, err
    assert (
        "--from-file: stablecoinDetails must be an object (blockchainId, tokenId, spender), "
        f"not {shape}"
    ) in err
    assert "not part of" not in err and served.sent() == {}


def test_white_space_around_a_value_is_said_where_it_is_left_out(
    served: Served, tmp_path: Path
) -> None:
    # "\t=1", "\r=2" and " =3" were sent as =1, =2 and =3 without a word.
    collections = tmp_path / "collections.json"
    rows = [
        {"name": name, "blockchain": "polygon", "contractAddress": WALLET}
        for name in ("\t=1", "\r=2", " =3")
    ]
    rows[1]["blockchain"] = "polygon "
    collections.write_text(json.dumps(rows))
    result = served.run("add", "collections", "--from-file", str(collections), "--dry-run")
    out, err = text(result)
    assert result.returncode == 0, err
    assert [row["name"] for row in json.loads(out.split("\n\n", 1)[1])] == ["=1", "=2", "=3"]
    for number, shown in ((1, r'"\t=1" is sent as "=1"'), (2, r'"\r=2"'), (3, r'" =3"')):
        assert f"warning: --from-file: collection {number}: name: {shown}" in err
    assert 'collection 2: blockchain: "polygon " is sent as "polygon"' in err
    result = served.run("add", "payout", "--name", " EU ", "--type", "free", "--dry-run")
    assert result.returncode == 0
    assert 'warning: --name: " EU " is sent as "EU"' in text(result)[1]
    result = served.run("add", "payout", "--name", "EU", "--type", "free", "--dry-run")
    assert "warning" not in text(result)[1]


# Every subcommand, and what it is run with here to read the config file; those that do
# not read it say why. A new subcommand fails the test until it is put in one of them.
READS_THE_CONFIG = {
    "get": ["get", "webhooks"],
    "token": ["token"],
    "profiles": ["profiles"],
    "api": ["api", "GET", "/v1/items"],
    "create": ["create", "webhook", "--url", "https://a.example", "--event", "e"],
    "update": ["update", "webhook", "wh_1", "--url", "https://a.example"],
    "delete": ["delete", "webhook", "wh_1", "--yes"],
    "add": ["add", "payout", "--name", "Free", "--type", "free"],
    "listen": [
        *("listen", "--print", "--port", "0"),
        *("--register", "https://tunnel.example", "--events", "e"),
    ],
}
READS_NO_CONFIG = {
    "emulator": "the demo service: no profile",
    "completion": "prints a script; completing a --profile never prints a word",
    "serve": "warns in its own terminal (test_serve.py), as it always did",
}


def test_every_subcommand_that_reads_the_config_warns_once_of_a_file_others_may_read(
    served: Served,
) -> None:
    # Only the app and serve said it: `get`, `token`, `profiles`, `listen --register`…
    # read a file of API secrets others could read without a word.
    from tokensales_tui.cli import build_parser

    (commands,) = [
        action
        for action in build_parser()._actions
        if isinstance(action.choices, dict) and "get" in action.choices
    ]
    assert set(commands.choices) == set(READS_THE_CONFIG) | set(READS_NO_CONFIG)
    path = config_path()
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text(
        f'[profiles.prod]\nbase_url = "{served.server.url}"\napi_key = "{DEMO_API_KEY}"\n'
        f'api_secret = "{DEMO_API_SECRET}"\nread_only = true\n'
    )
    path.chmod(0o644)
    env = {"TOKENSALES_BASE_URL": "", "TOKENSALES_API_KEY": "", "TOKENSALES_API_SECRET": ""}
    warning = (
        f"tokensales-tui: warning: {path} can be accessed by other users (mode 0644) and"
        f" holds API secrets; run: chmod 600 {path}\n"
    )
    for name, args in READS_THE_CONFIG.items():
        result = served.run(*args, env=env)
        assert result.returncode in (0, 5), (name, result.stderr)  # 5: read-only, refused
        assert result.stderr.decode().count(warning) == 1, (name, result.stderr)
    assert served.changes_sent() == {}

    path.chmod(0o600)
    assert warning not in served.run("profiles", env=env).stderr.decode()
    path.write_text(f'[profiles.prod]\nbase_url = "{served.server.url}"\n')  # no secret
    path.chmod(0o644)
    assert b"other users" not in served.run("profiles", env=env).stderr
