"""Local files: bounded reads that never block, atomic writes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tokensales_tui.files
from tokensales_tui import config
from tokensales_tui.files import (
    LOCK_NOTICE,
    STALE_TEMP_SECONDS,
    LocalFileError,
    LockBusy,
    LockError,
    LockWaitStopped,
    TooLarge,
    atomic_write,
    atomic_writer,
    lock_path,
    locked,
    read_local_file,
)
from tokensales_tui.payouts import PayoutRecord, PayoutRecordError

from .hung_files import hung, slowed


def test_a_regular_file_is_read_and_a_link_to_one_is_followed(tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.write_bytes(b"abc")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_local_file(target, limit=3) == b"abc"
    assert read_local_file(link, limit=3) == b"abc"


@pytest.mark.parametrize("kind", ["fifo", "folder", "zero"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "config.toml"
    if kind == "fifo":
        os.mkfifo(path)  # opening it to read would wait for a writer forever
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")  # would never end
    with pytest.raises(LocalFileError, match="not a regular file"):
        read_local_file(path, limit=1024)


def test_a_file_over_the_limit_is_refused_and_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 2048)
    with pytest.raises(LocalFileError, match="larger than 1,024 bytes"):
        read_local_file(path, limit=1024)
    with pytest.raises(FileNotFoundError):
        read_local_file(tmp_path / "missing", limit=1024)


def test_a_config_file_that_is_a_fifo_is_an_error_not_a_hang(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    with pytest.raises(config.ConfigError, match="cannot read the file: not a regular file"):
        config.load_config(path)


def test_a_huge_config_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"#" * (config.MAX_CONFIG_BYTES + 1))
    with pytest.raises(config.ConfigError, match="larger than 1 MB"):
        config.load_config(path)


def test_a_payout_record_that_is_a_fifo_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "payouts.json"
    os.mkfifo(path)
    with pytest.raises(PayoutRecordError, match="cannot be read: not a regular file"):
        PayoutRecord(path).load()


# --- a file system that does not answer ---------------------------------------------------


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """A file system's step is waited for 0.3 s (5 s in use)."""
    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 0.3)
    return 0.3


def test_a_file_whose_file_system_does_not_answer_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    # A network home gone away: opening the file never returned, nor did the app.
    path = tmp_path / "config.toml"
    path.write_bytes(b"x")
    with hung(monkeypatch, path), pytest.raises(tokensales_tui.files.Stalled) as stalled:
        read_local_file(path, limit=1024)
    assert str(stalled.value) == (
        "its file system did not answer within 0.3 s (a network mount gone away?)"
    )
    assert read_local_file(path, limit=1024) == b"x"  # answered again: read as ever


def test_a_file_read_slowly_a_piece_at_a_time_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each piece comes within the wait; the whole takes longer than it: the wait is for
    # a step of the read, not for the read.
    monkeypatch.setattr(tokensales_tui.files, "FILE_WAIT", 1.0)
    path = tmp_path / "list.csv"
    path.write_bytes(b"x" * (3 * 1024 * 1024 + 1))
    slowed(monkeypatch, "read", lambda _size: 0.4)
    assert len(read_local_file(path, limit=4 * 1024 * 1024)) == 3 * 1024 * 1024 + 1


