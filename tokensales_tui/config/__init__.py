"""The config file, its profiles, and how one profile is chosen and completed.

- :mod:`.schema`: what the file holds, where it lives, what a valid URL is;
- :mod:`.load`: reading it, with errors that name the line and column;
- :mod:`.resolve`: choosing a profile from flags, environment and file;
- :mod:`.store`: writing it atomically, as mode 0600, under a lock.

The names most callers need are here: ``from tokensales_tui import config`` then
``config.load_config()``, ``config.resolve_profile(...)`` and so on.
"""

from .load import MAX_CONFIG_BYTES, load_config, parse_config, permission_warnings
from .resolve import Overrides, ResolvedProfile, resolve_profile
from .schema import (
    APP_NAME,
    ConfigError,
    ConfigFile,
    ConfigUnanswered,
    NoConfiguration,
    Profile,
    config_path,
    data_dir,
    own_folders,
    profile_names,
    validate_url,
)
from .store import (
    MISSING,
    ConfigChange,
    ConfigConflict,
    Conflict,
    OwnWrites,
    Saved,
    add_profile,
    edit_profile,
    kept_note,
    save_config,
    update_config,
)

__all__ = [
    "APP_NAME",
    "MAX_CONFIG_BYTES",
    "MISSING",
    "ConfigChange",
    "ConfigConflict",
    "ConfigError",
    "ConfigFile",
    "ConfigUnanswered",
    "Conflict",
    "NoConfiguration",
    "Overrides",
    "OwnWrites",
    "Profile",
    "ResolvedProfile",
    "Saved",
    "add_profile",
    "config_path",
    "data_dir",
    "edit_profile",
    "kept_note",
    "load_config",
    "own_folders",
    "parse_config",
    "permission_warnings",
    "profile_names",
    "resolve_profile",
    "save_config",
    "update_config",
    "validate_url",
]
