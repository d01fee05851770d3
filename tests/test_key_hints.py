"""A key named in a message is one the screen showing it has, bound to what the message means."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.app import App

from tokensales_tui import config
from tokensales_tui.api.errors import NetworkError, ServerError
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.keys import binding_classes
from tokensales_tui.ui.screens.detail import DetailScreen, Fetched
from tokensales_tui.ui.screens.webhook_secret import WebhookSecretScreen

from .apphelpers import loaded, screen_text, wait_for, wait_for_screen
from .test_detail_screen import FIELDS, RAW, Host, detail_screen, screen_lines

PACKAGE = Path(__file__).parent.parent / "tokensales_tui"

PRESS = re.compile(r"\bpress (?!it\b)[^\s{]")
"""A key named in our own text ("press r"): only :mod:`tokensales_tui.ui.key_hints` names
one, from the bindings of the screen that shows it."""

_LETTER = r"(?:[b-zA-Z]|a(?=\s+to\s))"  # "a" alone is the article, "a to add" a key
_KEY = (
    r"(?:(?i:(?:ctrl|shift|alt|meta|super)\+\S+|esc(?:ape)?|enter|return|backspace|tab|space"
    rf"|f\d\d?)|{_LETTER}(?:/[a-zA-Z])*|[?/])"
)
_DOES = r"(?:to(?=\s)|back|quit|move|search|matches|on\s+its|[a-z]+s)\b"  # "to add", "copies"
NAMED = re.compile(
    r"(?i:\b(?:ctrl|shift|alt|meta|super)\+\S)"  # ctrl+y, shift+tab, Ctrl+C
    r"|(?i:\besc(?:ape)?\b)"  # esc, escape, Escape
    # "a to add", "e to edit", "Enter sets it", "d on its row", "j/k move": a key, then
    # what it does (not after a number: "5 s to a day").
    rf"|(?:^(?=\S)|(?<=[^\s\d])\s|[(·—:;,\"])(?:(?i:enter|return)|{_LETTER}(?:/[a-zA-Z])*)"
    rf"\s+{_DOES}"
    rf"|(?i:\b(?:use|press|with|then)\s+){_KEY}(?=[\s,;:.)]|$)"  # "use l", "with x instead"
    r"|(?<!\w)\((?:[a-zA-Z?/]|(?i:enter|esc))\)"  # "Filter (/)"
)
"""A key written by hand in a text shown to someone: it would go on naming the default key
after a keymap moved it. Only :mod:`tokensales_tui.ui.key_hints` names a key, from the
bindings as they are now."""

NOT_A_BINDING = {
    # The interrupt of a command run in a shell (serve, the emulator, a script): the
    # terminal's, no key binding of the app.
    "tokensales_tui/cli.py": ["until Ctrl+C.", "Press Ctrl+C here to stop."],
    "tokensales_tui/script/parser.py": ["interrupted (Ctrl+C)"],
    "tokensales_tui/serve/__init__.py": ["until Ctrl+C:", "Ctrl+C stops."],
    # A keymap's problems: key names as a keymap writes them, and what a terminal sends.
    "tokensales_tui/ui/keys.py": [
        "(as in f5, ctrl+r, ?)",
        " arrives as escape and ",
        "sends it as ESC and",
    ],
    # Seconds ("took over 3 s to close"), in the debug log.
    "tokensales_tui/api/closing.py": [" s to close"],
}
"""Texts that name a key, or look as if they did, and are not about a key binding."""


def _shown_strings(path: Path) -> list[ast.Constant]:
    """The strings of ``path`` that may be shown: every one but docstrings (of a module,
    a class, a function or an attribute) and key names alone (a binding's ``"escape"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in bare
        and re.search(r"\s", node.value.strip())
    ]


def _allowed(path: str, text: str) -> bool:
    return any(snippet in text for snippet in NOT_A_BINDING.get(path, ()))


