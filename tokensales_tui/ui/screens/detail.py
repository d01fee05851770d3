"""The detail view of one server object: key fields on top, the full JSON below.

Everything on this screen except the title and our own messages is server data,
shown literally (see :mod:`tokensales_tui.clean`). Hostile or huge objects must
not freeze the app, so the JSON is drawn (by :class:`~..widgets.json_view.JsonView`)
from a capped copy (:func:`~..json_text.preview_json`). ``y`` always copies the
whole, uncapped object.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar, NamedTuple

from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from ...api import ApiError
from ...clean import clean_line
from ..closing import close
from ..json_text import preview_json
from ..key_hints import error_said, key_for, key_in, press
from ..lifetime import is_gone, while_shown
from ..safe import content, line, show
from ..safe_app import copy, copy_json
from ..table.cells import cell_text
from ..widgets.field_value import FieldsRoom, FieldValue
from ..widgets.footer import KeysFooter
from ..widgets.json_view import JsonView
from ..widgets.safe_input import SafeInput
from ..work_failures import WorkFailed
from .base import ScreenKeys

__all__ = ["CAPPED_NOTICE", "DetailScreen", "Fetched", "Fields", "Refresh"]

FIELD_LIMIT = 1_000
"""Longest key-field value shown, in characters."""

CAPPED_NOTICE = "Showing part of a large object"
"""Said above a JSON shown in part, with the key that copies it whole."""
FETCHING = "Fetching the current version…"

ID_LIMIT = 100
"""Longest id quoted in the warning about another object, in characters."""

Fields = list[tuple[str, object]]


class Fetched(NamedTuple):
    """The current version of the object, as the server answered."""

    fields: Fields
    raw: object
    object_id: str | None
    """The id the answer names (None: it names none, and cannot be told apart)."""


Refresh = Callable[[], Awaitable[Fetched]]


class DetailScreen(ScreenKeys, Screen[None]):
    """The detail view of one server object: its key fields, then all of its JSON.

    Args:
        title: Our name for the kind of object, e.g. "Item".
        fields: (label, value) pairs shown on top; values are server data.
        raw: The whole object as decoded from JSON, its numbers as the server wrote
            them (:func:`~..resources.as_sent`).
        object_id: The object's id (server data), copied with ``c``.
        refresh: Fetches the current version when the screen opens. An answer that
            names another id is shown as it came, under a warning that says so.
        absent: Why there is no JSON to show (a body that was not kept), said in its
            place; ``raw`` is then neither shown nor copied.
    """

    DEFAULT_CSS = """
    DetailScreen {
        & > #detail-title {
            height: 1;
            padding: 0 1;
            background: $panel;
            color: $foreground;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        & > #detail-fields {
            height: auto;
            max-height: 40%;
            padding: 0 1;
            background: $surface;
            border-bottom: hkey $panel;
            border-subtitle-color: $text-muted;
            border-subtitle-align: right;
        }
        & #detail-grid {
            height: auto;
            grid-size: 2;
            grid-columns: auto 1fr;
            grid-rows: auto;
            grid-gutter: 0 2;
        }
        & .detail--label {
            color: $text-muted;
        }
        & > #detail-status, & > #detail-notice {
            height: auto;
            padding: 0 1;
            display: none;
        }
        & > #detail-status {
            color: $text-muted;
            &.-error {
                color: $text-error;
            }
            &.-warning {
                color: $text-warning;
                text-style: bold;
            }
        }
        & > #detail-notice {
            color: $text-warning;
        }
        & > #detail-searchbar {
            height: 1;
            background: $panel;
            display: none;
        }
        &.-searching > #detail-searchbar {
            display: block;
        }
        & #detail-search {
            width: 1fr;
            height: 1;
            border: none;
            padding: 0 1;
        }
        & #detail-matches {
            width: auto;
            padding: 0 1;
            color: $text-muted;
        }
    }
    """

    TEXT_FIELDS = (SafeInput,)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="detail.back"),
        Binding("q", "back", "Back", show=False, id="detail.back_q"),
        Binding("r", "refresh", "Refresh", id="detail.refresh"),
        Binding("c", "copy_id", "Copy id", id="detail.copy_id"),
        Binding("y", "copy_json", "Copy JSON", id="detail.copy_json"),
        Binding("slash", "search", "Search", key_display="/", id="detail.search"),
        Binding("n", "next_match", "Next match", id="detail.next_match"),
        Binding("N", "previous_match", "Previous match", id="detail.previous_match"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
    ]

    RETRY_ACTION = "refresh"
    """The action that fetches the object again after a failure (see :mod:`..key_hints`)."""

    json_view = getters.query_one("#detail-json", JsonView)
    search_input = getters.query_one("#detail-search", Input)

    def __init__(
        self,
        title: str,
        fields: Fields,
        raw: object,
        *,
        object_id: str | None,
        refresh: Refresh | None = None,
        absent: str | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self._fields = fields
        self._raw = raw
        self._absent = absent
        self._object_id = object_id
        self._refresh = refresh
        self._capped = False
        """Only part of the object is shown (and searched): see :data:`CAPPED_NOTICE`."""
        self._room = FieldsRoom()
        """The rows the values of the fields shown share (see :meth:`_fit_fields`)."""

    @property
    def raw(self) -> object:
        """The object shown (the latest version once a refresh succeeds)."""
        return self._raw

    def compose(self) -> ComposeResult:
        title = line(self._title, "bold")
        if self._object_id:
            title += line("  " + self._object_id, "dim")
        yield Static(title, id="detail-title")  # gate: built by safe.line above
        with VerticalScroll(id="detail-fields"):
            yield Grid(*self._field_cells(self._fields), id="detail-grid")
        yield Static(id="detail-status")
        yield Static(id="detail-notice")
        yield JsonView(id="detail-json")
        with Horizontal(id="detail-searchbar"):
            yield SafeInput(placeholder="Search the JSON", id="detail-search")
            yield Static(id="detail-matches")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._show_json()
        self.json_view.focus()
        self._fit_fields()
        # Fields come and go (a refresh) and wrap anew: whether the pane still has more
        # than it shows is asked again each time it is laid out.
        pane = self.query_one("#detail-fields")
        # let go: the pane is this screen's own child, gone with it; nothing outlives it.
        self.watch(pane, "virtual_size", self._fields_laid_out, init=False)
        self.action_refresh()

    def _fields_laid_out(self) -> None:
        self.call_after_refresh(self._say_more_fields)

    def on_resize(self) -> None:
        self._fit_fields()

    def _fit_fields(self) -> None:
        """Share the fields pane's height among the values, so that every field shows
        (a long one ends with "…", whole in the JSON); where even a row each does not
        fit, the pane's lower edge says how to scroll it."""
        pane = self.query_one("#detail-fields")
        most = pane.styles.max_height
        if most is not None and self.size.height:
            # At most the share of the whole screen; the pane's own height once it is
            # laid out at its most (see _say_more_fields).
            rows = int(most.resolve(self.size, self.app.size)) - pane.styles.gutter.height
            self._share_rows(rows)
        self.call_after_refresh(self._say_more_fields)

    def _share_rows(self, rows: int) -> bool:
        changed = self._room.set_rows(max(rows, 1))
        if changed:
            for value in self._room.values:
                value.refresh(layout=True)
        return changed

    def _say_more_fields(self) -> None:
        if not self.is_attached:
            return
        pane = self.query_one("#detail-fields")
        if pane.max_scroll_y > 0 and self._share_rows(pane.scrollable_content_region.height):
            self.call_after_refresh(self._say_more_fields)  # the room there really is
            return
        pane.border_subtitle = line(self._more_fields()) if pane.max_scroll_y > 0 else None

    def _more_fields(self) -> str:
        """That more fields are below, and the keys that reach them, as bound now."""
        into = key_for(self, "app.focus_next")
        moves = [key_in(VerticalScroll.BINDINGS, way, self) for way in ("scroll_up", "scroll_down")]
        if into is None or None in moves:
            return "more fields below"
        return f"more fields: {into}, then {''.join(filter(None, moves))}"

    def action_refresh(self) -> None:
        """Fetch the current version of the object (again)."""
        if self._refresh is not None:
            self._set_status(FETCHING)
            self.run_worker(self._fetch(self._refresh), exclusive=True, group="detail-refresh")

    def _field_cells(self, fields: Fields) -> list[Widget]:
        """A label and a value for each field; the values share a new room."""
        room, self._room = self._room, FieldsRoom()
        self._room.set_rows(room.rows)
        cells: list[Widget] = []
        for label, value in fields:
            cells.append(Static(content(label), classes="detail--label"))
            cells.append(FieldValue(cell_text(value, FIELD_LIMIT), self._room))
        return cells

    def _show_json(self) -> None:
        notice = self.query_one("#detail-notice", Static)
        if self._absent is not None:
            self.json_view.set_lines([])
            show(notice, line(self._absent))
        else:
            preview = preview_json(self._raw)
            self.json_view.set_lines(preview.lines)
            self._capped = preview.capped
            if preview.capped:
                copy_all = press(self, "copy_json", "to copy the full JSON")
                show(notice, line(f"{CAPPED_NOTICE} — {copy_all}" if copy_all else CAPPED_NOTICE))
        notice.display = self._absent is not None or self._capped
        self.query_one("#detail-fields").display = bool(self._fields)
        if self.has_class("-searching"):
            self._show_matches()

    def _set_status(self, message: str, *, error: bool = False, warning: bool = False) -> None:
        status = self.query_one("#detail-status", Static)
        show(status, line(message))
        status.set_class(error, "-error")
        status.set_class(warning, "-warning")
        status.display = bool(message)

    @while_shown
    async def _fetch(self, refresh: Refresh) -> None:
        try:
            fields, raw, answered = await refresh()
        except Exception as error:
            if is_gone(self):
                return
            if isinstance(error, ApiError):
                message = error_said(error, self)
            else:
                message = clean_line(str(error)) or type(error).__name__
            self._set_status(f"Could not fetch the current version: {message}", error=True)
            return
        if is_gone(self):
            return
        self._fields, self._raw = fields, raw
        grid = self.query_one("#detail-grid", Grid)
        # Both asked for before either is awaited: a refresh pressed meanwhile cancels
        # this one at an await, which must not fall between taking the old fields down
        # and putting the new ones up.
        swapped = (grid.remove_children(), grid.mount_all(self._field_cells(fields)))
        self._show_json()
        asked = self._object_id
        if answered is not None and asked and answered != asked:
            # A server that mixes objects up (a cache, a proxy, a bug): what it sent is
            # shown, but never as if it were the object of the row opened.
            self._set_status(
                "⚠ The server answered with another object: asked for "
                f"{cell_text(asked, ID_LIMIT)}, got ID {cell_text(answered, ID_LIMIT)} "
                "— shown as it came",
                warning=True,
            )
        else:
            self._set_status("")
        for done in swapped:
            await done

    def on_work_failed(self, event: WorkFailed) -> None:
        """A refresh (this screen's only work) failed in a way not foreseen: said where
        it said it was fetching, as a refresh that fails is; ``r`` tries again."""
        event.stop()
        self._set_status(f"Could not fetch the current version: {event.text}", error=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "refresh":
            # Only an object the API can fetch alone (items, assets) has a current version.
            return self._refresh is not None
        if action in ("next_match", "previous_match"):
            return self.is_mounted and self.json_view.match_count > 0
        return True

    def action_back(self) -> None:
        """Close the search bar if it is open, else leave the screen."""
        if self.has_class("-searching"):
            self.remove_class("-searching")
            self.json_view.search("")
            self.json_view.focus()
            self.refresh_bindings()
        else:
            close(self)

    def action_copy_id(self) -> None:
        """Copy the object's id to the clipboard."""
        if not self._object_id:
            self.notify("This object has no id", severity="warning", markup=False)
            return
        copy(self.app, self._object_id, "Copied id", line=True)

    def action_copy_json(self) -> None:
        """Copy the whole object, uncapped, as pretty JSON."""
        if self._absent is not None:
            self.notify(f"Nothing to copy: {self._absent}", severity="warning", markup=False)
            return
        copy_json(self.app, self._raw, f"the {self._title.lower()}")

    def action_search(self) -> None:
        """Open the search bar."""
        self.add_class("-searching")
        self.search_input.focus()

    @on(Input.Submitted, "#detail-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        view = self.json_view
        if view.search(event.value):
            view.select_match(0)
        self._show_matches()
        view.focus()
        self.refresh_bindings()

    def action_next_match(self) -> None:
        """Select the next search match."""
        self.json_view.select_match(self.json_view.current_match + 1)
        self._show_matches()

    def action_previous_match(self) -> None:
        """Select the previous search match."""
        self.json_view.select_match(self.json_view.current_match - 1)
        self._show_matches()

    def _show_matches(self) -> None:
        view = self.json_view
        count = view.match_count
        if not self.search_input.value:
            text = ""
        elif not count:
            # The search looks in the lines shown: the rest of a large object may hold it.
            text = "no matches in the part shown" if self._capped else "no matches"
        else:
            total = f"{count:,}+" if view.matches_capped else f"{count:,}"
            text = f"match {view.current_match + 1:,} of {total}"
        show(self.query_one("#detail-matches", Static), line(text))
