"""The config file: reading, atomic saving, locking and choosing a profile."""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import platformdirs
import pytest
import tomli_w

from tokensales_tui import config as cfg
from tokensales_tui.api.secret import Secret
from tokensales_tui.config import (
    ConfigError,
    ConfigFile,
    NoConfiguration,
    Overrides,
    Profile,
    add_profile,
    load_config,
    resolve_profile,
    save_config,
    store,
    update_config,
    validate_url,
)
from tokensales_tui.files import atomic_write, lock_path, locked

KEY = "key-5f1e2d9c"
SECRET = "secret-8a7b6c5d"
VALID = b'default_profile = "prod"\n\n[profiles.prod]\nbase_url = "https://api.example.com"\n'


def update(
    mutate: Callable[[ConfigFile], None], path: Path, base: ConfigFile | None = None
) -> cfg.Saved:
    """``mutate`` made from ``base`` (default: the file as it is, or nothing) and saved."""
    if base is None:
        base = load_config(path) if path.exists() else ConfigFile()
    return update_config(cfg.ConfigChange.of(base, mutate), path)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def full() -> ConfigFile:
    return ConfigFile(
        default_profile="prod",
        profiles={
            "prod": Profile(
                base_url="https://api.example.com",
                auth_url="https://auth.example.com",
                console_url="https://console.example.com",
                api_key=Secret(KEY),
                api_secret=Secret(SECRET),
                read_only=True,
                label="PRODUCTION",
            ),
            "local": Profile(base_url="http://127.0.0.1:8000", api_key=Secret("k")),
        },
    )


# -- Paths and round trip ----------------------------------------------------------------


def test_paths_honour_xdg(isolated_home: Path) -> None:
    assert cfg.config_path() == isolated_home / ".config/tokensales-tui/config.toml"
    assert cfg.data_dir() == isolated_home / ".local/share/tokensales-tui"


def test_missing_file_is_empty_config() -> None:
    assert load_config() == ConfigFile()


def test_round_trip_keeps_secrets_and_masks_them(full: ConfigFile) -> None:
    save_config(full)

    loaded = load_config()

    assert loaded == full
    prod = loaded.profiles["prod"]
    assert prod.api_key is not None and prod.api_key.reveal() == KEY
    assert prod.api_secret is not None and prod.api_secret.reveal() == SECRET
    for text in (repr(loaded), str(loaded), repr(prod), str(prod)):
        assert KEY not in text and SECRET not in text
    assert b"read_only = false" not in cfg.config_path().read_bytes()  # defaults are omitted


def test_trailing_slashes_are_stripped_on_load(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.p]\nbase_url = "https://api.example.com//"\n')

    assert load_config(path).profiles["p"].base_url == "https://api.example.com"


# -- Modes, symlinks, atomicity ----------------------------------------------------------


@pytest.mark.usefixtures("umask_022")
def test_new_file_is_0600_in_a_0700_folder(full: ConfigFile) -> None:
    save_config(full)

    path = cfg.config_path()
    assert mode_of(path) == 0o600
    assert mode_of(path.parent) == 0o700
    assert cfg.permission_warnings() == []


@pytest.mark.usefixtures("umask_022")
def test_loose_file_is_warned_and_fixed_on_save(tmp_path: Path, full: ConfigFile) -> None:
    folder = tmp_path / "conf"
    folder.mkdir(mode=0o700)
    path = folder / "config.toml"
    path.write_bytes(VALID)
    path.chmod(0o644)

    warnings = cfg.permission_warnings(path)
    assert len(warnings) == 1 and str(path) in warnings[0] and "0644" in warnings[0]

    save_config(full, path)

    assert mode_of(path) == 0o600
    assert cfg.permission_warnings(path) == []


@pytest.mark.usefixtures("umask_022")
def test_existing_loose_folder_is_left_but_warned(tmp_path: Path, full: ConfigFile) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)

    save_config(full, folder / "config.toml")

    assert mode_of(folder) == 0o755
    assert any(
        str(folder) in warning for warning in cfg.permission_warnings(folder / "config.toml")
    )


def test_symlinked_config_keeps_its_link(tmp_path: Path, full: ConfigFile) -> None:
    real = tmp_path / "dotfiles" / "tokensales.toml"
    real.parent.mkdir()
    real.write_bytes(VALID)
    link = tmp_path / "config.toml"
    link.symlink_to(real)

    save_config(full, link)

    assert link.is_symlink() and link.resolve() == real
    assert load_config(real) == full
    assert mode_of(real) == 0o600
    assert leftovers(real.parent) == [] and leftovers(tmp_path) == []


@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_failed_save_keeps_old_bytes_and_no_temp_file(
    tmp_path: Path, full: ConfigFile, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(VALID)

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)

    with pytest.raises(ConfigError) as caught:
        save_config(full, path)

    assert caught.value.message == f"not saved: {path}: No space left on device"
    assert path.read_bytes() == VALID
    assert leftovers(tmp_path) == []


