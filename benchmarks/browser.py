"""Figure 17: ``serve --demo`` page request → the Webhooks rows drawn in Chromium.

Uses the browser test's helpers (``tests/browser.py``): Debian's Chromium, headless,
driven by Selenium with the driver's path given. One ``serve --demo`` and one browser;
each run loads the page (a new app process starts for it) and polls the terminal's text
every 20 ms until a webhook row shows, then leaves the page (its app ends). One
unmeasured warm-up first. Prints the seconds of each run as JSON.
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


def first_rows(browser: object, page: str) -> float:
    driver = browser.driver  # type: ignore[attr-defined]
    started = time.monotonic()
    driver.get(page)
    while not ROW.search(browser.text()):  # type: ignore[attr-defined]
        if time.monotonic() - started > TIMEOUT:
            raise TimeoutError("no webhook row in the page")
        time.sleep(0.02)
    took = time.monotonic() - started
    driver.get("about:blank")  # the websocket closes and the app process ends
    return took


def measure(reps: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder, start_serve(["--demo"]) as served:
        page = served.url.split("?", 1)[0]
        with open_browser(Path(folder) / "chromium") as browser:
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
