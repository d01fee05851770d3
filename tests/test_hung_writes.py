"""Writes on a file system that does not answer (a network mount gone away): each call of
the system a write makes is waited for ``files.FILE_WAIT`` at most, in a daemon thread of
the write's own, and what was left unknown is said."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import tokensales_tui.files
from tokensales_tui import config
from tokensales_tui.files import (
    LockBusy,
    LockError,
    OutcomeUnknown,
    Stalled,
    atomic_write,
    atomic_writer,
    lock_path,
    locked,
    said,
    unknown_writes,
    writes_under_way,
)
from tokensales_tui.payouts import PayoutRecord, PayoutRecordError

from .hung_files import hung, slowed


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """A file system's call is waited for 0.3 s (5 s in use)."""
    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 0.3)
    return 0.3


def _stuck_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "file-write" and t.is_alive()]


def _no_temp_files(folder: Path) -> bool:
    return not [name for name in os.listdir(folder) if name.endswith(".tmp")]


def _eventually(condition: object, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("call", ["write", "fsync"])
def test_a_write_whose_file_system_stops_answering_is_given_up_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float, call: str
) -> None:
    path = tmp_path / "list.csv"
    path.write_bytes(b"old")
    with hung(monkeypatch, tmp_path, call) as released:
        with pytest.raises(Stalled) as stalled:
            atomic_write(path, b"new")
        assert not isinstance(stalled.value, OutcomeUnknown)
        assert str(stalled.value) == (
            "its file system did not answer within 0.3 s (a network mount gone away?)"
        )
        assert [t.daemon for t in _stuck_threads()] == [True]  # the process ends without it
        assert path not in writes_under_way()
        released.set()
        # Once the system answers, the thread removes its temp file and ends.
        assert _eventually(lambda: _no_temp_files(tmp_path) and not _stuck_threads())
    assert path.read_bytes() == b"old"
    assert path not in unknown_writes()


def test_a_rename_left_unanswered_leaves_the_outcome_unknown_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"old")
    with hung(monkeypatch, path, "replace") as released:
        with pytest.raises(OutcomeUnknown) as unknown:
            atomic_write(path, b"new")
        assert said(unknown.value, path) == (
            f"{path}: its file system did not answer within 0.3 s as it was being replaced:"
            " it may or may not hold what was written (a network mount gone away?)"
        )
        assert path in unknown_writes()
        released.set()
        assert _eventually(lambda: not _stuck_threads())
    assert path.read_bytes() == b"new"  # the rename did happen, late: "unknown" was right


def test_a_big_write_that_keeps_progressing_is_never_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each piece comes within the wait; the whole takes longer than it: the bound is per
    # call of the system, not for the write.
    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 1.0)
    slowed(monkeypatch, "write", lambda _size: 0.4)
    path = tmp_path / "export.jsonl"
    piece = b"x" * (1024 * 1024)
    with atomic_writer(path) as file:
        for _ in range(4):
            file.write(piece)
    assert path.stat().st_size == 4 * len(piece)


def test_a_lock_file_whose_file_system_does_not_answer_is_a_lock_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    path = tmp_path / "records.json"
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with hung(monkeypatch, lock), pytest.raises(LockError) as refused, locked(path):
        pass
    assert refused.value.lock == lock
    assert "did not answer within 0.3 s" in said(refused.value)
    with locked(path):  # answered again: locked as ever
        pass


def test_a_config_save_on_a_file_system_that_does_not_answer_says_so_naming_the_file(
    monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    config.save_config(config.ConfigFile(theme="nord"))
    path = config.config_path()
    change = config.ConfigChange.of(config.load_config(), lambda c: setattr(c, "theme", "dracula"))
    with hung(monkeypatch, path, "replace"), pytest.raises(config.ConfigError) as refused:
        config.update_config(change)
    assert refused.value.message.startswith(f"not saved: {path}: its file system did not answer")
    assert "may or may not hold what was written" in refused.value.message


def test_a_payout_record_on_a_file_system_that_does_not_answer_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    path = tmp_path / "payouts.json"
    record = PayoutRecord(path)
    record.add({"name": "first"})
    with hung(monkeypatch, tmp_path, "write"), pytest.raises(PayoutRecordError) as refused:
        record.add({"name": "second"})
    assert f"the payout record {path} could not be written" in str(refused.value)
    assert "did not answer within 0.3 s" in str(refused.value)


async def test_quitting_with_a_theme_save_stuck_in_its_rename_ends_and_says_it_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The save's thread was the loop's executor's, stuck in the system: the quit waited
    # for it without end, and nothing said the file might not hold the theme.
    from tokensales_tui.session import Launch
    from tokensales_tui.ui.app import TokenSalesApp

    from .apphelpers import loaded, wait_for
    from .formhelpers import SIZE
    from .test_quit_waits import exits

    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 1.0)
    config.save_config(config.ConfigFile(theme="nord"))
    path = config.config_path()
    app = TokenSalesApp(Launch(demo=True))
    asked = exits(app)
    with hung(monkeypatch, path, "replace"):
        async with app.run_test(size=SIZE) as pilot:
            await loaded(app, pilot)
            app.theme = "dracula"
            # Quit while it is stuck, or once given up: either way it is said.
            await wait_for(lambda: path in writes_under_way() + unknown_writes(), pilot)
            await pilot.press("ctrl+q")
            await wait_for(lambda: not app.is_running, pilot)
    [(code, said_after)] = asked
    assert code == 1
    assert f"the file {path}: outcome unknown — check it" in said_after


