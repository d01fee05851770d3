"""The config file, its profiles, and how one profile is chosen and completed.

The file lives at ``config_path()`` (``$XDG_CONFIG_HOME/tokensales-tui/config.toml`` on Linux)::

    default_profile = "prod"

    [profiles.prod]
    base_url = "https://api.example.com"
    auth_url = "https://auth.example.com"      # optional, defaults to base_url
    console_url = "https://console.example.com"  # optional, defaults to base_url
    api_key = "..."
    api_secret = "..."                         # optional
    read_only = true                           # optional, default false
    label = "PRODUCTION"                       # optional, shown in the header
    allow_insecure_http = false                # optional: permit http:// to other hosts

Reading: :func:`load_config` returns an empty :class:`ConfigFile` when the file is missing and
raises :class:`ConfigError` (with path, line and column where known) when it is not valid.
:func:`permission_warnings` says separately whether the file or its folder is open to others.

Writing: :func:`save_config` and :func:`update_config` write atomically (temp file, fsync,
rename) with mode 0600 and never replace a file that does not parse, unless forced. Comments in
the file are not preserved. :func:`atomic_write` and :func:`locked` are the same machinery for
other local files (those under :func:`data_dir`). POSIX only (``fcntl``).

Choosing: :func:`resolve_profile` merges command-line flags, then ``TOKENSALES_*`` environment
variables, then the file, and raises :class:`NoConfiguration` when nothing is configured at all.

No secret is ever put into a message, a repr or a log line by this module.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import fcntl
import ipaddress
import json
import os
import re
import tempfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import msgspec
import platformdirs
import tomli_w

from .api.connection import Connection
from .api.secret import Secret

APP_NAME: Final = "tokensales-tui"

ENV_PROFILE: Final = "TOKENSALES_PROFILE"
ENV_BASE_URL: Final = "TOKENSALES_BASE_URL"
ENV_AUTH_URL: Final = "TOKENSALES_AUTH_URL"
ENV_CONSOLE_URL: Final = "TOKENSALES_CONSOLE_URL"
ENV_API_KEY: Final = "TOKENSALES_API_KEY"
ENV_API_SECRET: Final = "TOKENSALES_API_SECRET"

_HEADER: Final = (
    "# tokensales-tui settings. Saving from the app rewrites this file without comments.\n"
)


def config_path() -> Path:
    """The config file's path; honours ``XDG_CONFIG_HOME``."""
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def data_dir() -> Path:
    """The folder for local records (such as payout definitions); honours ``XDG_DATA_HOME``."""
    return platformdirs.user_data_path(APP_NAME)