def test_a_config_file_whose_file_system_does_not_answer_is_an_error_not_a_hang(
    monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    path = config.config_path()
    config.save_config(config.ConfigFile(theme="nord"))
    with hung(monkeypatch, path), pytest.raises(config.ConfigUnanswered) as unanswered:
        config.load_config()
    assert str(unanswered.value) == (
        f"{path}: cannot read the file: its file system did not answer within 0.3 s"
        " (a network mount gone away?)"
    )


def test_the_config_folders_modes_on_a_file_system_that_does_not_answer_are_not_waited_for(
    monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    path = config.config_path()
    config.save_config(config.ConfigFile(theme="nord"))
    path.chmod(0o644)
    assert "chmod 600" in config.permission_warnings()[0]
    with hung(monkeypatch, path, "stat"):
        assert config.permission_warnings() == []


# --- what every write keeps: limits, ownership, folders, leftovers ----------------------


def test_a_write_over_its_readers_limit_is_refused_and_the_old_file_kept(tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    tmp_path = tmp_path / "here"
    path = tmp_path / "f"
    path.write_bytes(b"old")
    with pytest.raises(TooLarge, match="would be larger than 1,024 bytes"):
        atomic_write(path, b"x" * 1025, limit=1024)
    with pytest.raises(TooLarge), atomic_writer(path, limit=1024) as file:
        for _ in range(3):
            file.write(b"x" * 512)
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f"]  # no temp file left
    atomic_write(path, b"x" * 1024, limit=1024)
    assert read_local_file(path, limit=1024) == b"x" * 1024  # what is written, is read


def _of_another_user(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.lchown(path, 4242, 4242)


def test_a_link_of_another_user_is_never_followed_by_a_write(tmp_path: Path) -> None:
    # As root, with another user's home: a link of theirs naming a file of root's (or of a
    # third user) was followed, the file replaced and taken over as root's 0600.
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    victim.chmod(0o644)
    link = tmp_path / "local.json"
    link.symlink_to(victim)
    _of_another_user(link)
    with pytest.raises(LocalFileError, match="a symbolic link of another user"):
        atomic_write(link, b"{}")
    assert victim.read_text() == "keep\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert link.is_symlink()


def test_a_file_of_another_user_is_not_replaced_even_through_ones_own_link(
    tmp_path: Path,
) -> None:
    theirs = tmp_path / "theirs"
    theirs.write_text("keep\n")
    _of_another_user(theirs)
    link = tmp_path / "config.toml"
    link.symlink_to(theirs)  # the current user's link
    for path in (theirs, link):
        with pytest.raises(LocalFileError, match="a file of another user"):
            atomic_write(path, b"x")
    assert theirs.read_text() == "keep\n" and theirs.stat().st_uid == 4242


def test_ones_own_link_to_ones_own_file_is_followed(tmp_path: Path) -> None:
    # dotfiles kept elsewhere and linked in: the link stays, the file it names is replaced
    real = tmp_path / "dotfiles" / "config.toml"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    atomic_write(link, b"new")
    assert link.is_symlink() and real.read_text() == "new"


def _roots_config(folder: Path) -> Path:
    """A folder of root's holding root's config file (mode 0644, "keep")."""
    folder.mkdir()
    kept = folder / "config.toml"
    kept.write_text("keep\n")
    kept.chmod(0o644)
    return kept


def test_a_folder_link_of_another_user_is_never_followed_by_a_write(tmp_path: Path) -> None:
    # As root, with another user's home: `~/.config`, a link of theirs to a folder of
    # root's, was followed (only the file's own name was looked at): root's file replaced.
    kept = _roots_config(tmp_path / "roots")
    theirs = tmp_path / "cfg"
    theirs.symlink_to(kept.parent)
    _of_another_user(theirs)
    with pytest.raises(LocalFileError, match="a symbolic link of another user .* not followed"):
        atomic_write(theirs / "config.toml", b"theme = 'x'\n")
    # one of theirs met inside what a link of root's own names, too
    (tmp_path / "deeper").symlink_to(tmp_path / "cfg" / ".")
    with pytest.raises(LocalFileError, match="a symbolic link of another user"):
        atomic_write(tmp_path / "deeper" / "config.toml", b"theme = 'x'\n")
    assert kept.read_text() == "keep\n" and stat.S_IMODE(kept.stat().st_mode) == 0o644
    assert not [name for name in os.listdir(kept.parent) if name != "config.toml"]


def test_ones_own_folder_link_is_followed(tmp_path: Path) -> None:
    kept = _roots_config(tmp_path / "dotfiles")
    (tmp_path / "cfg").symlink_to(kept.parent)
    atomic_write(tmp_path / "cfg" / "config.toml", b"new")
    assert kept.read_text() == "new" and (tmp_path / "cfg").is_symlink()


def test_a_link_swapped_in_for_a_folder_just_made_is_not_given_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The owner of the folder above replaced the new folder with a link before its mode was
    # set: chmod followed it, and root made the folder the link names 0700.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    made = Path.mkdir

    def mkdir_then_swapped(self: Path, mode: int = 0o777, *args: Any, **kwargs: Any) -> None:
        made(self, mode, *args, **kwargs)
        if self.name == "new":
            self.rmdir()
            self.symlink_to(elsewhere)

    monkeypatch.setattr(Path, "mkdir", mkdir_then_swapped)
    with pytest.raises(OSError):
        atomic_write(tmp_path / "new" / "file", b"x")
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755
    assert not list(elsewhere.iterdir())


def test_a_lock_file_is_never_opened_through_a_link(tmp_path: Path) -> None:
    path = tmp_path / "local.json"
    lock = lock_path(path)
    lock.parent.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    lock.symlink_to(elsewhere)
    with (
        pytest.raises(LockError, match="its lock .*: Too many levels of symbolic links"),
        locked(path),
    ):
        pass
    assert not elsewhere.exists()


def test_the_folders_a_write_makes_are_private_whatever_the_umask(tmp_path: Path) -> None:
    before = os.umask(0o022)
    try:
        atomic_write(tmp_path / "a" / "b" / "c" / "file", b"x")
    finally:
        os.umask(before)
    for folder in ("a", "a/b", "a/b/c"):
        assert stat.S_IMODE((tmp_path / folder).stat().st_mode) == 0o700, folder


def test_a_lock_held_past_the_wait_is_an_error_naming_it_and_the_wait_is_said(
    tmp_path: Path,
) -> None:
    path = tmp_path / "local.json"
    said: list[Path] = []
    with (
        locked(path),  # another holder (a lock is taken anew by each call)
        pytest.raises(LockBusy, match=r"held by another process for 0\.7 s") as raised,
        locked(path, wait=LOCK_NOTICE + 0.2, waiting=said.append),
    ):
        pass
    assert said == [lock_path(path)]  # said once, the wait having lasted
    assert str(lock_path(path)) in str(raised.value) and raised.value.lock == lock_path(path)
    with locked(path, wait=LOCK_NOTICE + 0.2, waiting=said.append):  # free: no wait said
        assert said == [lock_path(path)]


def test_every_wait_for_a_lock_is_bounded_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lock held for good (a hung writer, `flock FILE sleep 1000`) hung every writer
    # behind it, the config's saves among them: they waited as long as it took.
    monkeypatch.setattr(tokensales_tui.files, "LOCK_WAIT", 0.3)
    path = tmp_path / "config.toml"
    ended: list[BaseException] = []

    def take() -> None:
        try:
            with locked(path):
                pass
        except LockError as error:
            ended.append(error)

    with locked(path):
        taker = threading.Thread(target=take, daemon=True)
        taker.start()
        taker.join(timeout=30)
    assert not taker.is_alive()
    (error,) = ended
    assert isinstance(error, LockBusy) and error.waited == 0.3


def test_a_wait_for_a_lock_is_stopped_by_its_event_and_names_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    stop = threading.Event()
    with (
        locked(path),
        pytest.raises(LockWaitStopped, match="its lock .*: stopped waiting for it") as raised,
        locked(path, wait=60, waiting=lambda lock: stop.set(), stop=stop),
    ):
        pass
    assert raised.value.filename == str(lock_path(path))
    with pytest.raises(LockWaitStopped), locked(path, stop=stop):  # set: never taken
        pass


def _leftover(folder: Path, name: str, age: float) -> Path:
    temp = folder / name
    temp.write_text("api_key = 'secret'\n")
    then = time.time() - age
    os.utime(temp, (then, then))
    return temp


@contextlib.contextmanager
def _held_elsewhere(path: Path) -> Iterator[None]:
    """``path``'s lock, held as another process holds it (``flock LOCK sleep``): taken
    on a file of its own, with no cleanup of the folder."""
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def test_temp_files_of_dead_writers_are_removed_at_the_next_locked_write(tmp_path: Path) -> None:
    # kill -9 mid-write left `.local.json.XXXX.tmp` (for the config, its secrets) for good.
    path = tmp_path / "local.json"
    old = STALE_TEMP_SECONDS + 60
    dead = _leftover(tmp_path, ".local.json.k3j9x2ab.tmp", old)
    dead_other = _leftover(tmp_path, ".other.json.a1b2c3d4.tmp", old)
    recent = _leftover(tmp_path, ".local.json.q8w7e6r5.tmp", 5)  # may be a live writer's
    held = _leftover(tmp_path, ".busy.json.z9y8x7w6.tmp", old)
    not_ours = _leftover(tmp_path, "notes.tmp", old)
    with _held_elsewhere(tmp_path / "busy.json"), locked(path):  # busy.json's writer is alive
        atomic_write(path, b"{}")
    assert not dead.exists() and not dead_other.exists()
    assert recent.exists() and held.exists() and not_ours.exists()


def test_the_dead_temp_of_the_file_whose_lock_is_taken_is_removed(tmp_path: Path) -> None:
    # Its lock was looked at again through a new open file, which flock counts as another
    # holder: taken (by the caller itself), so the temp stayed, for good, in a folder
    # holding only that file (the config's folder; a payout record alone in payouts/).
    path = tmp_path / "alone" / "record.json"
    path.parent.mkdir()
    dead = _leftover(path.parent, ".record.json.k3j9x2ab.tmp", 3600)
    with locked(path):
        pass
    assert not dead.exists()


def test_a_config_save_removes_the_temp_a_killed_save_left(tmp_path: Path) -> None:
    # kill -9 during a save left the whole config, API secret and all, beside it.
    config.save_config(config.ConfigFile(theme="nord"))
    folder = config.config_path().parent
    dead = _leftover(folder, f".{config.config_path().name}.k3j9x2ab.tmp", 3600)
    change = config.ConfigChange.of(config.ConfigFile(theme="nord"), _theme("monokai"))
    config.update_config(change)
    assert not dead.exists()
    assert sorted(os.listdir(folder)) == ["config.toml"]


def _theme(theme: str) -> Callable[[config.ConfigFile], None]:
    def mutate(seen: config.ConfigFile) -> None:
        seen.theme = theme

    return mutate