def test_serialisation_failure_touches_nothing(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = ConfigFile(profiles={"p": Profile(base_url="https://a.example", label=object())})  # type: ignore[arg-type]

    with pytest.raises(ConfigError, match=r"^not saved: "):
        save_config(bad)
    assert not (isolated_home / ".config").exists()

    path = isolated_home / "config.toml"
    path.write_bytes(VALID)

    def broken(obj: object) -> str:
        raise TypeError("Object of type X is not TOML serializable")

    monkeypatch.setattr(tomli_w, "dumps", broken)
    with pytest.raises(ConfigError, match=r"^not saved: "):
        save_config(ConfigFile(), path)
    assert path.read_bytes() == VALID
    assert sorted(os.listdir(isolated_home)) == ["config.toml"]


def test_save_refuses_a_config_that_would_not_load(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    bad = ConfigFile(profiles={"p": Profile(base_url="example.com")})

    with pytest.raises(ConfigError, match=r"^not saved: \[profiles.p\] base_url"):
        save_config(bad, path)
    assert not path.exists()


def test_atomic_write_sets_mode_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        atomic_write(tmp_path / "records" / "payouts.json", b"[]", mode=0o640)
    finally:
        os.umask(old)

    assert (tmp_path / "records" / "payouts.json").read_bytes() == b"[]"
    assert mode_of(tmp_path / "records" / "payouts.json") == 0o640
    assert mode_of(tmp_path / "records") == 0o700


# -- Corrupt files -----------------------------------------------------------------------

CORRUPT = [
    pytest.param(
        b'[profiles.prod]\nbase_url = "https://api.example.com\n',
        (2, 36),
        "not valid TOML: Illegal character",
        id="unterminated-string",
    ),
    pytest.param(
        b'[profiles.prod]\nbase_url = "https://a.example"\nbase_url = "https://b.example"\n',
        (3, 31),
        "defined twice",
        id="duplicate-key",
    ),
    pytest.param(b"\xef\xbb\xbf" + VALID, (1, 1), "byte order mark", id="bom"),
    pytest.param(
        b'[profiles.prod]\nbase_url = "https://a.example"\nlabel = "PR\xc3\xa9\xffD"\n',
        (3, 13),
        "byte 0xff is not valid UTF-8",
        id="invalid-utf8",
    ),
    pytest.param(
        b'[profiles.prod]\nbase_url = "https://a.example"\n  read_only = "yes"\n',
        (3, 3),
        '[profiles.prod] read_only must be true or false, not "yes"',
        id="wrong-type",
    ),
    pytest.param(
        b'[profiles.prod]\nbase_ur = "https://a.example"\n',
        (2, 1),
        'unknown key "base_ur" in [profiles.prod] — did you mean "base_url"?',
        id="unknown-key",
    ),
    pytest.param(
        b'[profiles.prod]\nbase_url = "example.com"\n',
        (2, 1),
        "[profiles.prod] base_url “example.com” needs a scheme and host, e.g. https://example.com",
        id="url-without-scheme",
    ),
    pytest.param(
        b'default_profile = "stage"\n[profiles.prod]\nbase_url = "https://a.example"\n'
        b'[profiles.dev]\nbase_url = "https://b.example"\n',
        (1, 1),
        'default_profile "stage" is not a profile in this file; existing profiles: prod, dev',
        id="missing-default",
    ),
    # Nested deeper than the TOML reader's recursion goes: a RecursionError's traceback
    # of 3,000 lines ended every command, serve and the app.
    pytest.param(
        b'theme = "[[[ { #"  # [[[\nx = ' + b"[" * 600 + b"]" * 600 + b"\n",
        (2, 604),
        "a value nests lists or tables 600 deep, too deep for the TOML reader",
        id="lists-nested-too-deep",
    ),
    pytest.param(
        b"[keymap]\nx = " + b"{a = " * 600 + b"1" + b"}" * 600 + b"\n",
        (2, 3000),
        "a value nests lists or tables 600 deep",
        id="tables-nested-too-deep",
    ),
]


@pytest.mark.parametrize(("content", "where", "message"), CORRUPT)
def test_corrupt_file_is_located_and_never_overwritten(
    tmp_path: Path, full: ConfigFile, content: bytes, where: tuple[int, int], message: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)

    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    assert (error.path, error.line, error.column) == (path, *where)
    assert message in error.message
    assert str(error) == f"{path}:{where[0]}:{where[1]}: {error.message}"

    with pytest.raises(ConfigError, match="not saved"):
        save_config(full, path)
    with pytest.raises(ConfigError, match="not saved"):
        update(add_profile("new", Profile(base_url="https://n.example")), path, ConfigFile())
    assert path.read_bytes() == content
    assert leftovers(tmp_path) == []

    save_config(full, path, force=True)
    assert load_config(path) == full


@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (None, "not valid TOML: Exceeds the limit (4300 digits) for integer string conversion"),
        (MemoryError(), "cannot read the file: out of memory"),
        (TypeError("\x1b[2Jodd"), "not valid TOML: \u241b[2Jodd"),
    ],
)
def test_any_failure_of_the_toml_reader_is_a_config_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raised: Exception | None, message: str
) -> None:
    # A number past Python's 4,300 digits raised a ValueError no one caught: a traceback.
    path = tmp_path / "config.toml"
    path.write_text("[profiles.p]\nbase_url = 'https://a.example'\nmax_body_mb = " + "1" * 5000)
    if raised is not None:

        def fails(text: str) -> dict[str, Any]:
            raise raised

        monkeypatch.setattr(tomllib, "loads", fails)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.path == path
    assert caught.value.message.startswith(message), caught.value.message
    with pytest.raises(ConfigError, match="not saved"):
        update(lambda seen: None, path, ConfigFile(theme="x"))


