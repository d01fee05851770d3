"""Writing the config file: atomically, as mode 0600, under a lock, never over a file that does not parse.

:func:`save_config` and :func:`update_config` write atomically (temp file, fsync, rename;
see :mod:`tokensales_tui.files`); a file whose mode lets no one write it is never replaced.

Every save of the app is an :func:`update_config` of a :class:`ConfigChange`: the config
as the writer read it (the form was filled from it) and as the writer wants it. Under the
lock, the file is read again and only the settings the writer changed are written into it,
so a change another program made meanwhile to any other setting stays. A setting both
changed, each its own way, is not written over: :class:`ConfigConflict` says which, for
the app to ask before :meth:`ConfigConflict.overwriting` writes over it. A value the
same writer (:class:`OwnWrites`, one per app) wrote there last is not another program's
change: a save given up while its thread already held the lock still writes, and the
next save, made from the file as it was before, would have asked about it.

An update that changes only top-level settings (the theme, the default profile) edits
their lines in the file's own text, comments, layout and line ends kept, once the edited
text is seen to load as the update wants; one that changes nothing writes nothing. Any
other update rewrites the file; a file written by hand (comments, its own layout) is first
kept whole beside it, as ``config.toml.bak``.
"""

from __future__ import annotations

import contextlib
import copy
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from ..clean import clean_line, quoted
from ..files import (
    LockBusy,
    LockError,
    LockWaitStopped,
    TooLarge,
    WriteStop,
    answered,
    atomic_write,
    check_size,
    lock_path,
    locked,
    read_local_file,
    said,
)
from .load import MAX_CONFIG_BYTES, load_config, parse_config, toml_table
from .schema import (
    SECRET_FIELDS,
    ConfigError,
    ConfigFile,
    Profile,
    config_path,
    dec_hook,
    enc_hook,
)

