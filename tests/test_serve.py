"""``serve``: the access token, the session limit, the host rule, the page's own font,
the names it answers to, the pages whose websocket it accepts, and how a session's app
ends.

These run the server's aiohttp application on 127.0.0.1 with a command that leaves a
file behind when it runs, so "no app process started" is something a test can see, or
with a stand-in app that writes frames until it is blocked on its stdout.
The browser test is in ``test_serve_browser.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import errno
import ipaddress
import json
import logging
import os
import re
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import textual_serve
from aiohttp import WSMsgType, WSServerHandshakeError
from aiohttp.test_utils import TestClient, TestServer

from tokensales_tui.cli import build_parser, main
from tokensales_tui.connections import peer_of
from tokensales_tui.local import bind, is_every_address
from tokensales_tui.local import is_loopback_host as is_loopback
from tokensales_tui.serve import AppLeftovers, app_command
from tokensales_tui.serve.app_process import terminal_size
from tokensales_tui.serve.hosts import Address, HostRule, parse_address
from tokensales_tui.serve.server import (
    FORBIDDEN_TEXT,
    TRY_AGAIN_LATER,
    GuardedServer,
    local_location,
    patched_script,
)


def listening() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    return sock


def marker_command(marker: Path) -> str:
    """A command that records each start in ``marker`` and then waits for stdin to close."""
    script = f"open({str(marker)!r}, 'a').write('started\\n'); import sys; sys.stdin.read()"
    return shlex.join([sys.executable, "-c", script])


@asynccontextmanager
async def running(server: GuardedServer, sock: socket.socket) -> AsyncIterator[TestClient]:
    """``server``'s application answering on ``sock`` (127.0.0.1), and a client for it."""
    test_server = TestServer(await server._make_app(), socket_factory=lambda *_: sock)
    client = TestClient(test_server)
    await client.start_server()
    try:
        yield client
    finally:
        await server.end_sessions()
        await client.close()
        sock.close()


@pytest.fixture
async def guarded(tmp_path: Path) -> AsyncIterator[tuple[GuardedServer, TestClient, Path]]:
    marker = tmp_path / "started"
    sock = listening()
    server = GuardedServer(marker_command(marker), sock, max_sessions=1, title="test")
    async with running(server, sock) as client:
        yield server, client, marker


class BoundTo:
    """A socket's stand-in for GuardedServer: bound to ``host`` (the test serves 127.0.0.1)."""

    def __init__(self, host: str, port: int) -> None:
        self.address = (host, port)

    def getsockname(self) -> tuple[str, int]:
        return self.address


async def handshake(client: TestClient, server: GuardedServer, host: str, origin: str) -> int:
    """The status of a websocket handshake with the token's cookie, ``Host`` and ``Origin``."""
    headers = {"Host": host, "Origin": origin, "Cookie": f"{server.cookie}={server.token}"}
    try:
        websocket = await client.ws_connect("/ws", headers=headers)
    except WSServerHandshakeError as refused:
        return refused.status
    await websocket.close()
    return 101


async def raw_get(client: TestClient, target: str, headers: dict[str, str]) -> tuple[int, str]:
    """The status and head of ``GET target``, sent byte for byte as given."""
    reader, writer = await asyncio.open_connection("127.0.0.1", client.port)
    try:
        lines = [f"GET {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
        writer.write(("\r\n".join([*lines, "Connection: close", "", ""])).encode())
        await writer.drain()
        head = (await reader.read()).decode("latin-1").split("\r\n\r\n", 1)[0]
    finally:
        writer.close()
    return int(head.split(" ", 2)[1]), head


@pytest.mark.parametrize(
    "path", ["/", "/ws", "/static/js/textual.js", "/assets/textual.js", "/download/x", "/nope"]
)
async def test_every_path_without_the_token_is_forbidden(
    guarded: tuple[GuardedServer, TestClient, Path], path: str
) -> None:
    _server, client, marker = guarded
    response = await client.get(path)
    assert response.status == 403
    assert await response.text() == FORBIDDEN_TEXT
    wrong = await client.get(path + "?token=wrong", cookies={"tokensales_serve_1": "x"})
    assert wrong.status == 403
    assert not marker.exists()


@pytest.mark.parametrize("value", [b"\xff\xfe", b"\xed\xa0\x80", b"caf\xc3\xa9"])
async def test_a_cookie_that_is_not_utf8_is_forbidden_quietly(
    guarded: tuple[GuardedServer, TestClient, Path],
    caplog: pytest.LogCaptureFixture,
    value: bytes,
) -> None:
    """Anyone can send such bytes: they were a 500 and a traceback in the log."""
    server, client, marker = guarded
    reader, writer = await asyncio.open_connection("127.0.0.1", client.port)
    head = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{client.port}\r\nConnection: close\r\n"
        f"Cookie: {server.cookie}="
    ).encode()
    writer.write(head + value + b"\r\n\r\n")
    answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert answer.endswith(FORBIDDEN_TEXT.encode())
    assert errors_logged(caplog) == []
    assert not marker.exists()


async def test_a_websocket_without_the_token_starts_no_app(
    guarded: tuple[GuardedServer, TestClient, Path],
) -> None:
    _server, client, marker = guarded
    with pytest.raises(WSServerHandshakeError) as refused:
        await client.ws_connect("/ws")
    assert refused.value.status == 403
    await asyncio.sleep(0.2)  # a process started anyway would have written by now
    assert not marker.exists()


async def test_the_token_becomes_a_cookie_and_leaves_the_address(
    guarded: tuple[GuardedServer, TestClient, Path],
) -> None:
    server, client, _marker = guarded
    response = await client.get(f"/?token={server.token}&fontsize=18", allow_redirects=False)
    assert response.status == 302
    assert response.headers["Location"] == "/?fontsize=18"
    cookie = response.cookies[server.cookie]
    assert cookie.value == server.token
    assert cookie["httponly"] and cookie["samesite"] == "Strict"
    page = await client.get("/?fontsize=18")  # the client keeps the cookie, as a browser does
    assert page.status == 200
    html = await page.text()
    assert server.token not in html
    assert "fonts.googleapis" not in html and "https://" not in html
    assert "RobotoMono-VariableFont_wght.ttf" in html
    assert page.headers["Cache-Control"] == "no-store"
    font = await client.get("/static/fonts/RobotoMono-VariableFont_wght.ttf")
    assert font.status == 200
    script = await client.get("/assets/textual.js")
    assert "screenReaderMode:!0" in await script.text()