def test_wrong_typed_secret_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    for value in ("12345678", '["hunter2-secret"]', "{ x = 'hunter2-secret' }"):
        path.write_text(f'[profiles.p]\nbase_url = "https://a.example"\napi_secret = {value}\n')
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        text = str(caught.value) + repr(caught.value)
        assert "api_secret must be text" in text and (caught.value.line, caught.value.column) == (
            3,
            1,
        )
        assert "12345678" not in text and "hunter2" not in text


def test_config_error_str_omits_unknown_parts() -> None:
    assert str(ConfigError("m")) == "m"
    assert str(ConfigError("m", path=Path("/c.toml"))) == "/c.toml: m"
    assert str(ConfigError("m", path=Path("/c.toml"), line=3)) == "/c.toml:3: m"


# -- Concurrency -------------------------------------------------------------------------


def _add_slowly(path: str, name: str) -> None:
    merge = store._merge

    def slowly(*args: Any) -> Any:
        time.sleep(0.2)  # widen the read-modify-write window so a missing lock would show
        return merge(*args)

    store._merge = slowly  # type: ignore[assignment]
    try:
        # Each made from the file as it was before any of them wrote.
        update(
            add_profile(name, Profile(base_url=f"https://{name}.example")), Path(path), ConfigFile()
        )
    finally:
        store._merge = merge  # type: ignore[assignment]


def test_concurrent_updates_in_threads_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    threads = [threading.Thread(target=_add_slowly, args=(str(path), n)) for n in ("a", "b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(load_config(path).profiles) == ["a", "b", "c"]
    assert os.listdir(path.parent) == ["config.toml"]  # no lock file or temp file beside it


def test_the_lock_files_live_in_the_cache_folder(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    _add_slowly(str(path), "a")
    lock = lock_path(path)
    assert lock.exists() and lock.parent == platformdirs.user_cache_path("tokensales-tui") / "locks"
    assert mode_of(lock) == 0o600
    assert lock_path(tmp_path / "." / "config.toml") == lock  # one lock whichever way it is named
    assert lock_path(tmp_path / "other.toml") != lock


def test_concurrent_updates_in_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_add_slowly, args=(str(path), n)) for n in ("a", "b")]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=30)

    assert [process.exitcode for process in processes] == [0, 0]
    assert sorted(load_config(path).profiles) == ["a", "b"]