__all__ = [
    "MISSING",
    "ConfigChange",
    "ConfigConflict",
    "Conflict",
    "OwnWrites",
    "Saved",
    "add_profile",
    "edit_profile",
    "kept_note",
    "save_config",
    "update_config",
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


class _Missing:
    """A setting the file or a side of a change does not hold."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
_NEVER_WRITTEN: Final = _Missing()

Settings = dict[str, Any]
"""A config in plain form: tables as dicts, secrets revealed (never shown)."""


@dataclass(frozen=True)
class ConfigChange:
    """What one save changes: the config as the writer read it, and as it wants it.

    Only the settings that differ between the two are written (see :func:`update_config`).
    """

    base: Settings
    wanted: Settings

    @classmethod
    def of(cls, base: ConfigFile, mutate: Callable[[ConfigFile], None]) -> ConfigChange:
        """``mutate`` applied to a copy of ``base``, the config the writer read (the one
        its form was filled from, or that it has in use). Raises what ``mutate`` raises."""
        seen = _plain(base)
        copy = _config(seen)
        mutate(copy)
        return cls(seen, _plain(copy))

    def overwriting(self, conflicts: Iterable[Conflict]) -> ConfigChange:
        """This change, taking ``conflicts`` as seen: saved again, it writes its values
        over theirs (and asks again only about what changed in the file since)."""
        base = copy.deepcopy(self.base)
        for conflict in conflicts:
            _put(base, conflict.path, conflict.theirs)
        return ConfigChange(base, self.wanted)


@dataclass(frozen=True)
class Conflict:
    """A setting changed in the file and by the writer, each its own way, since the
    writer read the file."""

    path: tuple[str, ...]
    theirs: Any
    """The file's value now (:data:`MISSING`: removed)."""
    yours: Any
    """The writer's (:data:`MISSING`: it removes the setting)."""

    @property
    def setting(self) -> str:
        """The setting, named as the file names it: ``profile prod's base_url``."""
        if self.path[0] == "profiles" and len(self.path) > 1:
            rest = ".".join(self.path[2:])
            return f"profile {self.path[1]}" + (f"'s {rest}" if rest else "")
        return ".".join(self.path)

    def theirs_text(self) -> str:
        """What the file holds now, as a message says it (a secret never shown)."""
        if self.theirs is MISSING:
            return f"{self.setting} was removed"
        if isinstance(self.theirs, dict):
            return f"{self.setting} changed"
        return f"{self.setting} is now {self._shown(self.theirs)}"

    def yours_text(self) -> str:
        """What the writer would write, as a message says it (a secret never shown)."""
        if self.yours is MISSING:
            return f"{self.setting} removed"
        return f"{self.setting} {self._shown(self.yours)}"

    def _shown(self, value: Any) -> str:
        if self.path[-1] in SECRET_FIELDS:
            return "another (not shown)"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return quoted(value)
        return quoted(str(value))


class ConfigConflict(ConfigError):
    """A save that would replace settings changed in the file since the writer read it.

    Nothing was written. Ask the user; :meth:`ConfigChange.overwriting` is the change
    that writes over them."""

    def __init__(self, conflicts: list[Conflict], change: ConfigChange, path: Path) -> None:
        changed = "; ".join(conflict.theirs_text() for conflict in conflicts)
        super().__init__(f"not saved: changed in the file since it was read: {changed}", path=path)
        self.conflicts = tuple(conflicts)
        self.change = change

    def overwriting(self) -> ConfigChange:
        """The change that writes over the settings in conflict."""
        return self.change.overwriting(self.conflicts)


def update_config(
    change: ConfigChange,
    path: Path | None = None,
    *,
    waiting: Callable[[Path], object] | None = None,
    stop: threading.Event | WriteStop | None = None,
    own: OwnWrites | None = None,
) -> Saved:
    """Lock, re-read the file and write into it what ``change`` changes.

    Only the settings ``change`` changes are written, into the file as it is now: what
    another program (a second instance, a script, a hand edit) changed meanwhile stays.
    A setting changed both there and by ``change``, each its own way, is not written
    over: :class:`ConfigConflict` names them and nothing is written. A profile added that
    the file has now is refused; one edited that the file no longer has, too. A file that
    does not parse is left alone (``ConfigError``). See the module's docstring for how
    comments are kept.

    The lock is waited for :data:`~tokensales_tui.files.LOCK_WAIT` seconds at most;
    ``waiting`` is called (with the lock file) once the wait lasts, and setting ``stop``
    ends it (``ConfigError``, nothing written); a :class:`~tokensales_tui.files.WriteStop`
    is honoured up to the moment the file is written, and refused from then on. ``own``: the writer's earlier writes,
    whose values in the file are not another program's change; this one is added to
    them. Blocks: call it off the event loop.
    """
    target = path or config_path()
    kept = None
    with _config_lock(target, waiting=waiting, stop=stop):
        try:
            text = read_local_file(target, limit=MAX_CONFIG_BYTES)
        except FileNotFoundError:
            text = b""
        except OSError as exc:
            raise ConfigError(f"not saved: {said(exc, target)}", path=target) from None
        try:
            config = parse_config(text, path=target)
        except ConfigError as exc:
            raise _not_saved(exc) from None
        before = _plain(config)
        after = copy.deepcopy(before)
        conflicts = _merge(change.base, change.wanted, after, ())
        ours = (
            [] if own is None else [c for c in conflicts if own.wrote(target, c.path) == c.theirs]
        )
        if ours:  # the writer's own: seen, as the file holds them
            change = change.overwriting(ours)
            after = copy.deepcopy(before)
            conflicts = _merge(change.base, change.wanted, after, ())
        if conflicts:
            raise ConfigConflict(conflicts, change, target)
        if text and after == before:
            return Saved(config)  # the file holds it already: left as written
        if isinstance(stop, WriteStop) and not stop.pass_point():
            raise ConfigError("not saved: stopped before the config file was written", path=target)
        config = _config(after)
        data = _edited(text, before, after)
        _refuse_read_only(target)
        if data is None:
            data = _serialise(config)
            _refuse_too_large(target, data)  # before a copy is kept: nothing is written
            if text.strip() and text != _serialise(parse_config(text)):
                kept = target.with_name(target.name + ".bak")
                _write(kept, text)
        _write(target, data)
        if own is not None:
            own.remember(target, after)
    return Saved(config, kept)


class OwnWrites:
    """What one writer (an app, through each of its saves) last wrote into each config
    file: :func:`update_config` never takes a value it wrote for another program's change.

    Safe to share between the threads that save.
    """

    def __init__(self) -> None:
        self._written: dict[Path, Settings] = {}
        self._guard = threading.Lock()

    def remember(self, target: Path, settings: Settings) -> None:
        """``settings`` are what was just written into ``target`` (its lock held)."""
        with self._guard:
            self._written[lock_path(target)] = copy.deepcopy(settings)

    def wrote(self, target: Path, path: tuple[str, ...]) -> Any:
        """The setting at ``path`` as last written into ``target`` (:data:`MISSING`: left
        out); a value no setting equals when this writer never wrote ``target``."""
        with self._guard:
            settings: Any = self._written.get(lock_path(target))
        if settings is None:
            return _NEVER_WRITTEN
        for key in path:
            if not isinstance(settings, dict) or key not in settings:
                return MISSING
            settings = settings[key]
        return settings


def _merge(base: Settings, wanted: Settings, file: Settings, at: tuple[str, ...]) -> list[Conflict]:
    """Write into ``file`` (the settings at ``at`` in the file as it is now) what changed
    from ``base`` to ``wanted``; return the settings changed in both, each its own way."""
    conflicts: list[Conflict] = []
    for key in [*base, *(key for key in wanted if key not in base)]:
        was, want = base.get(key, MISSING), wanted.get(key, MISSING)
        if was == want:
            continue  # not changed by this writer: the file's value stays
        now = file.get(key, MISSING)
        path = (*at, key)
        if at == ("profiles",):
            conflicts += _merge_profile(file, path, was, want, now)
            continue
        was_table, want_table, now_table = _table(was), _table(want), _table(now)
        if was_table is not None and want_table is not None and now_table is not None:
            conflicts += _merge(was_table, want_table, now_table, path)
            if now_table and now is MISSING:
                file[key] = now_table
            elif not now_table and want is MISSING:
                file.pop(key, None)
        elif now == was:
            _put(file, (key,), want)
        elif now != want:
            conflicts.append(Conflict(path, now, want))
    return conflicts


def _merge_profile(
    file: Settings, path: tuple[str, ...], was: Any, want: Any, now: Any
) -> list[Conflict]:
    """A profile is added and removed as a whole: one added that the file has now (with
    its own key, read_only, label…) is refused, one edited that the file no longer has
    too; one removed that changed in the file since is a conflict."""
    name = path[-1]
    if was is MISSING:
        if now is MISSING:
            file[name] = copy.deepcopy(want)
        elif now != want:
            raise ConfigError(f"a profile named {name!r} exists already: edit it instead")
        return []
    if want is MISSING:
        if now == was:
            del file[name]
        elif now is not MISSING:
            return [Conflict(path, now, MISSING)]
        return []
    if now is MISSING:
        raise ConfigError(f"profile {name!r} is no longer in the config file")
    return _merge(was, want, now, path)


def _table(value: Any) -> Settings | None:
    """``value`` as a table to merge into: a missing one is empty; None for a value."""
    if value is MISSING:
        return {}
    return value if isinstance(value, dict) else None


def _put(settings: Settings, path: tuple[str, ...], value: Any) -> None:
    """Set (or, for :data:`MISSING`, remove) the setting at ``path``."""
    *tables, key = path
    for table in tables:
        settings = settings.setdefault(table, {})
    if value is MISSING:
        settings.pop(key, None)
    else:
        settings[key] = copy.deepcopy(value)


def _config(settings: Settings) -> ConfigFile:
    try:
        return msgspec.convert(settings, ConfigFile, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:  # never the value: it may be a secret
        raise ConfigError(f"not saved: {exc}") from None


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
        value = _toml_dumps({key: after[key]}).encode().rstrip(b"\n")
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
            toml_table(line[:at].decode())
        except (ConfigError, UnicodeDecodeError):
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


def add_profile(
    name: str, profile: Profile, *, make_default: bool = False
) -> Callable[[ConfigFile], None]:
    """A mutation for :meth:`ConfigChange.of` that adds profile ``name``, never replacing
    one; ``make_default`` makes it the default profile."""
    if not name:
        raise ConfigError("a profile needs a name")

    def mutate(config: ConfigFile) -> None:
        if name in config.profiles:
            raise ConfigError(f"a profile named {name!r} exists already: edit it instead")
        config.profiles[name] = profile
        if make_default:
            config.default_profile = name

    return mutate


def edit_profile(name: str, changes: Profile) -> Callable[[ConfigFile], None]:
    """A mutation for :meth:`ConfigChange.of` that changes the addresses and keys of ``name``.

    The profile's other settings (label, read-only, proxy…) stay; a key or secret that
    ``changes`` leaves ``None`` keeps the one stored.
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


def _toml_dumps(data: dict[str, Any]) -> str:
    """``data`` as TOML; the writer is imported on the first save, not at the app's start."""
    import tomli_w

    return tomli_w.dumps(data)


def _serialise(config: ConfigFile) -> bytes:
    try:
        data = (_HEADER + _toml_dumps(msgspec.to_builtins(config, enc_hook=enc_hook))).encode()
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
        mode = answered(lambda: target.stat().st_mode)
    except OSError:
        return  # none yet (or unreadable: the write says why)
    if not mode & 0o222:
        raise ConfigError(
            f"not saved: {clean_line(str(target))}: the file is read-only"
            " (no write permission set)",
            path=target,
        )


def _refuse_too_large(target: Path, data: bytes) -> None:
    try:
        check_size(len(data), MAX_CONFIG_BYTES)
    except TooLarge as exc:
        raise _too_large(target, exc) from None


def _too_large(target: Path, exc: TooLarge) -> ConfigError:
    return ConfigError(f"not saved: the config file {exc}", path=target)


def _write(target: Path, data: bytes) -> None:
    _refuse_read_only(target)
    try:
        # The reader's limit: nothing is written that the next start would refuse.
        atomic_write(target, data, limit=MAX_CONFIG_BYTES)
    except TooLarge as exc:
        raise _too_large(target, exc) from None
    except OSError as exc:
        raise ConfigError(f"not saved: {said(exc, target)}", path=target) from None


@contextlib.contextmanager
def _config_lock(
    target: Path,
    *,
    waiting: Callable[[Path], object] | None = None,
    stop: threading.Event | WriteStop | None = None,
) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(locked(target, waiting=waiting, stop=stop))
        except LockBusy as busy:
            raise ConfigError(
                f"not saved: another program has held the config file's lock for {busy.waited:g} s"
                " (another tokensales-tui?); try again",
                path=target,
            ) from None
        except LockWaitStopped:
            raise ConfigError(
                "not saved: stopped waiting for the config file's lock", path=target
            ) from None
        except LockError as exc:  # the lock file cannot be made: named, not the config
            raise ConfigError(
                f"not saved: cannot lock the config file: {clean_line(str(exc))}", path=target
            ) from None
        except OSError as exc:
            raise ConfigError(f"not saved: {said(exc, target)}", path=target) from None
        yield
