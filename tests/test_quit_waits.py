"""Quitting waits for the changes under way, and says those it could not wait for
(``ui/in_flight.py``)."""

from __future__ import annotations

import asyncio
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

import tokensales_tui.ui.app
from tokensales_tui.files import atomic_writer
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.in_flight import InFlight

from .apphelpers import delete_held, loaded, rigged_app, wait_for, wait_for_screen
from .formhelpers import SIZE, messages

WAITING = "Waiting up to 10 s for the changes under way to end: Delete webhook"


def exits(app: TokenSalesApp) -> list[tuple[int, str]]:
    """Each exit the app is asked for: its return code and the text said after it."""
    asked: list[tuple[int, str]] = []
    real = app.exit

    def exit(result: Any = None, return_code: int = 0, message: Any = None) -> None:
        asked.append((return_code, str(message or "")))
        real(result, return_code, message)

    app.exit = exit  # type: ignore[method-assign]
    return asked


async def quit_while_deleting(
    app: TokenSalesApp, pilot: Any, transport: Any
) -> tuple[str, asyncio.Event]:
    """Delete the highlighted webhook, its answer held, and press q: the quit waits.
    The webhook's id, and what lets its answer go."""
    await loaded(app, pilot)
    target: str = app.active_tab.highlighted.id  # type: ignore[union-attr]
    release = await delete_held(app, pilot, transport)
    await wait_for(lambda: bool(app.changes.pending()), pilot)
    await pilot.press("q")
    await wait_for(lambda: any(WAITING in m for m in messages(app)), pilot)
    return target, release


async def test_quitting_while_a_delete_is_in_flight_waits_for_its_answer() -> None:
    # The app exited 0 at once and its outcome was never said (the server did delete).
    app, transport = rigged_app()
    asked = exits(app)
    async with app.run_test(size=SIZE) as pilot:
        target, release = await quit_while_deleting(app, pilot, transport)
        assert f"(DELETE /v1/platform-webhooks/{target})" in messages(app)[-1]
        assert app.is_running
        release.set()
        await wait_for(lambda: not app.is_running, pilot)
    assert asked == [(0, "")]
    assert target not in app.rigged_emulator.webhooks  # type: ignore[attr-defined]


async def test_quitting_again_while_waiting_quits_and_says_each_change_unknown() -> None:
    app, transport = rigged_app()
    asked = exits(app)
    async with app.run_test(size=SIZE) as pilot:
        target, _release = await quit_while_deleting(app, pilot, transport)  # never answered
        await pilot.press("ctrl+q")
        await wait_for(lambda: not app.is_running, pilot)
    [(code, said)] = asked
    assert code == 1
    assert said.startswith("tokensales-tui quit with 1 change under way:")
    assert f"(DELETE /v1/platform-webhooks/{target}): outcome unknown — check it" in said


async def test_a_change_unanswered_within_the_wait_is_said_unknown_after_the_quit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokensales_tui.ui.app, "QUIT_WAIT", 0.3)
    app, transport = rigged_app()
    asked = exits(app)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await delete_held(app, pilot, transport)  # never answered
        await wait_for(lambda: bool(app.changes.pending()), pilot)
        await pilot.press("q")
        await wait_for(lambda: not app.is_running, pilot)
    [(code, said)] = asked
    assert code == 1 and "outcome unknown — check it" in said


async def test_a_change_waiting_to_be_sent_is_not_waited_for() -> None:
    # Held before its request went (its token awaited): nothing was sent, nothing to check.
    app, transport = rigged_app()
    asked = exits(app)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        transport.held["/v1/token"] = asyncio.Event()
        app.api._client.tokens._token = None  # type: ignore[union-attr]
        await pilot.press("q")
        await wait_for(lambda: not app.is_running, pilot)
    assert asked == [(0, "")]


async def test_nothing_more_is_sent_once_the_quit_has_begun() -> None:
    # A bulk delete went on while the quit waited: it sent its next row's DELETE, which
    # the quit then cut off and called "outcome unknown" (the quit's wait took the
    # changes under way when it began, and those begun during it were never waited for).
    app, transport = rigged_app()
    asked = exits(app)
    sent: list[str] = []
    transport.hook = lambda request: (
        sent.append(request.url.path) if request.method == "DELETE" else None
    )
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        webhooks = list(app.rigged_emulator.webhooks)  # type: ignore[attr-defined]
        release = asyncio.Event()
        for webhook in webhooks:
            transport.held[f"/v1/platform-webhooks/{webhook}"] = release
        await pilot.press("ctrl+a", "d")
        await wait_for_screen(app, pilot, "ConfirmScreen")
        await pilot.press("tab", "enter")
        await wait_for(lambda: bool(app.changes.pending()), pilot)
        await pilot.press("q")
        await wait_for(lambda: any("Waiting up to 10 s" in m for m in messages(app)), pilot)
        release.set()
        await wait_for(lambda: not app.is_running, pilot)
    assert len(sent) == 1
    assert asked == [(0, "")]
    assert len(app.rigged_emulator.webhooks) == len(webhooks) - 1  # type: ignore[attr-defined]


async def test_the_quit_waits_for_a_change_that_began_while_it_waited() -> None:
    changes = InFlight()
    first = changes.begin("first")

    async def relay() -> None:
        await asyncio.sleep(0.05)
        second = changes.begin("second")  # begun before the first ends
        first.end()
        await asyncio.sleep(0.05)
        second.end()

    task = asyncio.ensure_future(relay())
    assert await changes.settle(5) == []
    await task


async def test_a_signal_says_a_file_being_written_and_only_the_first_signal_counts(
    tmp_path: Path,
) -> None:
    # A signal said no file being written (the quit looked at them; the signal did not),
    # and a second signal (the hang-up after a terminal gone, a TERM after it) changed
    # the exit status and said it all again.
    app, _transport = rigged_app()
    asked = exits(app)
    holding, let_go = threading.Event(), threading.Event()

    def write() -> None:
        with atomic_writer(tmp_path / "export.csv") as file:
            file.write(b"id\n")
            holding.set()
            let_go.wait(10)

    writer = threading.Thread(target=write)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        writer.start()
        try:
            assert holding.wait(10)
            app.end_by_signal(signal.SIGHUP)
            app.end_by_signal(signal.SIGTERM)
            await wait_for(lambda: not app.is_running, pilot)
        finally:
            let_go.set()
            writer.join(10)
    [(code, text)] = asked
    assert code == 128 + signal.SIGHUP
    assert text.startswith("tokensales-tui ended by SIGHUP with 1 change under way:")
    assert f"the file {tmp_path / 'export.csv'}: outcome unknown — check it" in text