def test_adding_can_make_default(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    update(add_profile("a", Profile(base_url="https://a.example")), path)
    saved = update(add_profile("b", Profile(base_url="https://b.example"), make_default=True), path)

    assert cfg.profile_names(saved.config) == ["a", "b"]
    assert load_config(path).default_profile == "b"


# -- Saves made from what was read ------------------------------------------------------

ANOTHER_PROGRAMS = ConfigFile(
    default_profile="staging",
    profiles={
        "staging": Profile(base_url="https://staging.example"),
        "prod": Profile(
            base_url="https://prod.example",
            api_key=Secret("their-key"),
            api_secret=Secret("their-secret"),
            read_only=True,
            label="PRODUCTION",
        ),
    },
)


def test_a_profile_added_that_appeared_in_the_file_meanwhile_is_refused(tmp_path: Path) -> None:
    # First-run setup replaced it, dropping its read_only and label, and changed the default.
    path = tmp_path / "config.toml"
    typed = Profile(base_url="https://mine.example", api_key=Secret(KEY), api_secret=Secret(SECRET))
    change = cfg.ConfigChange.of(ConfigFile(), add_profile("prod", typed, make_default=True))
    save_config(ANOTHER_PROGRAMS, path)  # while the setup form was open
    written = path.read_bytes()
    with pytest.raises(ConfigError, match="a profile named 'prod' exists already: edit it instead"):
        update_config(change, path)
    assert path.read_bytes() == written and not (tmp_path / "config.toml.bak").exists()


def test_a_default_the_file_gained_meanwhile_is_written_over_only_once_asked(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    typed = Profile(base_url="https://mine.example", api_key=Secret(KEY))
    change = cfg.ConfigChange.of(ConfigFile(), add_profile("mine", typed, make_default=True))
    save_config(ANOTHER_PROGRAMS, path)
    written = path.read_bytes()
    with pytest.raises(cfg.ConfigConflict) as caught:
        update_config(change, path)
    assert path.read_bytes() == written
    (conflict,) = caught.value.conflicts
    assert conflict.theirs_text() == "default_profile is now “staging”"
    assert conflict.yours_text() == "default_profile “mine”"
    update_config(caught.value.overwriting(), path)  # the answer was Overwrite
    saved = load_config(path)
    assert saved.default_profile == "mine" and saved.profiles["mine"] == typed
    assert saved.profiles["prod"] == ANOTHER_PROGRAMS.profiles["prod"]


def test_an_edit_writes_only_the_fields_changed_in_the_form(tmp_path: Path) -> None:
    # Two apps edit one profile: the second's save undid the first's change of the URL.
    path = tmp_path / "config.toml"
    save_config(ANOTHER_PROGRAMS, path)
    opened = load_config(path)  # both forms are filled from this
    theirs = Profile(base_url="https://other.example")
    update_config(cfg.ConfigChange.of(opened, cfg.edit_profile("prod", theirs)), path)
    mine = Profile(base_url="https://prod.example", api_key=Secret("my-new-key"))
    update_config(cfg.ConfigChange.of(opened, cfg.edit_profile("prod", mine)), path)
    prod = load_config(path).profiles["prod"]
    assert prod.base_url == "https://other.example"  # theirs, kept
    assert prod.api_key == Secret("my-new-key")  # mine
    assert prod.api_secret == Secret("their-secret") and prod.read_only
    assert prod.label == "PRODUCTION"


def test_a_field_changed_in_the_file_and_in_the_form_is_a_conflict(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ANOTHER_PROGRAMS, path)
    opened = load_config(path)
    edit = cfg.edit_profile("prod", Profile(base_url="https://mine.example", api_key=Secret(KEY)))
    change = cfg.ConfigChange.of(opened, edit)
    other = Profile(base_url="https://other.example", api_key=Secret("key-of-another"))
    update_config(cfg.ConfigChange.of(opened, cfg.edit_profile("prod", other)), path)
    written = path.read_bytes()
    with pytest.raises(cfg.ConfigConflict) as caught:
        update_config(change, path)
    assert path.read_bytes() == written
    said = str(caught.value) + repr(caught.value)
    assert "profile prod's base_url is now “https://other.example”" in said
    assert "profile prod's api_key is now another (not shown)" in said
    assert KEY not in said and "key-of-another" not in said
    assert [c.yours_text() for c in caught.value.conflicts] == [
        "profile prod's base_url “https://mine.example”",
        "profile prod's api_key another (not shown)",
    ]
    # Changed again before the answer: asked again, about that.
    again = Profile(base_url="https://again.example")
    update_config(cfg.ConfigChange.of(load_config(path), cfg.edit_profile("prod", again)), path)
    with pytest.raises(cfg.ConfigConflict, match="again.example"):
        update_config(caught.value.overwriting(), path)
    with pytest.raises(cfg.ConfigConflict) as caught:
        update_config(change, path)
    update_config(caught.value.overwriting(), path)
    prod = load_config(path).profiles["prod"]
    assert (prod.base_url, prod.api_key) == ("https://mine.example", Secret(KEY))


def test_the_same_change_made_twice_is_no_conflict_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ANOTHER_PROGRAMS, path)
    opened = load_config(path)
    change = cfg.ConfigChange.of(
        opened, cfg.edit_profile("prod", Profile(base_url="https://x.example"))
    )
    update_config(change, path)
    stamp = path.stat().st_mtime_ns, path.stat().st_ino
    update_config(change, path)
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == stamp


def test_an_edit_of_a_profile_removed_meanwhile_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ANOTHER_PROGRAMS, path)
    change = cfg.ConfigChange.of(
        load_config(path), cfg.edit_profile("prod", Profile(base_url="https://x.example"))
    )
    save_config(ConfigFile(profiles={"staging": Profile(base_url="https://s.example")}), path)
    with pytest.raises(ConfigError, match="profile 'prod' is no longer in the config file"):
        update_config(change, path)
    assert sorted(load_config(path).profiles) == ["staging"]


def test_a_profile_removed_is_removed_unless_changed_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ANOTHER_PROGRAMS, path)
    opened = load_config(path)

    def remove_prod(config: ConfigFile) -> None:
        del config.profiles["prod"]

    save_config(
        msgspec.structs.replace(
            opened,
            profiles={**opened.profiles, "prod": Profile(base_url="https://new.example")},
        ),
        path,
    )
    with pytest.raises(cfg.ConfigConflict, match="profile prod changed"):
        update_config(cfg.ConfigChange.of(opened, remove_prod), path)
    update_config(cfg.ConfigChange.of(load_config(path), remove_prod), path)
    assert sorted(load_config(path).profiles) == ["staging"]


def test_a_keymap_entry_is_merged_into_the_files_keymap(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ConfigFile(keymap={"refresh": "f5"}), path)

    def bind_help(config: ConfigFile) -> None:
        config.keymap["help"] = "f1"

    update_config(cfg.ConfigChange.of(ConfigFile(), bind_help), path)
    assert load_config(path).keymap == {"refresh": "f5", "help": "f1"}


