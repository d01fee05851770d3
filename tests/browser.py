"""A served app and a headless Chromium, for the browser test and the benchmark.

Chromium and its driver come from Debian (``apt-get install chromium chromium-driver``);
Selenium gets the driver's path, so Selenium Manager never runs and nothing is
downloaded. The browser starts with a fresh profile and every background connection
turned off: it only ever talks to 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)

INSTALL_HINT = (
    "install Debian's Chromium to run it: sudo apt-get install chromium chromium-driver"
    " (and pip install -e '.[dev]' for Selenium)"
)

TERMINAL_TEXT = (
    "const tree = document.querySelector('.xterm-accessibility-tree');"
    "return tree ? tree.innerText : '';"
)
"""The terminal's text, as xterm.js gives it to screen readers (one row a line)."""


def chromium_missing() -> str | None:
    """Why the browser cannot run here (with how to fix it), or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} not found: {INSTALL_HINT}"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return f"selenium is not installed: {INSTALL_HINT}"
    return None


def require_chromium() -> None:
    """Skip the calling test where the browser cannot run (saying how to install it);
    in CI, where it must run, fail it."""
    missing = chromium_missing()
    if missing:
        import pytest

        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser test: {missing}")
        pytest.skip(missing)


@dataclass
class Browser:
    """A Selenium-driven Chromium and the keys a person would press."""

    driver: Any

    def text(self) -> str:
        """The terminal's text as drawn now."""
        return str(self.driver.execute_script(TERMINAL_TEXT) or "")

    def press(self, keys: str) -> None:
        """Type into the terminal (xterm.js reads keys from its helper text area)."""
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(keys)

    def press_enter(self) -> None:
        from selenium.webdriver.common.keys import Keys

        self.press(Keys.ENTER)

    def press_escape(self) -> None:
        from selenium.webdriver.common.keys import Keys

        self.press(Keys.ESCAPE)


@contextmanager
def open_browser(profile: Path, downloads: Path | None = None) -> Iterator[Browser]:
    """A headless Chromium with a fresh profile in ``profile``, saving what it downloads
    into ``downloads`` (without asking)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option(
            "prefs",
            {"download.default_directory": str(downloads), "download.prompt_for_download": False},
        )
    # An explicit driver path: Selenium Manager (which downloads drivers) is never run.
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.set_script_timeout(30)
        yield Browser(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@dataclass
class Served:
    """A running ``tokensales-tui serve`` and what it printed."""

    process: subprocess.Popen[str]
    url: str
    lines: list[str] = field(default_factory=list)

    def output(self) -> str:
        return "\n".join(self.lines)


@contextmanager
def start_serve(flags: Sequence[str], seconds: float = 60.0) -> Iterator[Served]:
    """Run ``tokensales-tui serve --port 0 FLAGS`` until the block ends.

    Waits (at most ``seconds``) for the address it prints; its output is kept, and
    read to the end once the server has stopped.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensales_tui", "serve", "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if "?token=" in line:
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not found.wait(seconds):
            raise AssertionError(f"serve printed no address: {lines}")
        url = next(line for line in lines if "?token=" in line).strip()
        yield Served(process, url, lines)
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        reader.join(10)
