"""A key named in a message is one the screen showing it has, bound to what the message means."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.app import App

from tokensales_tui.api.errors import NetworkError, ServerError
from tokensales_tui.ui.keys import binding_classes
from tokensales_tui.ui.screens.detail import DetailScreen, Fetched

from .test_detail_screen import FIELDS, RAW, Host, detail_screen, screen_lines

PACKAGE = Path(__file__).parent.parent / "tokensales_tui"

PRESS = re.compile(r"\bpress (?!it\b)[^\s{]")
"""A key named in our own text ("press r"): only :mod:`tokensales_tui.ui.key_hints` names
one, from the bindings of the screen that shows it."""


def test_no_text_of_the_app_names_a_key_by_itself() -> None:
    # "then press r" written in an API error was shown where r does nothing (the detail
    # view), or where r does something else (the deliveries screen: replay).
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and PRESS.search(node.value)
            ):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}")
    assert found == []


def test_every_screen_that_retries_binds_its_retry_action() -> None:
    from textual.dom import DOMNode

    from tokensales_tui.ui.keys import every_binding_id

    every_binding_id()  # imports every screen
    retrying = [cls for cls in binding_classes([DOMNode]) if "RETRY_ACTION" in cls.__dict__]
    assert {cls.__name__ for cls in retrying} >= {"BrowseScreen", "DetailScreen", "FormScreen"}
    for cls in retrying:
        actions = {
            getattr(binding, "action", None)
            for base in cls.__mro__
            for binding in base.__dict__.get("BINDINGS", ())
        }
        assert cls.__dict__["RETRY_ACTION"] in actions, cls


def test_an_error_says_how_to_retry_with_the_key_given_or_with_none() -> None:
    refused = NetworkError(
        "127.0.0.1:9 refused the connection",
        host="127.0.0.1:9",
        hint="is the server running at that address?",
        retry="now",
    )
    assert refused.said("r") == (
        "127.0.0.1:9 refused the connection — is the server running at that address? then press r"
    )
    assert refused.one_line.endswith("that address? then try again")
    assert (
        ServerError("boom").said("ctrl+s").endswith("having trouble; press ctrl+s to retry later")
    )
    dns = NetworkError("no such host", host="x", hint="check your DNS")
    assert dns.said("r") == "no such host — check your DNS"  # nothing to retry before the fix


async def test_r_in_the_detail_view_fetches_again_as_its_failure_says() -> None:
    calls = 0

    async def refresh() -> Fetched:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise NetworkError(
                "127.0.0.1:9 refused the connection",
                host="127.0.0.1:9",
                hint="is the server running at that address?",
                retry="now",
            )
        return Fetched(FIELDS, {**RAW, "name": "Fresh hat"}, "itm_4f3a")

    app = Host(detail_screen(refresh=refresh))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "that address? then press r" in text
        assert "r Refresh" in screen_lines(app)[-1]
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert calls == 2 and '"Fresh hat"' in text and "refused" not in text


async def test_a_moved_key_is_the_one_the_failure_names() -> None:
    async def refresh() -> Fetched:
        raise ServerError("the server failed (503)")

    app = Host(detail_screen(refresh=refresh))
    app.set_keymap({"detail.refresh": "f5"})
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "press f5 to retry later" in text and "press r" not in text


async def test_a_detail_that_cannot_be_fetched_offers_no_refresh() -> None:
    app = App[None]()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(DetailScreen("Webhook", FIELDS, RAW, object_id="wh_1"))
        await pilot.pause()
        assert "Refresh" not in screen_lines(app)[-1]