def test_a_save_waits_for_a_held_lock_a_bounded_time_and_can_be_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process holding the lock (flock FILE sleep 40) froze the app: flock had no time-out.
    import tokensales_tui.files

    path = tmp_path / "config.toml"
    change = cfg.ConfigChange.of(ConfigFile(), set_theme("nord"))
    monkeypatch.setattr(tokensales_tui.files, "LOCK_WAIT", 1.0)
    said: list[Path] = []
    with locked(path):  # as another process would: a lock of its own
        with pytest.raises(ConfigError, match=r"has held the config file's lock for 1 s"):
            update_config(change, path, waiting=said.append)
        assert said == [lock_path(path)]
        stop = threading.Event()
        errors: list[ConfigError] = []

        def save() -> None:
            try:
                update_config(change, path, stop=stop)
            except ConfigError as error:
                errors.append(error)

        thread = threading.Thread(target=save)
        thread.start()
        stop.set()
        thread.join(timeout=30)
        assert [e.message for e in errors] == [
            "not saved: stopped waiting for the config file's lock"
        ]
    assert not path.exists()
    update_config(change, path)  # let go: saved
    assert load_config(path).theme == "nord"


def test_a_value_its_own_writer_wrote_is_never_taken_for_another_programs_change(
    tmp_path: Path,
) -> None:
    # A theme save given up while its thread held the lock still wrote; the next save,
    # made from the theme as the app knew it before, asked about "another program's"
    # change: the app's own.
    path = tmp_path / "config.toml"
    save_config(ConfigFile(theme="nord"), path)
    own = cfg.OwnWrites()
    update_config(
        cfg.ConfigChange.of(ConfigFile(theme="nord"), set_theme("gruvbox")), path, own=own
    )
    update_config(
        cfg.ConfigChange.of(ConfigFile(theme="nord"), set_theme("dracula")), path, own=own
    )
    assert load_config(path).theme == "dracula"
    save_config(ConfigFile(theme="monokai"), path)  # another program's: still asked about
    change = cfg.ConfigChange.of(ConfigFile(theme="dracula"), set_theme("nord"))
    with pytest.raises(cfg.ConfigConflict, match="theme is now"):
        update_config(change, path, own=own)
    with pytest.raises(cfg.ConfigConflict):  # and by any other writer, of its own
        update_config(cfg.ConfigChange.of(ConfigFile(theme="nord"), set_theme("x")), path)
    assert load_config(path).theme == "monokai"


def test_a_lock_that_cannot_be_made_is_named_not_the_config_file(tmp_path: Path) -> None:
    # A file where the lock folder should be said "not saved: cannot lock: Not a
    # directory", as if the config file were at fault.
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "tokensales-tui"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("")  # fails even for root
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as raised:
        update_config(cfg.ConfigChange.of(ConfigFile(), set_theme("nord")), path)
    message = raised.value.message
    assert message.startswith("not saved: cannot lock the config file: its lock ")
    assert str(cache / "locks") in message and not path.exists()


# -- URLs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000", "http://127.9.9.9", "http://localhost:8000/", "http://[::1]:9000"],
)
def test_plain_http_allowed_to_loopback(url: str) -> None:
    assert validate_url(url, field="base_url", allow_insecure_http=False) == url.rstrip("/")


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("http://127.0.0.1.:10380", "http://127.0.0.1:10380"),
        ("http://localhost.:10380/api/", "http://localhost:10380/api"),
        ("http://LOCALHOST.", "http://LOCALHOST"),
        ("http://127.1.2.3.:80", "http://127.1.2.3:80"),
    ],
)
def test_plain_http_to_this_machine_named_with_a_final_dot_is_allowed_without_it(
    url: str, kept: str
) -> None:
    # "localhost." and "127.0.0.1." (fully qualified) are this machine: they were refused
    # as "plain http:// to another machine". The address kept names the host without the
    # dot, so that requests go to the host judged, never to a look-up of the dotted name.
    assert validate_url(url, field="base_url", allow_insecure_http=False) == kept


@pytest.mark.parametrize(
    "url", ["http://localhost..:1", "http://example.com.:1", "http://10.0.0.1.:1"]
)
def test_a_final_dot_makes_no_other_machine_this_one(url: str) -> None:
    with pytest.raises(ConfigError, match="plain http:// to another machine"):
        validate_url(url, field="base_url", allow_insecure_http=False)


def test_plain_http_refused_elsewhere_unless_allowed() -> None:
    with pytest.raises(ConfigError) as caught:
        validate_url("http://api.example.com", field="--base-url", allow_insecure_http=False)
    assert "plain http://" in caught.value.message
    assert "allow_insecure_http = true" in caught.value.message
    assert caught.value.message.startswith("--base-url “http://api.example.com”")

    allowed = validate_url("http://10.0.0.5:8000/", field="x", allow_insecure_http=True)
    assert allowed == "http://10.0.0.5:8000"


def test_allow_insecure_http_in_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.p]\nbase_url = "http://10.0.0.5"\nallow_insecure_http = true\n')

    assert load_config(path).profiles["p"].base_url == "http://10.0.0.5"


@pytest.mark.parametrize("url", ["example.com", "localhost:8000", "ftp://example.com", "https://"])
def test_url_needs_scheme_and_host(url: str) -> None:
    with pytest.raises(ConfigError, match="needs a scheme and host"):
        validate_url(url, field="base_url", allow_insecure_http=False)


