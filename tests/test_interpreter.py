"""A frozen executable (PyInstaller and the like) is the app itself, not Python: what the
app would start with Python's options is not started with it."""

from __future__ import annotations

import os
import shlex
import sys
from types import SimpleNamespace

import pytest

from tokensales_tui import cli
from tokensales_tui.cli import build_parser
from tokensales_tui.serve import app_command
from tokensales_tui.ui import index_process, links
from tokensales_tui.ui.index_process import IndexProcess


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What ``os.execv`` was asked to run, under a locale of another charset."""
    runs: list[object] = []
    monkeypatch.setattr(os, "execv", lambda *args: runs.append(args))
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "iso8859-1")
    monkeypatch.setattr(sys, "flags", SimpleNamespace(utf8_mode=0))
    return runs


def test_python_is_run_again_in_utf8_mode_under_another_charset(started: list[object]) -> None:
    cli._in_utf8_mode()
    assert started and started[0][1][1:3] == ["-X", "utf8"]  # type: ignore[index]


@pytest.mark.usefixtures("frozen")
def test_a_frozen_executable_is_not_run_again_with_python_s_options(
    started: list[object],
) -> None:
    # It was run with "-X utf8" and the arguments after: its own parser refused them.
    cli._in_utf8_mode()
    assert started == []


@pytest.mark.usefixtures("frozen")
async def test_a_frozen_executable_starts_no_index_process_nor_opener() -> None:
    # Either would have run the app again with "-m"/"-c": the tab indexes the list
    # itself, and "o" says no browser could be started.
    with pytest.raises(OSError, match="no Python interpreter"):
        index_process.command()
    with pytest.raises(OSError, match="no Python interpreter"):
        await IndexProcess.start(None)  # type: ignore[arg-type]
    with pytest.raises(OSError, match="no Python interpreter"):
        links.start_browser("https://example.com/")


@pytest.mark.usefixtures("frozen")
def test_a_frozen_executable_serves_itself() -> None:
    args = build_parser().parse_args(["serve", "--demo"])
    assert shlex.split(app_command(args)) == [sys.executable, "--served", "--demo"]