async def test_a_static_file_is_sent_once_whole_with_no_error_logged(
    guarded: tuple[GuardedServer, TestClient, Path], caplog: pytest.LogCaptureFixture
) -> None:
    # Each file (the styles, the font) was sent, then aiohttp prepared it again and
    # logged an "Unhandled exception" traceback: three a page load.
    server, client, _marker = guarded
    await client.get(f"/?token={server.token}")
    static = Path(textual_serve.__file__).parent / "static"
    with caplog.at_level(logging.DEBUG):
        for path in ("css/xterm.css", "fonts/RobotoMono-VariableFont_wght.ttf"):
            answer = await client.get(f"/static/{path}")
            assert answer.status == 200
            assert await answer.read() == (static / path).read_bytes()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("//evil.example/", "/evil.example/"),
        ("/%2F%2Fevil.example/", "/evil.example/"),
        ("/%5Cevil.example/", "/evil.example/"),
        ("/%5C%5Cevil.example/", "/evil.example/"),
        ("/%09/evil.example/", "/%09/evil.example/"),
        ("/static/css/xterm.css", "/static/css/xterm.css"),
    ],
)
async def test_the_token_redirect_stays_on_this_server(
    guarded: tuple[GuardedServer, TestClient, Path], path: str, location: str
) -> None:
    """``//host/`` (or ``/\\host/``) in ``Location`` would send the browser to another server."""
    server, client, _marker = guarded
    host = f"127.0.0.1:{client.port}"
    status, head = await raw_get(client, f"{path}?token={server.token}", {"Host": host})
    assert status == 302
    assert f"\r\nLocation: {location}\r\n" in head


def test_a_redirect_keeps_every_other_query_value() -> None:
    query = [("fontsize", "18"), ("a", "1"), ("a", "2 3&")]
    assert local_location("/", query) == "/?fontsize=18&a=1&a=2+3%26"
    assert local_location("/", []) == "/"
    assert local_location("///a b", []) == "/a%20b"


async def test_one_app_a_connection_up_to_the_limit(
    guarded: tuple[GuardedServer, TestClient, Path],
) -> None:
    server, client, marker = guarded
    client.session.cookie_jar.update_cookies({server.cookie: server.token})
    origin = {"Origin": server.public_url}
    first = await client.ws_connect("/ws", headers=origin)
    for _ in range(200):  # the app starts in a subprocess: wait (bounded) for its mark
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.read_text() == "started\n"
    # Closed at once with the reason, which the page shows: a 503 reached no one.
    refused = await client.ws_connect("/ws", headers=origin)
    closing = await refused.receive()
    assert (closing.type, closing.data) == (WSMsgType.CLOSE, TRY_AGAIN_LATER)
    reason = (
        "1 browser tab is open already, the most this server allows: close one, then try again."
    )
    assert closing.extra == reason
    assert server.sessions == 1
    await first.close()
    assert marker.read_text() == "started\n"  # the refused one started nothing


async def test_apps_started_at_once_are_each_counted_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Four tabs opened at once were each logged "(4 of 4 sessions)": the count was
    taken after the app's start, when every tab had taken its place."""
    from tokensales_tui.serve.app_process import AppProcess

    all_started = asyncio.Event()
    waiting = 0
    start = AppProcess.start

    async def start_together(self: AppProcess, width: int, height: int) -> None:
        nonlocal waiting
        await start(self, width, height)
        waiting += 1
        if waiting == 4:
            all_started.set()
        await all_started.wait()

    monkeypatch.setattr(AppProcess, "start", start_together)
    sock = listening()
    server = GuardedServer(marker_command(tmp_path / "m"), sock, max_sessions=4, title="t")
    caplog.set_level(logging.INFO, "tokensales_tui.serve")
    async with running(server, sock) as client:
        client.session.cookie_jar.update_cookies({server.cookie: server.token})
        origin = {"Origin": server.public_url}
        tabs = await asyncio.gather(*(client.ws_connect("/ws", headers=origin) for _ in range(4)))
        async with asyncio.timeout(30):
            while len(counts := re.findall(r"started \((\d) of 4", caplog.text)) < 4:
                await asyncio.sleep(0.05)
        assert sorted(counts) == ["1", "2", "3", "4"]
        for tab in tabs:
            await tab.close()


class HandsOver:
    """An app's service, as a download asks it for chunks: ``data``, then the end."""

    def __init__(self, server: GuardedServer, data: bytes) -> None:
        self.server = server
        self.data = data

    async def send_meta(self, meta: dict[str, Any]) -> bool:
        await self.server.download_manager.chunk_received(meta["key"], self.data)
        self.data = b""
        return True


@pytest.mark.parametrize(
    "name", ["Q3; final.csv", 'a"b.csv', "a\\b; c=d.csv", "café, 2024 ½.csv", "x%41.csv"]
)
async def test_a_download_is_sent_under_its_whole_name(
    guarded: tuple[GuardedServer, TestClient, Path], name: str
) -> None:
    """textual-serve sent ``filename=Q3; final.csv`` unquoted: a browser saved ``Q3``."""
    server, client, _ = guarded
    await server.download_manager.create_download(
        app_service=HandsOver(server, b"a,b\n"),  # type: ignore[arg-type]
        delivery_key="k1",
        file_name=name,
        open_method="download",
        mime_type="text/csv",
        encoding="utf-8",
    )
    client.session.cookie_jar.update_cookies({server.cookie: server.token})
    response = await client.get("/download/k1")
    assert (response.status, await response.read()) == (200, b"a,b\n")
    header = response.headers["Content-Disposition"]
    # RFC 6266: a quoted-string (with \" and \\), then the name as UTF-8 (RFC 8187), which
    # every browser takes in its place.
    found = re.fullmatch(
        r"attachment; filename=\"((?:[^\"\\]|\\.)*)\"; filename\*=UTF-8''(\S+)", header
    )
    assert found is not None, header
    assert urllib.parse.unquote(found[2], errors="strict") == name
    assert re.sub(r"\\(.)", r"\1", found[1]) == re.sub(r"[^ -~]", "_", name)
    assert (await client.get("/download/k1")).status == 404  # handed over once


