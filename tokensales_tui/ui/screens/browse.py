"""The main screen: header, five resource tabs, footer, and the actions on the highlighted row.

Its bindings apply only while it is the screen in view: the detail view, the forms and
the dialogs pushed over it have keys of their own.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TabbedContent, TabPane

from ...api import ApiClient, ApiError, Deleted, OutcomeUnknownError, RetryNotice
from ...api.arriving import still_arriving
from ...api.endpoints import id_problem
from ...clean import clean_line, display_value
from ..cancelling import being_cancelled
from ..forms import CREATABLE, EDITABLE, edit_form, new_form
from ..in_flight import QuittingError
from ..json_text import full_json
from ..key_hints import action_name, key_for, press
from ..keys import key_display, key_names
from ..resources import RESOURCES, Resource
from ..safe import line
from ..safe_app import COPY_LIMIT, GuardedApp, copy, copy_json, copy_lines, not_copied
from ..table.model import Scope
from ..table.widget import ResourceTable
from ..tabs import FilterInput, ResourceTab
from ..widgets.footer import KeysFooter
from ..widgets.header import HeaderInfo, StatusHeader
from ..widgets.tabs import FocusFollowingTabs
from ..work_failures import WorkFailed, when_ended
from .base import ScreenKeys

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.worker import Worker

    from ..app import TokenSalesApp
    from ..forms.base import FormResult, FormScreen
    from ..worker import ApiWorker
    from .confirm import ConfirmScreen
    from .help import Section

MUTATING_ACTIONS = {"delete": "deleting", "new": "creating", "edit": "editing"}
"""The actions that change data, and how a refusal names them."""

BURST_ACTIONS = frozenset({"show_tab", "focus_filter"})
"""Actions that move the focus, bound with priority: Textual then runs them as it takes
the key from the terminal, before it routes the keys typed after it, so ``/gems`` typed
in one burst puts "gems" in the filter rather than sending ``s`` (sort) to the table.
They stand aside while a text field has the focus, which takes those keys as text."""

DRILLS = {"go_to": frozenset({"items", "payouts"}), "go_to_asset": frozenset({"items"})}
"""The tabs where each go-to action applies."""

DRILL_WORDS = {
    "go_to": "Goes from an item to its payout setting, and from a payout setting to its items",
    "go_to_asset": "Goes from an item to the asset of its chain",
}
"""What each go-to action does, said where it does nothing."""

REFUSABLE = frozenset({*MUTATING_ACTIONS, "listen", "deliveries", *DRILLS, "switch_profile"})
"""The actions :meth:`BrowseScreen.refusal` may refuse (hidden until a session starts)."""


LINKS: dict[str, Callable[[Any], str | None]] = {
    "webhooks": lambda webhook: webhook.url,
    "items": lambda item: item.image_url,
}
"""The address ``o`` opens (and ``O`` copies), per tab."""


FILTER_HELP = [
    ("word", "in any field, shown or not"),
    ("two words", "rows with both"),
    ("!word", "rows without it"),
    ("column:word", "in that column (!column:word too)"),
    ('"a phrase"', "the words together"),
]
"""The filter's syntax, for the help."""

BULK_NAMED = 5
"""Marked rows named in the question before a bulk delete."""

BULK_FAILURES_SHOWN = 10
"""Failures of a bulk delete named in its report (the rest are counted)."""

NAME_SHOWN = 100
"""Characters of an object's name (a webhook's URL, an item's title) a message shows."""


def _named(resource: Resource, row: Any) -> str:
    """How a message names ``row``: its label, cleaned, cut to :data:`NAME_SHOWN`."""
    return display_value(resource.label(row), NAME_SHOWN)


def _takes_text(widget: Widget | None) -> bool:
    """Whether ``widget`` is one that typing goes into: an input or a text area.

    Textual's ``TextArea`` takes about 20 ms to import, which the first frame does not
    need; no widget can be one before its module is imported.
    """
    if isinstance(widget, Input):
        return True
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea)


async def _delete_one(
    delete: Callable[[ApiClient, str], Awaitable[Deleted]], object_id: str, client: ApiClient
) -> Deleted:
    return await delete(client, object_id)


class BulkDelete:
    """A bulk delete in progress, which escape asks to stop."""

    def __init__(self) -> None:
        self.stopped = False


