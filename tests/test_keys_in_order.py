"""Keys that arrive in one read of the terminal reach the widget the keys before them
left the focus on (tokensales_tui/ui/key_order.py).

The bursts are put in the app's queue whole, before it handles any, as a fast typist's
keys over SSH or tmux's ``send-keys`` arrive (see test_keys_while_loading.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual import events, messages, on
from textual.app import ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from tokensales_tui.ui import key_order
from tokensales_tui.ui.forms.base import FormScreen
from tokensales_tui.ui.key_order import busy
from tokensales_tui.ui.safe_app import GuardedApp
from tokensales_tui.ui.screens.confirm import ConfirmScreen
from tokensales_tui.ui.screens.setup import SetupScreen

from .apphelpers import loaded, wait_for
from .formhelpers import SIZE, demo, open_form
from .test_keys_while_loading import burst

DEFAULT_WAIT = key_order.KEY_WAIT


@pytest.fixture(autouse=True)
def patient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys wait for the ones before them as long as need be: on a loaded machine a form
    can take longer than the bound to mount, and the bound has a test of its own."""
    monkeypatch.setattr(key_order, "KEY_WAIT", 10.0)


class Opened(Screen[None]):
    AUTO_FOCUS = "#opened"

    def __init__(self) -> None:
        super().__init__()
        self.mouse_downs = 0

    def compose(self) -> ComposeResult:
        yield Input(id="opened")

    def on_mouse_down(self) -> None:
        self.mouse_downs += 1


class Fields(GuardedApp[None]):
    """Two fields; tab moves between them (the screen's binding); `ctrl+o` opens a screen
    with a field of its own, and so does `ctrl+t`, which the app answers itself."""

    BINDINGS = [
        Binding("ctrl+o", "open", "Open"),
        Binding("ctrl+t", "open", "Open at once", priority=True),
    ]

    def compose(self) -> ComposeResult:
        yield Input(id="first", select_on_focus=False)
        yield Input(id="second", select_on_focus=False)

    def action_open(self) -> None:
        self.push_screen(Opened())


def value(app: Any, selector: str) -> str:
    field: Input = app.screen.query_one(selector, Input)
    return field.value


async def test_characters_after_a_tab_go_to_the_next_field() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        assert app.focused is app.query_one("#first")
        burst(app, "a", "b", "tab", "c", "d", "shift+tab", "e")
        await wait_for(lambda: value(app, "#second") == "cd" and not app.keys_held, pilot)
        await pilot.pause()
        assert value(app, "#first") == "abe"


@pytest.mark.parametrize("opens", ["ctrl+o", "ctrl+t"])
async def test_characters_after_a_key_that_opens_a_screen_go_to_its_field(opens: str) -> None:
    app = Fields()
    async with app.run_test() as pilot:
        burst(app, "x", opens, "h", "i")
        await wait_for(lambda: isinstance(app.screen, Opened) and not app.keys_held, pilot)
        await pilot.pause()
        assert value(app, "#opened") == "hi"
        app.pop_screen()
        await pilot.pause()
        assert value(app, "#first") == "x"


async def test_keys_held_up_by_a_stuck_widget_all_go_on_once_they_have_waited_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = asyncio.Event()

    class Slow(Input):
        async def on_key(self, event: events.Key) -> None:
            if event.key == "x":
                await gate.wait()  # stuck, its queue filling (the keys after x, a blink)

    class SlowApp(GuardedApp[None]):
        def compose(self) -> ComposeResult:
            yield Slow(id="slow")

    monkeypatch.setattr(key_order, "KEY_WAIT", DEFAULT_WAIT)
    app = SlowApp()
    async with app.run_test() as pilot:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            burst(app, "x", "y", "z", "a", "b", "c")
            # Pilot's pauses wait for every widget to be idle: plain sleeps here.
            while app.keys_held < 4 and loop.time() < start + 5:
                await asyncio.sleep(0.01)
            assert app.keys_held >= 4
            while app.keys_held and loop.time() < start + 10:
                await asyncio.sleep(0.01)
            waited = loop.time() - start
            assert not app.keys_held
            assert waited >= DEFAULT_WAIT * 0.9
            # Two bounds at most (the stuck queue, then a key stuck in it), not a
            # bound per key (five keys held: 2.5 s).
            assert waited < DEFAULT_WAIT * 4
            assert value(app, "#slow") == ""  # all still behind the stuck x
        finally:
            gate.set()
        await wait_for(lambda: value(app, "#slow") == "xyzabc", pilot)