async def test_a_websocket_from_another_site_is_refused(
    guarded: tuple[GuardedServer, TestClient, Path],
) -> None:
    server, client, marker = guarded
    client.session.cookie_jar.update_cookies({server.cookie: server.token})
    with pytest.raises(WSServerHandshakeError) as refused:
        await client.ws_connect("/ws", headers={"Origin": "http://evil.example"})
    assert refused.value.status == 403
    assert not marker.exists()


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
async def test_the_page_follows_the_name_the_browser_used(
    guarded: tuple[GuardedServer, TestClient, Path], name: str
) -> None:
    server, client, _marker = guarded
    host = f"{name}:{client.port}"
    cookie = {"Cookie": f"{server.cookie}={server.token}"}
    page = await client.get("/", headers={"Host": host, **cookie})
    assert page.status == 200
    html = await page.text()
    assert f'data-session-websocket-url="ws://{host}/ws"' in html
    assert f'<script src="http://{host}/assets/textual.js">' in html
    assert f'href="http://{host}/static/css/xterm.css"' in html
    other = {"127.0.0.1", "localhost", "[::1]"} - {name}
    assert not any(f"{o}:{client.port}" in html for o in other)


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]", "LocalHost"])
async def test_a_websocket_from_a_page_of_the_same_address_starts_the_app(
    guarded: tuple[GuardedServer, TestClient, Path], name: str
) -> None:
    server, client, marker = guarded
    address = f"{name}:{client.port}"
    assert await handshake(client, server, address, f"http://{address}") == 101
    for _ in range(200):  # the app starts in a subprocess: wait (bounded) for its mark
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.read_text() == "started\n"


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:{port}", "http://127.0.0.1:{port}"),  # another origin, even if local
        ("127.0.0.1:{port}", "http://localhost:{port}"),
        ("127.0.0.1:{port}", "http://evil.example"),
        ("127.0.0.1:{port}", "http://evil.example:{port}"),
        ("127.0.0.1:{port}", "https://127.0.0.1:{port}"),
        ("127.0.0.1:{port}", "http://127.0.0.1:{port}.evil.example"),
        ("127.0.0.1:{port}", "http://127.0.0.1:{port}@evil.example"),
        ("127.0.0.1:{port}", "http://127.0.0.1:{port}/"),
        ("127.0.0.1:{port}", "http://127.0.0.1"),
        ("127.0.0.1:{port}", "null"),
        ("127.0.0.1:{port}", ""),
    ],
)
async def test_a_websocket_from_a_page_of_another_address_is_refused(
    guarded: tuple[GuardedServer, TestClient, Path], host: str, origin: str
) -> None:
    server, client, marker = guarded
    port = client.port
    status = await handshake(client, server, host.format(port=port), origin.format(port=port))
    assert status == 403
    await asyncio.sleep(0.2)  # a process started anyway would have written by now
    assert not marker.exists()


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example:{port}", 403),  # a name rebound to 127.0.0.1 (DNS rebinding)
        ("localhost:{other}", 403),
        ("127.0.0.1", 403),
        ("127.0.0.2:{port}", 403),
        ("localhost.:{port}", 403),
        ("", 400),
        ("127.0.0.1:{port}/x", 400),
        ("127.0.0.1:99999", 400),
        ('x"><script>', 400),
    ],
)
async def test_a_loopback_server_answers_only_to_its_own_names(
    guarded: tuple[GuardedServer, TestClient, Path], host: str, status: int
) -> None:
    """Not even the token's redirect (nor its cookie) is given to another name."""
    server, client, marker = guarded
    named = host.format(port=client.port, other=client.port + 1)
    for target in ("/", f"/?token={server.token}", "/ws", "/assets/textual.js"):
        answer, head = await raw_get(
            client, target, {"Host": named, "Cookie": f"{server.cookie}={server.token}"}
        )
        assert answer == status, (target, head)
        assert "Set-Cookie" not in head
    if status == 403:
        page = await client.get("/", headers={"Host": named})
        assert await page.text() == (
            f"403 Forbidden: open http://127.0.0.1:{client.port} or http://localhost:{client.port}.\n"
        )
    assert not marker.exists()


async def test_a_wildcard_bind_serves_the_address_the_browser_used(tmp_path: Path) -> None:
    """Bound to 0.0.0.0, the page names the address the browser used, not 0.0.0.0."""
    marker = tmp_path / "started"
    sock = listening()
    bound = BoundTo("0.0.0.0", sock.getsockname()[1])
    server = GuardedServer(marker_command(marker), bound, max_sessions=1, title="test")  # type: ignore[arg-type]
    async with running(server, sock) as client:
        cookie = {"Cookie": f"{server.cookie}={server.token}"}
        for host in ("192.0.2.7:8000", "box.lan:8000", "[2001:db8::7]:8000", "box.lan"):
            page = await client.get("/", headers={"Host": host, **cookie})
            assert page.status == 200
            html = await page.text()
            assert f'data-session-websocket-url="ws://{host}/ws"' in html
            assert "0.0.0.0" not in html
        assert await handshake(client, server, "box.lan:8000", "http://evil.example") == 403
        assert await handshake(client, server, "box.lan:8000", "http://box.lan:8001") == 403
        assert not marker.exists()
        assert await handshake(client, server, "box.lan:8000", "http://box.lan:8000") == 101
        for _ in range(200):
            if marker.exists():
                break
            await asyncio.sleep(0.05)
        assert marker.read_text() == "started\n"
        answer, _head = await raw_get(client, "/", {"Host": "a b", **cookie})
        assert answer == 400


def test_addresses_are_compared_as_a_browser_writes_them() -> None:
    assert parse_address("LocalHost:8000") == Address("localhost", 8000)
    assert parse_address("example.com") == Address("example.com", 80)
    assert parse_address("[0:0::1]:8000") == Address("[::1]", 8000)
    for bad in ("", ":8000", "a b", "[::1", "[zz::1]:80", "host:0", "host:65536", "h/x", "h:8x"):
        assert parse_address(bad) is None, bad
    loopback = HostRule.for_bind("127.3.4.5", 8000)
    assert loopback.names == {"127.0.0.1", "localhost", "[::1]", "127.3.4.5"}
    assert HostRule.for_bind("::1", 8000).names == {"127.0.0.1", "localhost", "[::1]"}
    assert HostRule.for_bind("::", 8000).names is None
    page = Address("localhost", 8000)
    assert HostRule.same_origin("http://localhost:8000", page)
    assert HostRule.same_origin("HTTP://LOCALHOST:8000", page)
    assert not HostRule.same_origin("ws://localhost:8000", page)
    assert not HostRule.same_origin("localhost:8000", page)
    assert HostRule.same_origin("http://example.com", Address("example.com", 80))