class BrowseScreen(ScreenKeys, Screen[None]):
    """Five tabs of resources under a status header; every row action starts here."""

    # The first table, not the first widget that takes the focus (the tab bar takes none,
    # and the filter would look like a key typed ahead to _focus_in_active_tab).
    AUTO_FOCUS = "ResourceTable"

    RETRY_ACTION = "refresh"
    """The action that loads a tab again after a failure (see :mod:`..key_hints`)."""

    TEXT_FIELDS = (FilterInput,)

    BINDINGS: ClassVar[list[BindingType]] = [
        *[
            Binding(
                str(n),
                f"show_tab('{r.key}')",
                r.title,
                show=False,
                id=f"tab.{r.key}",
                priority=True,  # see BURST_ACTIONS
            )
            for n, r in enumerate(RESOURCES, start=1)
        ],
        # The footer shows the keys in this order and drops the last ones first when the
        # terminal is narrow: the everyday ones, the way out, then the rest.
        Binding("question_mark", "app.help", "Help", id="help"),
        Binding("slash", "focus_filter", "Filter", id="filter", priority=True),
        Binding("escape", "escape", "Clear filter", show=False, id="clear_filter"),
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("n", "new", "New", id="new"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("d", "delete", "Delete", id="delete"),
        Binding("p", "app.switch_profile", "Profile", id="profile"),
        Binding("q", "app.quit", "Quit", id="quit"),
        Binding("w", "watch", "Watch", id="watch"),
        Binding("x", "export", "Export", id="export"),
        Binding("c", "copy_id", "Copy id", show=False, id="copy_id"),
        Binding("y", "copy_json", "Copy JSON", show=False, id="copy_json"),
        Binding("s", "sort", "Sort", show=False, id="sort"),
        Binding("S", "reverse_sort", "Reverse sort", show=False, id="reverse_sort"),
        Binding("o", "open_link", "Open link", show=False, id="open_link"),
        Binding("O", "copy_link", "Copy link", show=False, id="copy_link"),
        Binding("space", "mark", "Mark", show=False, id="mark"),
        Binding("ctrl+a", "mark_all", "Mark all shown / clear marks", show=False, id="mark_all"),
        Binding("f", "go_to", "Go to payout setting / its items", show=False, id="go_to"),
        Binding("a", "go_to_asset", "Go to the chain's asset", show=False, id="go_to_asset"),
        Binding("l", "listen", "Listen for the webhook's events", show=False, id="listen"),
        Binding("v", "deliveries", "Deliveries (demo)", show=False, id="deliveries"),
    ]

    def __init__(self) -> None:
        super().__init__(id="browse")
        self._bulk: BulkDelete | None = None
        self._retry_shown_until = 0.0  # until when the retry toast shown stays
        self._tabs: dict[str, ResourceTab] = {}
        self.mounting = True
        """Whether tabs are still to be mounted (keys wait meanwhile: see :mod:`..key_order`)."""

    @property
    def tsapp(self) -> TokenSalesApp:
        """The app, with its session and API worker."""
        return cast("TokenSalesApp", self.app)

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with FocusFollowingTabs(id="tabs"):
            for number, resource in enumerate(RESOURCES, start=1):
                with TabPane(line(f"{number} {resource.title}"), id=resource.key):
                    if number == 1:  # the others after the first frame: see _begin
                        yield self.tab(resource.key)
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.call_after_refresh(self._begin)

    async def _begin(self) -> None:
        """Mount the tabs out of view, then start the session.

        The first frame shows the first tab alone: the widgets of the others, their
        styles and their layout were a third of the time to it. Keys typed meanwhile
        wait for them, and for the session, as every key typed ahead does (see
        :mod:`..key_order`).
        """
        for tab in self.tabs:
            pane = self.query_one(f"#{tab.resource.key}", TabPane)
            if not pane.is_attached:
                return  # the app is closing (quit as it started): no session
            if not tab.is_attached:
                await pane.mount(tab)
        self.mounting = False
        if self.tsapp.session is None:  # else keys let through after MOUNT_WAIT chose one
            await self.tsapp.begin()

    # --- the session ---------------------------------------------------------------

    def session_ending(self, next_profile: str) -> None:
        """Clear every tab: the rows on screen belong to the session that is ending."""
        note = f"Switching to {next_profile}…"
        for tab in self.tabs:
            tab.forget(note)
        self.refresh_bindings()

    def session_started(self) -> None:
        """Show the new session: its header, fresh rows in every tab."""
        session = self.tsapp.session
        assert session is not None
        self.query_one(StatusHeader).info = HeaderInfo(
            profile=session.name,
            host=session.host,
            label=session.label,
            read_only=session.read_only,
            demo=session.demo,
            overridden=session.overridden,
        )
        self.refresh_bindings()
        for tab in self.tabs:
            tab.reload()
        self._focus_in_active_tab()

    def _focus_in_active_tab(self) -> None:
        """Focus the table of the tab in view, unless the focus is in that tab already: a
        key typed ahead may have put it in the filter (``3/eth`` typed as the app starts,
        before its session has)."""
        tab = self.active_tab
        if not tab.is_mounted:
            return  # shown before it was mounted (keys let through after MOUNT_WAIT)
        if self.focused is None or tab not in self.focused.ancestors:
            self.set_focus(tab.table, scroll_visible=False)

    @property
    def active_tab(self) -> ResourceTab:
        """The tab in view."""
        return self.tab(self.query_one(TabbedContent).active or RESOURCES[0].key)

    @property
    def webhooks(self) -> Sequence[Any]:
        """The listed webhooks, whose events the webhook form suggests."""
        return self.tab("webhooks").table.rows

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # A key may have focused the tab's filter since (`2/gems` typed at once).
        self._focus_in_active_tab()
        self.refresh_bindings()
        tab = self.active_tab
        if tab.stale:
            tab.reload()

    @on(ResourceTab.Reloading)
    def _list_reloading(self, event: ResourceTab.Reloading) -> None:
        """The tabs that follow ``event.tab``'s list, and are not loading it themselves,
        are behind: each loads it again when shown (Payouts after an item is deleted on
        the Items tab)."""
        for tab in self.tabs:
            if (
                tab.resource.follows == event.tab.resource.key
                and tab.loaded_once
                and not tab.load_running
            ):
                tab.stale = True
                if tab is self.active_tab:  # in view already: it joins the request
                    tab.reload()

    def show_retry(self, notice: RetryNotice) -> None:
        """Count down the wait before a retry: in the tabs it holds up, else in a toast."""
        request = f"{notice.method} {notice.path}"
        waiting = [
            tab for tab in self.tabs if tab.resource.endpoint.replace("{console}", "") == request
        ]
        for tab in waiting:
            tab.show_wait(notice.reason, notice.delay, notice.asked, notice.capped_from)
        if waiting:
            return
        # One retry toast at a time: a bulk delete on a failing server had four or more
        # stacked over the table, each saying the same.
        now = time.monotonic()
        if now < self._retry_shown_until:
            return
        text = f"{notice.reason}: {request} again in {notice.delay:.0f} s"
        if notice.asked:
            text += f" (the server asked for {notice.asked}; waiting at most {notice.delay:.0f} s)"
        timeout = max(3.0, notice.delay)
        self._retry_shown_until = now + timeout
        self.notify(text, title="Retrying", severity="warning", markup=False, timeout=timeout)

    # --- which actions apply -------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in BURST_ACTIONS and _takes_text(self.focused):
            return False
        return self.refusal(action) is None

    def refusal(self, action: str) -> str | None:
        """Why the key of ``action`` does nothing here now, or None when it acts.

        The one place that decides it: :meth:`check_action` hides what it refuses from
        the footer and the help, and :meth:`on_key` says it when its key is pressed.
        """
        if self.tsapp.session is None or not self.is_mounted:
            return "" if action in REFUSABLE else None  # keys wait for the session
        resource = self.active_tab.resource
        noun = resource.title.lower()
        if action in MUTATING_ACTIONS and self.tsapp.read_only:
            return f"read-only profile: {MUTATING_ACTIONS[action]} is turned off"
        if action == "delete" and resource.delete is None:
            return f"The service offers no way to delete {noun}"
        if action == "new" and resource.key not in CREATABLE:
            return f"The service offers no way to add {noun}"
        if action == "edit" and resource.key not in EDITABLE:
            # Shown with no row highlighted, as open and delete are: pressed then, it says so.
            return f"The service offers no way to edit {noun}"
        if action == "listen":
            if self.tsapp.launch.served:
                # The port would be the serving machine's, out of the browser's reach.
                return "Served to a browser, the app listens for no webhook: run it in a terminal"
            if resource.key != "webhooks":
                return "Listening is for a webhook's events: on the Webhooks tab"
        if action == "deliveries" and not self.tsapp.session.demo:
            return "The deliveries view is the demo's own webhook's: switch to the demo first"
        if action in DRILLS and resource.key not in DRILLS[action]:
            return f"{DRILL_WORDS[action]} — not from {noun}"
        if action == "switch_profile" and self.tsapp.launch.served:
            from ..app import SERVED_PROFILE

            return SERVED_PROFILE
        return None

    def on_work_failed(self, event: WorkFailed) -> None:
        """Work of this screen (a copy, a delete, what follows a form) failed in a way
        not foreseen. Nothing here stays waiting on it (a row's deleting mark and a bulk
        delete's progress go however the work ends: :func:`when_ended`): the app says
        the failure."""

    def on_key(self, event: events.Key) -> None:
        # A refused action's key still answers, so nobody wonders whether it was heard.
        if self.tsapp.session is None or _takes_text(self.focused):
            return
        for binding in self.tsapp.bound(self.BINDINGS):
            if event.key in key_names(binding):
                reason = self.refusal(action_name(binding.action))
                if reason:
                    self.notify(reason, severity="warning", markup=False)
                return

    def help_sections(self, keymap: Mapping[str, str] | None = None) -> list[Section]:
        """Every key that works here and on the screens opened from here, as bound now
        (the app's keymap: ``keymap`` is the same)."""
        from ..forms import form_bindings
        from ..widgets.json_view import JsonView
        from .detail import DetailScreen

        app = self.tsapp
        allowed = [
            b
            for b in app.bound(self.BINDINGS)
            if self.check_action(b.action.split("(")[0], ()) is not False
        ]
        tabs = [b for b in allowed if b.action.startswith("show_tab")]
        others = [b for b in allowed if not b.action.startswith("show_tab")]
        groups = [
            ("Main screen", [*others, *app.bound(GuardedApp.BINDINGS)]),  # ctrl+z
            ("Tabs", tabs),
            ("In the filter", app.bound(FilterInput.BINDINGS)),
            ("In a table", app.bound(ResourceTable.BINDINGS)),
            ("Detail view", app.bound([*DetailScreen.BINDINGS, *JsonView.BINDINGS])),
        ]
        if not app.read_only:
            groups.append(("In a form", app.bound(form_bindings())))
        from .help import sections_from_bindings

        sections = sections_from_bindings(groups, app=app)
        sections.append(("Filter", FILTER_HELP))
        palette = key_for(self, "command_palette")
        if palette:
            sections.append(("Commands", [(palette, "Command palette: every action and tab")]))
        return sections

    # --- actions on the tab --------------------------------------------------------

    def action_show_tab(self, key: str) -> None:
        """Switch to a tab by its resource key."""
        self.query_one(TabbedContent).active = key
        # Focused now, not after the tab's message: keys typed in the same burst are
        # already queued and go wherever the focus is when each is handled.
        self.set_focus(self.active_tab.table, scroll_visible=False)

    def action_focus_filter(self) -> None:
        """Focus the filter of the current tab, at once (see ``action_show_tab``)."""
        self.set_focus(self.active_tab.filter_input, scroll_visible=False)

    def action_escape(self) -> None:
        """Stop deleting marked rows; in the filter, clear it and go back to the table;
        else cancel a load in progress, or clear the filter.

        A filter is typed while a long list loads: escape there means done with the
        filter, not the end of a load that may have run for many seconds.
        """
        if self._bulk is not None and not self._bulk.stopped:
            self._bulk.stopped = True
            return
        tab = self.active_tab
        if self.focused is not tab.filter_input:
            # The tabs waiting for the same list wait for the same request (the Payouts
            # tab's for the Items tab's): theirs are cancelled too, so that it ends,
            # and its connection with it, rather than go on for a tab out of view.
            sharing = [
                other
                for other in self.tabs
                if other is not tab
                and tab.requesting
                and other.requesting
                and other.resource.load is tab.resource.load
            ]
            if tab.cancel_load():
                for other in sharing:
                    other.cancel_load()
                return
        tab.clear_filter()

    def action_refresh(self) -> None:
        """Reload the current tab."""
        if self.tsapp.session is not None:
            self.active_tab.reload()

    def action_watch(self) -> None:
        """Reload the current tab every few seconds, or stop."""
        if self.tsapp.session is None:
            return
        tab = self.active_tab
        if tab.toggle_watch(self.tsapp.watch_interval):
            stop = key_for(self, "watch")
            self.notify(
                f"Watching {tab.resource.title.lower()}: reloaded every"
                f" {tab.watch_interval:g} s while in view" + (f" ({stop} stops)" if stop else "")
            )
        else:
            self.notify(f"Stopped watching {tab.resource.title.lower()}")

    def action_mark(self) -> None:
        """Mark or unmark the highlighted row."""
        self.active_tab.table.toggle_mark()

    def action_mark_all(self) -> None:
        """Mark every shown row; if they all are, clear every mark."""
        tab = self.active_tab
        if not self._waits_for_rows(tab, "mark all"):
            tab.table.mark_all()

    def _waits_for_rows(self, tab: ResourceTab, what: str) -> bool:
        """Whether ``what`` waits for ``tab``'s list to be in, said so: it reads every row,
        and rows still arriving are decoded when read (at 1,000,000 rows, seconds of a
        frozen app on the event loop; :mod:`~tokensales_tui.api.arriving`)."""
        if not still_arriving(tab.table.rows):
            return False
        self.notify(f"The list is still loading: {what} once it is in", severity="warning")
        return True

    def action_export(self) -> None:
        """Write the rows as shown to a file."""
        from .export import ExportScreen

        tab = self.active_tab
        table = tab.table
        if not table.shown_count:
            self.notify("No rows to export", severity="warning")
            return
        if self._waits_for_rows(tab, "export"):
            return
        self.app.push_screen(ExportScreen(tab.resource, table.columns, table.model.shown_rows))

    def action_sort(self) -> None:
        """Sort by the next column."""
        self.active_tab.table.cycle_sort()

    def action_reverse_sort(self) -> None:
        """Reverse the sort."""
        self.active_tab.table.reverse_sort()

    # --- actions on the highlighted row --------------------------------------------

    def _highlighted(self) -> tuple[Resource, Any] | None:
        tab = self.active_tab
        row = tab.highlighted
        if row is None:
            self.notify("Nothing is highlighted", severity="warning")
            return None
        return tab.resource, row

    async def action_listen(self) -> None:
        """Listen on this machine for the highlighted webhook's events."""
        from ..webhook_views import open_listen

        picked = self._highlighted()
        if picked is not None:
            await open_listen(self.tsapp, picked[1])

    async def action_deliveries(self) -> None:
        """The demo: the deliveries of its own webhook, as the changes made raise events."""
        from ..webhook_views import open_demo_deliveries

        await open_demo_deliveries(self.tsapp)

    def action_copy_id(self) -> None:
        """Copy the highlighted object's id (OSC 52: works over SSH); the marked ones' if any."""
        tab = self.active_tab
        marked = tab.table.model.marked_rows()
        if marked:
            ids = [tab.resource.row_id(row) for row in marked]
            found = [object_id for object_id in ids if object_id]
            missing = f" ({len(ids) - len(found):,} have none)" if len(found) < len(ids) else ""
            copy_lines(
                self.app,
                found,
                f"Copied the ids of {len(found):,} marked {tab.resource.nouns(len(found))}{missing}",
            )
            return
        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        object_id = resource.row_id(row)
        if not object_id:
            self.notify(f"This {resource.noun} has no id", severity="warning")
            return
        copy(self.app, object_id, f"Copied the {resource.noun} id", line=True)

    def action_copy_json(self) -> None:
        """Copy the highlighted object as JSON; the marked ones as a JSON array if any."""
        tab = self.active_tab
        marked = tab.table.model.marked_rows()
        if marked:
            self._copy_marked(tab.resource, marked)
            return
        picked = self._highlighted()
        if picked is None:
            return
        resource, row = picked
        copy_json(self.app, resource.raw(row), f"the {resource.noun}")

    @work(group="copy", exclusive=True, exit_on_error=False)
    async def _copy_marked(self, resource: Resource, rows: list[Any]) -> None:
        def dump() -> str:
            return full_json([resource.raw(row) for row in rows])

        try:
            text = await asyncio.to_thread(dump)  # 100,000 objects take seconds
        except (ValueError, RecursionError) as error:
            not_copied(self.app, error)
            return
        if len(text) > COPY_LIMIT:
            export = key_for(self, "export")
            self.notify(
                f"{resource.counted(len(rows))} make {len(text) / 2**20:,.0f} MB of JSON,"
                " more than a clipboard takes: export them"
                + (f" with {export} instead" if export else " instead"),
                severity="warning",
            )
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(rows):,} marked {resource.nouns(len(rows))} as a JSON array")

    @on(ResourceTable.RowSelected)
    def _open_detail(self, event: ResourceTable.RowSelected) -> None:
        tab = next((t for t in self.query(ResourceTab) if t.table is event.table), None)
        if tab is None or event.row is None:
            return
        key = tab.resource.key
        if key == "payouts" and getattr(event.row, "key", None) is not None:
            self.show_items_paid_by(event.row)
            return
        if key == "items" and event.column_key == "payout":
            self.show_payout_of(event.row)
            return
        if key == "items" and event.column_key == "chain":
            self.show_asset_of(event.row)
            return
        self.open_detail(tab.resource, event.row)

    # --- drill-down ----------------------------------------------------------------

    @property
    def tabs(self) -> list[ResourceTab]:
        """Every tab, in order (mounted or not yet: see :attr:`mounting`)."""
        return [self.tab(resource.key) for resource in RESOURCES]

    def tab(self, key: str) -> ResourceTab:
        """The tab of a resource (mounted or not yet: see :attr:`mounting`).

        Each is made when first asked for: the first frame makes the first tab alone
        (each tab's widgets, its table and its filter take a millisecond or two).
        """
        tab = self._tabs.get(key)
        if tab is None:
            resource = next((each for each in RESOURCES if each.key == key), None)
            if resource is None:
                raise KeyError(key)
            tab = self._tabs[key] = ResourceTab(
                resource,
                lambda: self.tsapp.api,
                extra_rows=self.tsapp.added_payouts,
                id=f"{key}-tab",
            )
        return tab

    def action_go_to(self) -> None:
        """Items: go to the highlighted item's payout setting; Payouts: to its items."""
        row = self.active_tab.highlighted
        if row is None:
            self.notify("Nothing is highlighted", severity="warning")
        elif self.active_tab.resource.key == "payouts":
            self.show_items_paid_by(row)
        else:
            self.show_payout_of(row)

    def action_go_to_asset(self) -> None:
        """Items: go to the asset of the highlighted item's chain."""
        row = self.active_tab.highlighted
        if row is None:
            self.notify("Nothing is highlighted", severity="warning")
        else:
            self.show_asset_of(row)

    def show_items_paid_by(self, setting: Any) -> None:
        """The Items tab, showing only the items paid out by a payout setting."""
        from ...payouts import payout_key

        key = setting.key
        if key is None:
            self.notify("No item uses this payout definition yet", severity="warning")
            return
        described = " ".join(
            part for part in (setting.type, setting.chain, setting.account) if part
        )
        label = f"paid out by {described or 'this setting'}"
        if self._waits_for_rows(self.tab("items"), "show its items"):
            return
        self.action_show_tab("items")
        self.tab("items").narrow_to(Scope(label, lambda item: payout_key(item.payout) == key))

    def show_payout_of(self, item: Any) -> None:
        """The Payouts tab, on the payout setting of ``item``."""
        from ...payouts import payout_key

        key = payout_key(item.payout)
        if key is None:
            self.notify("This item has no payout setting", severity="warning")
            return
        tab = self.tab("payouts")
        tab.narrow_to(None)
        if not tab.table.move_cursor_to(lambda row: row.key == key):
            load = press(self, "refresh", "on Payouts") or "load Payouts again"
            self.notify(f"Its payout setting is not listed yet: {load}", severity="warning")
            return
        self.action_show_tab("payouts")

    def show_asset_of(self, item: Any) -> None:
        """The Assets tab, on the asset ``item`` is paid in, else its chain's native coin.

        With neither listed, the assets of the chain; with none, a message.
        """
        from ..resources import item_chain

        chain = item_chain(item)
        asset_id = item.payout.asset_id if item.payout is not None else None
        tab = self.tab("assets")
        tab.narrow_to(None)

        def on_chain(row: Any) -> bool:
            raw = row.raw
            return chain != "" and chain in (raw.get("blockchainId"), raw.get("blockchain"))

        def native(row: Any) -> bool:
            return on_chain(row) and str(row.raw.get("type", "")).casefold() == "native"

        table = tab.table
        found = (bool(asset_id) and table.move_cursor_to(lambda row: row.id == asset_id)) or (
            table.move_cursor_to(native)
        )
        if not found:
            if not chain:
                self.notify(
                    "This item names no chain (nor an asset it is paid in)", severity="warning"
                )
                return
            if table.model.first(on_chain) < 0:
                self.notify(f"No asset is listed for the chain “{chain}”", severity="warning")
                return
            tab.narrow_to(Scope(f"on {chain}", on_chain))
        self.action_show_tab("assets")

    def open_detail(self, resource: Resource, row: Any) -> None:
        """Show the detail view of ``row``, fetching the current version when the API can."""
        from .detail import DetailScreen, Fetched

        object_id = resource.row_id(row)
        refresh = None
        fetch = resource.fetch
        api = self.tsapp.api
        if fetch is not None and object_id:

            async def refresh() -> Fetched:
                fresh = await api.call(lambda client: fetch(client, object_id))
                return Fetched(
                    resource.key_fields(fresh), resource.raw(fresh), resource.row_id(fresh)
                )

        self.app.push_screen(
            DetailScreen(
                resource.noun.capitalize(),
                resource.key_fields(row),
                resource.raw(row),
                object_id=object_id,
                refresh=refresh,
            )
        )

    def _highlighted_link(self, verb: str) -> str:
        """The highlighted object's address; "" for none, said ("no address to ``verb``")
        when a row is highlighted."""
        picked = self._highlighted()
        if picked is None:
            return ""
        resource, row = picked
        get = LINKS.get(resource.key)
        url = (get(row) or "") if get else ""
        if not url:
            self.notify(f"This {resource.noun} has no address to {verb}", severity="warning")
        return url

    def action_open_link(self) -> None:
        """Open the highlighted object's address (webhook URL, item image) after showing it:
        in this machine's browser, or, served (``serve``), in the browser showing the app."""
        from ..links import can_launch_browser, link_problem

        url = self._highlighted_link("open")
        if not url:
            return
        shown = clean_line(url)
        problem = link_problem(url)
        if problem:
            self.notify(f"Not opened: {problem}: {shown}", severity="warning", markup=False)
            return
        from ...checks import look_alike_host  # the checks load their libraries: not at start
        from ...web_urls import web_host

        host = web_host(url)  # link_problem let it through: the browser's host
        warning = look_alike_host(host)
        careful = f"Careful: {warning}" if warning else ""
        if not self.tsapp.launch.served and not can_launch_browser():
            copy(
                self.app,
                url,
                f"No browser can open here (SSH session or no display), so it was copied: {shown}"
                + (f"\n{careful}" if careful else ""),
                line=True,
                severity="warning" if careful else "information",
            )
            return

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.app.open_url(url)  # the driver's: a served app's opens in the browser

        from .confirm import ConfirmScreen

        self.app.push_screen(
            ConfirmScreen(
                "Open this address in your browser?",
                url,
                # Named apart: a long address is cut short in the question, and what
                # comes before an "@" can push the host out of what is shown.
                detail=" · ".join(part for part in (careful, f"Host: {host}") if part),
                confirm_label="Open",
            ),
            answered,
        )

    def action_copy_link(self) -> None:
        """Copy the highlighted object's address (webhook URL, item image), as it is: for
        a browser the app cannot start, or another machine's."""
        url = self._highlighted_link("copy")
        if not url:
            return
        copy(self.app, url, f"Copied the address: {clean_line(url)}", line=True)

    def action_delete(self) -> None:
        """Delete the highlighted object, after confirmation; the marked ones if any."""
        tab = self.active_tab
        marked = tab.table.model.marked_rows()
        if marked:
            self._confirm_bulk_delete(tab, marked)
            return
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
        if problem := id_problem(object_id):  # say so now, not after a confirmation
            self.notify(
                f"This {resource.noun} cannot be deleted from here: its id {problem}",
                severity="warning",
            )
            return
        if object_id in tab.deleting:
            self.notify(f"This {resource.noun} is being deleted already", severity="warning")
            return
        detail = f"id {object_id}"
        if (listed := len(tab.table.model.rows_sharing([row]))) > 1:
            rows = "both rows" if listed == 2 else f"all {listed:,} rows"
            detail += f" — listed {listed:,} times: one request deletes it, and {rows} go"
        from .confirm import ConfirmScreen

        self._ask_then_delete(
            tab,
            [object_id],
            ConfirmScreen(f"Delete this {resource.noun}?", resource.label(row), detail=detail),
            lambda api: self._delete(tab, row, object_id, api),
        )

    @work(group="delete", exit_on_error=False)
    async def _delete(self, tab: ResourceTab, row: Any, object_id: str, api: ApiWorker) -> None:
        resource = tab.resource
        delete = resource.delete
        assert delete is not None
        label = _named(resource, row)
        session = self.tsapp.session
        try:
            done = await api.call(
                lambda client: delete(client, object_id), what=f"Delete {resource.noun} {label}"
            )
        except asyncio.CancelledError:
            if being_cancelled() or session is None:
                raise  # this delete's own end (the app quits)
            # The session's worker stopped under it (another profile was chosen): its
            # request may have gone. Said, as a bulk delete says it.
            self.notify(
                f"{label}: the profile changed while it was being deleted — check it on"
                f" profile {session.name}",
                title=f"Profile {session.name}: outcome unknown",
                severity="error",
                markup=False,
            )
            return
        except OutcomeUnknownError as error:  # sent, every answer lost: it may be deleted
            self.notify(error.one_line, title=f"{label}: outcome unknown", severity="error")
            tab.reload()
            return
        except ApiError as error:
            self.notify(
                f"{label} was not deleted: {error.one_line}",
                title="Delete failed",
                severity="error",
                markup=False,
            )
            return
        gone = tab.table.model.rows_sharing([row])  # an id listed twice: both rows
        tab.remove_rows(gone)
        listed = [f"listed {len(gone):,} times"] if len(gone) > 1 else []
        self.notify(done.said(f"Deleted {resource.noun} {label}", *listed), markup=False)
        tab.reload()

    def _confirm_bulk_delete(self, tab: ResourceTab, marked: list[Any]) -> None:
        resource = tab.resource
        # The question counts what will be asked of the server: a row without an id, or
        # whose id would address another path, is left out and said so before, not after.
        deletable = [row for row in marked if _deletable_id(resource.row_id(row))]
        unfit = len(marked) - len(deletable)
        rows = [row for row in deletable if resource.row_id(row) not in tab.deleting]
        if not rows:
            busy = len(deletable)
            if not unfit:
                text = (
                    f"The {resource.counted(busy)} marked {'is' if busy == 1 else 'are'}"
                    " being deleted already"
                )
            else:
                text = (
                    f"None of the {resource.counted(len(marked))} marked can be deleted:"
                    f" {unfit:,} {'has' if unfit == 1 else 'have'} no id that can be deleted"
                    " from here" + (f", {busy:,} being deleted already" if busy else "")
                )
            self.notify(text, severity="warning")
            return
        count = len(rows)
        names = ", ".join(f"“{_named(resource, row)}”" for row in rows[:BULK_NAMED])
        more = f" and {count - BULK_NAMED:,} more" if count > BULK_NAMED else ""
        hidden = count - tab.table.model.shown_among(rows)  # of those to be sent
        detail = f"One by one; {self._stop_key()} stops after the current one."
        if hidden:
            detail = f"{hidden:,} of them hidden by the filter. " + detail
        if repeated := len(tab.table.model.rows_sharing(rows)) - count:
            rows_repeat = "row repeats" if repeated == 1 else "rows repeat"
            detail = f"{repeated:,} more {rows_repeat} a marked id: each is deleted once. " + detail
        if busy := len(deletable) - count:
            detail = f"{busy:,} more marked, being deleted already: left out. " + detail
        if unfit:
            detail = (
                f"{unfit:,} more marked {'has' if unfit == 1 else 'have'} no id that can be"
                " deleted from here (none, or one such as “..”): left out. " + detail
            )

        def delete(api: ApiWorker) -> Worker[None]:
            bulk = self._bulk = BulkDelete()
            worker = self._delete_marked(tab, rows, bulk, api)
            when_ended(worker, partial(self._bulk_ended, tab, bulk))
            return worker

        from .confirm import ConfirmScreen

        self._ask_then_delete(
            tab,
            [object_id for row in rows if (object_id := resource.row_id(row))],
            ConfirmScreen(
                f"Delete {count:,} marked {resource.nouns(count)}?", names + more, detail=detail
            ),
            delete,
        )

    def _stop_key(self) -> str:
        """The key that stops a bulk delete, as bound now (``escape``, unless a keymap
        moved it)."""
        binding = next(b for b in self.tsapp.bound(self.BINDINGS) if b.id == "clear_filter")
        return key_display(binding, self.app)

    def _ask_then_delete(
        self,
        tab: ResourceTab,
        ids: list[str],
        question: ConfirmScreen,
        delete: Callable[[ApiWorker], Worker[None]],
    ) -> None:
        """Ask ``question``; on yes, ``delete`` the objects of ``ids`` with the session's
        API, unless the profile changed meanwhile (then nothing is deleted).

        From the answer until the worker ``delete`` starts ends, however it ends (done,
        failed unforeseen, cancelled), the ids are the tab's
        :attr:`~ResourceTab.deleting`, which every way to delete skips and each of their
        rows shows with a mark.
        """
        session, api = self.tsapp.session, self.tsapp.api

        def answered(confirmed: bool | None) -> None:
            if not confirmed:
                return
            if self.tsapp.session is not session:  # switched profile while asking
                self.notify("Nothing was deleted: the profile changed", severity="warning")
                return
            if not tab.deleting.isdisjoint(ids):  # asked twice before either answer
                self.notify(
                    "Nothing more was sent: it is being deleted already", severity="warning"
                )
                return
            worker = delete(api)
            tab.begin_deleting(ids)
            when_ended(worker, partial(tab.end_deleting, ids))

        self.app.push_screen(question, answered)

    @work(group="delete", exit_on_error=False)
    async def _delete_marked(
        self, tab: ResourceTab, rows: list[Any], bulk: BulkDelete, api: ApiWorker
    ) -> None:
        resource = tab.resource
        delete = resource.delete
        assert delete is not None
        session = self.tsapp.session
        deleted: list[Any] = []
        already_gone = 0
        failed: list[str] = []
        unsure: list[str] = []  # sent, every answer lost: may be deleted
        noted: list[str] = []  # deleted, its answer's body unread
        try:
            for number, row in enumerate(rows, start=1):
                if bulk.stopped or self.tsapp.session is not session:
                    break
                tab.show_progress(
                    f"Deleting {number:,} of {resource.counted(len(rows))}"
                    f" ({self._stop_key()} stops after this one)"
                )
                label = _named(resource, row)
                object_id = resource.row_id(row)
                if not object_id:
                    failed.append(f"{label}: no identifier the client recognises")
                    continue
                if problem := id_problem(object_id):
                    failed.append(f"{label}: its id {problem}")
                    continue
                try:
                    done = await api.call(
                        partial(_delete_one, delete, object_id),
                        what=f"Delete {resource.noun} {label}",
                    )
                except asyncio.CancelledError:
                    if being_cancelled():
                        raise  # this delete's own end (the app quits)
                    # The session's worker stopped under it (another profile was chosen):
                    # its request may have gone.
                    unsure.append(f"{label}: the profile changed while it was being deleted")
                    break
                except OutcomeUnknownError as error:
                    unsure.append(f"{label}: {error.one_line}")
                    continue
                except QuittingError:
                    break  # the app quits: the rest are not sent
                except ApiError as error:
                    failed.append(f"{label}: {error.one_line}")
                    continue
                deleted.append(row)
                already_gone += done.already_gone
                if done.unusual:
                    noted.append(done.said(label))
        finally:
            if deleted:  # with any other row of the same id
                tab.remove_rows(tab.table.model.rows_sharing(deleted))
        left = len(rows) - len(deleted) - len(failed) - len(unsure)
        summary = f"Deleted {len(deleted):,} of {resource.counted(len(rows))}"
        if session is not None and self.tsapp.session is not session:
            summary = f"Profile {session.name}: {summary[0].lower()}{summary[1:]}"
        if already_gone:
            summary += f" ({already_gone:,} already gone when its request was repeated)"
        if left:
            summary += f"; stopped before the last {left:,}"
            if session is not None and self.tsapp.session is not session:
                summary += " (another profile was chosen)"
        self.notify(summary, severity="warning" if failed or unsure else "information")
        kinds: tuple[tuple[list[str], str, str, SeverityLevel], ...] = (
            (failed, "not deleted", " (still marked)", "error"),
            (unsure, "outcome unknown", " (still marked)", "error"),
            (noted, "deleted, with a note", "", "warning"),
        )
        for lines, title, still, severity in kinds:
            if lines:
                shown = "\n".join(lines[:BULK_FAILURES_SHOWN])
                more = len(lines) - BULK_FAILURES_SHOWN
                if more > 0:
                    shown += f"\n… and {more:,} more{still}"
                self.notify(shown, title=f"{len(lines):,} {title}", severity=severity, timeout=30)
        tab.reload()

    def _bulk_ended(self, tab: ResourceTab, bulk: BulkDelete) -> None:
        """Take off what showed ``bulk`` under way: its progress line, its stop key."""
        if self._bulk is bulk:
            self._bulk = None
        tab.show_progress(None)

    def action_new(self) -> None:
        """Open the form that creates an object of the current tab."""
        tab = self.active_tab
        form = new_form(
            tab.resource.key,
            self.tsapp.api,
            payout_add=self.tsapp.payout_add,
            webhooks=self.webhooks,
        )
        if form is not None:
            self._open_form(tab, form)

    def action_edit(self) -> None:
        """Open the highlighted webhook in the edit form."""
        picked = self._highlighted()
        if picked is None:
            return
        tab = self.active_tab
        form = edit_form(tab.resource.key, self.tsapp.api, picked[1], webhooks=self.webhooks)
        if form is not None:
            self._open_form(tab, form)

    def _open_form(self, tab: ResourceTab, form: FormScreen) -> None:
        def done(result: FormResult | None) -> None:
            if result is None:
                return
            self.notify(clean_line(result.summary), markup=False)
            self._after_form(tab, result)

        self.app.push_screen(form, done)

    @work(group="after-form", exit_on_error=False)
    async def _after_form(self, tab: ResourceTab, result: FormResult) -> None:
        if result.payout is not None:  # recorded before the reload that shows it
            await result.payout.over()
        if result.changed:
            tab.reload(then_highlight=result.highlight)


def _deletable_id(object_id: str | None) -> bool:
    """Whether an object of this id can be deleted from here (see ``id_problem``)."""
    return object_id is not None and object_id != "" and id_problem(object_id) is None