async def test_a_form_field_then_tab_then_the_next_field_in_one_burst() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        url = form.query_one("#url", Input)
        assert app.focused is url
        burst(app, "h", "t", "tab", "i", "t", "e", "m")
        await wait_for(lambda: form.query_one("#events", Input).value == "item", pilot)
        assert url.value == "ht"


async def test_enter_in_a_form_field_moves_the_characters_after_it_on() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        burst(app, "h", "enter", "i")
        await wait_for(lambda: form.query_one("#events", Input).value == "i", pilot)
        assert form.query_one("#url", Input).value == "h"


async def test_the_new_key_then_a_url_in_one_burst_fills_the_new_form() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        browse = app.screen
        burst(app, "n", *"https", "colon", "slash", "slash", *"ops", "full_stop", *"example")
        await wait_for(lambda: isinstance(app.screen, FormScreen) and not app.keys_held, pilot)
        form = app.screen
        await wait_for(lambda: form.query_one("#url", Input).value == "https://ops.example", pilot)
        assert app.screen_stack[-2:] == [browse, form]  # no `p` opened the profile picker
        assert app.active_tab.table.sort_column is None  # no `s` reached the table


async def test_escape_then_characters_leave_the_form_as_it_was() -> None:
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "1")
        await pilot.press("x")
        burst(app, "escape", "z", "tab")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen) and not app.keys_held, pilot)
        await pilot.pause()
        assert form.query_one("#url", Input).value == "x"


@pytest.mark.parametrize(
    "ahead", [("enter",), ("tab", "enter"), ("right", "enter"), ("tab", "ctrl+j")]
)
async def test_keys_typed_ahead_of_the_delete_dialog_never_answer_it(
    ahead: tuple[str, ...],
) -> None:
    # Typed in one read with `d`, before the dialog was there: dropped. Only a key typed
    # once it shows answers it.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        tab = app.active_tab
        row = tab.highlighted
        taken = app._keys_taken
        burst(app, "d", *ahead)
        await wait_for(lambda: app._keys_taken == taken + 1 + len(ahead), pilot)
        await wait_for(lambda: not app.keys_held and isinstance(app.screen, ConfirmScreen), pilot)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert row.id in app.emulator.webhooks
        await pilot.press("enter")  # typed once it shows: Cancel, the focus
        await wait_for(lambda: not isinstance(app.screen, ConfirmScreen), pilot)
        assert row.id in app.emulator.webhooks


async def test_a_key_typed_once_the_dialog_has_the_focus_answers_it_though_not_yet_mounted() -> (
    None
):
    # On a loaded machine a dialog's Cancel had the focus a moment before the dialog's
    # mount ended: escape typed then was taken for a key typed ahead and dropped, and
    # the question stayed up, what asked it waiting for ever.
    class SlowToMount(ConfirmScreen):
        async def _compose(self) -> None:
            await super()._compose()  # Cancel has the focus from here
            await asyncio.sleep(0.3)  # other tasks run before the mount, as on a busy loop

    answers: list[bool | None] = []
    app = GuardedApp[None]()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(SlowToMount("Delete?", "a thing"), answers.append)

        async def focused() -> None:  # not the pilot's pause: it waits for the mount
            while not (isinstance(app.screen, SlowToMount) and app.screen.focused is not None):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(focused(), 10)
        burst(app, "escape")  # typed with the dialog up, its Cancel focused
        await wait_for(lambda: answers == [False], pilot)