def test_the_app_command_holds_the_session_flags_and_no_token() -> None:
    args = build_parser().parse_args(["serve", "--demo", "--mask", "--read-only"])
    command = shlex.split(app_command(args))
    # In UTF-8 mode from its start: never started again for a locale's charset.
    assert command[:6] == [sys.executable, "-X", "utf8", "-m", "tokensales_tui", "--served"]
    assert set(command[6:]) == {"--demo", "--mask", "--read-only"}
    before = build_parser().parse_args(["--profile", "prod", "serve"])
    assert shlex.split(app_command(before))[6:] == ["--profile", "prod"]


def served_at_once(monkeypatch: pytest.MonkeyPatch, host: str) -> int:
    """``serve --demo --host host``, ready at once and gone (nothing is bound: port 18599)."""
    import tokensales_tui.serve as serve

    async def ready_at_once(server: GuardedServer, ready: Callable[[str], None]) -> int:
        ready(server.url)
        return 0

    monkeypatch.setattr(serve, "_listen", lambda host, port: BoundTo(host, 18599))
    monkeypatch.setattr(serve, "_serve", ready_at_once)
    return main(["serve", "--demo", "--host", host])


LOOPBACK_FORMS = ("127.1", "0x7f.1", "0x7f.0.0.1", "2130706433", "0177.1", "127.000.000.001")
"""127.0.0.1 as the resolver also reads it (``bind`` and ``connect`` take each)."""


def test_loopback_hosts() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.3.4.5", *LOOPBACK_FORMS):
        assert is_loopback(host), host
    for host in ("::ffff:127.0.0.1", "[::ffff:7f00:1]", "0:0:0:0:0:0:0:1", "LocalHost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.2", "example.com", "", "0", "0xc0.0xa8.1.2"):
        assert not is_loopback(host), host
    # What inet_aton alone reads as 127.0.0.1, and no socket takes; names of hex letters.
    for host in ("127.0.0.1 x", "127.0.0.1\tx", "cafe", "0x7f.1.example", "1.2.3.4.5"):
        assert not is_loopback(host), host
    for host in ("0", "0x0", "0.0", "::", "[::]"):
        assert is_every_address(host), host


@pytest.mark.parametrize("host", LOOPBACK_FORMS)
def test_every_form_of_a_loopback_address_binds_to_loopback(host: str) -> None:
    sock, _url = bind(host, 0)
    with sock:
        assert ipaddress.ip_address(sock.getsockname()[0]).is_loopback
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["127.1", "2130706433", "::ffff:127.0.0.1"])
def test_a_loopback_host_in_another_form_is_served_without_a_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    """``serve --host 127.1`` was refused: "lets other machines reach the app"."""
    assert served_at_once(monkeypatch, host) == 0
    out, err = capsys.readouterr()
    assert "?token=" in out and "loopback" not in err and "machines" not in err


def test_an_outside_host_is_refused_for_a_real_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "real credentials" in err and "--allow-remote" in err
    assert "--host 0.0.0.0 is not a loopback address: other machines could reach" in err


@pytest.mark.parametrize(("host", "shown"), [("0.0.0.0", "127.0.0.1"), ("::", "[::1]")])
def test_a_bind_to_every_address_prints_one_to_open(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], host: str, shown: str
) -> None:
    """Not http://0.0.0.0:…, and a word on how other machines reach it (nothing is bound)."""
    assert served_at_once(monkeypatch, host) == 0
    out = capsys.readouterr().out
    assert f"\nhttp://{shown}:18599/?token=" in out
    assert f"# From another machine: this machine's name or address in place of {shown}." in out
    assert "0.0.0.0" not in out and "[::]" not in out


def test_a_config_others_may_read_is_said_by_serve_not_in_the_tabs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every tab said "…/.config/tokensales-tui can be accessed by other users …; run:
    # chmod 700 …" to whoever had the page: the serving machine's paths, to the wrong one.
    from tokensales_tui.config import config_path

    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text(
        '[profiles.p]\nbase_url = "http://127.0.0.1:9"\napi_key = "k"\napi_secret = "s"\n'
    )
    path.parent.chmod(0o755)
    with listening() as busy:
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 1
    err = capsys.readouterr().err
    assert "tokensales-tui: warning:" in err and "chmod 700" in err


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with listening() as busy:
        port = busy.getsockname()[1]
        assert main(["serve", "--demo", "--port", str(port)]) == 1
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_the_script_patch_needs_its_anchor() -> None:
    assert patched_script("x({allowProposedApi:!0,fontSize:1})") == (
        "x({allowProposedApi:!0,screenReaderMode:!0,fontSize:1})"
    )
    assert patched_script("something else") == "something else"


def test_max_sessions_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--max-sessions", "0"])
    assert "must be 1 or more" in capsys.readouterr().err
    assert isinstance(build_parser().parse_args(["serve"]), argparse.Namespace)


def test_log_before_serve_gets_what_serve_logs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tokensales_tui.serve as serve

    async def logs(server: object, ready: object) -> int:
        logging.getLogger("tokensales_tui.serve").warning("app 7 did not quit within 3 s")
        return 0

    monkeypatch.setattr(serve, "_serve", logs)
    path = tmp_path / "serve.log"
    assert main(["--log", str(path), "serve", "--demo", "--port", "0"]) == 0
    assert "WARNING tokensales_tui.serve: app 7 did not quit within 3 s" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_log_file_that_cannot_be_written_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tokensales_tui.serve as serve

    async def serves(server: object, ready: object) -> int:
        raise AssertionError("served in spite of a --log it cannot write")

    monkeypatch.setattr(serve, "_serve", serves)
    assert main(["--log", "/nonexistent/dir/x", "serve", "--demo", "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        "tokensales-tui: --log /nonexistent/dir/x: the folder /nonexistent/dir does not exist\n"
    )


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "8o80", ""])
def test_a_port_out_of_range_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], port: str
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["serve", "--demo", f"--port={port}"])
    assert ended.value.code == 2
    assert capsys.readouterr().err.endswith(
        "error: argument --port: must be a number from 0 to 65535 (0 picks a free one)\n"
    )
    for edge in ("0", "65535"):
        assert build_parser().parse_args(["serve", "--port", edge]).port == int(edge)


