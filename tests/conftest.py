"""Fixtures shared by every test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokensales_tui.api.secret import forget_revealed

from .tripwire import Tripwire, install


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME and the XDG folders into ``tmp_path``, work there, and clear every
    TOKENSALES_* variable.

    No test may read or write the user's real config, data or cache, nor leave a file
    in the working folder (an export's default place).
    """
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(variable, str(home / folder))
    for variable in list(os.environ):
        if variable.startswith("TOKENSALES_"):
            monkeypatch.delenv(variable)
    return home


@pytest.fixture(autouse=True)
def no_secret_of_another_test() -> None:
    """Each test starts with no secret revealed: the values one test sent are masked in
    the messages of the next otherwise (see ``api.secret.redact``)."""
    forget_revealed()


@pytest.fixture(autouse=True)
def no_write_left_unknown_by_another_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no file whose write was left unknown: a quit says those of
    the whole process (``files.unknown_writes``)."""
    import tokensales_tui.files

    monkeypatch.setattr(tokensales_tui.files, "_unknown", [])


@pytest.fixture(autouse=True)
def terminal_tripwire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tripwire]:
    """Fail any test whose app would write a foreign control sequence to a terminal.

    Every app test runs with it (see ``tests/tripwire.py``); a test may read
    ``terminal_tripwire.clipboard`` to see what a copy put on the clipboard.
    """
    tripwire = Tripwire()
    install(tripwire, monkeypatch)
    yield tripwire
    tripwire.check()
