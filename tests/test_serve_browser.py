"""``serve --demo`` in a real Chromium: the rows appear, keys work, no token no app,
through ``localhost`` as through ``127.0.0.1``, and another site's page gets no websocket.

Debian's ``chromium`` and ``chromium-driver`` drive it (``.ci/run`` installs them);
Selenium is given the driver's path, so it never downloads a browser. Without Chromium
the test is skipped with the command that installs it, except in CI, where it fails.

The page turns on xterm.js's screen-reader mode, so the terminal's text is in the
page's accessibility tree: the test reads what a screen reader would.
"""

from __future__ import annotations

import http.server
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .browser import (
    CHROMEDRIVER,
    Browser,
    chromium_missing,
    open_browser,
    require_chromium,
    start_serve,
)

CTRL_U = "\ue009u\ue009"
"""ctrl+u as Selenium types it (a modifier key toggles): the field's text is cleared."""

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    require_chromium()
    with open_browser(tmp_path / "chromium", tmp_path / "downloads") as browser:
        yield browser


def descendants(pid: int) -> list[int]:
    """Every process started under ``pid`` (from /proc)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def wait_for(what: str, condition: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not seen within {seconds:.0f} s: {what}")
        time.sleep(0.1)


def test_serve_demo_in_chromium(browser: Browser, tmp_path: Path) -> None:
    with start_serve(["--demo"]) as served:
        base = served.url.split("/?", 1)[0]
        token = served.url.split("token=", 1)[1]

        # No token: 403, and no app process is started for it.
        for path in ("/", "/ws"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + path, timeout=10)
            assert refused.value.code == 403
        assert descendants(served.process.pid) == []

        browser.driver.get(served.url)
        assert "token" not in browser.driver.current_url  # it became a cookie
        wait_for("the Webhooks tab's rows", lambda: "wh_9019a85bc0a7" in browser.text())
        # The page's text is xterm.js's accessibility tree, which takes the rows of a
        # render at once but those of the next renders within a second together, a
        # second later (its TimeBasedDebouncer): the rows may be there and the count
        # line above them, drawn in another render, not yet (seen once in CI).
        wait_for("the Webhooks tab's count", lambda: "10 webhooks" in browser.text())
        text = browser.text()
        assert "1 Webhooks" in text and "wh_9019a85bc0a7" in text
        # Everything the page loaded (its script, styles, font) came from this server.
        loaded = browser.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name);"
        )
        assert loaded and all(url.startswith((base, "ws://" + base[7:])) for url in loaded)
        assert any(url.endswith(".ttf") for url in loaded), loaded
        assert "https://api.aurora-games.io/webhooks/tokensales" in text

        # One app process for the tab; neither its command line nor its environment
        # holds the token.
        apps = descendants(served.process.pid)
        assert apps
        for pid in apps:
            for part in ("cmdline", "environ"):
                assert token.encode() not in Path(f"/proc/{pid}/{part}").read_bytes()

        browser.press("2")
        wait_for("the Items tab", lambda: re.search(r"\d+ items", browser.text()) is not None)
        browser.press_enter()
        wait_for("the item's detail", lambda: '"id":' in browser.text())
        assert "itm_" in browser.text()
        browser.press_escape()
        wait_for("the Items tab again", lambda: '"id":' not in browser.text())
        assert re.search(r"\d+ items", browser.text())

        SCREENSHOTS.mkdir(exist_ok=True)
        shot = SCREENSHOTS / "serve-demo.png"
        assert browser.driver.save_screenshot(str(shot))
        assert shot.read_bytes().startswith(b"\x89PNG")

    output = served.output()
    assert output.count(token) == 1, "the token shows once: in the address printed at start"


@contextmanager
def another_site(page: str) -> Iterator[str]:
    """A server on 127.0.0.1 (another port: another origin) whose one page is ``page``."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()
            thread.join(10)


