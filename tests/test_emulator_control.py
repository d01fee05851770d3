"""``emulator trigger`` and ``deliveries`` against whatever answers at ``--url``."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tokensales_tui.cli import main
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, control

TOKEN = b'{"accessToken":"abc"}'


@contextlib.contextmanager
def answering(
    token: tuple[int, bytes], other: tuple[int, bytes], trickle: bool = False
) -> Iterator[str]:
    """A server on 127.0.0.1 that is not an emulator: the token path answers ``token``,
    every other path ``other``; with ``trickle``, one byte of the body every 0.2 s."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            for start in range(len(body)) if trickle else [0]:
                self.wfile.write(body[start : start + 1] if trickle else body)
                self.wfile.flush()
                if trickle:
                    time.sleep(0.2)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self._answer(*(token if self.path.startswith("/auth/") else other))

        def do_GET(self) -> None:
            self._answer(*other)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the command hung up, as it should past a deadline or a limit

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tokensales-tui: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("token", "other", "says"),
    [
        ((200, TOKEN), (500, b"<html><body>boom</body></html>"), "refused: status 500"),
        ((200, TOKEN), (202, b"not json"), "is not JSON: 'not json'"),
        ((200, TOKEN), (202, b"[1,2]"), "is not an event: a JSON array"),
        ((200, TOKEN), (202, b'{"id": "evt_1", "webhooks": "many"}'), "is not an event"),
        ((200, TOKEN), (403, b'["x"]'), "refused: status 403"),
        pytest.param((200, TOKEN), (202, b"[" * 100_000), "is not JSON", id="deep"),
        ((200, b"nope"), (202, b"{}"), "/auth/getAccessToken is not JSON"),
        ((200, b'{"accessToken": {"a": 1}}'), (202, b"{}"), "holds no token"),
        ((200, b'{"accessToken": "a\\r\\nX-Evil: 1"}'), (202, b"{}"), "holds no token"),
        ((503, b""), (202, b"{}"), "the sign-in was refused: status 503"),
    ],
)
def test_trigger_against_something_that_is_not_an_emulator_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
    token: tuple[int, bytes],
    other: tuple[int, bytes],
    says: str,
) -> None:
    with answering(token, other) as url:
        code = control.trigger(url, "item.sold", None)
    assert code == 1
    assert says in _one_line(capsys)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"not json", "is not JSON"),
        (b'{"deliveries": 5}', "not a delivery log: Expected `array`, got `int`"),
        (b"[]", "not a delivery log: Expected `object`, got `array`"),
        (b'{"deliveries": [{"x": 1}]}', "not a delivery log: Object missing required field"),
        (b'{"deliveries": [1]}', "not a delivery log"),
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_deliveries_against_something_that_is_not_an_emulator_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], body: bytes, says: str, as_json: bool
) -> None:
    with answering((200, TOKEN), (200, body)) as url:
        code = control.deliveries(url, as_json=as_json)
    assert code == 1
    assert says in _one_line(capsys)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -Infinity}', "-Infinity is not a JSON number"),
        ('{"q": 1e400}', "1e400 is beyond the largest number JSON can carry"),
        pytest.param('{"a":' * 100_000 + "1" + "}" * 100_000, "nests too deeply", id="deep"),
        ("[1", "--data is not JSON"),
        ("[1]", "--data must be a JSON object"),
        pytest.param('{"n": ' + "9" * 5000 + "}", "--data is not JSON", id="5000-digits"),
    ],
)
def test_trigger_refuses_data_it_cannot_send_in_one_line(
    capsys: pytest.CaptureFixture[str], data: str, says: str
) -> None:
    with answering((200, TOKEN), (202, b'{"id": "e", "webhooks": 0}')) as url:
        code = control.trigger(url, "item.sold", data)
    assert code == 2
    assert says in _one_line(capsys)


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "ftp://127.0.0.1/", "x"])
def test_a_url_that_is_no_http_address_is_refused(
    capsys: pytest.CaptureFixture[str], url: str
) -> None:
    assert control.deliveries(url) == 2
    assert "--url" in _one_line(capsys)


def test_a_command_has_its_deadline_in_all(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "DEADLINE", 1.0)
    started = time.monotonic()
    with answering((200, TOKEN), (200, b'{"deliveries": []}' * 10), trickle=True) as url:
        code = control.deliveries(url)
    assert code == 1 and time.monotonic() - started < 5
    assert "did not answer within 1 s" in _one_line(capsys)


def test_an_answer_over_the_limit_is_not_read_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "ANSWER_LIMIT", 1000)
    with answering((200, TOKEN), (200, b'{"deliveries": [' + b" " * 5000 + b"]}")) as url:
        assert control.deliveries(url) == 1
    assert "is over 1,000 bytes" in _one_line(capsys)


def test_nothing_listening_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    assert control.trigger(f"http://127.0.0.1:{port}", "item.sold", None) == 1
    assert "did not answer" in _one_line(capsys)


@pytest.mark.parametrize("action", [["deliveries"], ["trigger", "item.sold"]])
def test_log_before_emulator_holds_the_requests_of_its_actions_and_no_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: list[str]
) -> None:
    log = tmp_path / "debug.log"
    secret_token = b'{"accessToken":"tok-9f8e7d"}'
    with answering((200, secret_token), (500, b"")) as url:
        assert main(["--log", str(log), "emulator", *action, "--url", url]) == 1
        missing = tmp_path / "no-such-folder" / "debug.log"
        assert main(["--log", str(missing), "emulator", *action, "--url", url]) == 2
    _, err = capsys.readouterr()
    assert err.splitlines()[-1] == (
        f"tokensales-tui: --log {missing}: the folder {missing.parent} does not exist"
    )
    text = log.read_text()
    assert f"POST {url}/auth/getAccessToken → 200" in text
    assert f"{url}/_emulator/" in text and "→ 500" in text
    for secret in (DEMO_API_KEY, DEMO_API_SECRET, "tok-9f8e7d", "Bearer"):
        assert secret not in text


def test_against_the_hostile_emulator_each_command_ends_with_output_or_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Its answers hold lone surrogates (read as U+FFFD), escapes in every header, and a
    # share of GETs are redirects to escape-laden addresses, 304s, bombs and 500s.
    from tokensales_tui.emulator.server import EmulatorServer

    server = EmulatorServer("127.0.0.1", 0, items=2, faults=["hostile"])
    ready = threading.Event()
    thread = threading.Thread(target=server.run, args=(lambda url: ready.set(),), daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        assert control.trigger(server.url, "item.sold", '{"n": 1}') == 0
        out, err = capsys.readouterr()
        assert '"n":1' in out and "\ufffd" in out and err.startswith("# sent to ")
        for _ in range(8):
            code = control.deliveries(server.url)
            out, err = capsys.readouterr()
            assert code in (0, 1) and "Traceback" not in err
            assert code == 0 or (len(err.splitlines()) == 1 and out == "")
    finally:
        server.stop()
        thread.join(10)
