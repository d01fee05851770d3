"""The application: header, five resource tabs, footer; sessions and global keys.

A *session* is one profile (or the demo) with its API worker. Starting the app
resolves the profile from flags, environment and config file; with nothing
configured it shows the first-run setup, with a broken config file an error
screen that offers the demo.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.widgets import Footer, TabbedContent, TabPane

from .. import config
from ..api import ApiError, Connection, Secret
from ..api.connection import host_of
from .resources import RESOURCES, Resource
from .safe import clean_line
from .screens.confirm import ConfirmScreen
from .screens.profiles import DEMO_CHOICE, ProfileScreen
from .tabs import ResourceTab
from .widgets.header import HeaderInfo, StatusHeader
from .widgets.resource_table import ResourceTable
from .worker import ApiRetrying, ApiWorker

if TYPE_CHECKING:
    import httpx
    from textual.screen import Screen

log = logging.getLogger("tokensales_tui")

DEMO_URL = "http://demo.tokensales.invalid"
"""Address of the in-process demo service; requests never leave the process."""

MUTATING_ACTIONS = frozenset({"delete", "new", "edit"})
TAB_ACTIONS = frozenset(
    {
        "show_tab",
        "focus_filter",
        "escape",
        "refresh",
        "delete",
        "copy_id",
        "copy_json",
        "sort",
        "reverse_sort",
        "switch_profile",
    }
)


@dataclass
class Launch:
    """How the app was started: flags, environment, demo or not."""

    overrides: config.Overrides = field(default_factory=config.Overrides)
    env: Mapping[str, str] = field(default_factory=dict)
    demo: bool = False
    log_file: str | None = None
    demo_items: int = 40
    demo_seed: int = 0
    transport_factory: Callable[[], httpx.AsyncBaseTransport | None] | None = None
    """Transport for real profiles; tests point it at the in-process emulator."""
    config_path: Path | None = None


@dataclass(frozen=True)
class Session:
    """The active profile and everything the UI needs to know about it."""

    name: str
    connection: Connection
    read_only: bool
    label: str | None = None
    demo: bool = False


class TokenSalesApp(App[None]):
    """Browse and edit the data of a Token Sales Management Service."""

    CSS_PATH = "app.tcss"
    TITLE = "tokensales-tui"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        *[
            Binding(str(n), f"show_tab('{r.key}')", r.title, show=False, id=f"tab.{r.key}")
            for n, r in enumerate(RESOURCES, start=1)
        ],
        Binding("question_mark", "help", "Help", id="help"),
        Binding("slash", "focus_filter", "Filter", id="filter"),
        Binding("escape", "escape", "Clear filter", show=False, id="clear_filter"),
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("d", "delete", "Delete", id="delete"),
        Binding("c", "copy_id", "Copy id", id="copy_id"),
        Binding("y", "copy_json", "Copy JSON", id="copy_json"),
        Binding("s", "sort", "Sort", id="sort"),
        Binding("S", "reverse_sort", "Reverse sort", show=False, id="reverse_sort"),
        Binding("p", "switch_profile", "Profile", id="profile"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, launch: Launch | None = None) -> None:
        super().__init__()
        self.launch = launch or Launch()
        self.session: Session | None = None
        self._api: ApiWorker | None = None
        self.emulator: Any = None
        """The in-process emulator's state in a demo session (tests switch its faults)."""
        if self.launch.log_file:
            enable_debug_log(self.launch.log_file)

    # --- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with TabbedContent(id="tabs"):
            for number, resource in enumerate(RESOURCES, start=1):
                with TabPane(f"{number} {resource.title}", id=resource.key):
                    yield ResourceTab(
                        resource,
                        lambda: self.api,
                        extra_rows=self._added_payouts,
                        id=f"{resource.key}-tab",
                    )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        self.call_after_refresh(self._begin)

    # --- sessions ------------------------------------------------------------------

    @property
    def api(self) -> ApiWorker:
        """The API worker of the active session."""
        if self._api is None:
            raise RuntimeError("no session yet")
        return self._api

    def _begin(self) -> None:
        try:
            loaded = config.load_config(self.launch.config_path)
        except config.ConfigError as error:
            if self.launch.demo:
                self.notify(
                    str(error), title="Config file ignored", severity="warning", markup=False
                )
                loaded = config.ConfigFile()
            else:
                self._show_config_error(error)
                return
        if loaded.keymap:
            self.set_keymap(loaded.keymap)
        for warning in config.permission_warnings(self.launch.config_path):
            self.notify(warning, severity="warning", markup=False, timeout=10)
        if self.launch.demo:
            self.run_worker(self.start_demo(), exclusive=True, group="session")
            return
        try:
            profile = config.resolve_profile(loaded, cli=self.launch.overrides, env=self.launch.env)
        except config.NoConfiguration:
            self._show_setup()
            return
        except config.ConfigError as error:
            self._show_config_error(error)
            return
        self.run_worker(self.start_profile(profile), exclusive=True, group="session")

    def _show_setup(self) -> None:
        from .screens.setup import SetupScreen

        def done(result: Any) -> None:
            if result is None or result.action == "demo":
                self.run_worker(self.start_demo(), exclusive=True, group="session")
            else:
                self.switch_profile(result.profile)

        self.push_screen(
            SetupScreen(
                transport_factory=self.launch.transport_factory, config_path=self.launch.config_path
            ),
            done,
        )

    def _show_config_error(self, error: config.ConfigError) -> None:
        from .screens.config_error import ConfigErrorScreen

        def done(choice: str | None) -> None:
            if choice == "demo":
                self.run_worker(self.start_demo(), exclusive=True, group="session")
            else:
                self.exit(return_code=1)

        self.push_screen(ConfigErrorScreen(error), done)

    async def start_demo(self) -> None:
        """Start a session on the in-process emulator."""
        import httpx

        from ..emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app

        emulator_app = create_app(seed=self.launch.demo_seed, items=self.launch.demo_items)
        self.emulator = emulator_app.state.emulator
        connection = Connection(
            base_url=DEMO_URL,
            auth_url=DEMO_URL,
            console_url=DEMO_URL,
            api_key=Secret(DEMO_API_KEY),
            api_secret=Secret(DEMO_API_SECRET),
            profile="demo",
        )
        read_only = bool(self.launch.overrides.read_only)
        session = Session("demo", connection, read_only=read_only, label="DEMO", demo=True)
        await self._start(session, httpx.ASGITransport(app=emulator_app))

    async def start_profile(self, profile: config.ResolvedProfile) -> None:
        """Start a session on a configured profile."""
        transport = self.launch.transport_factory() if self.launch.transport_factory else None
        session = Session(profile.name, profile.connection(), profile.read_only, profile.label)
        self.emulator = None
        await self._start(session, transport)

    async def _start(self, session: Session, transport: httpx.AsyncBaseTransport | None) -> None:
        old, self._api = self._api, None
        if old is not None:
            await old.stop()
        self.session = session
        self._api = ApiWorker(self, session.connection, transport)
        self._api.start()
        self.query_one(StatusHeader).info = HeaderInfo(
            profile=session.name,
            host="in-process demo service" if session.demo else session.connection.host,
            label=session.label,
            read_only=session.read_only,
            demo=session.demo,
        )
        self.refresh_bindings()
        for tab in self.query(ResourceTab):
            tab.reload()
        self.active_tab.table.focus()

    def switch_profile(self, name: str) -> None:
        """Switch to the named profile of the config file (or the demo)."""
        if name == DEMO_CHOICE:
            self.run_worker(self.start_demo(), exclusive=True, group="session")
            return
        try:
            loaded = config.load_config(self.launch.config_path)
            # An explicit choice uses the file's profile as it is; only --read-only still applies.
            overrides = config.Overrides(profile=name, read_only=self.launch.overrides.read_only)
            profile = config.resolve_profile(loaded, cli=overrides, env={})
        except config.ConfigError as error:
            self.notify(str(error), title="Cannot switch profile", severity="error", markup=False)
            return
        self.run_worker(self.start_profile(profile), exclusive=True, group="session")

    def _tick(self) -> None:
        if self._api is not None:
            self.query_one(StatusHeader).token = self._api.token_state

    def _added_payouts(self) -> list[dict[str, Any]]:
        return []

    # --- the active tab ------------------------------------------------------------

    @property
    def active_tab(self) -> ResourceTab:
        """The tab in view."""
        key = self.query_one(TabbedContent).active or RESOURCES[0].key
        return self.query_one(f"#{key}-tab", ResourceTab)

    @property
    def read_only(self) -> bool:
        """Whether the session refuses changes."""
        return self.session is not None and self.session.read_only

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if self.screen is self.screen_stack[0]:
            self.active_tab.table.focus()
        self.refresh_bindings()

    @on(ResourceTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self.refresh_bindings()

    @on(ApiRetrying)
    def _retrying(self, event: ApiRetrying) -> None:
        notice = event.notice
        text = f"{notice.reason}: {notice.method} {notice.path} again in {notice.delay:.0f} s"
        if notice.capped_from is not None:
            text += f" (the server asked for {notice.capped_from:.0f} s; waiting at most {notice.delay:.0f} s)"
        self.notify(
            text, title="Retrying", severity="warning", markup=False, timeout=max(3.0, notice.delay)
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.read_only:
            return False
        if action in TAB_ACTIONS and not self._on_main_screen():
            return False  # the detail view and dialogs have keys of their own
        if action == "delete":
            return (
                self.is_mounted
                and self._tab_ready()
                and self.active_tab.resource.delete is not None
            )
        return True

    def _on_main_screen(self) -> bool:
        return self.is_mounted and len(self.screen_stack) == 1

    def _tab_ready(self) -> bool:
        try:
            self.active_tab  # noqa: B018 - raises before compose finished
        except Exception:
            return False
        return True

    def on_key(self, event: Any) -> None:
        # A hidden action's key still answers, so nobody wonders whether it was heard.
        key = event.key
        if (
            key == "d"
            and self.session is not None
            and self._on_main_screen()
            and not isinstance(self.focused, _TEXT_INPUTS)
        ):
            if self.read_only:
                self.notify("read-only profile: deleting is turned off", severity="warning")
            elif self.active_tab.resource.delete is None:
                noun = self.active_tab.resource.title.lower()
                self.notify(f"The service offers no way to delete {noun}", severity="warning")

    # --- actions -------------------------------------------------------------------

    def action_show_tab(self, key: str) -> None:
        """Switch to a tab by its resource key."""
        self.query_one(TabbedContent).active = key

    def action_focus_filter(self) -> None:
        """Focus the filter of the current tab."""
        self.active_tab.focus_filter()

    def action_escape(self) -> None:
        """Cancel a load in progress, else clear the filter and return to the table."""
        tab = self.active_tab
        if tab.cancel_load():
            return
        tab.clear_filter()

    def action_refresh(self) -> None:
        """Reload the current tab."""
        if self._api is not None:
            self.active_tab.reload()

    def action_sort(self) -> None:
        """Sort by the next column."""
        self.active_tab.table.cycle_sort()

    def action_reverse_sort(self) -> None:
        """Reverse the sort."""
        self.active_tab.table.reverse_sort()

    def _highlighted(self) -> tuple[Resource, Any] | None:
        tab = self.active_tab
        row = tab.highlighted
        if row is None:
            self.notify("Nothing is highlighted", severity="warning")
            return None
        return tab.resource, row

    def action_copy_id(self) -> None:
        """Copy the highlighted object's id (OSC 52: works over SSH)."""
        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        object_id = resource.row_id(row)
        if not object_id:
            self.notify(f"This {resource.noun} has no id", severity="warning")
            return
        self.copy_to_clipboard(object_id)
        self.notify(f"Copied the {resource.noun} id", markup=False)

    def action_copy_json(self) -> None:
        """Copy the highlighted object as JSON."""
        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        self.copy_to_clipboard(json.dumps(resource.raw(row), indent=2, ensure_ascii=False))
        self.notify(f"Copied the {resource.noun} as JSON", markup=False)

    @on(ResourceTable.RowSelected)
    def _open_detail(self, event: ResourceTable.RowSelected) -> None:
        tab = next((t for t in self.query(ResourceTab) if t.table is event.table), None)
        if tab is None or event.row is None:
            return
        self.open_detail(tab.resource, event.row)

    def open_detail(self, resource: Resource, row: Any) -> None:
        """Show the detail view of ``row``, fetching the current version when the API can."""
        from .screens.detail import DetailScreen

        object_id = resource.row_id(row)
        refresh = None
        fetch = resource.fetch
        if fetch is not None and object_id:

            async def refresh() -> tuple[list[tuple[str, object]], object]:
                fresh = await self.api.call(lambda client: fetch(client, object_id))
                return resource.key_fields(fresh), resource.raw(fresh)

        self.push_screen(
            DetailScreen(
                resource.noun.capitalize(),
                resource.key_fields(row),
                resource.raw(row),
                object_id=object_id,
                refresh=refresh,
            )
        )

    def action_delete(self) -> None:
        """Delete the highlighted object, after confirmation."""
        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        object_id = resource.row_id(row)
        if resource.delete is None:
            return
        if not object_id:
            self.notify(
                f"This {resource.noun} has no identifier the client recognises", severity="warning"
            )
            return
        tab = self.active_tab
        subject = f"{resource.label(row)}  ·  {object_id}"

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._delete(tab, row, object_id)

        self.push_screen(ConfirmScreen(f"Delete this {resource.noun}?", subject), answered)

    @work(group="delete", exit_on_error=False)
    async def _delete(self, tab: ResourceTab, row: Any, object_id: str) -> None:
        resource = tab.resource
        delete = resource.delete
        assert delete is not None
        label = clean_line(resource.label(row))
        try:
            await self.api.call(lambda client: delete(client, object_id))
        except ApiError as error:
            self.notify(
                f"{label} was not deleted: {error.one_line}",
                title="Delete failed",
                severity="error",
                markup=False,
            )
            return
        tab.remove_row(row)
        self.notify(f"Deleted {resource.noun} {label}", markup=False)
        tab.reload()

    def action_switch_profile(self) -> None:
        """Pick another profile."""
        try:
            loaded = config.load_config(self.launch.config_path)
        except config.ConfigError as error:
            self.notify(str(error), title="Config file", severity="error", markup=False)
            loaded = config.ConfigFile()
        profiles = [(name, host_of(profile.base_url)) for name, profile in loaded.profiles.items()]
        current = (
            DEMO_CHOICE
            if self.session and self.session.demo
            else (self.session.name if self.session else None)
        )

        def chosen(name: str | None) -> None:
            if name is not None:
                self.switch_profile(name)

        self.push_screen(ProfileScreen(profiles, current), chosen)

    def action_help(self) -> None:
        """Show every key."""
        from .screens.help import HelpScreen, sections_from_bindings

        table_keys = [b for b in ResourceTable.BINDINGS if isinstance(b, Binding)]
        app_keys = [b for b in self.BINDINGS if isinstance(b, Binding)]
        allowed = [
            b for b in app_keys if self.check_action(b.action.split("(")[0], ()) is not False
        ]
        tabs = [b for b in allowed if b.action.startswith("show_tab")]
        others = [b for b in allowed if not b.action.startswith("show_tab")]
        sections = sections_from_bindings(
            [("Anywhere", others), ("Tabs", tabs), ("In a table", table_keys)], app=self
        )
        sections.append(
            (
                "Detail view",
                [
                    ("escape", "Back"),
                    ("/", "Search the JSON"),
                    ("n / N", "Next / previous match"),
                    ("c", "Copy id"),
                    ("y", "Copy JSON"),
                ],
            )
        )
        sections.append(("Commands", [("ctrl+p", "Command palette: every action, go to tab")]))
        self.push_screen(HelpScreen(sections))

    # --- command palette -----------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for resource in RESOURCES:
            yield SystemCommand(
                f"Go to tab: {resource.title}",
                f"Show the {resource.title.lower()} tab",
                lambda key=resource.key: self.action_show_tab(key),
            )
        if self.session is not None:
            yield SystemCommand("Refresh", "Reload the current tab", self.action_refresh)
            yield SystemCommand("Filter", "Filter the current tab", self.action_focus_filter)
            yield SystemCommand("Copy id", "Copy the highlighted object's id", self.action_copy_id)
            yield SystemCommand(
                "Copy JSON", "Copy the highlighted object as JSON", self.action_copy_json
            )
            yield SystemCommand("Sort", "Sort by the next column", self.action_sort)
            if self.check_action("delete", ()):
                yield SystemCommand("Delete", "Delete the highlighted object", self.action_delete)
        yield SystemCommand(
            "Switch profile", "Use another profile or the demo", self.action_switch_profile
        )
        yield SystemCommand("Help", "Show every key", self.action_help)
        yield from super().get_system_commands(screen)

    async def action_quit(self) -> None:
        if self._api is not None:
            await self._api.stop()
        self.exit()


def _text_inputs() -> tuple[type, ...]:
    from textual.widgets import Input, TextArea

    return (Input, TextArea)


_TEXT_INPUTS = _text_inputs()


def enable_debug_log(path: str) -> None:
    """Log requests (method, URL, status, timing) to ``path``, created 0600; never secrets."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    handler = logging.StreamHandler(os.fdopen(fd, "a", encoding="utf-8"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("tokensales_tui")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
