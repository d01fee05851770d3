"""Choosing a profile: command-line flags, then ``TOKENSALES_*`` variables, then the file.

:func:`resolve_profile` raises :class:`~.schema.NoConfiguration` when nothing is
configured at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..api.connection import DEFAULT_MAX_BODY, Connection
from ..api.secret import Secret
from .load import existing_profiles, table_title
from .schema import (
    ENV_API_KEY,
    ENV_API_SECRET,
    ENV_AUTH_URL,
    ENV_BASE_URL,
    ENV_CONSOLE_URL,
    ENV_PROFILE,
    ConfigError,
    ConfigFile,
    NoConfiguration,
    profile_names,
    validate_url,
)

__all__ = ["Overrides", "ResolvedProfile", "resolve_profile"]


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
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Where each setting came from: a flag (``--base-url``), a variable
    (``TOKENSALES_BASE_URL``), the file (``[profiles.x] base_url``) or a default."""
    proxy: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    mask: bool = False
    """Start in mask mode (the profile's ``mask``)."""

    in_file: bool = False
    """Whether the profile is one of the config file's."""

    @property
    def overridden(self) -> tuple[str, ...]:
        """The variables and flags that set connection settings of a profile of the file."""
        if not self.in_file:
            return ()  # the environment or the flags are all there is
        given = [
            self.sources.get(setting, "")
            for setting in ("base_url", "auth_url", "console_url", "api_key", "api_secret")
        ]
        return tuple(dict.fromkeys(s for s in given if s.startswith(("TOKENSALES_", "--"))))

    def connection(self) -> Connection:
        """The :class:`Connection` the API client takes."""
        return Connection(
            base_url=self.base_url,
            auth_url=self.auth_url,
            console_url=self.console_url,
            api_key=self.api_key,
            api_secret=self.api_secret,
            profile=self.name,
            proxy=self.proxy,
            max_body=self.max_body,
            credentials_from=self._credentials_from(),
        )

    def _credentials_from(self) -> tuple[str, ...]:
        """Where the key and the secret came from, when a variable or a flag gave one."""
        given = (self.sources.get("api_key", ""), self.sources.get("api_secret", ""))
        if not any(source.startswith(("TOKENSALES_", "--")) for source in given):
            return ()
        return tuple(dict.fromkeys(source for source in given if source))


def resolve_profile(
    config: ConfigFile, *, cli: Overrides, env: Mapping[str, str]
) -> ResolvedProfile:
    """Choose a profile and fill in each setting from flags, then environment, then file.

    The name is ``cli.profile``, else ``TOKENSALES_PROFILE``, else ``default_profile``, else
    the only profile, else ``"default"``. The profile need not exist in the file when the
    environment or flags give ``base_url`` (so the app runs from the environment alone).
    ``auth_url`` and ``console_url`` default to the chosen ``base_url``; ``api_key`` is required.

    Raises :class:`NoConfiguration` when nothing is configured anywhere, and
    :class:`ConfigError` for a missing profile (listing the existing ones), an empty
    ``--profile`` or a bad value.
    """
    if cli.profile == "":  # a variable left empty (--profile "$P"): not "the default"
        raise ConfigError("--profile is empty: give a profile's name, or leave --profile out")
    names = profile_names(config)
    chosen = cli.profile or env.get(ENV_PROFILE) or config.default_profile
    name = chosen or (names[0] if len(names) == 1 else "default")
    sources = {"profile": _profile_source(cli, env, config, chosen, names)}
    stored = config.profiles.get(name)

    def pick(field: str, variable: str, flag: str | None = None) -> tuple[str, str] | None:
        # The first value given for ``field``, and the name to call it by in messages.
        stored_value = getattr(stored, field, None)
        if isinstance(stored_value, Secret):
            stored_value = stored_value.reveal()
        for value, label in (
            (flag, "--" + field.replace("_", "-")),
            (env.get(variable), variable),
            (stored_value, f"{table_title(name)} {field}"),
        ):
            if value:
                return value, label
        return None

    base = pick("base_url", ENV_BASE_URL, cli.base_url)
    if base is None:  # so the file has no profile of that name either
        given = [
            v for v in (ENV_API_KEY, ENV_API_SECRET, ENV_AUTH_URL, ENV_CONSOLE_URL) if env.get(v)
        ]
        if not names and given:
            raise ConfigError(
                f"{ENV_BASE_URL} is not set: {' and '.join(given)} {'is' if len(given) == 1 else 'are'},"
                " and the service's address is needed too (or pass --base-url)"
            )
        if not names:
            raise NoConfiguration(
                f"nothing is configured: add a profile, or set {ENV_BASE_URL} and {ENV_API_KEY}"
            )
        if chosen:
            raise ConfigError(f"there is no profile {json.dumps(name)}; {existing_profiles(names)}")
        raise ConfigError(
            "there are several profiles and none is chosen: set default_profile in the config"
            f" file, pass --profile or set {ENV_PROFILE}; {existing_profiles(names)}"
        )
    insecure_ok = stored.allow_insecure_http if stored else False
    proxy = stored.proxy if stored else None
    base_url = validate_url(base[0], field=base[1], allow_insecure_http=insecure_ok, proxy=proxy)
    sources["base_url"] = base[1]
    urls = {}
    for setting, variable, flag in (
        ("auth_url", ENV_AUTH_URL, cli.auth_url),
        ("console_url", ENV_CONSOLE_URL, cli.console_url),
    ):
        found = pick(setting, variable, flag)
        urls[setting] = (
            validate_url(found[0], field=found[1], allow_insecure_http=insecure_ok, proxy=proxy)
            if found
            else base_url
        )
        sources[setting] = found[1] if found else "base_url"
    api_key = pick("api_key", ENV_API_KEY)
    if api_key is None and stored is None:
        raise ConfigError(
            f"{ENV_API_KEY} is not set: {base[1]} gives the service's address, and the API key"
            " is needed too"
        )
    if api_key is None:
        raise ConfigError(
            f"profile {json.dumps(name)} has no API key: add api_key to {table_title(name)}"
            f" or set {ENV_API_KEY}"
        )
    api_secret = pick("api_secret", ENV_API_SECRET)
    sources["api_key"] = api_key[1]
    sources["api_secret"] = api_secret[1] if api_secret else "not set"
    if cli.read_only is not None:
        read_only = cli.read_only
        sources["read_only"] = "--read-only"
    else:
        # ``read_only = false`` written out is the default, which is what the file holds
        # for a profile without the key (and what the app saves it as: nothing).
        read_only = stored.read_only if stored else False
        sources["read_only"] = f"{table_title(name)} read_only" if read_only else "default"
    return ResolvedProfile(
        name=name,
        base_url=base_url,
        auth_url=urls["auth_url"],
        console_url=urls["console_url"],
        api_key=Secret(api_key[0]),
        api_secret=Secret(api_secret[0] if api_secret else ""),
        read_only=read_only,
        label=stored.label if stored else None,
        mask=stored.mask if stored else False,
        sources=sources,
        proxy=proxy,
        in_file=stored is not None,
        max_body=stored.max_body if stored else DEFAULT_MAX_BODY,
    )


def _profile_source(
    cli: Overrides, env: Mapping[str, str], config: ConfigFile, chosen: str | None, names: list[str]
) -> str:
    """Where the profile's name came from."""
    if cli.profile:
        return "--profile"
    if env.get(ENV_PROFILE):
        return ENV_PROFILE
    if config.default_profile:
        return "default_profile"
    return "the only profile" if chosen is None and len(names) == 1 else "default"
