"""Local files: bounded reads that never block, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokensales_tui import config
from tokensales_tui.files import LocalFileError, read_local_file
from tokensales_tui.payouts import PayoutRecord, PayoutRecordError


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