class ConfigError(Exception):
    """The configuration cannot be read, saved or used; ``message`` says what to change."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = [str(part) for part in (self.path, self.line, self.column) if part is not None]
        return ": ".join([":".join(where), self.message]) if where else self.message


class NoConfiguration(ConfigError):
    """Neither the file nor the environment configures anything: time for first-run setup."""


class Profile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """One ``[profiles.NAME]`` table as stored in the file."""

    base_url: str
    auth_url: str | None = None
    console_url: str | None = None
    api_key: Secret | None = None
    api_secret: Secret | None = None
    read_only: bool = False
    label: str | None = None
    allow_insecure_http: bool = False


class ConfigFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """The whole file: the profiles and which one is used by default."""

    default_profile: str | None = None
    profiles: dict[str, Profile] = msgspec.field(default_factory=dict)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    """Key bindings to change: binding id → keys, e.g. ``refresh = "f5"`` (Textual keymap)."""


class _TopLevel(msgspec.Struct, forbid_unknown_fields=True):
    # The file's top level, with each profile left raw so its errors can name the profile.
    default_profile: str | None = None
    profiles: dict[str, Any] = msgspec.field(default_factory=dict)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)


_SECRET_FIELDS: Final = frozenset({"api_key", "api_secret"})
_BOOL_FIELDS: Final = frozenset({"read_only", "allow_insecure_http"})
_URL_FIELDS: Final = ("base_url", "auth_url", "console_url")


def _dec_hook(kind: type, value: object) -> object:
    if kind is Secret:
        if isinstance(value, str):
            return Secret(value)
        raise TypeError("not text")  # never the value: it may be a secret
    raise NotImplementedError(kind)


def _enc_hook(value: object) -> object:
    if isinstance(value, Secret):
        return value.reveal()
    raise TypeError(f"a {type(value).__name__} cannot be stored in the config file")


# -- URLs --------------------------------------------------------------------------------


def validate_url(value: str, *, field: str, allow_insecure_http: bool) -> str:
    """Check that ``value`` is an http(s) URL with a host; return it without trailing slashes.

    ``field`` names the setting in messages (``[profiles.prod] base_url``, ``--base-url``).
    Plain ``http://`` is refused unless the host is this machine or ``allow_insecure_http``.
    """
    parts = urlsplit(value)
    if parts.username is not None or parts.password is not None:
        # Not echoed: the part before "@" may be a password.
        raise ConfigError(
            f"{field} must not contain a user name or password; use api_key and api_secret"
        )
    if any(char.isspace() for char in value):
        raise ConfigError(f"{field} {json.dumps(value)} must not contain spaces")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        example = value.split("://", 1)[-1].lstrip("/") or "api.example.com"
        raise ConfigError(
            f"{field} {json.dumps(value)} needs a scheme and host, e.g. https://{example}"
        )
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        raise ConfigError(f"{field} {json.dumps(value)} has an invalid port") from None
    if (
        parts.scheme.lower() == "http"
        and not allow_insecure_http
        and not _is_loopback(parts.hostname)
    ):
        raise ConfigError(
            f"{field} {json.dumps(value)} uses plain http:// to another machine, which would send"
            " the API secret unencrypted; use https://, or set allow_insecure_http = true in the"
            " profile"
        )
    return value.rstrip("/")


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- Reading -----------------------------------------------------------------------------


def load_config(path: Path | None = None) -> ConfigFile:
    """Read and validate the config file; a missing file gives an empty :class:`ConfigFile`."""
    target = path or config_path()
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return ConfigFile()
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror}", path=target) from None
    return parse_config(data, path=target)


def parse_config(data: bytes, *, path: Path | None = None) -> ConfigFile:
    """Parse and validate the bytes of a config file; ``path`` is only used in errors."""
    text = _decode(data, path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(exc, text, path) from None
    return _Validator(text, path).config(raw)


def permission_warnings(path: Path | None = None) -> list[str]:
    """Warnings, one line each, when the config file or its folder is open to other users.

    The next save writes the file as 0600; the folder is only changed when the app created it.
    """
    target = path or config_path()
    warnings = []
    for item, fix in ((target, "600"), (Path(os.path.realpath(target)).parent, "700")):
        try:
            mode = item.stat().st_mode & 0o777
        except OSError:
            continue
        if mode & 0o077:
            warnings.append(
                f"{item} can be accessed by other users (mode {mode:04o}) and holds API"
                f" secrets; run: chmod {fix} {item}"
            )
    return warnings


def _decode(data: bytes, path: Path | None) -> str:
    if data.startswith(codecs.BOM_UTF8):
        raise ConfigError(
            "the file starts with a byte order mark (BOM), which TOML does not allow;"
            " save it as UTF-8 without BOM",
            path=path,
            line=1,
            column=1,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"byte 0x{data[exc.start]:02x} is not valid UTF-8; save the file as UTF-8",
            path=path,
            line=data.count(b"\n", 0, exc.start) + 1,
            column=len(data[line_start : exc.start].decode("utf-8")) + 1,
        ) from None


_TOML_WHERE: Final = re.compile(r"(?s)(.*) \(at (?:line (\d+), column (\d+)|end of document)\)")


def _toml_error(exc: tomllib.TOMLDecodeError, text: str, path: Path | None) -> ConfigError:
    # Python 3.14 adds lineno/colno; 3.11-3.13 only put them into the message.
    message = str(exc)
    line: int | None = getattr(exc, "lineno", None)
    column: int | None = getattr(exc, "colno", None)
    if match := _TOML_WHERE.fullmatch(message):
        message = match[1]
        if line is None and match[2]:
            line, column = int(match[2]), int(match[3])
        elif line is None:
            lines = text.split("\n")
            line, column = len(lines), len(lines[-1]) + 1
    if message == "Illegal character '\\n'":
        message += " (is a closing quote missing?)"
    elif message.startswith("Cannot overwrite") or message.endswith("twice"):
        message += " (a key or table is defined twice)"
    return ConfigError(f"not valid TOML: {message}", path=path, line=line, column=column)


class _Validator:
    """Turns parsed TOML into a :class:`ConfigFile`, with located, readable errors."""

    def __init__(self, text: str, path: Path | None) -> None:
        self.text = text
        self.path = path

    def config(self, raw: dict[str, Any]) -> ConfigFile:
        try:
            top = msgspec.convert(raw, _TopLevel)
        except msgspec.ValidationError as exc:
            raise self._translate(exc, raw, ()) from None
        profiles = {name: self.profile(name, table) for name, table in top.profiles.items()}
        default = top.default_profile
        if default is not None and default not in profiles:
            raise self.error(
                f"default_profile {json.dumps(default)} is not a profile in this file;"
                f" {_existing(list(profiles))}",
                (),
                "default_profile",
            )
        return ConfigFile(default_profile=default, profiles=profiles, keymap=top.keymap)

    def profile(self, name: str, raw: object) -> Profile:
        table = ("profiles", name)
        if not name:
            raise self.error("profile names must not be empty", table)
        if not isinstance(raw, dict):
            raise self.error(f"{_title(name)} must be a table of settings", ("profiles",), name)
        try:
            profile = msgspec.convert(raw, Profile, dec_hook=_dec_hook)
        except msgspec.ValidationError as exc:
            raise self._translate(exc, raw, table) from None
        urls = {}
        for field in _URL_FIELDS:
            value = getattr(profile, field)
            if value is None:
                continue
            try:
                urls[field] = validate_url(
                    value,
                    field=f"{_title(name)} {field}",
                    allow_insecure_http=profile.allow_insecure_http,
                )
            except ConfigError as exc:
                raise self.error(exc.message, table, field) from None
        return msgspec.structs.replace(profile, **urls)

    def error(self, message: str, table: tuple[str, ...], key: str | None = None) -> ConfigError:
        line, column = _locate(self.text, table, key)
        return ConfigError(message, path=self.path, line=line, column=column)

    def _translate(
        self, exc: msgspec.ValidationError, raw: dict[str, Any], table: tuple[str, ...]
    ) -> ConfigError:
        struct = Profile if table else _TopLevel
        fields = list(struct.__struct_fields__)
        where = f"in {_title(table[1])}" if table else "at the top level"
        prefix = f"{_title(table[1])} " if table else ""
        text = str(exc)
        if match := re.match(r"Object contains unknown field `(.*)`", text):
            key = match[1]
            close = difflib.get_close_matches(key, fields, n=1)
            hint = (
                f' — did you mean "{close[0]}"?' if close else f"; known keys: {', '.join(fields)}"
            )
            return self.error(f"unknown key {json.dumps(key)} {where}{hint}", table, key)
        if match := re.match(r"Object missing required field `(.*)`", text):
            field = match[1]
            example = f', e.g. {field} = "https://api.example.com"' if field in _URL_FIELDS else ""
            return self.error(f"{prefix}needs {field}{example}", table)
        match = re.search(r" - at `\$\.([A-Za-z_]+)", text)
        key = match[1] if match else None
        if key is None:  # not expected; keep msgspec's words, which hold no values here
            return self.error(f"{prefix}{text}", table)
        if key == "profiles":
            return self.error("profiles must be a set of [profiles.NAME] tables", table, key)
        expected = "true or false" if key in _BOOL_FIELDS else "text in quotes"
        if key in _SECRET_FIELDS:
            return self.error(f"{prefix}{key} must be {expected}", table, key)
        shown = _show(raw.get(key))
        return self.error(f"{prefix}{key} must be {expected}, not {shown}", table, key)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:40] + "…", ensure_ascii=False)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return "a date or time"


_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")
_KEY_PART: Final = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)')


def _title(name: str) -> str:
    """``[profiles.NAME]``, quoting the name as TOML would need it."""
    return f"[profiles.{name if _BARE_KEY.fullmatch(name) else json.dumps(name)}]"


def _existing(names: list[str]) -> str:
    if not names:
        return "there are no [profiles.NAME] tables yet"
    return "existing profiles: " + ", ".join(names)


def _split_key(text: str) -> tuple[str, ...] | None:
    """The parts of a dotted TOML key, or ``None`` when ``text`` is not one."""
    parts = []
    rest = text.strip()
    while True:
        match = _KEY_PART.match(rest)
        if match is None:
            return None
        parts.append(next(group for group in match.groups() if group is not None))
        rest = rest[match.end() :].lstrip()
        if not rest:
            return tuple(parts)
        if rest[0] != ".":
            return None
        rest = rest[1:].lstrip()


def _locate(text: str, table: tuple[str, ...], key: str | None) -> tuple[int | None, int | None]:
    """Best-effort line and column of ``key`` in ``table`` (or of the table) in ``text``.

    A line scan over table headers and ``key =`` lines; multi-line strings and inline tables
    can mislead it, which only costs precision in a message.
    """
    wanted = (*table, key) if key is not None else table
    current: tuple[str, ...] = ()
    fallback: tuple[int | None, int | None] = (None, None)
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        column = len(line) - len(stripped) + 1
        if stripped.startswith("["):
            inner = stripped.lstrip("[")
            end = inner.find("]")
            current = (_split_key(inner[:end]) if end >= 0 else None) or ("\0",)
            if current[: len(wanted)] == wanted:
                return number, column
            if table and current == table and fallback == (None, None):
                fallback = (number, column)
            continue
        name, equals, _ = stripped.partition("=")
        parts = _split_key(name) if equals else None
        if parts is None:
            continue
        full = current + parts
        if full[: len(wanted)] == wanted and key is not None:
            return number, column
        if table and full[: len(table)] == table and fallback == (None, None):
            fallback = (number, column)
    return fallback


# -- Writing -----------------------------------------------------------------------------


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


def profile_names(config: ConfigFile) -> list[str]:
    """The profile names, in file order."""
    return list(config.profiles)


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


def _serialise(config: ConfigFile) -> bytes:
    try:
        data = (_HEADER + tomli_w.dumps(msgspec.to_builtins(config, enc_hook=_enc_hook))).encode()
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


# -- Local files -------------------------------------------------------------------------


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never half.

    Writes a temp file in the same folder, fsyncs it, sets ``mode`` (whatever the umask),
    renames it over the target and fsyncs the folder. A symlink keeps pointing where it did:
    its target is replaced. A missing folder is created as 0700. On failure the temp file is
    removed, the old file is untouched and the ``OSError`` propagates.
    """
    target = Path(os.path.realpath(path))
    _make_folder(target.parent)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(target.parent)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` (on ``.NAME.lock`` beside it) while in the block.

    Works between processes and between threads, each taking it through its own call.
    Not re-entrant: do not take it again inside the block. Raises ``OSError``.
    """
    _make_folder(path.parent)
    handle = os.open(path.parent / f".{path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        return  # someone else's folder: permission_warnings reports a loose mode
    os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask


def _fsync_folder(folder: Path) -> None:
    # Makes the rename durable. The new file is already in place, so a filesystem that
    # cannot fsync a folder is not a reason to report the save as failed.
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


# -- Choosing a profile ------------------------------------------------------------------

_CLI: Final = "command line"
_ENV: Final = "environment"
_FILE: Final = "config file"


@dataclass(frozen=True, slots=True)
class Overrides:
    """Settings given on the command line; ``None`` means not given."""

    profile: str | None = None
    base_url: str | None = None
    auth_url: str | None = None
    console_url: str | None = None
    read_only: bool | None = None


@dataclass(frozen=True, slots=True)
class ResolvedProfile:
    """The settings the app runs with, after flags, environment and file are merged."""

    name: str
    base_url: str
    auth_url: str
    console_url: str
    api_key: Secret
    api_secret: Secret
    read_only: bool
    label: str | None
    source: str
    """Where the settings came from, for display: e.g. ``"environment + config file"``."""

    def connection(self) -> Connection:
        """The :class:`Connection` the API client takes."""
        return Connection(
            base_url=self.base_url,
            auth_url=self.auth_url,
            console_url=self.console_url,
            api_key=self.api_key,
            api_secret=self.api_secret,
            profile=self.name,
        )


def resolve_profile(
    config: ConfigFile, *, cli: Overrides, env: Mapping[str, str]
) -> ResolvedProfile:
    """Choose a profile and fill in each setting from flags, then environment, then file.

    The name is ``cli.profile``, else ``TOKENSALES_PROFILE``, else ``default_profile``, else
    the only profile, else ``"default"``. The profile need not exist in the file when the
    environment or flags give ``base_url`` (so the app runs from the environment alone).
    ``auth_url`` and ``console_url`` default to the chosen ``base_url``; ``api_key`` is required.

    Raises :class:`NoConfiguration` when nothing is configured anywhere, and
    :class:`ConfigError` for a missing profile (listing the existing ones) or a bad value.
    """
    names = profile_names(config)
    chosen = cli.profile or env.get(ENV_PROFILE) or config.default_profile
    name = chosen or (names[0] if len(names) == 1 else "default")
    stored = config.profiles.get(name)
    used: set[str] = set()

    def pick(field: str, variable: str, flag: str | None = None) -> tuple[str, str] | None:
        # The first value given for ``field``, and the name to call it by in messages.
        stored_value = getattr(stored, field, None)
        if isinstance(stored_value, Secret):
            stored_value = stored_value.reveal()
        for value, label, source in (
            (flag, "--" + field.replace("_", "-"), _CLI),
            (env.get(variable), variable, _ENV),
            (stored_value, f"{_title(name)} {field}", _FILE),
        ):
            if value:
                used.add(source)
                return value, label
        return None

    base = pick("base_url", ENV_BASE_URL, cli.base_url)
    if base is None:  # so the file has no profile of that name either
        if not names:
            raise NoConfiguration(
                f"nothing is configured: add a profile, or set {ENV_BASE_URL} and {ENV_API_KEY}"
            )
        if chosen:
            raise ConfigError(f"there is no profile {json.dumps(name)}; {_existing(names)}")
        raise ConfigError(
            "there are several profiles and none is chosen: set default_profile in the config"
            f" file, pass --profile or set {ENV_PROFILE}; {_existing(names)}"
        )
    insecure_ok = stored.allow_insecure_http if stored else False
    base_url = validate_url(base[0], field=base[1], allow_insecure_http=insecure_ok)
    urls = {}
    for field, variable, flag in (
        ("auth_url", ENV_AUTH_URL, cli.auth_url),
        ("console_url", ENV_CONSOLE_URL, cli.console_url),
    ):
        found = pick(field, variable, flag)
        urls[field] = (
            validate_url(found[0], field=found[1], allow_insecure_http=insecure_ok)
            if found
            else base_url
        )
    api_key = pick("api_key", ENV_API_KEY)
    if api_key is None:
        raise ConfigError(
            f"profile {json.dumps(name)} has no API key: add api_key to {_title(name)}"
            f" or set {ENV_API_KEY}"
        )
    api_secret = pick("api_secret", ENV_API_SECRET)
    if cli.read_only is not None:
        used.add(_CLI)
        read_only = cli.read_only
    else:
        read_only = stored.read_only if stored else False
    return ResolvedProfile(
        name=name,
        base_url=base_url,
        auth_url=urls["auth_url"],
        console_url=urls["console_url"],
        api_key=Secret(api_key[0]),
        api_secret=Secret(api_secret[0] if api_secret else ""),
        read_only=read_only,
        label=stored.label if stored else None,
        source=" + ".join(source for source in (_CLI, _ENV, _FILE) if source in used),
    )
