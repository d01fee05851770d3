"""Writing the config file: atomically, as mode 0600, under a lock, never over a file that does not parse.

:func:`save_config` and :func:`update_config` write atomically (temp file, fsync, rename;
see :mod:`tokensales_tui.files`). Comments in the file are not preserved.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import msgspec
import tomli_w

from ..files import atomic_write, locked
from .load import load_config, parse_config
from .schema import ConfigError, ConfigFile, Profile, config_path, enc_hook

__all__ = ["add_profile", "edit_profile", "save_config", "update_config", "upsert_profile"]

_HEADER: Final = (
    "# tokensales-tui settings. Saving from the app rewrites this file without comments.\n"
)


def save_config(config: ConfigFile, path: Path | None = None, *, force: bool = False) -> None:
    """Write ``config`` atomically as mode 0600, under the lock.

    Refuses (``ConfigError``) to replace an existing file that does not parse, unless
    ``force``. Every failure raises ``ConfigError("not saved: ...")`` and leaves the old
    file as it was.
    """
    target = path or config_path()
    data = _serialise(config)
    with _config_lock(target):
        if not force:
            _refuse_if_invalid(target)
        _write(target, data)


def update_config(mutate: Callable[[ConfigFile], None], path: Path | None = None) -> ConfigFile:
    """Lock, re-read the file, apply ``mutate`` to it, save, and return the saved config.

    Two instances updating at once both keep their changes. A file that does not parse is
    left alone (``ConfigError``).
    """
    target = path or config_path()
    with _config_lock(target):
        try:
            config = load_config(target)
        except ConfigError as exc:
            raise _not_saved(exc) from None
        mutate(config)
        _write(target, _serialise(config))
    return config


def upsert_profile(
    name: str, profile: Profile, make_default: bool = False
) -> Callable[[ConfigFile], None]:
    """A mutation for :func:`update_config` that adds or replaces profile ``name``."""
    if not name:
        raise ConfigError("a profile needs a name")

    def mutate(config: ConfigFile) -> None:
        config.profiles[name] = profile
        if make_default:
            config.default_profile = name

    return mutate


def add_profile(name: str, profile: Profile) -> Callable[[ConfigFile], None]:
    """A mutation for :func:`update_config` that adds profile ``name``, never replacing one."""
    if not name:
        raise ConfigError("a profile needs a name")

    def mutate(config: ConfigFile) -> None:
        if name in config.profiles:
            raise ConfigError(f"a profile named {name!r} exists already: edit it instead")
        config.profiles[name] = profile

    return mutate


def edit_profile(name: str, changes: Profile) -> Callable[[ConfigFile], None]:
    """A mutation for :func:`update_config` that changes the addresses and keys of ``name``.

    The profile's other settings (label, read-only, proxy…) stay as the file has them; a key
    or secret that ``changes`` leaves ``None`` keeps the one stored.
    """

    def mutate(config: ConfigFile) -> None:
        stored = config.profiles.get(name)
        if stored is None:
            raise ConfigError(f"profile {name!r} is no longer in the config file")
        config.profiles[name] = msgspec.structs.replace(
            stored,
            base_url=changes.base_url,
            auth_url=changes.auth_url,
            console_url=changes.console_url,
            api_key=changes.api_key or stored.api_key,
            api_secret=changes.api_secret or stored.api_secret,
        )

    return mutate


def _serialise(config: ConfigFile) -> bytes:
    try:
        data = (_HEADER + tomli_w.dumps(msgspec.to_builtins(config, enc_hook=enc_hook))).encode()
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"not saved: {exc}") from None
    try:
        parse_config(data)  # never write a file that would not load again
    except ConfigError as exc:
        raise ConfigError(f"not saved: {exc.message}") from None
    return data


def _refuse_if_invalid(target: Path) -> None:
    try:
        load_config(target)
    except ConfigError as exc:
        raise _not_saved(exc) from None


def _not_saved(exc: ConfigError) -> ConfigError:
    return ConfigError(
        f"not saved: the existing file is not valid ({exc.message}); fix or move it first",
        path=exc.path,
        line=exc.line,
        column=exc.column,
    )


def _write(target: Path, data: bytes) -> None:
    try:
        atomic_write(target, data)
    except OSError as exc:
        raise ConfigError(f"not saved: {exc.strerror or exc}", path=target) from None


@contextlib.contextmanager
def _config_lock(target: Path) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(locked(target))
        except OSError as exc:
            raise ConfigError(f"not saved: cannot lock: {exc.strerror}", path=target) from None
        yield
