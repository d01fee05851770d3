"""The application: start-up, sessions, the screens and the keys that work everywhere.

Starting the app resolves the profile from flags, environment and config file; with
nothing configured it shows the first-run setup, with a broken config file an error
screen that offers the demo. The main screen (:mod:`.screens.browse`) shows the
session; a profile switch replaces the session under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs
from textual import events, on
from textual.app import ScreenStackError, SystemCommand
from textual.screen import UPDATE_PERIOD
from textual.signal import Signal

from .. import config, files
from ..api import Connection
from ..api.models import restore_collections
from ..clean import clean_line
from ..debug_log import disable_debug_log, enable_debug_log
from ..files import atomic_write
from ..mask import masking, set_masking
from ..payouts import PayoutAdd, PayoutRecord, PayoutRecordError
from ..session import Launch, Session, demo_session, profile_session
from ..signals import exit_status, signal_name
from .file_settings import CONFIG_WAIT, SettingsApp, read_config_within
from .in_flight import QUIT_WAIT, Change, InFlight, unknown_outcomes
from .key_frames import hold_frames_for_keys
from .key_hints import key_for, key_in
from .safe import text
from .screens.browse import BrowseScreen
from .served import served_fence
from .tabs import ResourceTab
from .widgets.header import StatusHeader
from .worker import ApiRetrying, ApiWorker

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen
    from textual.worker import Worker

    from .screens.profiles import PickerChoice

__all__ = ["TokenSalesApp", "screenshot_folder"]

log = logging.getLogger(__name__)

KEY_FRAME_WAIT = 0.025
"""Longest wait of a step of work on the event loop for the frame after a key (the
next frame starts within one 60 Hz interval: a key that changes nothing on screen
holds the steps no longer)."""

KEY_TURNS = 8
"""Most turns of the event loop a key is given to reach the focused widget before
the steps of work on the loop wait for the next frame."""

KEY_FRAME_HOLD = 0.02
"""How long after a key the screen's frames wait for it while it is on its way to its
widget (:mod:`.key_frames`): a turn or two of the loop, unless the widget is busy. The
frames fall on a 60 Hz grid: one or two of them wait."""

FRAME_LATEST = 0.05
"""A frame never waits for a key this long after the last frame drawn, however many
keys come meanwhile (keys arriving one after another do not hold the screen); after a
pause, this long after the frame slot before the first that waited."""

SERVED_OFF = frozenset({"switch_profile"})
"""The app's actions a tab served to a browser goes without (see ``Launch.served``)."""
SERVED_PROFILE = (
    "Served to a browser, this app stays on its profile: profiles are chosen, added and"
    " edited where serve runs"
)


def screenshot_folder() -> Path:
    """Where a screenshot goes: Downloads when that folder exists, else the working folder.

    When the working folder is gone too, the home folder.
    """
    for folder in (platformdirs.user_downloads_path, Path.cwd, Path.home):
        try:
            path = folder()
        except OSError:  # the working folder was removed
            continue
        if path.is_dir():
            return path
    return Path.home()


QUIT_SHOWN = 3
"""Changes a quit names while it waits for them (the rest counted)."""


class _Recording:
    """A payout definition's add into a record kept in a file, as a change under way:
    from the record made ready (its request may go) to the record written or let go,
    and on while its file system leaves the record's replacement unanswered."""

    def __init__(self, add: PayoutAdd, path: Path) -> None:
        self._add = add
        self._path = path  # the record's file

    @property
    def what(self) -> str:
        name = clean_line(str(self._add.definition.get("name", "")))
        return f"payout definition {name}, its record in {self._add.record.path}"

    @property
    def paths(self) -> tuple[Path, ...]:
        """The record's files, its own and those under an earlier name it takes over
        (their locks held while its request is out): their writes are this change's."""
        earlier = (path for path, _service in self._add.record.earlier)
        return (self._path, *earlier)

    @property
    def in_flight(self) -> bool:
        unknown = files.unknown_writes()
        return self._add.in_flight or any(path in unknown for path in self.paths)

    @property
    def done(self) -> bool:
        return not self.in_flight

    async def over(self) -> None:
        await self._add.over()


