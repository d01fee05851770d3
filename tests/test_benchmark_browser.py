"""Figure 17's clock (``benchmarks/browser.py``): the frame that draws the rows.

The page's text, xterm.js's copy for screen readers, is refreshed at most once a second:
rows drawn less than a second after its last refresh reached it up to a second later,
and the figure, timed on it, fell into two groups a second apart. The benchmark times
the rows by a script of its own in the page (``ROWS_DRAWN``), which sees the frame
holding them reach xterm.js; these tests check what that script takes for rows.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest
from aiohttp import web

from .browser import Browser, open_browser, require_chromium, start_serve

ROOT = Path(__file__).resolve().parent.parent

ROW = "wh_9019a85bc0a7"

PAGE = """<!DOCTYPE html>
<script>
  // As textual.js: the bytes of each message go to the terminal.
  window.received = 0;
  const socket = new WebSocket(`ws://${location.host}/ws${location.search}`);
  socket.binaryType = "arraybuffer";
  socket.addEventListener("message", () => { window.received += 1; });
</script>
"""

MESSAGES = {
    # The row's id split between two messages, with a colour between its halves, and
    # inside a link (an OSC 8 sequence around the text).
    "split": [
        "\x1b[2J\x1b[1;1Hloading…",
        f"\x1b[3;1H\x1b]8;id=1;https://example.invalid/\x1b\\\x1b[38;2;1;2;3m{ROW[:9]}",
        f"\x1b[1m{ROW[9:]}\x1b[0m\x1b]8;;\x1b\\ https://api.aurora-games.io/",
    ],
    # No row drawn: an id too short, and a whole one only inside a link's address,
    # which is no text on the screen.
    "none": [
        "\x1b[2J\x1b[1;1Hloading…",
        "\x1b[2;1Hwh_9019a85b",
        f"\x1b]8;;https://example.invalid/{ROW}\x1b\\link\x1b]8;;\x1b\\",
    ],
}


def figure_17() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figure_17", ROOT / "benchmarks" / "browser.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    require_chromium()
    with open_browser(tmp_path / "chromium") as browser:
        browser.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": figure_17().ROWS_DRAWN}
        )
        yield browser


@contextmanager
def page_server() -> Iterator[str]:
    """A page on 127.0.0.1 whose websocket sends the messages of its ``?case=``."""

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def websocket(request: web.Request) -> web.WebSocketResponse:
        sent = web.WebSocketResponse()
        await sent.prepare(request)
        for message in MESSAGES[request.query["case"]]:
            await sent.send_bytes(message.encode())
        await sent.close()  # the page keeps what it was sent
        return sent

    loop = asyncio.new_event_loop()
    app = web.Application()
    app.add_routes([web.get("/", page), web.get("/ws", websocket)])
    runner = web.AppRunner(app, shutdown_timeout=5.0)
    loop.run_until_complete(runner.setup())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    loop.run_until_complete(web.SockSite(runner, sock).start())
    port = sock.getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.run_until_complete(runner.cleanup())
        loop.close()


def wait_for(what: str, condition: object, seconds: float = 60.0) -> object:
    deadline = time.monotonic() + seconds
    while not (value := condition()):  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"not seen within {seconds:.0f} s: {what}")
        time.sleep(0.05)
    return value


def rows_drawn_once_settled(browser: Browser, messages: int) -> object:
    """``window.rowsDrawn`` once the page has all ``messages`` and the script's
    animation frame (after a task, as it waits) has passed."""
    wait_for(
        "every message in the page",
        lambda: browser.driver.execute_script("return window.received") == messages,
    )
    return browser.driver.execute_async_script(
        "const done = arguments[0];"
        "setTimeout(() => setTimeout(() => requestAnimationFrame(() =>"
        " requestAnimationFrame(() => done(window.rowsDrawn)))));"
    )


def test_a_row_split_by_messages_and_escape_sequences_is_seen(browser: Browser) -> None:
    with page_server() as base:
        before = time.time() * 1000
        browser.driver.get(base + "?case=split")
        drawn = rows_drawn_once_settled(browser, len(MESSAGES["split"]))
        assert isinstance(drawn, int | float) and before <= drawn <= time.time() * 1000


def test_no_row_on_the_screen_is_no_row(browser: Browser) -> None:
    with page_server() as base:
        browser.driver.get(base + "?case=none")
        assert rows_drawn_once_settled(browser, len(MESSAGES["none"])) is None


def test_serve_demo_rows_are_seen(browser: Browser) -> None:
    """The served app's frame with the rows (its own escape sequences, as it sends
    them) is seen; its rows then reach the page's text."""
    with start_serve(["--demo"]) as served:
        asked = time.time() * 1000
        browser.driver.get(served.url)
        drawn = wait_for(
            "a frame with the rows",
            lambda: browser.driver.execute_script("return window.rowsDrawn"),
        )
        assert asked <= drawn  # type: ignore[operator]
        wait_for("the rows in the page's text", lambda: ROW in browser.text())