# --- a path given to write into: its kind looked at, the file named -----------------------


async def test_listen_save_to_a_fifo_with_no_reader_says_it_is_not_a_regular_file(
    tmp_path: Path,
) -> None:
    # Opened before it was looked at, it said "No such device or address".
    import asyncio

    from .test_listen import _start

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    process = await _start("listen", "--print", "--save", str(fifo))
    async with asyncio.timeout(60):
        _, err = await process.communicate()
    assert process.returncode == 2, err
    assert err.decode() == f"tokensales-tui: --save {fifo} is not a regular file\n"


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_export_over_what_is_not_a_regular_file_is_refused_in_the_same_words(
    tmp_path: Path, kind: str
) -> None:
    from tokensales_tui.ui.export import export_rows

    path = tmp_path / "rows.csv"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    with pytest.raises(OSError) as refused:
        export_rows(path, "jsonl", [], [{"id": 1}], lambda row: row, replace=True)
    assert said(refused.value, path) == f"{path}: not a regular file; not replaced"
    assert kind != "fifo" or path.is_fifo()


def test_a_config_folder_that_takes_no_file_is_named_in_the_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It said "not saved: Permission denied", naming nothing.
    import tempfile

    config.save_config(config.ConfigFile(theme="nord"))
    path = config.config_path()

    def refused(*args: object, dir: str, prefix: str, suffix: str) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "x" + suffix))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    change = config.ConfigChange.of(config.load_config(), lambda c: setattr(c, "theme", "dracula"))
    with pytest.raises(config.ConfigError) as caught:
        config.update_config(change)
    assert caught.value.message == f"not saved: {path.parent}: Permission denied"


def test_a_payout_record_whose_folder_is_a_file_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.write_text("")
    record = PayoutRecord(folder / "payouts.json")
    with pytest.raises(PayoutRecordError) as refused:
        record.add({"name": "first"})
    assert str(folder) in str(refused.value)


def test_a_file_name_in_a_message_is_cleaned_as_data(tmp_path: Path) -> None:
    error = PermissionError(13, "Permission denied", str(tmp_path / "a\x1b[2Jb"))
    assert "\x1b" not in said(error) and said(error).endswith(": Permission denied")


def test_a_lock_is_let_go_only_after_a_rename_made_under_it_has_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    # The lock was let go while the rename given up on still waited in the system: the
    # next writer took it and wrote, and the late rename then put the older file back.
    path = tmp_path / "config.toml"
    path.write_bytes(b"old")
    with hung(monkeypatch, path, "replace") as released:
        with pytest.raises(OutcomeUnknown), locked(path):
            atomic_write(path, b"older")
        with pytest.raises(LockBusy), locked(path, wait=0.5):
            pass  # another writer waits: the older rename may still land
        released.set()
        assert _eventually(lambda: path.read_bytes() == b"older" and not _stuck_threads())
    assert path not in unknown_writes()  # the rename ended: its outcome is known now
    with locked(path, wait=2):
        atomic_write(path, b"newer")
    assert path.read_bytes() == b"newer"


def test_one_large_write_is_handed_to_the_system_a_piece_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A buffered file hands a write larger than its buffer on whole: 4 MB was one call,
    # given the bound of one, and a disk slow but steady (here 0.3 s a megabyte) cut off.
    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 1.0)
    sizes = slowed(monkeypatch, "write", lambda size: 0.3 * size / (1024 * 1024))
    path = tmp_path / "record.json"
    atomic_write(path, b"x" * (4 * 1024 * 1024))
    assert path.stat().st_size == 4 * 1024 * 1024
    assert max(sizes) <= 1024 * 1024