class TokenSalesApp(SettingsApp[None]):
    """Browse and edit the data of a Token Sales Management Service."""

    CSS_PATH = "app.tcss"
    TITLE = "tokensales-tui"
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, launch: Launch | None = None) -> None:
        super().__init__()
        self.launch = launch or Launch()
        self.session: Session | None = None
        self._keys_ready = False
        """The first session has started, or a screen asks how to start one."""
        self.watch_interval = config.ConfigFile().watch_interval
        """Seconds between the reloads of a watched tab (the config file's ``watch_interval``)."""
        self._api: ApiWorker | None = None
        self._payout_record: PayoutRecord | None = None
        self._payout_adds: set[PayoutAdd] = set()
        """The payout definitions being added, until their record is written or let go."""
        self._quitting = False
        self.changes = InFlight()
        """The changes under way: quitting waits for them (see :mod:`.in_flight`)."""
        self._log_handler = enable_debug_log(self.launch.log_file) if self.launch.log_file else None
        self.mask_changed_signal: Signal[bool] = Signal(self, "mask-changed")
        """Published with the new state when mask mode is turned on or off."""
        set_masking(self.launch.mask)
        self._last_input = time.monotonic()
        self._keys_posted = 0
        """Keys the terminal's driver has posted to the app."""
        self._keys_seen = 0
        """Of those, the keys whose frame background steps have waited for, or that were
        handled before a frame drawn since."""
        self._key_way: asyncio.Task[None] | None = None
        self._frame: asyncio.Event | None = None
        """Set at the next frame drawn, for :meth:`key_drawn`."""
        self._keys_taken = 0
        """Of those, the keys the app has taken from its queue (and handed to the focused
        widget, or handled by a binding)."""
        self._key_posted_at = 0.0
        self._frame_drawn_at = 0.0
        self._frame_held_since: float | None = None
        """Where :data:`FRAME_LATEST` counts from for the frames held for keys now."""
        hold_frames_for_keys()

    def starting(self) -> bool:
        # Keys typed ahead wait for the first session: its tabs' actions need it.
        return not self._keys_ready

    def post_message(self, message: Message) -> bool:
        posted = super().post_message(message)
        if posted and isinstance(message, events.Key) and not message.is_forwarded:
            self._keys_posted += 1
            self._key_posted_at = time.monotonic()
        return posted

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._keys_taken += 1
        if isinstance(event, events.InputEvent):
            self._last_input = time.monotonic()
        await super().on_event(event)

    def quiet_for(self) -> float:
        """Seconds since the last key, click or mouse movement."""
        return time.monotonic() - self._last_input

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        super()._display(screen, renderable)
        if renderable is None:
            return
        self._frame_drawn_at = time.monotonic()
        self._frame_held_since = None
        if self._frame is not None:
            self._frame.set()
        if self._keys_seen < self._keys_posted and not self._keys_on_their_way(screen):
            self._keys_seen = self._keys_posted  # handled before this frame: drawn

    def keys_to_come(self) -> bool:
        """Whether keys (or a paste) are still to be handled after the one being handled
        now: in the app's queue, or held for the key before them (:mod:`.key_order`)."""
        return self._keys_taken < self._keys_posted or bool(self.keys_held)

    def frame_waits_for_key(self, screen: Screen[Any]) -> bool:
        """Whether the frame of ``screen`` due now should wait for a key on its way to
        its widget (:mod:`.key_frames`): still in the app's queue, held for the key
        before it (:mod:`.key_order`), or in the queue of the focused widget (the
        screen's when nothing has the focus). Never for a key posted
        :data:`KEY_FRAME_HOLD` ago or more, nor :data:`FRAME_LATEST` or more after the
        last frame drawn, or after the slot before the first frame held when that was
        longer ago.

        After a pause too: a frame due then (rows arriving, a clock) while a key was on
        its way drew the screen without the key, and the key's own frame came after it
        (15 ms later for a table here)."""
        now = time.monotonic()
        if now - self._key_posted_at >= KEY_FRAME_HOLD:
            return False
        try:
            if screen is not self.screen:
                return False
        except ScreenStackError:  # the app ends
            return False
        if not (
            self._keys_taken < self._keys_posted
            or self.keys_held
            or (screen.focused or screen).message_queue_size
        ):
            self._frame_held_since = None  # this frame is drawn, or nothing is due
            return False
        if self._frame_held_since is None:
            self._frame_held_since = max(self._frame_drawn_at, now - UPDATE_PERIOD)
        return now - self._frame_held_since < FRAME_LATEST

    async def key_drawn(self) -> None:
        """Return once the keys sent so far have reached the focused widget and the
        frame after them is drawn (or :data:`KEY_FRAME_WAIT` later: a key may change
        nothing on screen).

        For work done on the event loop a step at a time while someone types: a key
        goes from the app to the focused widget (or the screen), a turn of the loop
        each, and a step taken at each turn, then one before the frame, would delay the
        key's frame by several steps. Every step waiting shares one wait.
        """
        if self._keys_seen < self._keys_posted and (self._key_way is None or self._key_way.done()):
            self._key_way = asyncio.create_task(self._follow_keys(self._keys_posted))
        if self._key_way is not None and not self._key_way.done():
            await asyncio.shield(self._key_way)

    async def _follow_keys(self, posted: int) -> None:
        try:
            for _ in range(KEY_TURNS):
                try:
                    screen = self.screen
                except ScreenStackError:  # the app ends
                    return
                if not self._keys_on_their_way(screen):
                    break
                await asyncio.sleep(0)
            self._frame = frame = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(frame.wait(), KEY_FRAME_WAIT)
        finally:
            self._frame = None
            self._keys_seen = max(self._keys_seen, posted)

    def _keys_on_their_way(self, screen: Screen[Any]) -> bool:
        """Whether a key may still wait in the queue of the app, the screen or the
        focused widget (it goes through the app's to the focused widget's, or the
        screen's when nothing has the focus), or for the key before it (:mod:`.key_order`)."""
        focused = screen.focused
        return bool(
            self.keys_held
            or self.message_queue_size
            or screen.message_queue_size
            or (focused is not None and focused.message_queue_size)
        )

    # --- mask mode -------------------------------------------------------------------

    @property
    def masked(self) -> bool:
        """Whether mask mode is on."""
        return masking()

    def set_mask(self, on: bool) -> None:
        """Turn mask mode on or off; everything shown follows at once."""
        if on == masking():
            return
        set_masking(on)
        self.mask_changed_signal.publish(on)
        self.refresh(layout=True)

    def action_toggle_mask(self) -> None:
        """Turn mask mode on or off."""
        self.set_mask(not masking())
        self.notify(
            "Mask mode on: addresses, e-mails, account ids and keys are partly hidden"
            if masking()
            else "Mask mode off: every value is shown in full",
        )

    def get_default_screen(self) -> BrowseScreen:
        return self.browse

    @cached_property
    def browse(self) -> BrowseScreen:
        """The main screen, at the bottom of the stack (kept after the stack empties at exit)."""
        return BrowseScreen()

    @property
    def active_tab(self) -> ResourceTab:
        """The tab in view on the main screen."""
        return self.browse.active_tab

    @property
    def emulator(self) -> Any:
        """The in-process emulator's state in a demo session (tests switch its faults)."""
        return self.session.emulator if self.session is not None else None

    @property
    def read_only(self) -> bool:
        """Whether the session refuses changes."""
        return self.session is not None and self.session.read_only

    @property
    def config_file(self) -> Path | None:
        return self.launch.config_path

    def saves_theme(self) -> bool:
        # Served, a browser's choice is for its tab: not the serving machine's file.
        return not self.launch.served

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def on_unmount(self) -> None:
        set_masking(False)
        # A load's deferral of full collections ends at a settle that an app ending
        # within a second of the load never reaches (its process may go on: tests).
        restore_collections()
        if self._log_handler is not None:
            disable_debug_log(self._log_handler)
            self._log_handler = None

    # --- start-up ------------------------------------------------------------------

    async def _read_config(self) -> config.ConfigFile:
        """The config file, read in a thread (a slow disk or a network home must not freeze)
        and waited for :data:`CONFIG_WAIT` at most.

        Raises:
            config.ConfigError: it cannot be read, is not read in time or does not parse.
        """
        return await read_config_within(self.launch.config_path, CONFIG_WAIT)

    async def begin(self) -> None:
        """Read the config file and start a session, or show the setup or the error screen.

        The main screen calls this once its tabs are mounted, so a session never starts
        before there are tabs to show it.
        """
        try:
            loaded = await self._read_config()
        except config.ConfigError as error:
            if not self.launch.demo:
                self._fence_in(None)
                self._show_config_error(error)
                return
            self.notify(str(error), title="Config file ignored", severity="warning", markup=False)
            loaded = config.ConfigFile()
        self.use_keymap(loaded.keymap)
        self.use_theme(loaded.theme)
        self.watch_interval = loaded.watch_interval
        # Served, the one who could mend the folder is not the one reading the tab (who
        # would learn the serving machine's paths): serve's own terminal says it.
        for warning in (
            ()
            if self.launch.served
            else await asyncio.to_thread(config.permission_warnings, self.launch.config_path)
        ):
            self.notify(warning, severity="warning", markup=False, timeout=10)
        if self.launch.demo:
            self._fence_in(None)
            self.start_demo()
            return
        try:
            profile = config.resolve_profile(loaded, cli=self.launch.overrides, env=self.launch.env)
        except config.NoConfiguration as error:
            self._fence_in(None)
            if self.launch.served:  # the setup form would write the serving machine's file
                self._show_config_error(error)
            else:
                self._show_setup(loaded)
        except config.ConfigError as error:
            self._fence_in(None)
            self._show_config_error(error)
        else:
            self._fence_in(profile.connection())
            self._start(profile_session(profile, self.launch))

    def _fence_in(self, connection: Connection | None) -> None:
        """Served: everything the tab needs of the machine's files is read; from here on
        the interpreter refuses whatever else it could make the machine do."""
        if self.launch.served and self.launch.fence is not None:
            # Loaded before the fence: a crash is shown whatever it refuses later, and the
            # HTTP client's lazy imports (trio, where installed, looks for a C library
            # with the compiler, ctypes and temporary files) are done at full reach.
            import httpcore  # noqa: F401

            from . import crash  # noqa: F401

            self.launch.fence(served_fence(connection, self.launch.config_path))

    def _show_setup(self, loaded: config.ConfigFile) -> None:
        from .screens.setup import SetupScreen

        self._keys_ready = True  # the setup screen takes the keys

        def done(result: Any) -> None:
            if result is None or result.action == "demo":
                self.start_demo()
            else:
                self.run_worker(self.switch_profile(result.profile), group="switch")

        self.push_screen(
            SetupScreen(
                base=loaded,
                transport_factory=self.launch.transport_factory,
                config_path=self.launch.config_path,
            ),
            done,
        )

    def _show_config_error(self, error: config.ConfigError) -> None:
        from .screens.config_error import ConfigErrorScreen

        self._keys_ready = True  # the error screen takes the keys

        def done(choice: str | None) -> None:
            if choice == "demo":
                self.start_demo()
            else:
                self.exit(return_code=1)

        self.push_screen(ConfigErrorScreen(error), done)

    # --- sessions ------------------------------------------------------------------

    @property
    def api(self) -> ApiWorker:
        """The API worker of the active session."""
        if self._api is None:
            raise RuntimeError("no session yet")
        return self._api

    def start_demo(self) -> None:
        """Start a session on a fresh in-process emulator."""
        self._start(demo_session(self.launch))

    async def switch_profile(self, name: str) -> None:
        """Switch to the named profile of the config file (or the demo)."""
        from .screens.profiles import DEMO_CHOICE

        if name == DEMO_CHOICE:
            self.start_demo()
            return
        try:
            loaded = await self._read_config()
            # An explicit choice uses the file's profile as it is; only --read-only still applies.
            overrides = config.Overrides(profile=name, read_only=self.launch.overrides.read_only)
            profile = config.resolve_profile(loaded, cli=overrides, env={})
        except config.ConfigError as error:
            self.notify(str(error), title="Cannot switch profile", severity="error", markup=False)
            return
        self._start(profile_session(profile, self.launch))

    def _start(self, session: Session) -> Worker[None]:
        # A function, not a coroutine: a worker cancelled before it runs (another start
        # right after, the app ending) would leave a coroutine never awaited.
        async def replace() -> None:
            await self._replace_session(session)

        return self.run_worker(replace, exclusive=True, group="session")

    async def _replace_session(self, session: Session) -> None:
        old, self._api = self._api, None
        if old is not None:
            # The old session's rows, loads and answers go first: nothing of it may be
            # acted on once the person has chosen another profile.
            self.session = None
            if self.browse.is_attached:
                self.browse.session_ending(session.name)
            await old.stop()
        self.session = session
        if session.mask:
            self.set_mask(True)
        # The demo service forgets everything when the app ends, so does its record; a
        # browser tab of serve writes nothing on the serving machine, its record neither.
        self._payout_record = (
            PayoutRecord.in_memory()
            if session.demo or self.launch.served
            else PayoutRecord.for_session(session)
        )
        # The demo's service ends with the app: nothing of it outlives a quit to check.
        changes = None if session.demo else self.changes
        self._api = ApiWorker(self, session.connection, session.transport, changes)
        self._api.start()
        if self.browse.is_attached:  # not while the app shuts down
            self.browse.session_started()
        self._keys_ready = True

    def _tick(self) -> None:
        if self._api is not None:
            for header in self.query(StatusHeader):  # none while the app shuts down
                header.token = self._api.token_state

    @on(ApiRetrying)
    def _retrying(self, event: ApiRetrying) -> None:
        if event.worker is self.api:  # not a profile's left behind by a switch
            self.browse.show_retry(event.notice)

    # --- the local record of payout definitions ------------------------------------

    async def added_payouts(self) -> list[dict[str, Any]]:
        """The payout definitions added from here for this profile, oldest first.

        The file is read in a thread: it may be large, or slow to read.
        """
        record = self._payout_record
        if record is None:
            return []
        try:
            return await asyncio.to_thread(record.load)
        except PayoutRecordError as error:
            self.notify(str(error), title="Payout record", severity="error", markup=False)
            return []

    def payout_add(
        self, definition: dict[str, Any], waiting: Callable[[Path], object] | None = None
    ) -> PayoutAdd:
        """An add of ``definition`` to this session's record (see :class:`PayoutAdd`).

        A write that fails once the service has added the definition is said here,
        whatever became of the form; quitting waits for an add whose request is out.
        """
        record = self._payout_record or PayoutRecord.in_memory()
        self._payout_adds = {add for add in self._payout_adds if not add.done}
        add = PayoutAdd(
            record,
            definition,
            waiting=waiting,
            written=lambda error: self._payout_written(definition, error),
        )
        self._payout_adds.add(add)
        if record.path is not None:  # one in memory ends with the app whatever comes
            self.changes.follow(_Recording(add, record.path))
            add.followed = True
        return add

    def _payout_written(self, definition: dict[str, Any], error: PayoutRecordError | None) -> None:
        if error is None:
            return
        self.notify(
            f"Added payout definition {definition.get('name', '')} on the server, but not"
            f" recorded for the Payouts tab, which cannot show it: {error}",
            title="Payout record",
            severity="error",
            timeout=30,
            markup=False,
        )

    async def _changes_over(self) -> list[Change]:
        """Let the changes under way end, waiting at most :data:`QUIT_WAIT` seconds and
        saying what for; those still under way then."""
        self.changes.follow_files()
        pending = self.changes.pending()
        if not pending:
            return []
        # The app's own ctrl+q (under the keymap): a form's keys do not list it. Every
        # class's keys, as Textual merges them: the nearest BINDINGS holds ctrl+z alone.
        merged = [b for cls in type(self).__mro__ for b in vars(cls).get("BINDINGS", ())]
        key = key_for(self.screen, "quit") or key_in(merged, "quit", self.screen)
        shown = "; ".join(change.what for change in pending[:QUIT_SHOWN])
        if len(pending) > QUIT_SHOWN:
            shown += f"; and {len(pending) - QUIT_SHOWN:,} more"
        self.notify(
            f"Waiting up to {QUIT_WAIT:g} s for the changes under way to end: {shown}"
            + (f" — press {key} again to quit now" if key else ""),
            title="Quitting",
            markup=False,
            timeout=QUIT_WAIT,
        )
        return await self.changes.settle(QUIT_WAIT)

    # --- the actions behind the main screen's help, profile and quit keys ------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.launch.served and action in SERVED_OFF)

    async def action_switch_profile(self, highlight: str | None = None) -> None:
        """Pick another profile, or add or edit one (then the picker opens again)."""
        from .screens.profiles import DEMO_CHOICE, ProfileScreen, profile_summary

        if self.launch.served:  # the palette's way in too
            self.notify(SERVED_PROFILE, severity="warning")
            return
        try:
            loaded = await self._read_config()
        except config.ConfigError as error:
            self.notify(str(error), title="Config file", severity="error", markup=False)
            loaded = config.ConfigFile()
        profiles = [(name, profile_summary(profile)) for name, profile in loaded.profiles.items()]
        current = None
        if self.session is not None:
            current = DEMO_CHOICE if self.session.demo else self.session.name

        def chosen(choice: PickerChoice | None) -> None:
            if choice is None:
                return
            if choice.action == "switch" and choice.name is not None:
                self.run_worker(self.switch_profile(choice.name), group="switch")
            elif choice.action == "edit" and choice.name in loaded.profiles:
                self._show_profile_form(loaded, choice.name)
            elif choice.action == "add":
                self._show_profile_form(loaded, None)

        self.push_screen(ProfileScreen(profiles, current, highlight), chosen)

    def _show_profile_form(self, loaded: config.ConfigFile, editing: str | None) -> None:
        """The setup form on a new or stored profile of ``loaded`` (the file as the picker
        read it); the picker again once it closes."""
        from .screens.setup import ProfileFormScreen

        def done(result: Any) -> None:
            saved = result is not None and result.action == "saved"
            if saved:
                verb = "added" if editing is None else "saved"
                self.notify(f"Profile {result.profile} {verb}", title="Profiles")
            highlight = result.profile if saved else editing
            self.run_worker(self.action_switch_profile(highlight), group="picker")

        self.push_screen(
            ProfileFormScreen(
                loaded,
                editing,
                transport_factory=self.launch.transport_factory,
                config_path=self.launch.config_path,
            ),
            done,
        )

    def action_help(self) -> None:
        """Show every key, as bound now."""
        from .screens.help import HelpScreen

        # A screen with keys of its own (setup, the deliveries view) says them: the main
        # screen's do nothing there.
        own = getattr(self.screen, "help_sections", None)
        sections = (own or self.browse.help_sections)(self.keymap)
        self.push_screen(HelpScreen(sections))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from .commands import app_commands

        yield from app_commands(self, screen)
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":  # Textual's needs ~/Downloads to exist
                command = SystemCommand(
                    "Screenshot",
                    "Download an SVG picture of the screen"
                    if self.launch.served
                    else "Save an SVG picture of the screen (in Downloads, else the working folder)",
                    lambda: self.set_timer(0.1, self.save_screenshot_file),  # the palette closes
                )
            yield command

    def save_screenshot_file(self) -> None:
        """Save an SVG of the screen in a folder that exists; say where, or why not. The
        file is written in a thread: a slow disk never holds a frame.

        Served to a browser, the browser downloads it: nothing is written on the serving
        machine."""
        if self.launch.served:
            self.deliver_screenshot()
            return
        folder = screenshot_folder()
        path = folder / f"tokensales-tui_{datetime.now():%Y-%m-%dT%H_%M_%S_%f}.svg"
        data = self.export_screenshot().encode()  # the screen as it is now
        self.run_worker(self._write_screenshot(path, data), group="screenshot")

    async def _write_screenshot(self, path: Path, data: bytes) -> None:
        try:
            await asyncio.to_thread(atomic_write, path, data)
        except OSError as error:
            self.notify(
                f"Not saved in {path.parent}: {error.strerror or error}",
                title="Screenshot",
                severity="error",
                markup=False,
            )
            return
        self.notify(f"Saved in {path}", title="Screenshot", markup=False)

    async def action_quit(self) -> None:
        from .screens.confirm import DiscardScreen

        if self._quitting:  # asked again while the changes under way are waited for
            self.changes.follow_files()
            self._exit_saying(self.changes.pending())
            return
        if any(getattr(screen, "dirty", False) for screen in self.screen_stack):
            # ctrl+q quits from anywhere: a form's typed values (a webhook's, a profile's,
            # under a dialog too) are asked about first, as escape does.
            def answered(discard: bool | None) -> None:
                if discard:
                    self._quit_in_worker()

            lost = "What you typed in the form will be lost."
            if self.changes.pending():
                lost += f" The changes under way are waited for, {QUIT_WAIT:g} s at most."
            self.push_screen(DiscardScreen("Quit the app?", lost, confirm_label="Quit"), answered)
            return
        self.changes.follow_files()
        if self.changes.pending():
            self._quit_in_worker()  # waits: the app keeps taking keys meanwhile
            return
        await self._quit()

    def _quit_in_worker(self) -> None:
        self.run_worker(self._quit(), group="quit", exclusive=True)

    async def _quit(self) -> None:
        self._quitting = True
        self.changes.close()  # nothing more is sent: a bulk delete's next row, a form
        unfinished = await self._changes_over()
        if self._api is not None:
            await self._api.stop()
        self._exit_saying(unfinished)

    def _end_for_signal(self, signum: int) -> None:
        """End the app at once, as signal ``signum`` asks (exit status 128 + its number):
        nothing is waited for, and each change under way now, a file being written
        among them, is said once the terminal is back (the SSH session dropped, the
        pane killed, ``kill``)."""
        self.changes.follow_files()
        self._exit_saying(self.changes.pending(), ended_by=signum)

    def _exit_saying(self, unfinished: list[Change], *, ended_by: int | None = None) -> None:
        """End the app; each change still under way is said once the terminal is back,
        on stderr, and in the ``--log`` file, which a terminal gone leaves to read it in.
        The app exits 1 then, or as the signal ``ended_by`` asks (see :mod:`.in_flight`)."""
        code = 0 if ended_by is None else exit_status(ended_by)
        if not unfinished:
            self.exit(return_code=code)
            return
        said = unknown_outcomes(
            unfinished, ended="quit" if ended_by is None else f"ended by {signal_name(ended_by)}"
        )
        log.warning("%s", said)
        self.exit(return_code=code or 1, message=text(said))

    # --- crash reports -------------------------------------------------------------

    def _fatal_error(self) -> None:
        # Textual's own report prints local variables; ours leaves them out and masks
        # every secret and token (see crash.py).
        from .crash import crash_report

        self.bell()
        self._exit_renderables.append(crash_report(self.console, self._known_secrets()))
        self._close_messages_no_wait()

    def _known_secrets(self) -> list[str]:
        secrets: list[str] = []
        if self.session is not None:
            connection = self.session.connection
            secrets += [connection.api_key.reveal(), connection.api_secret.reveal()]
        if self._api is not None:
            secrets += self._api.secrets_in_use()
        return secrets