def test_url_with_password_is_refused_without_echo() -> None:
    with pytest.raises(ConfigError) as caught:
        validate_url("https://me:hunter2@a.example", field="base_url", allow_insecure_http=False)
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    "url", ["https:/admin:HUNTERPW@api.example.com", "admin:HUNTERPW@host", "https//a:HUNTERPW@b"]
)
def test_a_malformed_url_holding_a_password_is_not_echoed(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_url(url, field="base_url", allow_insecure_http=False)
    assert "HUNTERPW" not in str(caught.value)


@pytest.mark.parametrize("url", ["https://[", "https://[::1", "http://[x", "https://]"])
def test_an_unmatched_bracket_is_a_message_not_a_crash(url: str, tmp_path: Path) -> None:
    # urlsplit raised ValueError: the setup form ended the app at the "[" typed.
    with pytest.raises(ConfigError, match=r"not a valid address \(an unmatched \[ or \]\)"):
        validate_url(url, field="base_url", allow_insecure_http=False)
    path = tmp_path / "config.toml"
    path.write_text(f'[profiles.p]\nbase_url = "https://a.example"\nproxy = "{url}"\n')
    with pytest.raises(ConfigError, match="proxy is not a valid address"):
        load_config(path)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9450/#", "https://a.example/base?token=abc"])
def test_an_address_with_a_query_or_fragment_is_refused(url: str) -> None:
    # "…/#" sent every request to "/": a DELETE of one webhook went to the root.
    with pytest.raises(ConfigError, match="must not hold a query"):
        validate_url(url, field="base_url", allow_insecure_http=False)


def test_plain_http_to_this_machine_through_a_proxy_elsewhere_is_refused() -> None:
    # The key and secret went in clear to the proxy on another machine.
    loopback = "http://127.0.0.1:9450"
    with pytest.raises(ConfigError, match="through the profile's proxy on another machine"):
        validate_url(loopback, field="b", allow_insecure_http=False, proxy="http://10.9.9.9:3128")
    assert validate_url(
        loopback, field="b", allow_insecure_http=False, proxy="http://127.0.0.1:3128"
    )
    assert validate_url(loopback, field="b", allow_insecure_http=True, proxy="http://10.9.9.9:3128")
    assert validate_url(
        "https://a.example", field="b", allow_insecure_http=False, proxy="http://p:1"
    )
    resolved_from = ConfigFile(
        profiles={"p": Profile(base_url=loopback, proxy="http://10.9.9.9:3128")},
        default_profile="p",
    )
    with pytest.raises(ConfigError, match="proxy on another machine"):
        resolve_profile(resolved_from, cli=Overrides(), env={"TOKENSALES_API_KEY": "k"})


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:10350", "https://api.example.com"])
@pytest.mark.parametrize("proxy", ['""', '"ftp://p.example"', '"http://"'])
def test_a_proxy_that_is_no_address_is_said_at_its_own_line_whatever_the_base_url(
    tmp_path: Path, base_url: str, proxy: str
) -> None:
    # With an http:// base_url, `proxy = ""` was blamed on the base_url's line as "plain
    # http:// through the profile's proxy on another machine".
    path = tmp_path / "config.toml"
    path.write_text(f'[profiles.emu]\nbase_url = "{base_url}"\napi_key = "k"\nproxy = {proxy}\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert (caught.value.line, caught.value.column) == (4, 1)
    assert caught.value.message == (
        "[profiles.emu] proxy needs an http:// or https:// address with a host"
    )
    # Judged alone, an empty proxy is none, as the client reads it.
    assert validate_url(base_url, field="b", allow_insecure_http=False, proxy="")


# -- Choosing a profile ------------------------------------------------------------------


def test_cli_beats_environment_beats_file(full: ConfigFile) -> None:
    env = {"TOKENSALES_BASE_URL": "https://env.example", "TOKENSALES_API_KEY": "env-key"}

    from_file = resolve_profile(full, cli=Overrides(), env={})
    from_env = resolve_profile(full, cli=Overrides(), env=env)
    from_cli = resolve_profile(
        full, cli=Overrides(base_url="https://cli.example/", read_only=False), env=env
    )

    assert (from_file.base_url, from_file.api_key.reveal()) == ("https://api.example.com", KEY)
    assert from_file.read_only and from_file.label == "PRODUCTION"
    assert (from_env.base_url, from_env.api_key.reveal()) == ("https://env.example", "env-key")
    assert from_env.auth_url == "https://auth.example.com"  # still from the file
    assert from_env.api_secret.reveal() == SECRET
    assert from_cli.base_url == "https://cli.example" and not from_cli.read_only


def test_profile_name_precedence(full: ConfigFile) -> None:
    env = {"TOKENSALES_PROFILE": "local"}

    assert resolve_profile(full, cli=Overrides(), env={}).name == "prod"
    assert resolve_profile(full, cli=Overrides(), env=env).name == "local"
    assert resolve_profile(full, cli=Overrides(profile="prod"), env=env).name == "prod"


def test_an_empty_profile_flag_is_refused_not_taken_for_the_default(full: ConfigFile) -> None:
    # --profile "$PROFILE" with the variable unset: the default profile (prod) is not it.
    with pytest.raises(ConfigError, match=r"^--profile is empty: give a profile's name"):
        resolve_profile(full, cli=Overrides(profile=""), env={"TOKENSALES_PROFILE": "local"})


def test_only_profile_is_chosen_without_default() -> None:
    config = ConfigFile(
        profiles={"solo": Profile(base_url="https://s.example", api_key=Secret("k"))}
    )

    assert resolve_profile(config, cli=Overrides(), env={}).name == "solo"


def test_several_profiles_without_default_is_an_error(full: ConfigFile) -> None:
    full.default_profile = None

    with pytest.raises(ConfigError, match=r"none is chosen.*existing profiles: prod, local"):
        resolve_profile(full, cli=Overrides(), env={})


def test_environment_alone_is_enough() -> None:
    env = {
        "TOKENSALES_BASE_URL": "https://api.example.com/",
        "TOKENSALES_API_KEY": KEY,
        "TOKENSALES_API_SECRET": SECRET,
    }

    resolved = resolve_profile(load_config(), cli=Overrides(), env=env)

    assert resolved.name == "default"
    assert (
        resolved.base_url == resolved.auth_url == resolved.console_url == "https://api.example.com"
    )
    assert resolved.connection().api_secret.reveal() == SECRET
    assert resolved.connection().profile == "default"
    assert not cfg.config_path().exists()


def test_missing_profile_lists_existing_ones(full: ConfigFile) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_profile(full, cli=Overrides(profile="stage"), env={})

    assert not isinstance(caught.value, NoConfiguration)
    assert caught.value.message == 'there is no profile "stage"; existing profiles: prod, local'


def test_missing_profile_is_fine_when_environment_gives_urls(full: ConfigFile) -> None:
    env = {"TOKENSALES_BASE_URL": "https://ci.example", "TOKENSALES_API_KEY": "k"}

    resolved = resolve_profile(full, cli=Overrides(profile="ci"), env=env)

    assert (resolved.name, resolved.base_url, resolved.label) == ("ci", "https://ci.example", None)


def test_nothing_configured_raises_no_configuration() -> None:
    with pytest.raises(NoConfiguration) as caught:
        resolve_profile(load_config(), cli=Overrides(), env={})

    assert isinstance(caught.value, ConfigError)
    assert "TOKENSALES_BASE_URL" in caught.value.message


def test_a_missing_api_key_names_the_variable_when_no_profile_is_stored() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_profile(
            ConfigFile(), cli=Overrides(), env={"TOKENSALES_BASE_URL": "https://a.example"}
        )
    assert caught.value.message.startswith("TOKENSALES_API_KEY is not set: TOKENSALES_BASE_URL")
    assert caught.value.path is None


def test_a_stored_profile_without_api_key_says_where_to_add_it() -> None:
    stored = ConfigFile(profiles={"p": Profile(base_url="https://a.example")})
    with pytest.raises(ConfigError, match=r"has no API key: add api_key to \[profiles.p\]"):
        resolve_profile(stored, cli=Overrides(), env={})


def test_variables_without_the_address_name_the_missing_one() -> None:
    env = {"TOKENSALES_API_KEY": "k", "TOKENSALES_API_SECRET": "s"}
    with pytest.raises(ConfigError) as caught:
        resolve_profile(ConfigFile(), cli=Overrides(), env=env)
    assert not isinstance(caught.value, NoConfiguration)  # not the first-run setup
    assert caught.value.message.startswith(
        "TOKENSALES_BASE_URL is not set: TOKENSALES_API_KEY and TOKENSALES_API_SECRET are"
    )


def test_insecure_environment_url_is_refused() -> None:
    env = {"TOKENSALES_BASE_URL": "http://api.example.com", "TOKENSALES_API_KEY": "k"}

    with pytest.raises(
        ConfigError, match=r"^TOKENSALES_BASE_URL “http://api.example.com” uses plain"
    ):
        resolve_profile(ConfigFile(), cli=Overrides(), env=env)


def test_no_secret_in_any_text(full: ConfigFile) -> None:
    resolved = resolve_profile(full, cli=Overrides(), env={})

    for thing in (full, full.profiles["prod"], resolved, resolved.connection()):
        assert KEY not in repr(thing) and KEY not in str(thing)
        assert SECRET not in repr(thing) and SECRET not in str(thing)


# -- comments ----------------------------------------------------------------------------

HAND_WRITTEN = (
    "# my notes on these servers\n"
    'default_profile = "staging"   # the safe one\n'
    "\n"
    "[profiles.staging]\n"
    'base_url = "https://api.staging.example.com"  # ask Ana for a key\n'
    '# proxy = "http://127.0.0.1:3128"\n'
)


def set_theme(name: str) -> Callable[[ConfigFile], None]:
    def mutate(config: ConfigFile) -> None:
        config.theme = name

    return mutate


def test_a_theme_chosen_is_written_into_the_file_as_written(tmp_path: Path) -> None:
    # Choosing a theme in the palette rewrote a hand-written file without its comments.
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    saved = update(set_theme("nord"), path)
    assert saved.kept is None and not (tmp_path / "config.toml.bak").exists()
    added = path.read_text()
    assert added == HAND_WRITTEN.replace("\n\n[profiles", '\ntheme = "nord"\n\n[profiles', 1)
    saved = update(set_theme("gruvbox"), path)
    assert path.read_text() == added.replace('"nord"', '"gruvbox"')
    assert load_config(path).theme == "gruvbox"


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_theme_chosen_keeps_the_comment_on_its_line_and_the_files_line_ends(eol: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        written = f'# notes{eol}theme = "nord"   # for the projector: don\'t change it{eol}'
        path.write_bytes(written.encode())
        saved = update(set_theme("dracula"), path)
        assert saved.kept is None
        assert path.read_bytes() == written.replace('"nord"', '"dracula"').encode()
        table = f'[profiles.a]{eol}base_url = "https://a.example"{eol}'
        path.write_bytes(f"# notes{eol}{table}".encode())
        update(set_theme("nord"), path)
        assert path.read_bytes() == f'# notes{eol}theme = "nord"{eol}{table}'.encode()


@pytest.mark.parametrize(
    "odd",
    [
        'theme = """\nnord"""\n',  # over two lines
        '"theme" = "nord"\n',  # a quoted key
    ],
)
def test_a_setting_that_cannot_be_edited_in_place_is_rewritten_and_the_file_kept(
    tmp_path: Path, odd: str
) -> None:
    path = tmp_path / "config.toml"
    original = "# notes\n" + odd + HAND_WRITTEN.split("\n", 2)[2]
    path.write_text(original)
    saved = update(set_theme("gruvbox"), path)
    assert load_config(path).theme == "gruvbox"
    assert load_config(path).profiles["staging"].base_url == "https://api.staging.example.com"
    assert saved.kept == tmp_path / "config.toml.bak"
    assert saved.kept.read_text() == original
    assert saved.kept.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("how", ["edited in place", "rewritten"])
def test_a_save_that_would_make_the_file_too_large_to_read_is_refused_and_the_file_kept(
    tmp_path: Path, how: str
) -> None:
    # A theme or a label of a megabyte was written, and the next start refused the file
    # as "larger than 1 MB": the writer did not keep its reader's limit.
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    huge = "x" * cfg.MAX_CONFIG_BYTES
    if how == "edited in place":
        mutate = set_theme(huge)
    else:
        mutate = add_profile("big", Profile(base_url="https://big.example", label=huge))
    with pytest.raises(ConfigError) as raised:
        update(mutate, path)
    assert raised.value.message == (
        "not saved: the config file would be larger than 1 MB, the most it may hold"
    )
    assert path.read_text() == HAND_WRITTEN and load_config(path).theme is None
    assert not (tmp_path / "config.toml.bak").exists() and leftovers(tmp_path) == []


def test_a_profile_saved_into_a_hand_written_file_keeps_the_file_as_it_was(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    saved = update(add_profile("prod", Profile(base_url="https://api.example.com")), path)
    assert saved.kept == tmp_path / "config.toml.bak"
    assert saved.kept.read_text() == HAND_WRITTEN
    assert sorted(load_config(path).profiles) == ["prod", "staging"]
    # The file is the app's own now: the next save keeps nothing more (nothing to lose).
    again = update(add_profile("dev", Profile(base_url="https://dev.example")), path)
    assert again.kept is None and saved.kept.read_text() == HAND_WRITTEN


def test_a_read_only_config_file_is_not_replaced(tmp_path: Path) -> None:
    # The atomic rename took its place whatever its mode said, and made it 0600.
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    path.chmod(0o444)
    with pytest.raises(ConfigError, match="read-only"):
        update(set_theme("nord"), path)
    with pytest.raises(ConfigError, match="read-only"):
        update(add_profile("prod", Profile(base_url="https://api.example.com")), path)
    assert path.read_text() == HAND_WRITTEN and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert not (tmp_path / "config.toml.bak").exists()


def test_a_save_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    # The file held the theme already (a second instance, a hand edit): it was rewritten,
    # its comments dropped and a .bak made.
    path = tmp_path / "config.toml"
    path.write_bytes(b'# notes\r\ntheme = "nord"  # mine\r\n')
    assert update(set_theme("nord"), path).kept is None
    assert path.read_bytes() == b'# notes\r\ntheme = "nord"  # mine\r\n'
    assert not (tmp_path / "config.toml.bak").exists()


def test_a_new_setting_leaves_a_comment_above_a_table_with_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    table = '# work profile\n[profiles.work]\nbase_url = "https://w.example"\n'
    path.write_text(f'default_profile = "work"\n\n{table}')
    update(set_theme("gruvbox"), path)
    assert path.read_text() == f'default_profile = "work"\ntheme = "gruvbox"\n\n{table}'


@pytest.mark.parametrize("given", ["0.5", "nan", "1e400", "86401"])
def test_watch_interval_is_from_a_second_to_a_day(given: str, tmp_path: Path) -> None:
    # 1e400 loaded as infinity: "reloaded every inf s".
    path = tmp_path / "config.toml"
    path.write_text(f"watch_interval = {given}\n")
    with pytest.raises(ConfigError, match="watch_interval must be from 1 s to a day"):
        load_config(path)
    path.write_text("watch_interval = 86400\n")
    assert load_config(path).watch_interval == 86400