BLOCKED_APP = """
import json, os, select, sys, threading
pid_file, blocked_file, quits = sys.argv[1], sys.argv[2], sys.argv[3] == "quits"
asked = threading.Event()

def read_input():  # textual-serve's packets: a type byte, a 4-byte length, the payload
    data = b""
    while chunk := os.read(0, 65536):
        data += chunk
        while len(data) >= 5 and len(data) >= 5 + int.from_bytes(data[1:5], "big"):
            end = 5 + int.from_bytes(data[1:5], "big")
            if quits and data[:1] == b"M" and json.loads(data[5:end])["type"] == "quit":
                asked.set()
            data = data[end:]

threading.Thread(target=read_input, daemon=True).start()
os.write(1, b"__GANGLION__\\n")
open(pid_file, "w").write(str(os.getpid()))
os.set_blocking(1, False)
frame = b"D" + (65536).to_bytes(4, "big") + b"x" * 65536
rest = b""
while not asked.is_set():  # as a Textual app: it sees a request to quit between frames
    rest = rest or frame
    try:
        rest = rest[os.write(1, rest):]
    except BlockingIOError:
        if not select.select([], [1], [], 0.5)[1]:  # nothing read of it for half a second
            open(blocked_file, "w").close()
            select.select([], [1], [])
"""


def blocked_app(tmp_path: Path, *, quits: bool) -> tuple[str, Path, Path]:
    """A stand-in app writing frames as fast as it can, and the files where it leaves its
    pid and a mark once it is blocked on its stdout; it ends when asked to quit, if
    ``quits``, else never: only a kill ends it."""
    pid_file, blocked_file = tmp_path / "app.pid", tmp_path / "blocked"
    argv = [sys.executable, "-c", BLOCKED_APP, str(pid_file), str(blocked_file)]
    command = shlex.join([*argv, "quits" if quits else "stays"])
    return command, pid_file, blocked_file


async def unread_websocket(port: int, server: GuardedServer) -> asyncio.StreamWriter:
    """A websocket to the server on ``port``, as from a page that stops reading it at once.

    Its socket takes little and nothing reads it past the stream's own buffer, so what the
    server sends soon waits in the server, and then in the app's stdout.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    host = f"127.0.0.1:{port}"
    request = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        f"Origin: http://{host}",
        f"Cookie: {server.cookie}={server.token}",
    ]
    writer.write("\r\n".join([*request, "", ""]).encode())
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 "), head
    return writer


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def blocked_on_its_output(pid_file: Path, blocked_file: Path) -> int:
    """The app's pid, once it has been blocked on its stdout for half a second (within 30 s)."""
    deadline = time.monotonic() + 30
    while not blocked_file.exists():
        assert time.monotonic() < deadline, "the app never blocked on its output"
        await asyncio.sleep(0.02)
    return int(pid_file.read_text())


async def gone_and_released(server: GuardedServer, pid: int, seconds: float) -> None:
    """Wait (at most ``seconds``) until the app ``pid`` is gone and its session released;
    the session must stay counted as long as the process runs."""
    deadline = time.monotonic() + seconds
    try:
        while alive(pid) or server.sessions:
            assert time.monotonic() < deadline, f"app alive: {alive(pid)}, {server.sessions=}"
            if alive(pid):
                assert server.sessions == 1, "the session was released while its app runs"
            await asyncio.sleep(0.02)
    finally:
        if alive(pid):  # the test failed: leave no process behind
            os.kill(pid, signal.SIGKILL)


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_app_blocked_on_its_output_ends_when_its_browser_goes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A page stops reading, its app blocks writing to it, then the browser goes away:
    the app's output is read and dropped, so it reads the request to quit and ends."""
    caplog.set_level(logging.INFO, logger="tokensales_tui.serve")
    command, pid_file, blocked_file = blocked_app(tmp_path, quits=True)
    sock = listening()
    server = GuardedServer(command, sock, max_sessions=1, title="test", quit_wait=10.0)
    async with running(server, sock) as client:
        browser = await unread_websocket(client.port, server)
        pid = await blocked_on_its_output(pid_file, blocked_file)
        assert server.sessions == 1
        browser.transport.abort()  # gone, with what it had not read
        await gone_and_released(server, pid, seconds=15.0)
        assert f"app {pid} ended (exit status 0)" in caplog.messages  # it quit: not killed
        assert (
            await handshake(
                client, server, f"127.0.0.1:{client.port}", f"http://127.0.0.1:{client.port}"
            )
            == 101
        )
    assert errors_logged(caplog) == []


async def test_an_app_that_does_not_quit_is_killed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    command, pid_file, blocked_file = blocked_app(tmp_path, quits=False)
    sock = listening()
    server = GuardedServer(command, sock, max_sessions=1, title="test", quit_wait=0.5)
    async with running(server, sock) as client:
        browser = await unread_websocket(client.port, server)
        pid = await blocked_on_its_output(pid_file, blocked_file)
        browser.transport.abort()
        await gone_and_released(server, pid, seconds=10.0)
    assert f"app {pid} did not quit within 0.5 s: killed" in caplog.messages
    assert errors_logged(caplog) == []


