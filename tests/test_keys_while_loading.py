"""Keys typed while a list loads, or in one burst, reach what they were typed for.

A terminal hands keys over as fast as they are typed: several may wait in the app's
queue before the first is handled. The bursts here are put in the app's queue whole,
before the app handles any (a terminal's keys reach it through its driver, a turn of
the loop later each); the load is held by a gate the test opens, so nothing depends
on timing.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from textual import events

from tokensales_tui.emulator import create_app
from tokensales_tui.session import Launch
from tokensales_tui.ui import tabs as tabs_module
from tokensales_tui.ui.app import TokenSalesApp

from .apphelpers import Rigged, burst, emulator_env, loaded, wait_for

SIZE = (120, 40)


class Gated(Rigged):
    """The in-process emulator, holding every list of items until ``gate`` is set."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.gate = asyncio.Event()
        self.waiting = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/items":
            self.waiting += 1
            await self.gate.wait()
        return await super().handle_async_request(request)


def gated_app() -> tuple[TokenSalesApp, Gated]:
    gated = Gated(create_app(seed=0))
    app = TokenSalesApp(Launch(env=emulator_env(), transport_factory=lambda: gated))
    return app, gated


async def test_a_tab_chosen_while_it_loads_has_the_keys_once_rows_come() -> None:
    app, gated = gated_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: gated.waiting > 0, pilot)
        await loaded(app, pilot, "webhooks")
        burst(app, "2")
        await pilot.pause()
        tab = app.active_tab
        assert tab.resource.key == "items"
        assert tab.table.loading  # still waiting for the server
        # Textual hands no key to a widget under its loading indicator (app.focused is
        # None meanwhile), but the focus is the table's, for the keys after the rows.
        assert app.screen.focused is tab.table
        gated.gate.set()
        await loaded(app, pilot, "items")
        await pilot.pause()
        assert app.focused is tab.table
        assert tab.table.cursor_row == 0
        burst(app, "pagedown")
        await pilot.pause()
        assert tab.table.cursor_row > 0


async def test_a_filter_typed_in_one_burst_as_rows_appear_is_all_filter() -> None:
    app, gated = gated_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot, "webhooks")
        burst(app, "2")
        gated.gate.set()
        await loaded(app, pilot, "items")
        tab = app.active_tab
        assert app.focused is tab.table
        burst(app, "slash", "g", "e", "m", "s")
        await pilot.pause()
        await pilot.pause()
        assert tab.filter_input.value == "gems"
        assert app.focused is tab.filter_input
        assert tab.table.sort_column is None  # no `s` reached the table
        assert tab.table.filter_text == "gems"


async def test_a_tab_and_its_filter_in_one_burst() -> None:
    app, gated = gated_app()
    gated.gate.set()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        burst(app, "3", "slash", "e", "t", "h")
        await pilot.pause()
        await pilot.pause()
        tab: Any = app.active_tab
        assert tab.resource.key == "assets"
        assert tab.filter_input.value == "eth"
        assert app.browse.tab("items").filter_input.value == ""


async def test_a_tab_switch_handled_late_leaves_the_filter_focused() -> None:
    app, gated = gated_app()
    gated.gate.set()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        screen: Any = app.screen
        screen.action_show_tab("payouts")  # the tab's message is not handled yet
        screen.action_focus_filter()
        await pilot.pause()
        await pilot.pause()
        tab: Any = app.active_tab
        assert tab.resource.key == "payouts"
        assert app.focused is tab.filter_input


@asynccontextmanager
async def filtered_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    """The app, loaded, its filters looked for in a thread whatever the rows' number:
    ``(pilot, items tab)``."""
    monkeypatch.setattr(tabs_module, "FILTER_AT_ONCE", 0)
    app, gated = gated_app()
    gated.gate.set()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        yield pilot, app.browse.tab("items")


