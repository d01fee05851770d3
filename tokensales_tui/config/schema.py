"""What the config file holds: its profiles and keymap, where it lives, and what a valid URL is.

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
    mask = true                                # optional: start in mask mode
    allow_insecure_http = false                # optional: permit http:// to other hosts
    proxy = "http://proxy.internal:3128"       # optional; HTTP_PROXY & co. are never used
    max_body_mb = 1024                         # optional: largest answer accepted, in MB

    watch_interval = 5                         # optional: seconds between reloads (w)
    theme = "nord"                             # optional: saved when chosen in the app

    [keymap]
    refresh = "f5"                             # binding id = keys

No secret is ever put into a message, a repr or a log line by this package.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import urlunsplit

import msgspec
import platformdirs

from ..api.secret import Secret
from ..clean import clean_line, cut_long_words, quoted
from ..local import is_loopback_host, without_root_dot
from ..web_urls import UnclearAddress, split_web_url, web_host

APP_NAME: Final = "tokensales-tui"

ENV_PROFILE: Final = "TOKENSALES_PROFILE"
ENV_BASE_URL: Final = "TOKENSALES_BASE_URL"
ENV_AUTH_URL: Final = "TOKENSALES_AUTH_URL"
ENV_CONSOLE_URL: Final = "TOKENSALES_CONSOLE_URL"
ENV_API_KEY: Final = "TOKENSALES_API_KEY"
ENV_API_SECRET: Final = "TOKENSALES_API_SECRET"


def config_path() -> Path:
    """The config file's path; honours ``XDG_CONFIG_HOME``."""
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def data_dir() -> Path:
    """The folder for local records (such as payout definitions); honours ``XDG_DATA_HOME``."""
    return platformdirs.user_data_path(APP_NAME)


def own_folders(config_file: Path | None = None) -> tuple[Path, ...]:
    """The folders of the app's own files: the config file's (``config_file``, else
    :func:`config_path`), the records' (:func:`data_dir`) and the locks' (the cache)."""
    return (
        (config_file or config_path()).parent,
        data_dir(),
        platformdirs.user_cache_path(APP_NAME),
    )


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


MAX_BODY_MB: Final = 65536
"""The highest ``max_body_mb`` a profile may set (64 GB)."""


class ConfigUnanswered(ConfigError):
    """The file's system did not answer in time (a network home gone away, a hung mount):
    nothing is known of the file, so nothing should be written over it either."""


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
    mask: bool = False
    """Start in mask mode: addresses, e-mails, account ids and keys partly hidden."""
    allow_insecure_http: bool = False
    proxy: str | None = None
    """The proxy requests go through; without it none is, whatever the environment says."""
    max_body_mb: Annotated[int, msgspec.Meta(ge=1, le=MAX_BODY_MB)] | None = None
    """The largest decoded answer accepted, in MB (default 1024)."""

    @property
    def max_body(self) -> int:
        """:attr:`max_body_mb` in bytes, or the client's default."""
        from ..api.connection import DEFAULT_MAX_BODY

        return DEFAULT_MAX_BODY if self.max_body_mb is None else self.max_body_mb * 1024 * 1024


class ConfigFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """The whole file: the profiles and which one is used by default."""

    default_profile: str | None = None
    profiles: dict[str, Profile] = msgspec.field(default_factory=dict)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    """Key bindings to change: binding id → keys, e.g. ``refresh = "f5"`` (Textual keymap)."""
    watch_interval: float = 5.0
    """Seconds from the end of one load to the next while a tab is watched (``w``)."""
    theme: str | None = None
    """The colour theme last chosen in the app (its palette's "Change theme")."""


class TopLevel(msgspec.Struct, forbid_unknown_fields=True):
    # The file's top level, with each profile left raw so its errors can name the profile.
    default_profile: str | None = None
    profiles: dict[str, Any] = msgspec.field(default_factory=dict)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    watch_interval: float = 5.0
    theme: str | None = None


MIN_WATCH_INTERVAL: Final = 1.0
"""The shortest ``watch_interval`` accepted, in seconds."""
MAX_WATCH_INTERVAL: Final = 86400.0
"""The longest ``watch_interval`` accepted, in seconds (a day): ``1e400`` read as infinity."""

