"""Writing the config file: atomically, as mode 0600, under a lock, never over a file that does not parse.

:func:`save_config` and :func:`update_config` write atomically (temp file, fsync, rename;
see :mod:`tokensales_tui.files`); a file whose mode lets no one write it is never replaced.

An update that changes only top-level settings (the theme, the default profile) edits
their lines in the file's own text, comments, layout and line ends kept, once the edited
text is seen to load as the update wants; one that changes nothing writes nothing. Any
other update rewrites the file; a file written by hand (comments, its own layout) is first
kept whole beside it, as ``config.toml.bak``.
"""

from __future__ import annotations

import contextlib
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec
import tomli_w

from ..files import atomic_write, locked, read_local_file
from .load import MAX_CONFIG_BYTES, load_config, parse_config
from .schema import ConfigError, ConfigFile, Profile, config_path, enc_hook

__all__ = [
    "Saved",
    "add_profile",
    "edit_profile",
    "kept_note",
    "save_config",
    "update_config",
    "upsert_profile",
]

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


@dataclass(frozen=True)
class Saved:
    """What :func:`update_config` wrote."""

    config: ConfigFile
    kept: Path | None = None
    """Where the file as it was before is kept, when the update rewrote a file written
    by hand (whose comments the rewrite dropped)."""


def update_config(mutate: Callable[[ConfigFile], None], path: Path | None = None) -> Saved:
    """Lock, re-read the file, apply ``mutate`` to it and save it (see the module's
    docstring for how comments are kept).

    Two instances updating at once both keep their changes. A file that does not parse is
    left alone (``ConfigError``).
    """
    target = path or config_path()
    kept = None
    with _config_lock(target):
        try:
            text = read_local_file(target, limit=MAX_CONFIG_BYTES)
        except FileNotFoundError:
            text = b""
        except OSError as exc:
            raise ConfigError(f"not saved: {exc.strerror or exc}", path=target) from None
        try:
            config = parse_config(text, path=target)
        except ConfigError as exc:
            raise _not_saved(exc) from None
        before = _plain(config)
        mutate(config)
        after = _plain(config)
        if text and after == before:
            return Saved(config)  # the file holds it already: left as written
        data = _edited(text, before, after)
        _refuse_read_only(target)
        if data is None:
            data = _serialise(config)
            if text.strip() and text != _serialise(parse_config(text)):
                kept = target.with_name(target.name + ".bak")
                _write(kept, text)
        _write(target, data)
    return Saved(config, kept)


def kept_note(kept: Path) -> str:
    """What to tell the user of a file kept by :func:`update_config`."""
    return f"Saved; the file as you wrote it, comments and all, is kept as {kept}"


def _plain(config: ConfigFile) -> dict[str, Any]:
    return msgspec.to_builtins(config, enc_hook=enc_hook)  # type: ignore[no-any-return]


_TABLE: Final = re.compile(rb"^\s*\[")


def _edited(text: bytes, before: dict[str, Any], after: dict[str, Any]) -> bytes | None:
    """``text`` with the top-level settings that differ between ``before`` and
    ``after`` written in place: a changed one on its own line, a new one before the first
    table, a dropped one removed. None when anything else changed, or when the edited
    text would not load as ``after`` (a value over several lines, a key written twice)."""
    changed = [key for key in before.keys() | after.keys() if before.get(key) != after.get(key)]
    if not changed or any(
        isinstance(side.get(key), dict | list) for key in changed for side in (before, after)
    ):
        return None
    eol = b"\r\n" if text.count(b"\r\n") * 2 > text.count(b"\n") else b"\n"  # the file's own
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += eol
    top = next((n for n, line in enumerate(lines) if _TABLE.match(line)), len(lines))
    for key in sorted(changed):
        setting = re.compile(rb"^\s*" + re.escape(key.encode()) + rb"\s*=")
        found = [n for n in range(top) if setting.match(lines[n])]
        value = tomli_w.dumps({key: after[key]}).encode().rstrip(b"\n")
        written = value + eol if key in after else b""
        if found:
            # A comment after the value stays (a "#" in a quoted value fails the check
            # below, and the file is rewritten instead).
            comment = _trailing_comment(lines[found[0]].rstrip(b"\r\n"))
            if comment and written:
                written = value + comment + eol
            lines[found[0]] = written
        else:
            lines.insert(_new_setting_at(lines, top), written)
            top += 1
    data = b"".join(lines)
    try:
        edited = parse_config(data)
    except ConfigError:
        return None
    return data if _plain(edited) == after else None


def _trailing_comment(line: bytes) -> bytes:
    """The comment after a setting's value on ``line`` (with the blanks before it), or
    b"": the first ``#`` before which the line is a whole setting, so that one inside the
    value (``theme = "a#b"``) is not taken for it, and quotes in the comment are."""
    for at in (n for n, byte in enumerate(line) if byte == ord("#")):
        try:
            tomllib.loads(line[:at].decode())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        start = len(line[:at].rstrip())
        return line[start:]
    return b""


def _new_setting_at(lines: list[bytes], top: int) -> int:
    """Where a new top-level setting goes among the ``top`` lines before the first table:
    after the last setting; without one, at the first blank line (after the file's opening
    comment), else just before the table. A comment right above a table stays with it."""
    settings = [
        n for n in range(top) if lines[n].strip() and not lines[n].lstrip().startswith(b"#")
    ]
    if settings:
        return settings[-1] + 1
    return next((n for n in range(top) if not lines[n].strip()), top)


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


def _refuse_read_only(target: Path) -> None:
    """A file whose mode lets no one write it is not replaced: the atomic write's rename
    would take its place whatever its mode says (for root too)."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return  # none yet (or unreadable: the write says why)
    if not mode & 0o222:
        raise ConfigError("not saved: the file is read-only (no write permission set)", path=target)


def _write(target: Path, data: bytes) -> None:
    _refuse_read_only(target)
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