async def test_the_count_line_says_a_filter_is_still_to_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Looked for in a thread (or once the index is there), the filter has not changed
    # the rows yet: the count line says so rather than showing them as unfiltered.
    async with filtered_in_a_thread(monkeypatch) as (pilot, tab):
        count = tab.query_one(".count")
        release = threading.Event()
        filter_job = tab.table.model.filter_job

        def held(text: str) -> Any:
            job = filter_job(text)
            run = job.run
            object.__setattr__(job, "run", lambda: (release.wait(10), run())[1])  # frozen
            return job

        monkeypatch.setattr(tab.table.model, "filter_job", held)
        await pilot.press("2", "slash", *"pass")
        await wait_for(lambda: "filtering…" in str(count.render()), pilot)
        assert tab.table.filter_text == ""
        release.set()
        # The table takes the filter first; its FilterChanged message then redraws the
        # count line, at a later turn of the loop.
        await wait_for(lambda: " of " in str(count.render()), pilot)
        assert tab.table.filter_text == "pass"
        assert "filtering…" not in str(count.render())


async def test_a_long_list_is_filtered_for_the_latest_text_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with filtered_in_a_thread(monkeypatch) as (pilot, tab):
        asked: list[str] = []
        real = tab.table.set_filter
        monkeypatch.setattr(tab.table, "set_filter", lambda text: (asked.append(text), real(text)))
        for text in ("g", "ge", "gem"):  # three keys handled before the table's turn
            tab.filter_input.value = text
        assert asked == []
        await wait_for(lambda: bool(asked), pilot)  # looked for in a thread
        assert set(asked) == {"gem"}  # never "g" or "ge"
        assert tab.table.filter_text == "gem"


async def _steps_around_a_key(
    key: str, focus_filter: bool, frames: bool = True
) -> tuple[TokenSalesApp, list[Any]]:
    """Steps of work on the event loop (``between_steps``) taken while ``key`` is sent:
    what each saw, in order, with the frames drawn and the key sent among them."""
    from tokensales_tui.ui.turns import between_steps

    app, gated = gated_app()
    gated.gate.set()
    loop = asyncio.get_running_loop()
    seen: list[Any] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("2")
        tab: Any = app.browse.tab("items")
        if focus_filter:
            tab.focus_filter()
        await pilot.pause()
        display = app._display

        def drawn(screen: Any, renderable: Any) -> None:
            if frames:
                display(screen, renderable)
            if renderable is not None:
                seen.append("frame")

        app._display = drawn  # type: ignore[method-assign]
        post = app.post_message

        def posted(message: Any) -> bool:
            if isinstance(message, events.Key):
                seen.append(("posted", message.key))
            return post(message)

        app.post_message = posted  # type: ignore[method-assign]
        await app.key_drawn()  # the keys pressed so far are behind us

        async def work() -> None:
            for _ in range(40):
                await between_steps(tab)
                seen.append(("step", tab.filter_input.value, loop.time()))

        worker = asyncio.create_task(work())
        for _ in range(5):
            await asyncio.sleep(0)
        seen.append(("key", loop.time()))
        burst(app, key)
        await asyncio.wait_for(worker, 5.0)  # every wait is bounded
    return app, seen


async def test_steps_of_work_on_the_loop_wait_for_a_keys_frame() -> None:
    # Once the app has the key, it goes to the filter, a turn of the loop or more: no
    # step is taken on the way, and the next one waits for the key's frame.
    _, seen = await _steps_around_a_key("x", focus_filter=True)
    key = seen.index(("posted", "x"))
    after = seen[key + 1 :]
    steps = [index for index, entry in enumerate(after) if entry != "frame"]
    assert after[steps[0]][:2] == ("step", "x")  # the key had reached the filter
    assert "frame" in after[: steps[0]]  # and its frame was drawn


async def test_a_key_whose_frame_never_comes_holds_the_steps_for_the_longest_wait_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui import app as app_module

    monkeypatch.setattr(app_module, "KEY_FRAME_WAIT", 0.3)
    # No frame is drawn at all (as after a key that changes nothing on screen).
    _, seen = await _steps_around_a_key("f24", focus_filter=False, frames=False)
    key = next(index for index, entry in enumerate(seen) if entry[0] == "key")
    times = [seen[key][1]] + [entry[2] for entry in seen[key + 1 :] if entry[0] == "step"]
    # One step waited for the key's frame, as long as it may and no longer.
    held = max(later - earlier for earlier, later in itertools.pairwise(times))
    assert 0.3 <= held < 1.5
    assert sum(1 for entry in seen if entry[0] == "step") == 40


