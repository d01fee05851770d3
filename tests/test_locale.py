"""Under a locale whose charset is not UTF-8 (over SSH, a server's ``LANG=en_US``,
ISO-8859-1, with a UTF-8 terminal), the commands and the app still read their arguments,
and name files and programs, in UTF-8: they run again in Python's UTF-8 mode."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tokensales_tui import cli

LATIN1 = "en_US.ISO-8859-1"


@pytest.fixture(scope="module")
def latin1(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process under an ISO-8859-1 locale, built for the test."""
    if shutil.which("localedef") is None:
        pytest.skip("localedef is not installed: no ISO-8859-1 locale can be built")
    folder = tmp_path_factory.mktemp("locales")
    built = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(folder / LATIN1)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    if not (folder / LATIN1).exists():
        pytest.skip(f"localedef could not build {LATIN1}: {built.stderr[-200:]!r}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "TOKENSALES_"))}
    env.update(LOCPATH=str(folder), LANG=LATIN1, PYTHONIOENCODING="")
    env.pop("PYTHONUTF8", None)
    seen = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    if seen.stdout.strip() != "iso8859-1":
        pytest.skip(f"Python does not take the built locale ({seen.stdout.strip()})")
    return env


CONSOLE_SCRIPT = (
    "import sys\nfrom tokensales_tui.cli import main\n"
    "if __name__ == '__main__':\n    sys.exit(main())\n"
)


def _run(env: dict[str, str], args: list[str], how: str, tmp_path: Path) -> tuple[int, str, str]:
    if how == "script":  # as the installed tokensales-tui runs it
        script = tmp_path / "tokensales-tui"
        script.write_text(CONSOLE_SCRIPT)
        command = [sys.executable, str(script)]
    else:
        command = [sys.executable, "-m", "tokensales_tui"]
    result = subprocess.run(
        [*command, *args], capture_output=True, env=env, timeout=120, check=False
    )
    return (
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


@pytest.mark.parametrize("how", ["module", "script"])
def test_an_address_outside_latin_1_is_read_as_typed(
    latin1: dict[str, str], how: str, tmp_path: Path
) -> None:
    # It was read as ISO-8859-1: "the address contains a control character (position 11)".
    code, out, err = _run(
        latin1,
        [
            "--demo",
            "create",
            "webhook",
            "--url",
            "https://例え.jp/x",
            "--event",
            "item.sold",
            "--dry-run",
        ],
        how,
        tmp_path,
    )
    assert code == 0, err
    assert '"url": "https://例え.jp/x"' in out


def test_a_jq_filter_with_an_accent_finds_what_it_names(
    latin1: dict[str, str], tmp_path: Path
) -> None:
    # "Café" was read as four other characters, and matched nothing.
    code, out, err = _run(
        latin1,
        ["--demo", "get", "items", "--jq", '.[]|select(.title|test("Café"))|.id'],
        "module",
        tmp_path,
    )
    assert code == 0, err
    assert out.split() and all(line.startswith("itm_") for line in out.split())


def test_the_process_runs_again_in_utf8_mode_with_its_stdin_closed(
    latin1: dict[str, str], tmp_path: Path
) -> None:
    # The same process goes on: a closed stdin stays closed, and is said so.
    result = subprocess.run(
        [sys.executable, "-m", "tokensales_tui", "--demo", "delete", "webhook", "wh_x"],
        capture_output=True,
        env=latin1,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "tokensales-tui: delete: stdin is closed — pass --yes to delete webhooks by id\n"
    )


def test_a_utf8_locale_starts_nothing_again(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    monkeypatch.setattr(os, "execv", lambda *args: started.append(args))
    cli._in_utf8_mode()
    assert sys.getfilesystemencoding() == "utf-8"
    assert started == []
