"""The opt-in debug log: requests with method, URL, status and timing; never a secret."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

from tokensales_tui.api.endpoints import redact_url
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import loaded


async def test_log_file_is_private_and_holds_requests_but_no_secret(tmp_path: Path) -> None:
    log = tmp_path / "debug.log"
    app = TokenSalesApp(Launch(demo=True, log_file=str(log)))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("2", "r")
        await loaded(app, pilot)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text()
    assert "GET http://demo.tokensales.invalid/v1/items → 200" in text
    assert "POST http://demo.tokensales.invalid/auth/getAccessToken → 200" in text
    for forbidden in (DEMO_API_SECRET, DEMO_API_KEY, "eyJ", "Bearer", "Authorization"):
        assert forbidden not in text


def test_query_strings_and_user_info_are_masked_in_logged_urls() -> None:
    url = "https://user:pw@api.example.com/v1/items?api_key=abc&page=2&token"
    assert redact_url(url) == "https://api.example.com/v1/items?api_key=***&page=***&token"


def test_log_refuses_a_symlink_and_leaves_its_target_alone(tmp_path: Path) -> None:
    import os

    import pytest

    from tokensales_tui.debug_log import DebugLogError, enable_debug_log

    target = tmp_path / "target"
    target.write_text("keep\n")
    target.chmod(0o644)
    link = tmp_path / "debug.log"
    link.symlink_to(target)
    with pytest.raises(DebugLogError, match="symbolic link"):
        enable_debug_log(str(link))
    assert target.read_text() == "keep\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644


def test_log_refuses_devices_fifos_and_missing_folders_without_waiting(tmp_path: Path) -> None:
    import os

    import pytest

    from tokensales_tui.debug_log import DebugLogError, enable_debug_log

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, words in (
        ("/dev/null", "not a regular file"),
        (str(fifo), "not a regular file"),
        (str(tmp_path / "missing" / "debug.log"), "does not exist"),
        (str(tmp_path), "Is a directory"),
    ):
        with pytest.raises(DebugLogError, match=words):
            enable_debug_log(path)


def test_a_log_that_cannot_be_created_says_the_real_reason(tmp_path: Path) -> None:
    # A folder that exists but makes no file (procfs answers ENOENT) was said not to
    # exist; a file taken for a folder said only "Not a directory".
    import pytest

    from tokensales_tui.debug_log import DebugLogError, enable_debug_log

    (tmp_path / "file").write_text("")
    for path, words in (
        ("/proc/1/nope", "no file can be created in the folder /proc/1 "),
        (str(tmp_path / "file" / "debug.log"), f"{tmp_path / 'file'} is not a folder"),
    ):
        with pytest.raises(DebugLogError, match=words) as raised:
            enable_debug_log(path)
        assert "does not exist" not in str(raised.value)


def test_the_command_says_why_a_log_cannot_be_used_in_one_line(tmp_path: Path) -> None:
    from tests.test_app_signals import app_on_terminal

    missing = tmp_path / "missing" / "debug.log"
    with app_on_terminal(extra=["--log", str(missing)]) as app:
        assert app.ended() == 2
    said = app.drawn.decode().strip().splitlines()
    assert said == [f"tokensales-tui: --log {missing}: the folder {missing.parent} does not exist"]


def test_without_a_log_file_no_warning_of_the_app_reaches_stderr() -> None:
    # Python's last resort writes warnings to stderr when no handler takes them: over
    # the app's screen, or into a command's one-line messages.
    script = (
        "import logging, tokensales_tui.api.transport as t;"
        "t.unexpected('GET /v1/items', ValueError('x'));"
        "logging.getLogger('tokensales_tui.ui.tabs').error('lost');"
        "logging.getLogger('tokensales_tui.webhooks').error('lost')"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=60, check=True
    )
    assert result.stderr == b""


def test_a_log_never_goes_into_the_apps_own_files(tmp_path: Path) -> None:
    # --log ~/.config/tokensales-tui/config.toml appended log lines to the config: the
    # next start could not read it.
    import os

    import pytest

    from tokensales_tui import config
    from tokensales_tui.debug_log import DebugLogError, enable_debug_log
    from tokensales_tui.files import lock_path
    from tokensales_tui.payouts import record_path

    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_text('default_profile = "x"\n')
    dotfile = tmp_path / "dotfiles" / "tokensales.toml"
    dotfile.parent.mkdir()
    os.link(path, dotfile)  # the same file, reached from elsewhere
    record = record_path("prod", "https://api.example.com")
    for own in (path, path.parent / "new.log", record, lock_path(record), dotfile):
        with pytest.raises(DebugLogError, match="tokensales-tui's own files|the config file"):
            enable_debug_log(str(own))
        assert not own.exists() or own in (path, dotfile)
    assert path.read_text() == 'default_profile = "x"\n'


def test_an_existing_log_keeps_its_mode_and_a_new_one_is_private(tmp_path: Path) -> None:
    # --log FILE made an existing file 0600 without a word.
    import os

    from tokensales_tui.debug_log import disable_debug_log, enable_debug_log

    shared = tmp_path / "shared.log"
    shared.write_text("before\n")
    shared.chmod(0o644)
    disable_debug_log(enable_debug_log(str(shared)))
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o644
    before = os.umask(0)
    try:
        disable_debug_log(enable_debug_log(str(tmp_path / "new.log")))
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(tmp_path / "new.log").st_mode) == 0o600
