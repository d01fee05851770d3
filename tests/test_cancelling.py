"""A worker waiting for another is cancelled when it is cancelled (``ui/cancelling.py``),
and waits for a worker in no other way: a tripwire for a new one.

Textual's ``Worker.wait()`` turns the waiter's own cancellation into ``WorkerCancelled``,
and a waiter that takes it for the other worker's end goes on: a load ended by escape or
by a profile switch went on to show the old rows. Each ``.wait()`` call of the app's
package, and of any module that imports Textual (``asyncio.wait`` aside, which never
swallows one), is listed below with what it waits for; a new one fails the test until
it is added, or goes through ``wait_for_worker``. (Names only: a worker's ``wait``
under another name passes unseen.)
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest
from textual.app import App
from textual.worker import Worker, WorkerCancelled, WorkerFailed

import tokensales_tui
from tokensales_tui.ui.cancelling import wait_for_worker

WAITS = {
    ("ui/cancelling.py", "wait_for_worker"): "the one wait for a worker",
    ("ui/app.py", "_follow_keys"): "an asyncio.Event (a key's frame)",
    ("ui/frame_slots.py", "_run"): "an asyncio.Event",
    ("ui/in_flight.py", "over"): "an asyncio.Event (a change under way ended)",
    ("ui/index_process.py", "close"): "an asyncio subprocess",
    ("ui/links.py", "start_browser"): "the browser's opener, bounded, in a thread of its own",
    ("ui/tabs.py", "_drawn"): "an asyncio.Event (a frame drawn)",
    ("ui/tabs.py", "_index_arriving"): "an asyncio.Event (the body read)",
}
"""Each (module, outermost function) that calls a ``.wait()``, and what it waits for:
in the app's package (``ui``) and any other module that imports Textual, the only
places a worker can be in."""


def _imports_textual(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            alias.name.split(".")[0] == "textual" for alias in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            return True
    return False


def _waits(module: str, tree: ast.AST) -> set[tuple[str, str]]:
    """Each (module, outermost function) of ``tree`` that calls a ``.wait()``."""
    found: set[tuple[str, str]] = set()

    def visit(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and function is None:
            function = node.name
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "wait"
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "asyncio")
        ):
            found.add((module, function or "<module>"))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return found


def test_every_wait_of_the_package_is_known_and_workers_go_through_one() -> None:
    root = Path(tokensales_tui.__file__).parent
    found: set[tuple[str, str]] = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.relative_to(root).as_posix()
        if module.startswith("ui/") or _imports_textual(tree):
            found |= _waits(module, tree)
    assert found - WAITS.keys() == set(), "a new .wait(): a worker's goes through wait_for_worker"
    assert WAITS.keys() - found == set(), "gone: take it off the list"


class Waiting(App[None]):
    """Nothing on screen: the workers are the test."""


async def _held(release: asyncio.Event, fails: bool = False) -> str:
    await release.wait()
    if fails:
        raise ValueError("the work failed")
    return "done"


@pytest.mark.parametrize("waited_for_ends", [False, True])
async def test_the_waiter_cancelled_is_cancelled_not_told_the_other_worker_ended(
    waited_for_ends: bool,
) -> None:
    # Worker.wait() alone raised WorkerCancelled here, and the waiter went on.
    app = Waiting()
    async with app.run_test() as pilot:
        release = asyncio.Event()
        waited_for: Worker[str] = app.run_worker(_held(release), exit_on_error=False)
        went_on: list[str] = []

        async def waiter() -> None:
            try:
                await wait_for_worker(waited_for)
            except (WorkerCancelled, WorkerFailed) as error:
                went_on.append(type(error).__name__)

        task = asyncio.ensure_future(waiter())
        await pilot.pause()
        if waited_for_ends:
            release.set()  # ended, the waiter not resumed yet: it is cancelled all the same
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert went_on == []
        await pilot.pause()
        assert not waited_for.is_running  # cancelled with its waiter, or done


@pytest.mark.parametrize("ends", ["cancelled", "failed", "done"])
async def test_the_end_of_the_worker_waited_for_is_told_as_before(ends: str) -> None:
    app = Waiting()
    async with app.run_test() as pilot:
        release = asyncio.Event()
        waited_for = app.run_worker(_held(release, ends == "failed"), exit_on_error=False)
        await pilot.pause()
        if ends == "cancelled":
            waited_for.cancel()
        release.set()
        if ends == "done":
            assert await wait_for_worker(waited_for) == "done"
            return
        with pytest.raises(WorkerCancelled if ends == "cancelled" else WorkerFailed):
            await wait_for_worker(waited_for)