async def test_a_secret_typed_before_a_save_that_fails_stays_in_the_secret_field(
    tmp_path: Path,
) -> None:
    # ctrl+s (a priority binding) moves the focus to the first empty field, in a turn of
    # the app's: the secret's characters typed before it are the secret field's, never a
    # plain field's, and those typed after it go where it moved the focus.
    class Host(GuardedApp[None]):
        def on_mount(self) -> None:
            self.push_screen(
                SetupScreen(
                    transport_factory=lambda: httpx.MockTransport(print),
                    config_path=tmp_path / "c.toml",
                )
            )

    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, SetupScreen), pilot)
        await pilot.pause()
        secret = app.screen.query_one("#api-secret", Input)
        secret.focus()
        await pilot.pause()
        burst(app, "s", "3", "c", "ctrl+s", "k")
        await wait_for(lambda: not app.keys_held and app.focused is not secret, pilot)
        await pilot.pause()
        assert secret.value == "s3c"
        first_wrong = app.screen.query_one("#base-url", Input)  # empty, required
        assert app.focused is first_wrong
        assert first_wrong.value == "k"
        assert not (tmp_path / "c.toml").exists()


async def test_a_collection_added_and_named_in_one_burst() -> None:
    # ctrl+n mounts a new collection (awaited) and focuses its name in a turn of the
    # app's: the name typed behind it is that collection's.
    app = demo()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, "5")
        first = form.query_one("#c1-name", Input)
        burst(app, *"Gen", "ctrl+n", *"Two")
        await wait_for(lambda: form.has_widget("c2-name") and not app.keys_held, pilot)
        second = form.query_one("#c2-name", Input)
        await wait_for(lambda: second.value == "Two", pilot)
        assert first.value == "Gen"
        assert app.focused is second


def click(app: Any, widget: Input) -> None:
    """A click on ``widget`` from the terminal, put in the app's queue behind the keys."""
    x, y = widget.region.x + 2, widget.region.y + 1
    for kind in (events.MouseDown, events.MouseUp):
        event = kind(None, x, y, 0, 0, 1, False, False, False, screen_x=x, screen_y=y)
        event.set_sender(app)
        app.post_message(event)


@pytest.mark.parametrize("before", [("tab",), ("tab", "b")])
async def test_a_click_behind_a_key_on_its_way_comes_after_it(before: tuple[str, ...]) -> None:
    # Tab moves the focus to the second field, then the click back to the first: the
    # click does not go first (tab would then take the focus from under it).
    app = Fields()
    async with app.run_test() as pilot:
        first = app.query_one("#first", Input)
        burst(app, *before)
        click(app, first)
        burst(app, "c")
        await wait_for(lambda: value(app, "#first") == "c" and not app.keys_held, pilot)
        await pilot.pause()
        assert app.focused is first
        assert value(app, "#second") == "".join(before[1:])


async def test_a_click_held_while_a_key_opened_a_screen_is_dropped() -> None:
    # Aimed at the fields behind: it must not land on the screen the key opened.
    app = Fields()
    async with app.run_test() as pilot:
        second = app.query_one("#second", Input)
        burst(app, "a", "ctrl+o")
        click(app, second)
        burst(app, "h")
        await wait_for(lambda: isinstance(app.screen, Opened) and not app.keys_held, pilot)
        await wait_for(lambda: value(app, "#opened") == "h", pilot)
        opened = app.screen
        assert isinstance(opened, Opened)
        assert opened.mouse_downs == 0
        app.pop_screen()
        await pilot.pause()
        assert app.focused is not second


async def test_a_key_waits_for_what_a_widget_was_asked_not_for_its_repaints() -> None:
    # While a list loads the screen's queue is seldom without repaints and layouts: a
    # key typed then must not wait for them, but does for anything else (a focus()).
    app = Fields()
    async with app.run_test():
        screen = app.screen
        assert not busy(screen)
        for message in (messages.Update(screen), messages.Layout(screen), messages.Prompt()):
            screen._message_queue.put_nowait(message)  # the screen has no turn meanwhile
        assert not busy(screen)
        screen._message_queue.put_nowait(events.Callback(callback=lambda: None))
        assert busy(screen)


