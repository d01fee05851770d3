"""`o` opens only http(s) addresses, shows them in full first, and copies over SSH."""

from __future__ import annotations

import os
import webbrowser
from pathlib import Path

import pytest
from textual.widget import Widget

from tokensales_tui.session import Launch
from tokensales_tui.ui import links
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import loaded, screen_text, wait_for, wait_for_screen

SIZE = (120, 40)
LONG = "https://cdn.example.com/" + "very-long-path/" * 8 + "image.png"


async def with_image_url(app: TokenSalesApp, pilot, url: str) -> None:  # type: ignore[no-untyped-def]
    await loaded(app, pilot)
    item_id = next(iter(app.emulator.items))
    app.emulator.items[item_id] = dict(app.emulator.items[item_id], imageUrl=url)
    await pilot.press("2", "r")
    await wait_for(lambda: any(r.image_url == url for r in app.active_tab.table.rows), pilot)
    app.active_tab.table.move_cursor_to(lambda r: r.id == item_id)


def shown_in(app: TokenSalesApp, widget: Widget) -> list[str]:
    """The lines ``widget`` shows on screen, without the spaces after them."""
    region = widget.content_region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return [strip.crop(region.x, region.right).text.rstrip() for strip in strips]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    monkeypatch.setattr(links, "start_browser", lambda url: calls.append(url) or True)
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: calls.append(url) or True)
    return calls


async def test_a_non_http_address_is_never_opened(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, "javascript:alert(document.cookie)")
        await pilot.press("o")
        assert any("Not opened" in n.message for n in app._notifications)
        assert type(app.screen).__name__ != "ConfirmScreen"
    assert opened == []


async def test_the_full_address_is_shown_before_it_opens(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, LONG)
        await pilot.press("o")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await wait_for(lambda: "Open this address" in screen_text(app), pilot)
        from textual.widgets import Static

        subject = app.screen.query_one(".subject", Static)
        assert subject.size.height >= 2  # all of it, wrapped over several lines
        assert "".join(shown_in(app, subject)) == LONG
        assert shown_in(app, app.screen.query_one(".detail", Static)) == ["Host: cdn.example.com"]
        assert opened == []
        await pilot.press("right", "enter")
        await wait_for(lambda: bool(opened), pilot)
    assert opened == [LONG]


async def test_over_ssh_the_address_is_copied_not_launched(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, LONG)
        await pilot.press("o")
        assert app.clipboard == LONG
        assert any("copied" in n.message for n in app._notifications)
    assert opened == []


LOOK_ALIKE = "https://\u0430pple.com/login"  # a Cyrillic а


async def test_a_look_alike_host_is_flagged_with_its_real_form(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, LOOK_ALIKE)
        await pilot.press("o")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "mixes Cyrillic and Latin letters" in text and "xn--pple-43d.com" in text
        await pilot.press("escape")
    assert opened == []


async def test_over_ssh_a_copied_look_alike_is_flagged_too(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, LOOK_ALIKE)
        await pilot.press("o")
        assert any("xn--pple-43d.com" in n.message for n in app._notifications)
    assert opened == []


HIDING = "https://tokensales.example.com-" + "a" * 2000 + "@evil.example/x"
"""An address longer than any dialog: what comes before the "@" is not the host."""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_very_long_address_is_cut_short_and_its_host_named_apart(
    opened: list[str], monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=size) as pilot:
        await with_image_url(app, pilot, HIDING)
        await pilot.press("o")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        text = screen_text(app)
        assert "Open this address in your browser?" in text
        assert "Cancel" in text and "Open" in text  # the buttons stay on screen
        from textual.widgets import Static

        subject = shown_in(app, app.screen.query_one(".subject", Static))
        assert len(subject) == 4 and subject[-1].endswith("…")
        assert subject[0].startswith("https://tokensales.example.com-aaa")
        assert "Host: evil.example" in text
        await pilot.press("right", "enter")
        await wait_for(lambda: bool(opened), pilot)
    assert opened == [HIDING]


async def test_a_toast_cuts_a_long_address_and_the_copy_keeps_it_whole(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, HIDING)
        await pilot.press("o")
        assert app.clipboard == HIDING
        toast = next(n for n in app._notifications if "copied" in n.message)
        assert toast.message.endswith(f"copied: {HIDING[:106]}…{HIDING[-53:]}")
        assert toast.message.endswith("a@evil.example/x")  # the host, after the "@"
    assert opened == []


