"""Every way the app touches the machine it runs on is known, with what it does when
the app is served to a browser (``serve``): a tripwire for a new one.

A browser tab of ``serve`` uses the served profile and nothing more of the serving
machine (README, "serve"). Each use below, in the app's own package (``ui``), of something
that reads or writes its files, opens its browser, starts a process or listens on its
ports was checked for that. A new use fails this test until it is added here, with how
it behaves when served. (Names only: a helper of another package called under a new
name, or a use under an alias, passes unseen; the list of names is kept wide for that.
What passes unseen here still meets the served app's fence, ``tokensales_tui.fence``,
which refuses it at run time: this test is for deciding what a tab does instead.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import tokensales_tui.ui

TOUCHING = frozenset(
    {
        "add_profile",
        "atomic_write",
        "atomic_writer",
        "edit_profile",
        "export_rows",
        "load_list_file",
        "Listening",
        "mkdtemp",
        "open",
        "open_listen",
        "PayoutAdd",
        "PayoutRecord",
        "payout_add",
        "read_local_file",
        "save_config",
        "update_config",
        "webbrowser",
        # ... and the standard library's and Textual's ways to do the same
        "Popen",
        "create_subprocess_exec",
        "iterdir",
        "listdir",
        "mkdir",
        "open_url",
        "read_bytes",
        "read_text",
        "rmtree",
        "save_screenshot",
        "scandir",
        "socket",
        "subprocess",
        "unlink",
        "write_bytes",
        "write_text",
    }
)
"""Names of what touches the machine: its files, its browser, its ports."""

KNOWN = {
    ("app.py", "_write_screenshot", "atomic_write"): "served: the browser downloads it",
    ("config_saves.py", "save_config_change", "update_config"): "served: no form, no theme save",
    ("app.py", "_replace_session", "PayoutRecord"): "served: a record in memory only",
    ("app.py", "payout_add", "PayoutAdd"): "served: into the record in memory",
    ("app.py", "payout_add", "PayoutRecord"): "served: into the record in memory",
    ("export.py", "export_rows", "atomic_writer"): "served: a private temporary folder",
    ("listen_app.py", "listen_in_app", "Listening"): "the listen command: never served",
    ("room.py", "_idle_seconds", "open"): "/proc/stat: the machine's load, nothing of a user",
    ("room.py", "_quota", "read_text"): "the control group's CPU quota, nothing of a user",
    ("room.py", "_used_seconds", "read_text"): "the control group's CPU use, nothing of a user",
    ("room.py", "_v1_quota", "read_text"): "the control group's CPU quota, nothing of a user",
    ("room.py", "_v2_quota", "read_text"): "the control group's CPU quota, nothing of a user",
    ("index_process.py", "start", "create_subprocess_exec"): "this package's index process",
    ("index_process.py", "start", "subprocess"): "this package's index process",
    ("forms/__init__.py", "new_form", "payout_add"): "served: into the record in memory",
    ("forms/inputs.py", "get_suggestion", "scandir"): "the import dialog's: off when served",
    ("screens/browse.py", "action_open_link", "open_url"): "served: the browser's own",
    ("safe_app.py", "open_url", "open_url"): "served: the web driver's, the browser's own",
    ("links.py", "start_browser", "Popen"): "served: never, open_url takes the web driver's",
    ("links.py", "start_browser", "subprocess"): "served: never, as above",
    ("screens/browse.py", "action_listen", "open_listen"): "served: `l` is off",
    ("screens/browse.py", "action_new", "payout_add"): "served: into memory only",
    ("screens/export.py", "_run", "mkdtemp"): "served only: the private folder",
    ("screens/export.py", "_run", "rmtree"): "served only: the private folder",
    ("screens/export.py", "_write_rows", "export_rows"): "served: into the private folder",
    ("screens/export.py", "_hand_over", "open"): "served only: the file just written",
    ("screens/setup.py", "_saving", "add_profile"): "served: no setup or profile form",
    ("screens/setup.py", "_saving", "edit_profile"): "served: no setup or profile form",
    ("forms/collections.py", "_import", "load_list_file"): "served: the import is off",
    ("webhook_views.py", "open_listen", "Listening"): "reached by `l` only, off when served",
    (
        "terminal_mode.py",
        "_to_null",
        "open",
    ): "/dev/null, for a terminal gone; served: not a terminal",
}


class _Uses(ast.NodeVisitor):
    """The TOUCHING names one module refers to, by the outermost function they are in
    (a name in a type annotation is a type, not a use)."""

    def __init__(self, module: str, tree: ast.AST) -> None:
        self.module = module
        self.found: set[tuple[str, str, str]] = set()
        self._functions: list[str] = []
        self._typing = {id(node) for note in _annotations(tree) for node in ast.walk(note)}
        self.visit(tree)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._functions.append(node.name)
        self.generic_visit(node)
        self._functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Name(self, node: ast.Name) -> None:
        self._note(node, node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._note(node, node.attr)
        self.generic_visit(node)

    def _note(self, node: ast.AST, name: str) -> None:
        if name in TOUCHING and self._functions and id(node) not in self._typing:
            self.found.add((self.module, self._functions[0], name))


def uses() -> set[tuple[str, str, str]]:
    """Each (module, function, name) of the app's package that refers to a TOUCHING name."""
    root = Path(tokensales_tui.ui.__file__).parent
    found: set[tuple[str, str, str]] = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found |= _Uses(path.relative_to(root).as_posix(), tree).found
    return found


def _annotations(tree: ast.AST) -> list[ast.expr]:
    """The type annotations of ``tree``: a name there is a type, not a use."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            found.append(node.returns)
    return found


def test_every_way_the_app_touches_its_machine_is_known_with_its_served_behaviour() -> None:
    new = sorted(uses() - KNOWN.keys())
    assert not new, (
        "a new way to touch the machine the app runs on: decide what it does in a browser"
        f" tab of serve (Launch.served), then add it to KNOWN: {new}"
    )
    gone = sorted(KNOWN.keys() - uses())
    assert not gone, f"no longer found, take out of KNOWN: {gone}"
