"""The one gate for text on screen: every string a widget shows goes through ``ui/safe.py``.

Textual reads a plain ``str`` as markup in many places, and ``Content(...)`` keeps ESC,
so a string that quotes a server can become an action or a terminal control. This
test reads every module of ``ui/`` and fails on any other way to put a string on
screen than a literal or a call to ``safe.content``/``safe.line``/``safe.text``.
Toasts and the clipboard are gated in ``GuardedApp.notify``/``copy_to_clipboard``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

UI = Path(__file__).parent.parent / "tokensales_tui" / "ui"

RENDERABLES = {"Content", "Text"}
"""Classes whose constructors take text as it is (no cleaning)."""

SHOWS_TEXT = {"Static", "Label", "Button", "Option", "TabPane", "update"}
"""Calls whose first argument is put on screen (``update`` is ``Static.update``)."""

REPLACED = {"TextArea": "SafeTextArea", "Input": "SafeInput"}
"""Widgets that draw their text raw, and the cleaning widget to use instead."""

SHOWN_ATTRIBUTES = {"title", "sub_title", "border_title", "border_subtitle", "tooltip"}

SAFE = {"content", "line", "text", "clamped"}
"""The functions of ``ui/safe.py``."""


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _safe(node: ast.expr | None) -> bool:
    """Whether ``node`` is a literal, a call to a ``safe`` function, or a choice of those."""
    if node is None:
        return True
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str)
    if isinstance(node, ast.IfExp):
        return _safe(node.body) and _safe(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _safe(node.left) and _safe(node.right)
    if isinstance(node, ast.Call):
        return _name(node.func) in SAFE
    return False


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_is_literal(element) for element in node.elts)
    return False


GATE_NOTE = "# gate: "
"""A line that ends with this note, and says why, passes: a reviewed exception."""


def violations(source: str, filename: str) -> list[str]:
    """Every place in ``source`` that shows a string without the gate."""
    found: list[str] = []
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source, filename)):
        number = getattr(node, "lineno", 0)
        if number and GATE_NOTE in lines[number - 1]:
            continue
        where = f"{filename}:{number}"
        if isinstance(node, ast.Call):
            name = _name(node.func)
            owner = _name(node.func.value) if isinstance(node.func, ast.Attribute) else None
            if name in REPLACED:
                found.append(f"{where}: {name}() draws controls raw: use {REPLACED[name]}")
            if name in RENDERABLES or owner in RENDERABLES:
                if not all(_is_literal(argument) for argument in node.args):
                    found.append(f"{where}: {owner or name} built from a non-literal")
            elif name in SHOWS_TEXT and node.args and not _safe(node.args[0]):
                found.append(f"{where}: {name}() shows a string that is not from safe.*")
            for keyword in node.keywords:
                if keyword.arg == "markup" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    found.append(f"{where}: markup= other than False")
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                if _name(base) in REPLACED and node.name not in REPLACED.values():
                    found.append(f"{where}: {node.name} extends {_name(base)}: extend the Safe one")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in SHOWN_ATTRIBUTES
                    and not _safe(node.value)
                ):
                    found.append(f"{where}: .{target.attr} set to a string not from safe.*")
    return found


def test_every_string_on_screen_goes_through_the_gate() -> None:
    found: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        if path.name == "safe.py":
            continue
        found += violations(path.read_text(encoding="utf-8"), str(path.relative_to(UI)))
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "Static(Content(name))",
        "Static(name)",
        "label.update(f'{count} rows')",
        "Content.styled(server_text, 'bold')",
        "Text(server_text)",
        "Static(content(x), markup=True)",
        "widget.border_title = name",
        "Button(label if a else 'x')",
        "TextArea(id='wallets')",
        "Input(value=webhook.url)",
        "class Filter(Input): pass",
    ],
)
def test_the_gate_refuses_each_unsafe_way(source: str) -> None:
    assert violations(source, "example.py")


@pytest.mark.parametrize(
    "source",
    [
        "Static('literal')",
        "Static(content(name))",
        "label.update(line(f'{count} rows'))",
        "Content('literal')",
        "Content.assemble(('a', 'bold'))",
        "Static(id='x', markup=False)",
        "widget.border_title = line(name)",
        "Button(line(label) if a else 'x')",
        "Option(line(a) + line(b, 'bold'))",
        "widget.update(shown)  # gate: built by safe.content above",
    ],
)
def test_the_gate_lets_the_safe_way_through(source: str) -> None:
    assert violations(source, "example.py") == []