async def test_a_served_app_opens_the_address_in_the_browser_showing_it(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # It opened a browser on the serving machine (or, with no display there, copied).
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 22 10.0.0.2 22")
    app = TokenSalesApp(Launch(demo=True, served=True))
    urls: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(app, "open_url", lambda url, **_: urls.append(url))
        await with_image_url(app, pilot, "https://cdn.example.com/a.png")
        await pilot.press("o")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("tab", "enter")
        await wait_for(lambda: bool(urls), pilot)
        await pilot.press("1")
        await wait_for(lambda: app.active_tab.resource.key == "webhooks", pilot)
        assert not app.browse.check_action("listen", ())  # its port would be the server's
    assert urls == ["https://cdn.example.com/a.png"] and opened == []


async def test_an_address_whose_host_a_browser_reads_otherwise_is_refused_saying_why(
    opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """urlsplit names bank.example.com; a browser reads the "\\" as "/" and visits
    evil.example: the question must never name the first."""
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await with_image_url(app, pilot, "https://evil.example\\@bank.example.com/login")
        await pilot.press("o")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any("Not opened" in m and "read as /" in m for m in said), said
        assert type(app.screen).__name__ != "ConfirmScreen"
    assert opened == []


def a_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """``BROWSER``: a shell script of ``script``, and no other browser to be found (a
    ``PATH`` of its folder alone, which the script does not use); a display, no SSH."""
    folder = tmp_path / "browsers"
    folder.mkdir()
    browser = folder / "browser"
    browser.write_text(f"#!/bin/sh\nPATH=/usr/bin:/bin\ncd {tmp_path}\n{script}\n")
    browser.chmod(0o755)
    for name, value in {"BROWSER": str(browser), "PATH": str(folder), "DISPLAY": ":0"}.items():
        monkeypatch.setenv(name, value)
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    return browser


RUNS_ON = """: > started
i=0
while [ ! -e released ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
: > ended"""
"""A browser that runs until the test lets it end (or 30 s), as ``lynx`` or
``BROWSER="sleep 30"`` do: Python's webbrowser waits for such a program to end."""


async def open_confirmed(app: TokenSalesApp, pilot, url: str) -> None:  # type: ignore[no-untyped-def]
    await with_image_url(app, pilot, url)
    await pilot.press("o")
    await wait_for_screen(app, pilot, "ConfirmScreen")
    await pilot.press("right", "enter")


async def test_the_app_answers_keys_while_the_browser_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # webbrowser.open ran on the event loop and waited for the program: no key, no
    # redraw, no ctrl+q until it ended.
    a_browser(tmp_path, monkeypatch, RUNS_ON)
    app = TokenSalesApp(Launch(demo=True))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_confirmed(app, pilot, "https://cdn.example.com/a.png")
            await wait_for(lambda: (tmp_path / "started").exists(), pilot)
            await pilot.press("1")
            await wait_for(lambda: app.active_tab.resource.key == "webhooks", pilot)
            said = lambda: [n.message for n in app._notifications]  # noqa: E731
            await wait_for(lambda: "Opened in the browser" in said(), pilot)
            assert not (tmp_path / "ended").exists()  # it runs on, and nothing waits for it
    finally:
        (tmp_path / "released").touch()


async def test_a_browser_that_fails_is_said_with_the_key_that_copies_the_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # webbrowser.open returned False, unread: nothing was said.
    a_browser(tmp_path, monkeypatch, ": > started\nexit 3")
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=SIZE) as pilot:
        await open_confirmed(app, pilot, "https://cdn.example.com/a.png")
        await wait_for(lambda: any(n.title == "Not opened" for n in app._notifications), pilot)
        toast = next(n for n in app._notifications if n.title == "Not opened")
        assert toast.message == (
            "No browser could be started: set BROWSER, or copy the address with O"
        )
        assert toast.severity == "error"
        assert (tmp_path / "started").exists()  # it was asked, and failed
        await pilot.press("O")
        assert app.clipboard == "https://cdn.example.com/a.png"


def test_a_browser_is_never_given_the_app_s_terminal(tmp_path: Path) -> None:
    # Started by webbrowser, a program wrote over the app's screen and read its keys.
    from .test_app_signals import app_on_terminal, screen_of

    folder = tmp_path / "browsers"
    folder.mkdir()
    browser = folder / "browser"
    browser.write_text(
        f"#!/bin/sh\nPATH=/usr/bin:/bin\ncd {tmp_path}\n"
        "echo LEAKED-OUT\necho LEAKED-ERR >&2\necho LEAKED-TTY > /dev/tty\n: > done\n"
    )
    browser.chmod(0o755)
    environment = {"BROWSER": str(browser), "PATH": str(folder), "DISPLAY": ":0"}
    environment.update(SSH_CONNECTION="", SSH_TTY="", SSH_CLIENT="")
    with app_on_terminal(size=SIZE, **environment) as app:
        app.started()
        app.until(lambda: "api.aurora-games.io" in "\n".join(screen_of(app.drawn, *SIZE)))
        os.write(app.input, b"o")
        app.until(lambda: "Open this address" in "\n".join(screen_of(app.drawn, *SIZE)))
        os.write(app.input, b"\t")
        os.write(app.input, b"\r")
        app.until(lambda: (tmp_path / "done").exists(), seconds=30)
        app.until(
            lambda: (
                b"LEAKED" in app.drawn
                or "Opened in the browser" in "\n".join(screen_of(app.drawn, *SIZE))
            ),
            seconds=30,
        )
        assert b"LEAKED" not in app.drawn
        os.write(app.input, b"q")
        assert app.ended() == 0
    assert b"LEAKED" not in app.drawn
