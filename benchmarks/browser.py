"""Figure 17: ``serve --demo`` page request → the Webhooks rows drawn in Chromium.

Uses the browser test's helpers (``tests/browser.py``): Debian's Chromium, headless,
driven by Selenium with the driver's path given. One ``serve --demo`` and one browser;
each run loads the page (a new app process starts for it), waits for the first frame
holding a webhook row to be drawn, then leaves the page (its app ends). One unmeasured
warm-up first. Prints the seconds of each run as JSON.

When the rows are drawn is seen in the page (:data:`ROWS_DRAWN`): the terminal is drawn
on a canvas, whose text no script can read. The page's text, xterm.js's copy for screen
readers, is no clock for it: xterm.js refreshes that copy at most once a second (its
``TimeBasedDebouncer``, xtermjs/xterm.js#3399), so rows drawn less than a second after
the copy's last refresh reach it only at its next one, up to a second later. That copy
still confirms that the frame seen held the rows.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.browser import chromium_missing, open_browser, start_serve

ROW = re.compile(r"wh_[0-9a-f]{12}")
TIMEOUT = 120.0

ROWS_DRAWN = r"""
// Run in every page before its own scripts. window.rowsDrawn becomes the time (Date.now)
// of the animation frame in which xterm.js drew the first frame holding a webhook row.
(() => {
  const ROW = /wh_[0-9a-f]{12}/;
  // Escape sequences (CSI, OSC, two-byte): what is left is the text the frame writes.
  const CONTROL = /\x1b(?:\[[0-?]*[ -\/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-_])/g;
  window.rowsDrawn = null;
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      const decoder = new TextDecoder();
      let tail = "";  // a row split between two messages is found too
      const listen = this.addEventListener.bind(this);
      this.addEventListener = (type, listener, ...options) => {
        if (type !== "message") return listen(type, listener, ...options);
        return listen(type, (event) => {
          // textual.js's: it hands the bytes to xterm.js.
          if (typeof listener === "function") listener.call(this, event);
          else listener.handleEvent(event);
          if (window.rowsDrawn !== null || typeof event.data === "string") return;
          const text = tail + decoder.decode(event.data, {stream: true}).replace(CONTROL, "");
          tail = text.slice(-64);
          if (ROW.test(text)) {
            // xterm.js parses what it was given in a task of its own, queued before
            // this one, and draws in the next animation frame: this one, or the one
            // before if it came between the two tasks (then the time is a frame
            // late). A parse longer than xterm.js's slice (12 ms) goes on in a later
            // task: the time may then be early, by a slice or so.
            setTimeout(() => requestAnimationFrame(() => {
              window.rowsDrawn ??= Date.now();
            }));
          }
        }, ...options);
      };
    }
  };
})();
"""
"""Installed in the browser once (``Page.addScriptToEvaluateOnNewDocument``); the page's
own scripts only see a WebSocket that tells this one what it receives."""


def first_rows(browser: object, page: str) -> float:
    """Seconds from asking for ``page`` to the frame drawing its first webhook rows."""
    driver = browser.driver  # type: ignore[attr-defined]
    started = time.time()  # the page's clock (Date.now) is this one
    driver.get(page)
    drawn = None
    while drawn is None:
        if time.time() - started > TIMEOUT:
            raise TimeoutError("no frame with a webhook row reached the page")
        time.sleep(0.02)
        drawn = driver.execute_script("return window.rowsDrawn")
    # The screen-reader copy shows them within its second: the frame did hold the rows.
    while not ROW.search(browser.text()):  # type: ignore[attr-defined]
        if time.time() - started > TIMEOUT:
            raise TimeoutError("a frame with a webhook row was seen, but no row in the page")
        time.sleep(0.02)
    driver.get("about:blank")  # the websocket closes and the app process ends
    return float(drawn) / 1000 - started


def measure(reps: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder, start_serve(["--demo"]) as served:
        page = served.url.split("?", 1)[0]
        with open_browser(Path(folder) / "chromium") as browser:
            browser.driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": ROWS_DRAWN}
            )
            browser.driver.get(served.url)  # the token becomes a cookie
            browser.driver.get("about:blank")
            first_rows(browser, page)  # warm-up: bytecode caches
            time.sleep(1.0)
            runs = []
            for _ in range(reps):
                runs.append(first_rows(browser, page))
                time.sleep(1.0)  # let the last app process end
            return runs


def main() -> None:
    missing = chromium_missing()
    if missing:
        raise SystemExit(missing)
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 5)))


if __name__ == "__main__":
    main()
