"""Reading the config file: TOML parsing and validation, with errors that name a line and column.

:func:`load_config` returns an empty :class:`~.schema.ConfigFile` when the file is missing
and raises :class:`~.schema.ConfigError` (with path, line and column where known) when it
is not valid. :func:`permission_warnings` says separately whether the file or its folder
is open to others.
"""

from __future__ import annotations

import codecs
import difflib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ..clean import clean_line
from ..files import Stalled, answered, read_local_file
from .schema import (
    BOOL_FIELDS,
    INT_FIELDS,
    MAX_BODY_MB,
    MAX_WATCH_INTERVAL,
    MIN_WATCH_INTERVAL,
    SECRET_FIELDS,
    URL_FIELDS,
    ConfigError,
    ConfigFile,
    ConfigUnanswered,
    Profile,
    TopLevel,
    config_path,
    dec_hook,
    validate_proxy,
    validate_url,
)

if TYPE_CHECKING:
    import tomllib

__all__ = [
    "MAX_CONFIG_BYTES",
    "load_config",
    "parse_config",
    "permission_warnings",
    "toml_table",
]

MAX_CONFIG_BYTES: Final = 1024 * 1024
"""Largest config file read; a bigger one is refused with a message, not read."""


def load_config(
    path: Path | None = None, *, loose: Callable[[str], None] | None = None
) -> ConfigFile:
    """Read and validate the config file; a missing file gives an empty :class:`ConfigFile`.

    ``loose``: told each of :func:`permission_warnings` once the file is read, when it
    holds an ``api_secret``. Every entry point passes its way of saying them (a command,
    stderr): a file others may read was said by the app and ``serve`` only.

    Every entry point reads the file through here (the apps off their event loop, through
    ``ui.file_settings.read_config_within``): a FIFO, a device or a folder is refused at
    once, and a file system that leaves a step of the read unanswered for
    :data:`~..files.FILE_WAIT` is :class:`ConfigUnanswered`, never waited on for good.
    """
    target = path or config_path()
    try:
        data = read_local_file(target, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return ConfigFile()
    except Stalled as exc:
        raise ConfigUnanswered(f"cannot read the file: {exc}", path=target) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror or exc}", path=target) from None
    loaded = parse_config(data, path=target)
    if loose is not None and any(p.api_secret is not None for p in loaded.profiles.values()):
        for warning in permission_warnings(target):
            loose(warning)
    return loaded


def parse_config(data: bytes, *, path: Path | None = None) -> ConfigFile:
    """Parse and validate the bytes of a config file; ``path`` is only used in errors."""
    text = _decode(data, path)
    return _Validator(text, path).config(toml_table(text, path=path))


def toml_table(text: str, *, path: Path | None = None) -> dict[str, Any]:
    """The table a config file's ``text`` holds: the one place its text becomes data.

    Every failure of the parser is a :class:`ConfigError` naming ``path`` and, where it
    can be told, the line and column: not only a TOML mistake, but a value nested too
    deeply for it (``x = [[[…]]]`` some 500 deep ran out of Python's stack), a number
    too long for Python to convert (over 4,300 digits), memory running out. Each of
    those ended every entry point with a traceback.
    """
    import tomllib  # here: the app's first frame needs no config file read

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(exc, text, path) from None
    except RecursionError:
        depth, line, column = _deepest(text)
        raise ConfigError(
            f"a value nests lists or tables {depth} deep, too deep for the TOML reader;"
            " nest them less",
            path=path,
            line=line,
            column=column,
        ) from None
    except MemoryError:
        raise ConfigError("cannot read the file: out of memory", path=path) from None
    except Exception as exc:  # a failure of the parser on this text, whatever it is
        said = clean_line(str(exc).split(";", 1)[0])[:200] or type(exc).__name__
        raise ConfigError(f"not valid TOML: {said}", path=path) from None


def permission_warnings(path: Path | None = None) -> list[str]:
    """Warnings, one line each, when the config file or its folder is open to other users.

    The next save writes the file as 0600; the folder is only changed when the app created it.
    A file system that does not answer within :data:`~..files.FILE_WAIT` (a hung mount)
    gives none: reading the file says so.
    """
    target = path or config_path()
    try:
        modes = answered(lambda: _modes(target))
    except Stalled:
        return []
    return [
        f"{item} can be accessed by other users (mode {mode:04o}) and holds API"
        f" secrets; run: chmod {fix} {item}"
        for item, fix, mode in modes
        if mode & 0o077
    ]


def _modes(target: Path) -> list[tuple[Path, str, int]]:
    """The config file and its folder, each with the ``chmod`` that mends it and its mode."""
    found = []
    for item, fix in ((target, "600"), (Path(os.path.realpath(target)).parent, "700")):
        try:
            found.append((item, fix, item.stat().st_mode & 0o777))
        except OSError:
            continue
    return found


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