@asynccontextmanager
async def filter_focused() -> AsyncIterator[tuple[TokenSalesApp, Any, Any]]:
    """The app, loaded, the filter of its first tab focused: ``(app, pilot, tab)``."""
    app, gated = gated_app()
    gated.gate.set()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab: Any = app.active_tab
        tab.focus_filter()
        await pilot.pause()
        yield app, pilot, tab


async def _frames_while_a_key_waits(wait: float, idle: float = 0.0) -> list[tuple[str, float]]:
    """The filter's text at each frame drawn from a key ``x`` being put in the app's
    queue to its frame, while the filter (focused) is busy for ``wait`` seconds first
    and the table has changed (a frame is due all along), with the seconds since the
    key; the key comes ``idle`` seconds after the app's last frame."""
    shown: list[tuple[str, float]] = []
    loop = asyncio.get_running_loop()
    posted: float | None = None
    async with filter_focused() as (app, pilot, tab):
        display = app._display
        last = [loop.time()]

        def drawn(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None:
                last[0] = loop.time()
                if posted is not None:
                    shown.append((tab.filter_input.value, loop.time() - posted))

        app._display = drawn  # type: ignore[method-assign]
        tab.filter_input.cursor_blink = False  # a frame each half second
        quiet_by = loop.time() + idle + 10.0
        while loop.time() - last[0] < idle:
            assert loop.time() < quiet_by, "the app kept drawing frames"
            await asyncio.sleep(idle / 10)
        tab.filter_input.call_later(asyncio.sleep, wait)  # the key waits behind this
        posted = loop.time()
        burst(app, "x")
        tab.table.refresh()
        await wait_for(lambda: any(text == "x" for text, _ in shown), pilot)
    return shown


async def test_a_frame_due_while_a_key_is_on_its_way_waits_for_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui import app as app_module

    monkeypatch.setattr(app_module, "KEY_FRAME_HOLD", 30.0)
    monkeypatch.setattr(app_module, "FRAME_LATEST", 30.0)
    # Ticks of the screen's timer fall while the key waits (a frame is due): none draws
    # the screen without the key.
    assert {text for text, _ in await _frames_while_a_key_waits(0.5)} == {"x"}


async def test_a_frame_due_after_a_pause_waits_for_a_key_on_its_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui import app as app_module

    # The screen has not been drawn for longer than a frame may wait; a frame falls due
    # (rows arriving) while a key goes to its widget: it waits for the key, instead of
    # drawing the screen without it and making the key's own frame a frame later. The
    # pause (0.6 s: the app draws a frame of its own about each second) is longer than a
    # frame may wait (0.55 s), which leaves the key's 12 ms behind the widget's other
    # work a wide margin on a loaded machine: with 0.3 s it once took more than the
    # 0.28 s a frame then waited, in a full run on two busy processors, and the frame
    # was drawn without it.
    monkeypatch.setattr(app_module, "KEY_FRAME_HOLD", 30.0)
    monkeypatch.setattr(app_module, "FRAME_LATEST", 0.55)
    shown = await _frames_while_a_key_waits(0.012, idle=0.6)
    assert [text for text, _ in shown][:1] == ["x"]


async def test_a_key_held_up_in_a_busy_widget_does_not_hold_the_screen() -> None:
    # The wait for a key is bounded (20 ms, then at most a tick): the screen is drawn
    # meanwhile, as it was, long before the key's widget is free.
    shown = await _frames_while_a_key_waits(1.0)
    text, after = shown[0]
    assert text == ""
    assert after < 0.5
    assert shown[-1][0] == "x"


async def test_a_frame_waits_no_longer_once_the_key_is_handled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokensales_tui.ui import app as app_module

    monkeypatch.setattr(app_module, "KEY_FRAME_HOLD", 30.0)
    monkeypatch.setattr(app_module, "FRAME_LATEST", 30.0)
    async with filter_focused() as (app, pilot, tab):
        burst(app, "x")
        assert app.frame_waits_for_key(app.screen)  # in the app's queue
        await wait_for(lambda: tab.filter_input.value == "x", pilot)
        await pilot.pause()
        app.call_later(lambda: None)  # other messages for the app: not the key's
        assert app.message_queue_size
        assert not app.frame_waits_for_key(app.screen)


@pytest.mark.parametrize(
    ("keys", "value"),
    [
        (("backspace", "x"), "gex"),
        (("backspace", "backspace", "backspace", "exclamation_mark", "e"), "!e"),
        (("left", "x", "home", "y"), "ygexm"),
    ],
)
async def test_editing_keys_and_characters_in_one_read_land_in_order(
    keys: tuple[str, ...], value: str
) -> None:
    # A character goes into the input in its own turn; backspace and the arrows are the
    # input's bindings, which Textual runs once the key has gone up to the app: typed in
    # one burst, they came after the characters typed behind them.
    async with filter_focused() as (app, pilot, tab):
        await pilot.press("g", "e", "m")
        burst(app, *keys)
        await wait_for(lambda: tab.table.filter_text == value, pilot)
        assert tab.filter_input.value == value


async def test_a_key_from_the_terminal_is_in_the_apps_queue_at_the_loops_next_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Textual's driver has the loop start a task that posts the key, whose first step
    # runs a turn later still, behind every step of work scheduled meanwhile (a piece
    # of a body to decode, rows to index): 9-34 ms while 100,000 items arrive.
    app, gated = gated_app()
    gated.gate.set()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        queued: list[Any] = []
        post = app.post_message

        def posted(message: Any) -> bool:
            queued.append(message)
            return post(message)

        monkeypatch.setattr(app, "post_message", posted)
        key = events.Key("f19", None)
        terminal = threading.Thread(target=app._driver.process_message, args=(key,))
        terminal.start()
        terminal.join()
        await asyncio.sleep(0)  # the loop's next turn
        assert [message for message in queued if isinstance(message, events.Key)] == [key]


def session_held(monkeypatch: pytest.MonkeyPatch) -> tuple[TokenSalesApp, asyncio.Event]:
    """An app whose first session starts only once the event returned is set."""
    app, gated = gated_app()
    gated.gate.set()
    starting = asyncio.Event()
    replace = app._replace_session

    async def held(session: Any) -> None:
        await starting.wait()
        await replace(session)

    monkeypatch.setattr(app, "_replace_session", held)
    return app, starting


async def test_keys_typed_before_the_session_starts_wait_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `n` typed as the app started found no session to add a webhook to and was
    # dropped, and the URL typed after it went to the table (`p` opened the profiles).
    app, starting = session_held(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.screen.is_mounted, pilot)
        burst(app, "n", "h", "p")
        await wait_for(lambda: app.keys_held == 3, pilot)
        await asyncio.sleep(0.3)
        assert app.keys_held == 3  # no session yet: nothing handled, nothing lost
        starting.set()
        await wait_for(
            lambda: not app.keys_held and type(app.screen).__name__ == "WebhookForm", pilot
        )
        await pilot.pause()
        url: Any = app.screen.focused
        assert url.value == "hp"


async def test_a_filter_typed_before_the_session_starts_keeps_the_cursor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `3/eth` typed as the app started: the session, starting after the keys, put the
    # cursor back in the table, and the rest of the filter went to the table.
    app, starting = session_held(monkeypatch)
    monkeypatch.setattr(app, "starting", lambda: False)  # keys on without the session
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "3", "slash", "e", "t")
        tab: Any = app.browse.tab("assets")  # mounted after the first frame
        await wait_for(lambda: tab.filter_input.value == "et" and not app.keys_held, pilot)
        assert app.session is None
        starting.set()
        await loaded(app, pilot)
        burst(app, "h")
        await wait_for(lambda: tab.filter_input.value == "eth", pilot)
        assert app.focused is tab.filter_input
