"""The import rules that keep the layers apart (see ARCHITECTURE.md).

- Nothing outside ``tokensales_tui/ui`` imports the UI.
- The data layer, the scripting commands (``script/``) and the pure parts of the UI import
  neither Textual nor Rich — not at the top of a module, not lazily inside a function, not
  through another module. (Running each command without loading them is checked in
  ``test_script.py``.)
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tokensales_tui"

ENTRY_POINTS = ("cli.py", "__main__.py")
"""The top layer: it starts the UI (lazily), the scripting commands or the emulator."""

TOP_PACKAGES = ("serve",)
"""Also the top layer: ``serve`` runs textual-serve (which loads Rich) to start the app."""

PURE_UI = (
    "ui/table/cells.py",
    "ui/table/index.py",
    "ui/table/model.py",
    "ui/table/query.py",
    "ui/json_text.py",
    "ui/export.py",
)
"""Modules under ui/ that hold no widget: models and text the widgets draw."""

PURE_PACKAGES = ("tokensales_tui.ui.table.model", "tokensales_tui.ui.json_text")
"""Imported in the runtime check (model imports cells and index)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute, wherever in the file the import stands."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _pure_files() -> list[Path]:
    files = [
        path
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in ("ui", *TOP_PACKAGES)
        and path.name not in ENTRY_POINTS
    ]
    files += [PACKAGE / name for name in PURE_UI if (PACKAGE / name).exists()]
    return sorted(files)


def _pure_modules() -> list[str]:
    return sorted({_module_name(path) for path in _pure_files()})


@pytest.mark.parametrize("path", _pure_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_pure_modules_import_neither_textual_nor_rich_nor_the_ui(path: Path) -> None:
    # A pure module may import another pure module of ui/, or the packages above it.
    pure = {_module_name(PACKAGE / name) for name in PURE_UI}
    allowed = pure | {"tokensales_tui.ui", "tokensales_tui.ui.table"}
    bad = sorted(
        name
        for name in _imports(path)
        if name.split(".")[0] in ("textual", "rich")
        or (
            name.startswith("tokensales_tui.ui")
            and name not in allowed
            and name.rsplit(".", 1)[0] not in pure  # a name imported from a pure module
        )
    )
    assert bad == [], f"{path.relative_to(PACKAGE)} imports {bad}"


def test_the_pure_modules_listed_exist() -> None:
    # A renamed module must not silently drop out of the rule.
    for name in PURE_UI:
        assert (PACKAGE / name).exists(), name
    assert {"tokensales_tui.config", "tokensales_tui.session", "tokensales_tui.files"} <= set(
        _pure_modules()
    )
    assert any(m.startswith("tokensales_tui.checks") for m in _pure_modules())
    assert {
        "tokensales_tui.script.changes",
        "tokensales_tui.script.output",
        "tokensales_tui.script.reads",
        "tokensales_tui.script.run",
    } <= set(_pure_modules())


def test_importing_every_pure_module_loads_neither_textual_nor_rich() -> None:
    # The static rule above reads each file; this one catches what a module pulls in
    # through another (a package __init__, a helper), as Python really imports it.
    modules = [m for m in _pure_modules() if not m.startswith("tokensales_tui.ui")]
    modules += list(PURE_PACKAGES)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(loaded[:5])\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