def test_no_text_of_the_app_names_a_key_by_itself() -> None:
    # "then press r" written in an API error was shown where r does nothing (the detail
    # view), or where r does something else (the deliveries screen: replay). "a to add",
    # "ctrl+y copies", "use l", "escape goes back" went on naming the default key after a
    # keymap moved it.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        for node in _shown_strings(path):
            text = node.value
            if (PRESS.search(text) or NAMED.search(text)) and not _allowed(relative, text):
                found.append(f"{relative}:{node.lineno}: {text!r}")
    assert found == []


def test_the_scan_finds_each_way_of_naming_a_key_and_every_exception_is_used() -> None:
    named = [
        "enter to switch · a to add · e to edit · esc to close",
        "The demo has no settings to edit: a to add a profile",
        "Enter sets it, escape cancels.",
        "\n… more lines: ctrl+y copies the whole request",
        "elsewhere, use l or listen",
        "Create things in the tabs (escape goes back)",
        "until the demo ends; d on its row deletes it, v adds it again",
        " · j/k/g/G move · in a delivery: / search, n/N matches",
        "Filter (/): ",
        "more than a clipboard takes: export them with x instead",
        "one per line — ctrl+o imports a file",
        "Writing… (Esc stops)",
        "then press r",
    ]
    assert [text for text in named if not (PRESS.search(text) or NAMED.search(text))] == []
    said = [
        "enter an address",
        "a response took 3 s",
        "the server's address",
        "Go to payout setting / its items",
        "absolute http(s) address",
        "with a success status",
        "a to-do",
    ]
    assert [text for text in said if NAMED.search(text)] == []
    for relative, snippets in NOT_A_BINDING.items():
        texts = [node.value for node in _shown_strings(PACKAGE.parent / relative)]
        for snippet in snippets:
            assert any(snippet in text and NAMED.search(text) for text in texts), snippet


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


async def test_the_profile_picker_names_its_keys_as_the_keymap_moves_them() -> None:
    # "enter to switch · a to add · e to edit · esc to close" and "a to add a profile"
    # were written by hand: with add on n and close on f3, they named keys that did nothing.
    config.save_config(config.ConfigFile(keymap={"profiles.add": "n", "profiles.close": "f3"}))
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await pilot.press("p")
        await wait_for_screen(app, pilot, "ProfileScreen")
        await wait_for(lambda: "to switch" in screen_text(app), pilot)
        assert "enter to switch · n to add · e to edit · f3 to close" in screen_text(app)
        await pilot.press("e")  # on the demo, which has nothing to edit
        await wait_for(lambda: bool(app._notifications), pilot)
        assert [str(n.message) for n in app._notifications][-1] == (
            "The demo has no settings to edit: n to add a profile"
        )


async def test_the_main_screen_and_the_demo_deliveries_name_moved_keys() -> None:
    # "Filter (/)", "d on its row deletes it, v adds it again" and "(escape goes back)".
    config.save_config(
        config.ConfigFile(
            keymap={
                "filter": "f6",
                "delete": "f8",
                "deliveries": "f9",
                "deliveries.back": "f2",
            }
        )
    )
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        assert "Filter (f6): " in screen_text(app)
        await pilot.press("f9")
        await wait_for_screen(app, pilot, "DeliveriesScreen")
        said = [str(n.message) for n in app._notifications]
        assert any("f8 on its row deletes it, f9 adds it again" in text for text in said), said
        assert "in the tabs (f2 goes back): each change arrives here" in screen_text(app)
        await pilot.press("f2")
        await wait_for_screen(app, pilot, "BrowseScreen")


async def test_the_secret_dialog_names_its_keys_as_bound() -> None:
    app = SecretHost()
    app.set_keymap({"webhook_secret.cancel": "f4"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: "cancels" in "\n".join(screen_lines(app)), pilot)
        text = " ".join(line.strip(" │▎▊") for line in screen_lines(app))
        assert "(enter sets it, f4 cancels)." in text and "esc" not in text


class SecretHost(App[None]):
    """Hosts the secret dialog over an empty default screen."""

    def on_mount(self) -> None:
        self.push_screen(WebhookSecretScreen())