class Mounting(Screen[None]):
    """A screen whose last widget takes its time to mount (``gate``), and a key (page down)
    that reaches for it, as `2` on the browse screen reaches for its tabs."""

    BINDINGS = [Binding("pagedown", "reach", "Reach")]

    def __init__(self, gate: asyncio.Event) -> None:
        super().__init__()
        self.gate = gate
        self.reached: list[str] = []

    def compose(self) -> ComposeResult:
        gate = self.gate

        class Late(Input):
            async def on_mount(self) -> None:
                await gate.wait()

        yield Input(id="early")
        yield Late(id="late")

    def action_reach(self) -> None:
        self.reached.append(self.query_one("#late", Input).id or "")


async def until(condition: Any, timeout: float = 5.0) -> None:
    """Let the loop run until ``condition()`` holds (not ``pilot.pause``: it waits for the
    screen, busy mounting)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def starting_on(screen: Screen[Any]) -> GuardedApp[None]:
    """An app whose first screen is ``screen``."""

    class Starting(GuardedApp[None]):
        def get_default_screen(self) -> Screen[Any]:
            return screen

    return Starting()


def shown(app: Any) -> Any:
    try:
        return app.screen
    except ScreenStackError:
        return None


async def test_keys_typed_as_the_app_starts_wait_for_its_screen_to_finish_mounting() -> None:
    # `2` typed as the app started switched to a tab its screen had not made yet, and
    # the app ended with an error. The app takes keys while its first screen mounts.
    gate = asyncio.Event()
    screen = Mounting(gate)

    app = starting_on(screen)

    async def type_ahead() -> tuple[int, list[str]]:
        try:
            await until(lambda: shown(app) is screen and app._driver is not None)
            burst(app, "pagedown", "pagedown")
            await until(lambda: app.keys_held == 2)
            await asyncio.sleep(0.1)
            return app.keys_held, list(screen.reached)
        finally:
            gate.set()  # else the app never starts

    typing = asyncio.create_task(type_ahead())
    async with app.run_test() as pilot:
        held, reached = await typing
        assert (held, reached) == (2, [])
        await wait_for(lambda: len(screen.reached) == 2, pilot)
        assert screen.reached == ["late", "late"]


async def test_keys_go_on_if_the_screen_never_finishes_mounting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(key_order, "MOUNT_WAIT", 0.3)
    gate = asyncio.Event()
    screen = Mounting(gate)

    app = starting_on(screen)

    async def type_ahead() -> bool:
        try:
            await until(lambda: shown(app) is screen and app._driver is not None)
            burst(app, "x")
            await until(lambda: app.keys_held == 1)
            await until(lambda: app.keys_held == 0)  # gone on, the screen still mounting
            return screen.is_mounted
        finally:
            gate.set()

    typing = asyncio.create_task(type_ahead())
    async with app.run_test():
        assert await typing is False


class Busy(Message):
    """A step of work for the screen, which posts the next until the gate opens."""


class Tab(Vertical):
    """A filter and a table-like field, as a tab has them. Enter in the filter sends the
    cursor to the other field: here (a focus() through the app's queue) when the tab
    ``answers`` it, else on the screen."""

    def __init__(self, answers: bool) -> None:
        super().__init__()
        self.answers = answers
        self.keys: list[events.Key] = []

    def compose(self) -> ComposeResult:
        yield Input(id="filter", select_on_focus=False)
        yield Input(id="rows", select_on_focus=False)

    def on_key(self, event: events.Key) -> None:
        self.keys.append(event)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if self.answers:
            event.stop()
            self.query_one("#rows", Input).focus()


class Filtering(Screen[None]):
    """A tab on a screen that can be kept busy: one step of work after another, always
    one waiting in its queue, as its first frames keep the browse screen's. Enter in
    the filter is answered by the tab or, as a table's enter is, by the screen."""

    def __init__(self, gate: asyncio.Event, answers: str = "tab") -> None:
        super().__init__()
        self.gate = gate
        self.answers = answers
        self.steps = 0
        """Steps of work in the queue."""

    def compose(self) -> ComposeResult:
        yield Tab(self.answers == "tab")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.set_focus(self.query_one("#rows", Input))

    def keep_busy(self) -> None:
        while self.steps < 2:
            self.steps += 1
            self.post_message(Busy())

    async def on_busy(self) -> None:
        self.steps -= 1
        if not self.gate.is_set():
            self.keep_busy()
            await asyncio.sleep(0.02)


class FilterApp(GuardedApp[None]):
    BINDINGS = [Binding("slash", "focus_filter", "Filter", priority=True)]

    def __init__(self, screen: Filtering) -> None:
        super().__init__()
        self.first = screen

    def get_default_screen(self) -> Screen[Any]:
        return self.first

    def action_focus_filter(self) -> None:
        self.screen.set_focus(self.screen.query_one("#filter"))


@pytest.mark.parametrize("repainting", [False, True])
@pytest.mark.parametrize("answers", ["tab", "screen"])
async def test_keys_held_up_by_a_busy_screen_go_on_one_at_a_time_after_the_bound(
    monkeypatch: pytest.MonkeyPatch, answers: str, repainting: bool
) -> None:
    # As the app starts, its first frames keep the screen's queue full past the bound.
    # `/a`, enter, `j` typed ahead then went on at once, and `j` reached the filter
    # before enter had moved the cursor out of it. Passed over, the busy screen still
    # holds `j` while enter's Submitted waits there for the screen to answer it.
    monkeypatch.setattr(key_order, "KEY_WAIT", DEFAULT_WAIT)
    gate = asyncio.Event()
    screen = Filtering(gate, answers)
    app = FilterApp(screen)

    async def repaint() -> None:  # the filter repaints all along (a cursor's blink)
        while not gate.is_set():
            screen.query_one("#filter").refresh()
            await asyncio.sleep(0.003)

    async with app.run_test():
        try:
            screen.keep_busy()  # always a step waiting: the screen is busy
            await until(lambda: busy(screen))
            if repainting:
                painting = asyncio.create_task(repaint())
            burst(app, "slash", "a", "enter", "j")
            # Pilot's pauses wait for the screen: plain sleeps here.
            await until(lambda: app.keys_held == 0 and value(app, "#filter") != "")
            await until(lambda: value(app, "#rows") == "j" or value(app, "#filter") == "aj")
            assert value(app, "#filter") == "a"
            assert app.focused is screen.query_one("#rows")
        finally:
            gate.set()
        if repainting:
            await painting


def starting_for_good(monkeypatch: pytest.MonkeyPatch, app: Any) -> None:
    """``app`` never done starting (a config file on a disk that does not answer)."""
    monkeypatch.setattr(app, "starting", lambda: True)


async def test_keys_wait_for_a_slow_start_once_not_once_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(key_order, "MOUNT_WAIT", 0.3)
    app = Fields()
    starting_for_good(monkeypatch, app)
    async with app.run_test():
        loop = asyncio.get_running_loop()
        start = loop.time()
        burst(app, "a", "b", "c", "d")
        await until(lambda: value(app, "#first") == "abcd")
        waited = loop.time() - start
        assert 0.25 < waited < 0.3 * 3  # the bound once, not for each key
        start = loop.time()
        burst(app, "e")  # still starting: the bound has passed, the key goes on
        await until(lambda: value(app, "#first") == "abcde")
        assert loop.time() - start < 0.25


async def test_quit_while_the_app_starts_waits_for_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = Fields()
    starting_for_good(monkeypatch, app)
    async with app.run_test():
        burst(app, "ctrl+q")
        await until(lambda: not app.is_running, timeout=3.0)  # not MOUNT_WAIT (10 s)


async def test_the_newline_key_is_enter() -> None:
    # Enter typed before the app has the terminal to itself reaches it as a newline.
    screen = Filtering(asyncio.Event())
    app = FilterApp(screen)
    async with app.run_test() as pilot:
        burst(app, "slash", "a")
        newline = events.Key("ctrl+j", "\n")
        newline.time -= 1.0  # read a second ago: a dialog opened since ignores it
        app.post_message(newline)
        burst(app, "j")
        await wait_for(lambda: value(app, "#rows") == "j" and not app.keys_held, pilot)
        assert value(app, "#filter") == "a"
        enter = next(key for key in screen.query_one(Tab).keys if key.key == "enter")
        assert enter.time == newline.time
