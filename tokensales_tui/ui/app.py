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
from collections.abc import Callable, Iterable, Mapping, Sequence
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
from ..payout_record import PayoutRecord, PayoutRecordError
from .forms import CREATABLE, EDITABLE, NEW_TITLES, edit_form, form_bindings, new_form
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

    from .forms.base import FormResult, FormScreen

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
        "new",
        "edit",
        "copy_id",
        "copy_json",
        "sort",
        "reverse_sort",
        "switch_profile",
    }
)


def demo_connection() -> Connection:
    """The addresses and credentials of the in-process demo service."""
    from ..emulator import DEMO_API_KEY, DEMO_API_SECRET

    return Connection(
        base_url=DEMO_URL,
        auth_url=DEMO_URL,
        console_url=DEMO_URL,
        api_key=Secret(DEMO_API_KEY),
        api_secret=Secret(DEMO_API_SECRET),
        profile="demo",
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
        Binding("n", "new", "New", id="new"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("d", "delete", "Delete", id="delete"),
        Binding("c", "copy_id", "Copy id", show=False, id="copy_id"),
        Binding("y", "copy_json", "Copy JSON", show=False, id="copy_json"),
        Binding("s", "sort", "Sort", show=False, id="sort"),
        Binding("S", "reverse_sort", "Reverse sort", show=False, id="reverse_sort"),
        Binding("o", "open_link", "Open link", show=False, id="open_link"),
        Binding("p", "switch_profile", "Profile", id="profile"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, launch: Launch | None = None) -> None:
        super().__init__()
        self.launch = launch or Launch()
        self.session: Session | None = None
        self._api: ApiWorker | None = None
        self._payout_record: PayoutRecord | None = None
        self._row_shown: dict[ResourceTable, bool] = {}
        self.emulator: Any = None
        """The in-process emulator's state in a demo session (tests switch its faults)."""
        self._log_handler = enable_debug_log(self.launch.log_file) if self.launch.log_file else None

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

    def on_unmount(self) -> None:
        if self._log_handler is not None:
            disable_debug_log(self._log_handler)
            self._log_handler = None

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

        from ..emulator import create_app

        emulator_app = create_app(seed=self.launch.demo_seed, items=self.launch.demo_items)
        self.emulator = emulator_app.state.emulator
        read_only = bool(self.launch.overrides.read_only)
        session = Session("demo", demo_connection(), read_only=read_only, label="DEMO", demo=True)
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
        # The demo service forgets everything when the app ends, so does its record.
        self._payout_record = (
            PayoutRecord.in_memory() if session.demo else PayoutRecord.for_profile(session.name)
        )
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
            for header in self.query(StatusHeader):  # none while the app shuts down
                header.token = self._api.token_state

    def _added_payouts(self) -> list[dict[str, Any]]:
        """The payout definitions added from here for this profile, newest first."""
        if self._payout_record is None:
            return []
        try:
            return list(reversed(self._payout_record.load()))
        except PayoutRecordError as error:
            self.notify(str(error), title="Payout record", severity="error", markup=False)
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
    def _row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        # Which keys apply depends on whether a row is highlighted, not on which one;
        # refreshing the bindings recomposes the footer (~10 ms): not on every cursor move.
        shown = event.row is not None
        if self._row_shown.get(event.table) is not shown:
            self._row_shown[event.table] = shown
            self.refresh_bindings()

    @on(ApiRetrying)
    def _retrying(self, event: ApiRetrying) -> None:
        notice = event.notice
        request = f"{notice.method} {notice.path}"
        waiting = [
            tab
            for tab in self.query(ResourceTab)
            if tab.resource.endpoint.replace("{console}", "") == request
        ]
        for tab in waiting:  # the tabs this list belongs to count down in their own line
            tab.show_wait(notice.reason, notice.delay, notice.capped_from)
        if waiting:
            return
        text = f"{notice.reason}: {notice.method} {notice.path} again in {notice.delay:.0f} s"
        if notice.capped_from is not None:
            text += f" (the server asked for {notice.capped_from:,.0f} s; waiting at most {notice.delay:.0f} s)"
        self.notify(
            text, title="Retrying", severity="warning", markup=False, timeout=max(3.0, notice.delay)
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.read_only:
            return False
        if action in TAB_ACTIONS and not self._on_main_screen():
            return False  # the detail view and dialogs have keys of their own
        if action == "delete":
            return self._can_delete()
        if action == "new":
            return self._tab_has_form(CREATABLE)
        if action == "edit":
            return self._tab_has_form(EDITABLE) and self.active_tab.highlighted is not None
        return True

    def _can_delete(self) -> bool:
        return (
            self.session is not None
            and not self.read_only
            and self.is_mounted
            and self._tab_ready()
            and self.active_tab.resource.delete is not None
        )

    def _tab_has_form(self, tabs: frozenset[str]) -> bool:
        return (
            self.session is not None
            and not self.read_only
            and self.is_mounted
            and self._tab_ready()
            and self.active_tab.resource.key in tabs
        )

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
            key in _CHANGE_VERBS
            and self.session is not None
            and self._on_main_screen()
            and not isinstance(self.focused, _TEXT_INPUTS)
        ):
            resource = self.active_tab.resource
            noun = resource.title.lower()
            if self.read_only:
                self.notify(
                    f"read-only profile: {_CHANGE_VERBS[key]} is turned off", severity="warning"
                )
            elif key == "d" and resource.delete is None:
                self.notify(f"The service offers no way to delete {noun}", severity="warning")
            elif key == "n" and resource.key not in CREATABLE:
                self.notify(f"The service offers no way to add {noun}", severity="warning")
            elif key == "e" and resource.key not in EDITABLE:
                self.notify(f"The service offers no way to edit {noun}", severity="warning")
            elif key == "e" and self.active_tab.highlighted is None:
                self.notify("Nothing is highlighted", severity="warning")

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

    def action_open_link(self) -> None:
        """Open the highlighted object's address (webhook URL, item image) after showing it."""
        import webbrowser

        from .links import can_launch_browser, link_problem

        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        get = LINKS.get(resource.key)
        url = (get(row) or "") if get else ""
        if not url:
            self.notify(f"This {resource.noun} has no address to open", severity="warning")
            return
        shown = clean_line(url)
        problem = link_problem(url)
        if problem:
            self.notify(f"Not opened: {problem}: {shown}", severity="warning", markup=False)
            return
        if not can_launch_browser():
            self.copy_to_clipboard(url)
            self.notify(
                f"No browser can open here (SSH session or no display), so it was copied: {shown}",
                markup=False,
            )
            return

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                webbrowser.open(url)

        self.push_screen(
            ConfirmScreen("Open this address in your browser?", url, confirm_label="Open"),
            answered,
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

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._delete(tab, row, object_id)

        self.push_screen(
            ConfirmScreen(
                f"Delete this {resource.noun}?", resource.label(row), detail=f"id {object_id}"
            ),
            answered,
        )

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

    def action_new(self) -> None:
        """Open the form that creates an object of the current tab."""
        tab = self.active_tab
        form = new_form(tab.resource.key, self.api, webhooks=self._webhooks())
        if form is not None:
            self._open_form(tab, form)

    def action_edit(self) -> None:
        """Open the highlighted webhook in the edit form."""
        tab = self.active_tab
        row = tab.highlighted
        form = edit_form(tab.resource.key, self.api, row, webhooks=self._webhooks())
        if row is not None and form is not None:
            self._open_form(tab, form)

    def _webhooks(self) -> Sequence[Any]:
        return self.query_one("#webhooks-tab", ResourceTab).table.rows

    def _open_form(self, tab: ResourceTab, form: FormScreen) -> None:
        def done(result: FormResult | None) -> None:
            if result is None:
                return
            if result.payout is not None:
                self._record_payout(result.payout)
            self.notify(clean_line(result.summary), markup=False)
            if result.changed:
                tab.reload(then_highlight=result.highlight)

        self.push_screen(form, done)

    def _record_payout(self, definition: dict[str, Any]) -> None:
        if self._payout_record is None:
            return
        try:
            self._payout_record.add(definition)
        except PayoutRecordError as error:
            self.notify(
                f"Added on the server, but not recorded here: {error}",
                title="Payout record",
                severity="warning",
                markup=False,
            )

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
        sections += sections_from_bindings([("In a form", form_bindings())], app=self)
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
            if self._can_delete():
                yield SystemCommand("Delete", "Delete the highlighted object", self.action_delete)
            if self._tab_has_form(CREATABLE):
                title = NEW_TITLES[self.active_tab.resource.key]
                yield SystemCommand(title, "Open the form that creates it", self.action_new)
            if self._tab_has_form(EDITABLE) and self.active_tab.highlighted is not None:
                yield SystemCommand(
                    "Edit webhook", "Change the highlighted webhook", self.action_edit
                )
        yield SystemCommand(
            "Switch profile", "Use another profile or the demo", self.action_switch_profile
        )
        yield SystemCommand("Help", "Show every key", self.action_help)
        yield from super().get_system_commands(screen)

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

    async def action_quit(self) -> None:
        if self._api is not None:
            await self._api.stop()
        self.exit()


def _text_inputs() -> tuple[type, ...]:
    from textual.widgets import Input, TextArea

    return (Input, TextArea)


_TEXT_INPUTS = _text_inputs()
_CHANGE_VERBS = {"d": "deleting", "n": "creating", "e": "editing"}
LINKS: dict[str, Callable[[Any], str | None]] = {
    "webhooks": lambda webhook: webhook.url,
    "items": lambda item: item.image_url,
}
"""The address ``o`` opens, per tab."""
"""Keys of the actions that change data, and how a refusal names them."""


def enable_debug_log(path: str) -> logging.Handler:
    """Log requests (method, URL, status, timing) to ``path``, created 0600; never secrets.

    Returns the handler, for :func:`disable_debug_log`.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    handler = logging.StreamHandler(os.fdopen(fd, "a", encoding="utf-8"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("tokensales_tui")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def disable_debug_log(handler: logging.Handler) -> None:
    """Stop logging to the file of ``handler`` and close it."""
    logger = logging.getLogger("tokensales_tui")
    logger.removeHandler(handler)
    handler.close()
    if not logger.handlers:
        logger.setLevel(logging.NOTSET)