async def test_stopping_the_server_ends_every_app(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Even one whose browser is still there, reading nothing."""
    command, pid_file, blocked_file = blocked_app(tmp_path, quits=True)
    sock = listening()
    sock.setblocking(False)
    server = GuardedServer(command, sock, max_sessions=1, title="test")
    stop, listening_at = asyncio.Event(), asyncio.Event()
    serving = asyncio.create_task(server.run(lambda url: listening_at.set(), stop))
    await listening_at.wait()
    browser = await unread_websocket(sock.getsockname()[1], server)
    pid = await blocked_on_its_output(pid_file, blocked_file)
    stop.set()
    try:
        async with asyncio.timeout(15):
            await serving
        assert not alive(pid) and server.sessions == 0
    finally:
        browser.close()
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert errors_logged(caplog) == []


LIBRARIES_LOG = """
import logging, sys
from tokensales_tui.debug_log import enable_debug_log
from tokensales_tui.serve.server import logs_to_serve_log

enable_debug_log(sys.argv[1])
with logs_to_serve_log():
    for name in ("aiohttp.server", "textual-serve", "asyncio"):
        try:
            raise ConnectionError("Connection lost")
        except ConnectionError:
            logging.getLogger(name).exception("Error handling request")
"""


def test_what_the_libraries_under_serve_log_goes_to_the_log_file_only(tmp_path: Path) -> None:
    """Python's last resort writes to stderr what no handler takes: none of it under serve."""
    path = tmp_path / "serve.log"
    ran = subprocess.run(
        [sys.executable, "-c", LIBRARIES_LOG, str(path)], capture_output=True, text=True, timeout=60
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    text = path.read_text()
    assert text.count("ConnectionError: Connection lost") == 3
    for name in ("aiohttp.server", "textual-serve", "asyncio"):
        assert f"ERROR {name}: Error handling request" in text


@pytest.mark.parametrize("logged", [True, False])
def test_what_an_app_leaves_on_stderr_goes_to_the_log_not_over_the_terminal(
    logged: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # textual-serve writes an ended app's stderr to stdout: a crash's traceback was drawn
    # over the operator's terminal, and the log only said "ended (exit status 1)".
    import tokensales_tui.serve as serve_module

    async def served(server: object, ready: Callable[[str], None]) -> int:
        ready("http://127.0.0.1:1/?token=x")
        left = (
            "Traceback (most recent call last):\nOSError: File name too long\n"
            "error: \x1b]52;c;cHduZWQ=\x07 \x1b[2J\x9b31m title\x1b]0;x\x07\n"
        )
        sys.stdout.write(left)  # all of it at once, as textual-serve writes it;
        sys.stdout.write(left)  # twice for an app that failed to start
        return 0

    monkeypatch.setattr(serve_module, "_serve", served)
    log = tmp_path / "serve.log"
    assert main([*(["--log", str(log)] if logged else []), "serve", "--demo", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert "Open this address" in out and "Traceback" not in out + err
    assert "52;c" not in out + err and "\x1b" not in out + err
    hint = f"its traceback is in {log}" if logged else "'tokensales-tui --log FILE serve …'"
    assert err.strip() == f"tokensales-tui: a browser tab's app failed — {hint}" + (
        "" if logged else " keeps its traceback"
    )
    if logged:
        logged_text = log.read_text()
        assert logged_text.count("OSError: File name too long") == 1
        assert "\x1b" not in logged_text and "␛]52" in logged_text


def test_serve_without_a_profile_is_refused_before_serving() -> None:
    # Each tab would have shown the setup form, writing this machine's config file
    # from a browser.
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSALES_")}
    ran = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.startswith("tokensales-tui: serve: nothing is configured")
    assert ran.stderr.rstrip().endswith("(or serve --demo)")


STDERR_APP = (
    "import sys; sys.stderr.write(sys.argv[1]); sys.stderr.flush();"
    " print('__GANGLION__', flush=True); import time; time.sleep(0.5); sys.exit(int(sys.argv[2]))"
)


@pytest.mark.parametrize(("status", "failed"), [(0, False), (1, True)])
async def test_an_app_that_exits_0_having_written_a_warning_did_not_fail(
    status: int,
    failed: bool,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Seen under load: an app ending as it started left a RuntimeWarning on stderr and
    # exited 0; the terminal said "a browser tab's app failed".
    caplog.set_level(logging.INFO, logger="tokensales_tui.serve")
    warning = "sys:1: RuntimeWarning: coroutine 'x' was never awaited\n"
    leftovers = AppLeftovers("its traceback is in serve.log")
    command = shlex.join([sys.executable, "-c", STDERR_APP, warning, str(status)])
    sock = listening()
    server = GuardedServer(
        command, sock, max_sessions=1, title="test", on_stderr=leftovers.app_ended
    )
    with contextlib.redirect_stdout(leftovers):
        async with running(server, sock) as client:
            client.session.cookie_jar.update_cookies({server.cookie: server.token})
            websocket = await client.ws_connect("/ws")
            deadline = time.monotonic() + 20
            while not any("ended (exit status" in message for message in caplog.messages):
                assert time.monotonic() < deadline, caplog.messages
                await asyncio.sleep(0.05)
            await websocket.close()
    said = [r for r in caplog.records if "wrote on its way out" in r.getMessage()]
    assert len(said) == 1 and warning in said[0].getMessage()
    assert f"(exit status {status})" in said[0].getMessage()
    assert said[0].levelno == (logging.ERROR if failed else logging.WARNING)
    err = capsys.readouterr().err
    assert err == (
        "tokensales-tui: a browser tab's app failed — its traceback is in serve.log\n"
        if failed
        else ""
    )


def started_apps(log: Path) -> list[int]:
    text = log.read_text() if log.exists() else ""
    return [int(pid) for pid in re.findall(r"app (\d+) started", text)]


async def drawn(tab: aiohttp.ClientWebSocketResponse, text: bytes) -> None:
    """Read what the app sends until ``text`` was in it, then on (dropping it)."""
    seen = b""
    async for message in tab:
        if message.type == aiohttp.WSMsgType.BINARY and text not in seen:
            seen = seen[-1000:] + message.data
            if text in seen:
                return


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGKILL])
async def test_every_app_ends_with_its_server_however_it_ends(tmp_path: Path, signum: int) -> None:
    """SIGHUP (the terminal closed) killed the server and left each tab's app running
    forever; so did any hard death of the server, once the apps had drawn (an app still
    drawing died of the broken pipe). Now SIGHUP ends every session's app, then the
    server with 129 (it was 0, as for every signal), and an app whose input ends (its
    server gone) quits by itself."""
    log = tmp_path / "serve.log"
    argv = [sys.executable, "-m", "tokensales_tui", "--log", str(log), "serve", "--demo"]
    server = subprocess.Popen(
        [*argv, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    apps: list[int] = []
    try:
        assert server.stdout is not None
        url = ""
        while "?token=" not in url:
            url = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 60)
            assert url, "serve printed no address"
        base, token = url.strip().split("/?token=")
        cookie = {"Cookie": f"tokensales_serve_{base.rsplit(':', 1)[1]}={token}"}
        async with aiohttp.ClientSession() as browser:
            tabs = [
                await browser.ws_connect(f"ws{base[4:]}/ws?width=100&height=30", headers=cookie)
                for _ in range(2)
            ]
            async with asyncio.timeout(60):
                await asyncio.gather(*(drawn(tab, b"wh_9019a85bc0a7") for tab in tabs))
            apps = started_apps(log)
            assert len(apps) == 2 and all(alive(pid) for pid in apps)
            await asyncio.sleep(1.0)  # the apps are idle, drawing nothing
            server.send_signal(signum)
            deadline = time.monotonic() + 20
            while any(alive(pid) for pid in apps):
                assert time.monotonic() < deadline, [pid for pid in apps if alive(pid)]
                await asyncio.sleep(0.1)
            for tab in tabs:
                await tab.close()
        if signum == signal.SIGHUP:
            assert server.wait(20) == 128 + signal.SIGHUP
            assert log.read_text().count("session over: the server is stopping") == 2
    finally:
        for pid in [*apps, server.pid]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        server.communicate()


RECORDING_APP = """
import json, os, sys
out = open(sys.argv[1], "a")
def record(entry):
    out.write(json.dumps(entry) + "\\n")
    out.flush()
record({"columns": os.environ["COLUMNS"], "rows": os.environ["ROWS"]})
os.write(1, b"__GANGLION__\\n")
data = b""
while chunk := os.read(0, 65536):
    data += chunk
    while len(data) >= 5 and len(data) >= 5 + int.from_bytes(data[1:5], "big"):
        end = 5 + int.from_bytes(data[1:5], "big")
        record([data[:1].decode(), data[5:end].decode()])
        data = data[end:]
"""


async def test_terminal_sizes_are_clamped_and_garbage_is_ignored(tmp_path: Path) -> None:
    """A tab asking for a 40,000 × 40,000 terminal (or resizing to 100,000) made its app
    use gigabytes; a size given as a string ended its own session."""
    record = tmp_path / "record"
    command = shlex.join([sys.executable, "-c", RECORDING_APP, str(record)])
    sock = listening()
    server = GuardedServer(command, sock, max_sessions=1, title="test")
    async with running(server, sock) as client:
        client.session.cookie_jar.update_cookies({server.cookie: server.token})
        tab = await client.ws_connect("/ws?width=40000&height=40000")
        for sent in [
            ["resize", {"width": 100000, "height": 100000}],
            ["resize", {"width": "abc", "height": 24}],
            ["resize", {"width": True, "height": 24}],
            ["resize", {"width": 80.5, "height": 24}],
            ["resize", {"width": 80}],
            ["resize", 5],
            ["stdin", 5],
            ["stdin", "\ud800a"],
            [],
            {"width": 1},
            "stdin",
            ["resize", {"width": -3, "height": 0}],
            ["resize", {"width": 120, "height": 40}],
        ]:
            await tab.send_str(json.dumps(sent))
        for sent_text in ["not json", "[" * 100_000 + "]" * 100_000]:
            await tab.send_str(sent_text)
        await tab.send_json(["ping", "still there"])
        async with asyncio.timeout(20):
            pong = await tab.receive_json()
            while "120" not in (record.read_text() if record.exists() else ""):
                await asyncio.sleep(0.05)
        assert pong == ["pong", "still there"]
        assert server.sessions == 1
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        await tab.close()
    assert lines[0] == {"columns": "1000", "rows": "500"}
    sizes = [json.loads(payload) for kind, payload in lines[1:] if kind == "M"]
    assert [(size["width"], size["height"]) for size in sizes] == [(1000, 500), (1, 1), (120, 40)]
    assert [payload for kind, payload in lines[1:] if kind == "D"] == ["?a"]


@pytest.mark.parametrize(
    ("width", "height", "size"),
    [
        (80, 24, (80, 24)),
        (1000, 500, (1000, 500)),
        (10**30, -(10**30), (1000, 1)),
        (0, 0, (1, 1)),
        ("80", 24, None),
        (80, None, None),
        (False, 24, None),
        (80.0, 24, None),
    ],
)
def test_a_terminal_size_is_whole_numbers_within_bounds(
    width: object, height: object, size: tuple[int, int] | None
) -> None:
    assert terminal_size(width, height) == size


@asynccontextmanager
async def served(server: GuardedServer) -> AsyncIterator[int]:
    """``server`` running as ``serve`` runs it (its own listener), until the block ends."""
    stop, listening_at = asyncio.Event(), asyncio.Event()
    serving = asyncio.create_task(server.run(lambda url: listening_at.set(), stop))
    await listening_at.wait()
    try:
        yield server.sock.getsockname()[1]
    finally:
        stop.set()
        async with asyncio.timeout(15):
            await serving


async def closed_after(reader: asyncio.StreamReader, started: float) -> float:
    """Seconds from ``started`` until the server closed the connection (reading all)."""
    while await reader.read(65536):
        pass
    return time.monotonic() - started


async def test_a_connection_without_a_request_is_closed_after_the_wait(tmp_path: Path) -> None:
    """One sending nothing, and one trickling a header line now and then, were kept for
    an hour: a thousand of them took every file descriptor."""
    sock = listening()
    sock.setblocking(False)
    marker = tmp_path / "started"
    server = GuardedServer(
        marker_command(marker), sock, max_sessions=1, title="test", request_wait=1.0
    )
    async with served(server) as port:
        started = time.monotonic()
        idle, _ = await asyncio.open_connection("127.0.0.1", port)
        trickle, trickling = await asyncio.open_connection("127.0.0.1", port)
        tab = await unread_websocket(port, server)  # a session: a request in progress

        async def trickle_headers() -> None:
            trickling.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            with contextlib.suppress(ConnectionError):
                while not trickling.is_closing():
                    await asyncio.sleep(0.2)
                    trickling.write(b"X-Slow: 1\r\n")
                    await trickling.drain()

        writing = asyncio.create_task(trickle_headers())
        async with asyncio.timeout(10):
            waits = await asyncio.gather(
                closed_after(idle, started), closed_after(trickle, started)
            )
        writing.cancel()
        assert all(0.9 < wait < 3.0 for wait in waits), waits
        await asyncio.sleep(0.5)
        assert server.sessions == 1 and not tab.is_closing()  # the session goes on
        tab.close()


def limited_server(tmp_path: Path) -> GuardedServer:
    """A server of one session and at most five connections, on a port of its own."""
    sock = listening()
    sock.setblocking(False)
    return GuardedServer(
        marker_command(tmp_path / "started"), sock, max_sessions=1, title="test", max_connections=5
    )


async def test_past_the_connection_limit_the_oldest_idle_one_is_closed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = limited_server(tmp_path)
    async with served(server) as port:
        tab = await unread_websocket(port, server)  # busy: never closed for another
        idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(20)]
        status, _head = await raw_get_port(port, f"/?token={server.token}")
        assert status == 302  # the address still answers
        async with asyncio.timeout(10):
            for reader, _writer in idle[:16]:  # room made for the newer ones, oldest first
                await closed_after(reader, 0.0)
        assert not any(reader.at_eof() for reader, _writer in idle[17:])
        assert server.sessions == 1 and not tab.is_closing()
        for _reader, writer in idle:
            writer.close()
        tab.close()
    said = [m for m in caplog.messages if "the most allowed" in m]
    assert said and len(said) <= 2  # once a second at most


async def test_an_answer_is_written_while_its_connection_counts_as_at_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A connection was at work only until its handler returned: a page or the script
    # still being written to a slow reader counted as idle, and a flood of connections
    # could close it.
    from aiohttp import web

    server = limited_server(tmp_path)
    at_work: list[bool] = []
    prepare = web.StreamResponse.prepare

    async def watched(self: web.StreamResponse, request: web.BaseRequest) -> Any:
        if not self.prepared:  # the call that writes it (a second one does nothing)
            assert server._connections is not None
            at_work.append(server._connections.is_at_work(peer_of(request.transport)))
        return await prepare(self, request)

    monkeypatch.setattr(web.StreamResponse, "prepare", watched)
    async with served(server) as port:
        status, _head = await raw_get_port(port, f"/?token={server.token}")
    assert status == 302 and at_work and all(at_work)


async def raw_get_port(port: int, target: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        request = f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        writer.write(request.encode())
        head = (await reader.read()).decode("latin-1").split("\r\n\r\n", 1)[0]
    finally:
        writer.close()
    return int(head.split(" ", 2)[1]), head


async def test_a_failing_accept_is_logged_once_a_second_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Out of file descriptors, asyncio logged a traceback at each try, faster and
    faster: 122,029 of them in 40 s."""
    sock = listening()
    sock.setblocking(False)
    server = GuardedServer("true", sock, max_sessions=1, title="test")
    loop = asyncio.get_running_loop()
    failed = {
        "message": "socket.accept() out of system resource",
        "exception": OSError(errno.EMFILE, "Too many open files"),
    }
    async with served(server):
        for _ in range(1000):
            loop.call_exception_handler(failed)
        await asyncio.sleep(1.05)
        loop.call_exception_handler(failed)
        loop.call_exception_handler({"message": "something else"})
    said = [r.getMessage() for r in caplog.records if "accept" in r.getMessage()]
    assert said == [
        "accepting a connection failed: Too many open files",
        "accepting a connection failed: Too many open files (999 more since the last one logged)",
    ]
    assert "something else" in caplog.messages  # the rest as before
    assert loop.get_exception_handler() is None  # and as before once served


def slow_to_end_command(marker: Path) -> str:
    """An app that takes a second to end once its input has ended (its session over)."""
    script = (
        f"import sys, time; open({str(marker)!r}, 'a').write('started\\n');"
        " print('__GANGLION__', flush=True); sys.stdin.buffer.read(); time.sleep(1.0)"
    )
    return shlex.join([sys.executable, "-c", script])


async def test_a_tab_reloaded_at_the_limit_gets_its_app_again(tmp_path: Path) -> None:
    """Its old session still counted while its app ended (up to 3 s): the reloaded page
    landed on "Session ended."."""
    marker = tmp_path / "started"
    sock = listening()
    server = GuardedServer(slow_to_end_command(marker), sock, max_sessions=1, title="test")
    async with running(server, sock) as client:
        client.session.cookie_jar.update_cookies({server.cookie: server.token})
        tab = await client.ws_connect("/ws")
        async with asyncio.timeout(20):
            while not marker.exists():
                await asyncio.sleep(0.05)
        await tab.close()  # the reload: the old page goes, the new one comes at once
        again = await client.ws_connect("/ws")
        async with asyncio.timeout(20):
            while marker.read_text().count("started") < 2:
                assert not again.closed
                await asyncio.sleep(0.05)
        assert server.sessions == 1
        await again.close()


async def test_a_new_tab_waits_no_longer_than_the_grace_when_none_is_ending(
    guarded: tuple[GuardedServer, TestClient, Path],
) -> None:
    server, client, marker = guarded
    client.session.cookie_jar.update_cookies({server.cookie: server.token})
    tab = await client.ws_connect("/ws")
    async with asyncio.timeout(20):
        while not marker.exists():
            await asyncio.sleep(0.05)
    started = time.monotonic()
    refused = await client.ws_connect("/ws")
    assert (await refused.receive()).data == TRY_AGAIN_LATER
    assert 0.9 < time.monotonic() - started < 3.0
    await tab.close()


def test_a_flood_of_library_tracebacks_is_logged_once_a_second() -> None:
    # Anyone who reaches the port makes aiohttp log a traceback per malformed request:
    # a flood of them filled the log without bound.
    from tokensales_tui.serve.server import logs_to_serve_log

    kept: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            kept.append(record)

    serve_log = logging.getLogger("tokensales_tui.serve")
    keep = Keep()
    serve_log.addHandler(keep)
    try:
        with logs_to_serve_log():
            for _ in range(1000):
                logging.getLogger("aiohttp.server").error("Error handling request")
            logging.getLogger("aiohttp.access").error("another kind")
    finally:
        serve_log.removeHandler(keep)
    assert [record.getMessage() for record in kept] == ["Error handling request", "another kind"]
