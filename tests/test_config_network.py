"""The profile's network settings: ``proxy`` and ``max_body_mb`` read, checked and applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokensales_tui.api.connection import DEFAULT_MAX_BODY, Connection
from tokensales_tui.config import ConfigError, Overrides, load_config, resolve_profile

BASE = '[profiles.p]\nbase_url = "https://api.example.com"\napi_key = "k"\n'


def resolved(tmp_path: Path, extra: str) -> Connection:
    path = tmp_path / "config.toml"
    path.write_text(BASE + extra)
    return resolve_profile(load_config(path), cli=Overrides(), env={}).connection()


def test_the_defaults_name_no_proxy_and_a_gigabyte(tmp_path: Path) -> None:
    connection = resolved(tmp_path, "")
    assert connection.proxy is None
    assert connection.max_body == DEFAULT_MAX_BODY == 1024**3


def test_proxy_and_max_body_reach_the_connection(tmp_path: Path) -> None:
    connection = resolved(tmp_path, 'proxy = "http://proxy.internal:3128"\nmax_body_mb = 4096\n')
    assert connection.proxy == "http://proxy.internal:3128"
    assert connection.max_body == 4096 * 1024 * 1024


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("max_body_mb = 0", "max_body_mb must be a whole number from 1 to 65536"),
        ("max_body_mb = 100000", "max_body_mb must be a whole number from 1 to 65536"),
        ('max_body_mb = "big"', "max_body_mb must be a whole number"),
        ('proxy = "ftp://p.example"', "proxy needs an http:// or https:// address"),
        ('proxy = "http://user:hunter2@p example"', "proxy must not contain spaces"),
    ],
)
def test_bad_values_are_named_with_their_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BASE + line + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in caught.value.message
    assert caught.value.line == 4
    assert "hunter2" not in str(caught.value)