def test_the_app_opens_through_localhost_and_127_0_0_1_and_no_other_site(
    browser: Browser,
) -> None:
    """The page's websocket goes to the name in the address bar; another site's page is refused.

    A page on another port of 127.0.0.1 is the same *site* (ports do not count), so the
    browser sends it the SameSite=Strict cookie: only the Origin check refuses it.
    """
    with start_serve(["--demo"]) as served:
        port = served.url.split("/?", 1)[0].rsplit(":", 1)[1]
        for name in ("localhost", "127.0.0.1"):
            base = f"http://{name}:{port}"
            browser.driver.get(served.url.replace("http://127.0.0.1:", f"http://{name}:", 1))
            assert browser.driver.current_url == base + "/"
            wait_for(f"the rows, through {name}", lambda: "wh_9019a85bc0a7" in browser.text())
            loaded = browser.driver.execute_script(
                "return performance.getEntriesByType('resource').map(e => e.name);"
            )
            assert loaded and all(url.startswith(base) for url in loaded), loaded

        attempt = (
            "<script>window.seen = [];"
            f"const ws = new WebSocket('ws://127.0.0.1:{port}/ws');"
            "ws.onopen = () => window.seen.push('open');"
            "ws.onclose = () => window.seen.push('closed');</script>"
        )
        with another_site(attempt) as page:
            browser.driver.get(page)
            seen: list[str] = []

            def settled() -> bool:
                seen[:] = browser.driver.execute_script("return window.seen;") or []
                return bool(seen)

            wait_for("the other site's websocket to open or end", settled, seconds=20)
            assert seen == ["closed"], "another site's page opened the app's websocket"


CLOSED_MESSAGE = "return document.querySelector('.closed-dialog .message').textContent;"

FULL = "1 browser tab is open already, the most this server allows: close one, then try again."


def test_at_the_tab_limit_a_reload_gets_its_app_and_another_tab_is_told_why(
    browser: Browser,
) -> None:
    """A reload at the limit, and a tab past it, both showed only "Session ended.": the
    old tab's app counted until it was gone, and the 503 reached no one."""
    with start_serve(["--demo", "--max-sessions", "1"]) as served:
        base = served.url.split("/?", 1)[0]
        browser.driver.get(served.url)
        wait_for("the rows", lambda: "wh_9019a85bc0a7" in browser.text())
        browser.driver.refresh()
        wait_for("the rows after a reload", lambda: "wh_9019a85bc0a7" in browser.text())
        assert not browser.driver.execute_script(
            "return document.body.classList.contains('-closed');"
        )

        browser.driver.switch_to.new_window("tab")  # a second tab: its page says why
        browser.driver.get(base + "/")
        wait_for(
            "the reason in place of 'Session ended.'",
            lambda: browser.driver.execute_script(CLOSED_MESSAGE) == FULL,
            seconds=20,
        )
        assert browser.driver.execute_script("return document.body.classList.contains('-closed');")


def test_a_tab_served_on_a_profile_works_behind_its_fence_and_downloads_its_export(
    browser: Browser, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile of this machine's emulator, served: its tab's app is fenced in (reading
    the lists, indexing them, exporting to the browser all work behind the fence), and
    nothing is written where it runs."""
    from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
    from tokensales_tui.emulator.server import EmulatorServer

    from .test_reliability_network import serving

    with serving(EmulatorServer("127.0.0.1", 0, items=500)) as emulator:
        monkeypatch.setenv("TOKENSALES_BASE_URL", emulator.url)
        monkeypatch.setenv("TOKENSALES_API_KEY", DEMO_API_KEY)
        monkeypatch.setenv("TOKENSALES_API_SECRET", DEMO_API_SECRET)
        before = sorted(isolated_home.rglob("*"))
        with start_serve([]) as served:
            browser.driver.get(served.url)
            wait_for("the Webhooks tab's rows", lambda: "10 webhooks" in browser.text())
            browser.press("2")
            wait_for("the Items tab", lambda: "500 items" in browser.text())
            browser.press("x")
            wait_for("the export dialog", lambda: "Export 500 items" in browser.text())
            # Under the name typed, whole: textual-serve's header had it saved as "Q3".
            browser.press(CTRL_U + "Q3; final, café.csv")
            browser.press_enter()
            export = tmp_path / "downloads" / "Q3; final, café.csv"
            wait_for("the export downloaded", export.exists)
            # The toast names it (wrapped: "…downloads Q3; final,", then "café.csv").
            wait_for(
                "the toast naming it",
                lambda: "your browser downloads Q3; final," in browser.text(),
                seconds=20,
            )
        assert export.read_text().count("\n") == 501
        # The tab's app ended behind its fence, having written nothing here.
        assert sorted(isolated_home.rglob("*")) == before
        assert "failed" not in served.output()


def test_the_skip_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tests.browser.CHROMIUM", "/nonexistent/chromium")
    assert "apt-get install chromium chromium-driver" in (chromium_missing() or "")
    assert Path(CHROMEDRIVER).name == "chromedriver"