_TOML_TOKEN: Final = re.compile(
    "|".join(
        (
            r"#[^\n]*",  # a comment
            r'"""(?:[^\\]|\\.)*?"""',  # a multi-line basic string
            r"'''.*?'''",  # a multi-line literal string
            r'"(?:[^"\\\n]|\\.)*"',  # a basic string
            r"'[^'\n]*'",  # a literal string
            r"[\[{\]}]",  # what nests
        )
    ),
    re.DOTALL,
)


def _deepest(text: str) -> tuple[int, int | None, int | None]:
    """How deep ``text`` nests its brackets and braces at most, and the line and column
    where it first gets that deep (strings and comments skipped; best effort, for a
    message only)."""
    depth = deepest = 0
    at: int | None = None
    for token in _TOML_TOKEN.finditer(text):
        if token[0] in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, token.start()
        elif token[0] in "]}":
            depth = max(depth - 1, 0)
    if at is None:
        return deepest, None, None
    line_start = text.rfind("\n", 0, at) + 1
    return deepest, text.count("\n", 0, at) + 1, at - line_start + 1


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
            top = msgspec.convert(raw, TopLevel)
        except msgspec.ValidationError as exc:
            raise self._translate(exc, raw, ()) from None
        profiles = {name: self.profile(name, table) for name, table in top.profiles.items()}
        default = top.default_profile
        if default is not None and default not in profiles:
            raise self.error(
                f"default_profile {json.dumps(default)} is not a profile in this file;"
                f" {existing_profiles(list(profiles))}",
                (),
                "default_profile",
            )
        if not MIN_WATCH_INTERVAL <= top.watch_interval <= MAX_WATCH_INTERVAL:  # NaN too
            raise self.error(
                f"watch_interval must be from {MIN_WATCH_INTERVAL:g} s to a day"
                f" ({MAX_WATCH_INTERVAL:g} s), not {_show(raw.get('watch_interval'))}",
                (),
                "watch_interval",
            )
        return ConfigFile(
            default_profile=default,
            profiles=profiles,
            keymap=top.keymap,
            watch_interval=top.watch_interval,
            theme=top.theme,
        )

    def profile(self, name: str, raw: object) -> Profile:
        table = ("profiles", name)
        if not name:
            raise self.error("profile names must not be empty", table)
        if not isinstance(raw, dict):
            raise self.error(
                f"{table_title(name)} must be a table of settings", ("profiles",), name
            )
        try:
            profile = msgspec.convert(raw, Profile, dec_hook=dec_hook)
        except msgspec.ValidationError as exc:
            raise self._translate(exc, raw, table) from None
        # The proxy first: each address is judged by the proxy it goes through, and a
        # proxy that is no address (``proxy = ""``) was blamed on base_url as a proxy on
        # another machine.
        if profile.proxy is not None:
            try:
                validate_proxy(profile.proxy, field=f"{table_title(name)} proxy")
            except ConfigError as exc:
                raise self.error(exc.message, table, "proxy") from None
        urls = {}
        for field in URL_FIELDS:
            value = getattr(profile, field)
            if value is None:
                continue
            try:
                urls[field] = validate_url(
                    value,
                    field=f"{table_title(name)} {field}",
                    allow_insecure_http=profile.allow_insecure_http,
                    proxy=profile.proxy,
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
        struct = Profile if table else TopLevel
        fields = list(struct.__struct_fields__)
        where = f"in {table_title(table[1])}" if table else "at the top level"
        prefix = f"{table_title(table[1])} " if table else ""
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
            example = f', e.g. {field} = "https://api.example.com"' if field in URL_FIELDS else ""
            return self.error(f"{prefix}needs {field}{example}", table)
        match = re.search(r" - at `\$\.([A-Za-z_]+)(\[\.\.\.\])?", text)
        key = match[1] if match else None
        if key is None:  # not expected; keep msgspec's words, which hold no values here
            return self.error(f"{prefix}{text}", table)
        inner = raw.get(key)
        if match and match[2] and isinstance(inner, dict):
            # A value inside a table of text (the keymap), which msgspec does not name.
            for name, value in inner.items():
                if not isinstance(value, str):
                    return self.error(
                        f"{prefix}{key}.{name} must be text in quotes, not {_show(value)}",
                        (*table, key),
                        name,
                    )
        if key == "profiles":
            return self.error("profiles must be a set of [profiles.NAME] tables", table, key)
        expected = (
            "true or false"
            if key in BOOL_FIELDS
            else f"a whole number from 1 to {MAX_BODY_MB}"
            if key in INT_FIELDS
            else "a number of seconds"
            if key == "watch_interval"
            else "text in quotes"
        )
        if key in SECRET_FIELDS:
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


def table_title(name: str) -> str:
    """``[profiles.NAME]``, quoting the name as TOML would need it."""
    return f"[profiles.{name if _BARE_KEY.fullmatch(name) else json.dumps(name)}]"


def existing_profiles(names: list[str]) -> str:
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