SECRET_FIELDS: Final = frozenset({"api_key", "api_secret"})
BOOL_FIELDS: Final = frozenset({"read_only", "mask", "allow_insecure_http"})
URL_FIELDS: Final = ("base_url", "auth_url", "console_url")
INT_FIELDS: Final = frozenset({"max_body_mb"})


def dec_hook(kind: type, value: object) -> object:
    if kind is Secret:
        if isinstance(value, str):
            return Secret(value)
        raise TypeError("not text")  # never the value: it may be a secret
    raise NotImplementedError(kind)


def enc_hook(value: object) -> object:
    if isinstance(value, Secret):
        return value.reveal()
    raise TypeError(f"a {type(value).__name__} cannot be stored in the config file")


# -- URLs --------------------------------------------------------------------------------


def validate_url(
    value: str, *, field: str, allow_insecure_http: bool, proxy: str | None = None
) -> str:
    """Check that ``value`` is an http(s) URL with a host; return it without trailing slashes.

    ``field`` names the setting in messages (``[profiles.prod] base_url``, ``--base-url``).
    Plain ``http://`` is refused unless the host is this machine, and the requests do not
    go through ``proxy`` on another machine (None or ``""``: no proxy, as the client
    reads it), or ``allow_insecure_http``. A value holding
    ``@`` is never repeated in a message: the part before it may be a password.
    """
    shown = quoted(value) if "@" not in value else "(not repeated: it holds an @)"
    if any(char.isspace() for char in value):
        raise ConfigError(f"{field} {shown} must not contain spaces")
    try:
        parts = split_web_url(value)
    except UnclearAddress as error:  # a \, a host a browser reads otherwise …
        if error.unmatched_bracket:  # IPv6 written halfway
            raise ConfigError(
                f"{field} {shown} is not a valid address (an unmatched [ or ])"
            ) from None
        raise ConfigError(f"{field} {shown}: {error}") from None
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"{field} must not contain a user name or password; use api_key and api_secret"
        )
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        example = value.split("://", 1)[-1].lstrip("/") if "@" not in value else ""
        example = clean_line(cut_long_words(example))
        raise ConfigError(
            f"{field} {shown} needs a scheme and host, e.g. https://{example or 'api.example.com'}"
        )
    if "?" in value or "#" in value:
        # Each request's path is added to the address: "…/#" sent every request to "/".
        raise ConfigError(f"{field} {shown} must not hold a query (?…) or a fragment (#…)")
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        raise ConfigError(f"{field} {shown} has an invalid port") from None
    if parts.scheme.lower() == "http" and not allow_insecure_http:
        if not is_loopback_host(parts.hostname):
            raise ConfigError(
                f"{field} {shown} uses plain http:// to another machine, which would send"
                " the API secret unencrypted; use https://, or set allow_insecure_http = true"
                " in the profile"
            )
        if proxy and not is_loopback_host(_host_or_none(proxy)):
            raise ConfigError(
                f"{field} {shown} uses plain http:// through the profile's proxy on another"
                " machine, which would send the API secret to it unencrypted; use https://,"
                " or set allow_insecure_http = true in the profile"
            )
    if parts.hostname != without_root_dot(parts.hostname) and is_loopback_host(parts.hostname):
        # This machine, named with the dot of a fully qualified name: requests go to the
        # name judged, never to a look-up of the dotted one.
        value = urlunsplit(parts._replace(netloc=re.sub(r"\.(?=(:\d*)?$)", "", parts.netloc)))
    return value.rstrip("/")


def _host_or_none(url: str) -> str:
    try:
        return web_host(url)
    except UnclearAddress:
        return ""  # validate_proxy says why


def validate_proxy(value: str, *, field: str) -> str:
    """Check that ``value`` is an http(s) proxy URL with a host; return it.

    The value is not echoed: a proxy URL may hold a password.
    """
    if any(char.isspace() for char in value) or not value.isprintable():
        raise ConfigError(f"{field} must not contain spaces or control characters")
    try:
        parts = split_web_url(value)
    except UnclearAddress as error:  # a \, a host a browser reads otherwise …
        if error.unmatched_bracket:
            raise ConfigError(f"{field} is not a valid address (an unmatched [ or ])") from None
        raise ConfigError(f"{field}: {error}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{field} needs an http:// or https:// address with a host")
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        raise ConfigError(f"{field} has an invalid port") from None
    return value


def profile_names(config: ConfigFile) -> list[str]:
    """The profile names, in file order."""
    return list(config.profiles)
