"""The detail view of one server object: key fields on top, the full JSON below.

Everything on this screen except the title and our own messages is server data,
shown literally (see :mod:`tokensales_tui.ui.safe`). Hostile or huge objects must
not freeze the app, so the JSON is rendered from a capped copy
(:func:`preview_json`): at most :data:`MAX_LINES` lines and :data:`MAX_CHARS`
characters, strings cut at :data:`MAX_STRING` characters and nesting cut at
:data:`MAX_DEPTH` levels. ``y`` always copies the whole, uncapped object.

The JSON is drawn by :class:`JsonView`, which highlights and wraps only the lines
on screen: a ``Static`` holding a 2,000-line ``Syntax`` took 0.4–0.7 s per update
(every search step), this takes a few milliseconds.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, islice
from typing import ClassVar

from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from rich._wrap import divide_line  # Text.wrap's word wrapping, as offsets
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text
from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Input, Static

from ...clean import clean, clean_line, display_value, is_clean
from ..safe import content

__all__ = [
    "CAPPED_NOTICE",
    "DetailScreen",
    "Fields",
    "JsonPreview",
    "JsonView",
    "Refresh",
    "full_json",
    "preview_json",
]

MAX_LINES = 2_000
"""Most JSON lines rendered."""
MAX_CHARS = 200_000
"""Most characters of JSON rendered."""
MAX_STRING = 10_000
"""Longest string rendered in full; longer ones end with "… (N more characters)"."""
MAX_DEPTH = 50
"""Deepest nesting rendered; deeper objects and arrays show as ``{…}`` / ``[…]``."""
MAX_MATCHES = 10_000
"""Most search matches highlighted and counted."""
FIELD_LIMIT = 1_000
"""Longest key-field value shown, in characters."""

CAPPED_NOTICE = "Showing part of a large object — press y to copy the full JSON"
FETCHING = "Fetching the current version…"

Fields = list[tuple[str, object]]
Refresh = Callable[[], Awaitable[tuple[Fields, object]]]

# json.dumps(ensure_ascii=False) escapes C0 controls but passes DEL, C1 controls,
# line separators, bidi controls and lone surrogates through. Escaping them keeps
# the text valid JSON that parses back to the same value, and safe to display.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(dumped: str) -> str:
    if _JSON_UNSAFE.search(dumped) is None:
        return dumped
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", dumped)


def full_json(value: object) -> str:
    """The whole value as pretty JSON (indent 2) that parses back to an equal value.

    Characters that are unsafe on a terminal are written as ``\\uXXXX`` escapes.

    Raises:
        ValueError: The value cannot be written as JSON (a circular reference, or an
            integer too long to convert).
        RecursionError: The value is nested too deeply.
    """
    return _escape(json.dumps(value, indent=2, ensure_ascii=False, default=str))


@dataclass(frozen=True, slots=True)
class JsonPreview:
    """The lines of JSON to render, and whether anything was left out."""

    lines: list[str]
    capped: bool


class _Full(Exception):
    """The preview has used its whole budget."""


class _Printer:
    """Writes ``json.dumps(indent=2)``-style lines until a budget runs out.

    Only what is written is visited, so an object with a million keys costs no
    more than one with two thousand.
    """

    def __init__(self, max_lines: int, max_chars: int, max_string: int, max_depth: int) -> None:
        self.lines: list[str] = []
        self.chars = 0
        self.capped = False
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.max_string = max_string
        self.max_depth = max_depth

    def emit(self, line: str) -> None:
        if len(self.lines) >= self.max_lines or self.chars + len(line) > self.max_chars:
            raise _Full
        self.lines.append(line)
        self.chars += len(line) + 1

    def string(self, value: str) -> str:
        if len(value) <= self.max_string:
            return _escape(json.dumps(value, ensure_ascii=False))
        self.capped = True
        more = len(value) - self.max_string
        head = _escape(json.dumps(value[: self.max_string], ensure_ascii=False))
        return f'{head[:-1]}… ({more:,} more characters)"'

    def key(self, key: object) -> str:
        if isinstance(key, str):
            return self.string(key)
        if key is None or isinstance(key, bool | int | float):
            return self.string(json.dumps(key))  # what json.dumps does to such keys
        return self.string(str(key))

    def scalar(self, value: object) -> str:
        if isinstance(value, str):
            return self.string(value)
        try:
            dumped = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):  # e.g. an int of 5,000 digits
            self.capped = True
            return "…"
        if len(dumped) > self.max_string:  # e.g. a huge object's str()
            return self.string(json.loads(dumped)) if dumped[0] == '"' else "…"
        return _escape(dumped)

    def value(self, value: object, prefix: str, indent: str, suffix: str, depth: int) -> None:
        if isinstance(value, dict):
            opening, closing = "{", "}"
        elif isinstance(value, list | tuple):
            opening, closing = "[", "]"
        else:
            self.emit(f"{prefix}{self.scalar(value)}{suffix}")
            return
        if not value:
            self.emit(f"{prefix}{opening}{closing}{suffix}")
            return
        if depth >= self.max_depth:
            self.capped = True
            self.emit(f"{prefix}{opening}…{closing}{suffix}")
            return
        self.emit(prefix + opening)
        inner = indent + "  "
        last = len(value) - 1
        if isinstance(value, dict):
            for position, (key, item) in enumerate(value.items()):
                comma = "," if position < last else ""
                self.value(item, f"{inner}{self.key(key)}: ", inner, comma, depth + 1)
        else:
            for position, item in enumerate(value):
                comma = "," if position < last else ""
                self.value(item, inner, inner, comma, depth + 1)
        self.emit(f"{indent}{closing}{suffix}")


def preview_json(
    value: object,
    *,
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_CHARS,
    max_string: int = MAX_STRING,
    max_depth: int = MAX_DEPTH,
) -> JsonPreview:
    """Pretty JSON lines of ``value`` for display, capped so hostile data stays cheap.

    Args:
        value: A value decoded from JSON.
        max_lines: Most lines written; a last "…" line marks the cut.
        max_chars: Most characters written.
        max_string: Longest string written in full.
        max_depth: Deepest nesting written.

    Returns:
        Cleaned lines (no control or bidi characters) and whether anything was cut.
    """
    printer = _Printer(max_lines, max_chars, max_string, max_depth)
    try:
        printer.value(value, "", "", "", 0)
    except _Full:
        printer.capped = True
        printer.lines.append("…")
    lines = printer.lines
    if not is_clean("\n".join(lines)):  # escaping above should leave nothing to do
        lines = [clean(line) for line in lines]
    return JsonPreview(lines, printer.capped)


@lru_cache(maxsize=256)
def _foreground(style: Style) -> Style:
    # Pygments themes paint every token on the theme's background; keep the
    # widget's own background instead.
    return Style(color=style.color, bold=style.bold, italic=style.italic)


class JsonView(ScrollView, can_focus=True):
    """A scrollable, searchable, syntax-highlighted view of lines of JSON.

    Lines are highlighted (with ``rich.syntax.Syntax``) and wrapped only when they
    come into view, so opening and searching stay fast on large objects.
    """

    COMPONENT_CLASSES = {"json-view--match", "json-view--current"}

    DEFAULT_CSS = """
    JsonView {
        height: 1fr;
        background: $surface;
        color: $foreground;
        padding: 0 1;
        overflow-x: hidden;
        scrollbar-gutter: stable;
        & > .json-view--match {
            background: $warning-muted;
        }
        & > .json-view--current {
            background: $accent;
            color: $text;
            text-style: bold;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[str] = []
        self._code: str | None = None
        self._width = 0
        self._wraps: list[list[int]] = []
        self._row_starts: list[int] = [0]
        self._syntax: Syntax | None = None
        self._texts: LRUCache[int, Text] = LRUCache(1024)
        self._strips: LRUCache[tuple[int, int], Strip] = LRUCache(1024)
        self._pieces: LRUCache[int, list[Text]] = LRUCache(256)
        self._query = ""
        self._matches: list[tuple[int, int, int]] = []
        self._line_matches: dict[int, list[tuple[int, int, int]]] = {}
        self._matches_capped = False
        self._current = -1

    @property
    def lines(self) -> list[str]:
        """The lines shown (cleaned)."""
        return self._lines

    @property
    def code(self) -> str:
        """The text shown, lines joined with newlines."""
        if self._code is None:
            self._code = "\n".join(self._lines)
        return self._code

    @property
    def match_count(self) -> int:
        """How many matches the last search found (at most :data:`MAX_MATCHES`)."""
        return len(self._matches)

    @property
    def matches_capped(self) -> bool:
        """Whether the last search stopped counting at :data:`MAX_MATCHES`."""
        return self._matches_capped

    @property
    def current_match(self) -> int:
        """Index of the selected match, or -1."""
        return self._current

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def set_lines(self, lines: list[str]) -> None:
        """Show new lines, keeping the search query (its matches are found again)."""
        self._lines = lines
        self._code = None
        self._texts.clear()
        self._width = 0
        self._layout()
        self.search(self._query)

    def search(self, query: str) -> int:
        """Highlight every case-insensitive occurrence of ``query``; return how many.

        The first match becomes current but the view does not scroll: call
        :meth:`select_match` for that.
        """
        self._query = query
        self._matches = []
        self._line_matches = {}
        self._matches_capped = False
        self._current = -1
        if query:
            code = self.code
            starts = list(accumulate((len(line) + 1 for line in self._lines), initial=0))
            found = re.finditer(re.escape(query), code, re.IGNORECASE)
            for index, match in enumerate(islice(found, MAX_MATCHES + 1)):
                if index == MAX_MATCHES:
                    self._matches_capped = True
                    break
                line = bisect_right(starts, match.start()) - 1
                start, end = match.start() - starts[line], match.end() - starts[line]
                self._matches.append((line, start, end))
                self._line_matches.setdefault(line, []).append((start, end, index))
            if self._matches:
                self._current = 0
        self._clear_rendered()
        self.refresh()
        return len(self._matches)

    def select_match(self, index: int) -> None:
        """Make match ``index`` (modulo the count) current and scroll it into the middle."""
        if not self._matches:
            return
        self._current = index % len(self._matches)
        line, start, _end = self._matches[self._current]
        self._layout()
        row = self._row_starts[line]
        if line < len(self._wraps):
            row += bisect_right(self._wraps[line], start)
        height = self.scrollable_content_region.height
        self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)
        self._clear_rendered()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._clear_rendered()

    def _clear_rendered(self) -> None:
        self._strips.clear()
        self._pieces.clear()

    def _theme_changed(self) -> None:
        self._syntax = None
        self._texts.clear()
        self._clear_rendered()
        self.refresh()

    def on_resize(self, event: Resize) -> None:
        self._layout()

    def _layout(self) -> None:
        """Work out where each line wraps at the current width."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        wraps: list[list[int]] = []
        for line in self._lines:
            if len(line) <= width and (line.isascii() or cell_len(line) <= width):
                wraps.append([])
            else:
                wraps.append(divide_line(line, width, fold=True))
        self._wraps = wraps
        self._row_starts = list(accumulate((len(offsets) + 1 for offsets in wraps), initial=0))
        self._clear_rendered()
        self.virtual_size = Size(width, self._row_starts[-1])

    def _highlighted(self, index: int) -> Text:
        text = self._texts.get(index)
        if text is None:
            if self._syntax is None:
                theme = "monokai" if self.app.current_theme.dark else "default"
                # A lexer instance, not "json": Syntax looks a name up on every call.
                lexer = get_lexer_by_name("json", stripnl=False, ensurenl=True)
                self._syntax = Syntax("", lexer, theme=theme, word_wrap=True)
            line = self._lines[index]
            size = len(line)
            spans = [
                Span(span.start, min(span.end, size), _foreground(span.style))
                for span in self._syntax.highlight(line).spans
                if span.start < size and isinstance(span.style, Style)
            ]
            text = Text(line, end="", no_wrap=True, spans=spans)
            self._texts.set(index, text)
        return text

    def _pieces_of(self, index: int) -> list[Text]:
        """Line ``index`` highlighted, with its search matches, cut into screen rows."""
        pieces = self._pieces.get(index)
        if pieces is None:
            text = self._highlighted(index)
            matches = self._line_matches.get(index)
            if matches:
                text = text.copy()
                match_style = self.get_component_rich_style("json-view--match", partial=True)
                current_style = self.get_component_rich_style("json-view--current", partial=True)
                for start, end, match_index in matches:
                    style = current_style if match_index == self._current else match_style
                    text.stylize(style, start, end)
            offsets = self._wraps[index]
            pieces = list(text.divide(offsets)) if offsets else [text]
            self._pieces.set(index, pieces)
        return pieces

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = round(self.scroll_y) + y
        if not self._lines or row >= self._row_starts[-1] or width != self._width:
            return Strip.blank(width, base)
        key = (row, width)
        strip = self._strips.get(key)
        if strip is None:
            index = bisect_right(self._row_starts, row) - 1
            text = self._pieces_of(index)[row - self._row_starts[index]]
            segments = Segment.apply_style(text.render(self.app.console), base)
            strip = Strip(segments).adjust_cell_length(width, base)
            self._strips.set(key, strip)
        return strip


class DetailScreen(Screen[None]):
    """The detail view of one server object: its key fields, then all of its JSON.

    Args:
        title: Our name for the kind of object, e.g. "Item".
        fields: (label, value) pairs shown on top; values are server data.
        raw: The whole object as decoded from JSON.
        object_id: The object's id (server data), copied with ``c``.
        refresh: Fetches the current (fields, raw) when the screen opens.
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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="detail.back"),
        Binding("c", "copy_id", "Copy id", id="detail.copy_id"),
        Binding("y", "copy_json", "Copy JSON", id="detail.copy_json"),
        Binding("slash", "search", "Search", key_display="/", id="detail.search"),
        Binding("n", "next_match", "Next match", id="detail.next_match"),
        Binding("N", "previous_match", "Previous match", id="detail.previous_match"),
    ]

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
    ) -> None:
        super().__init__()
        self._title = title
        self._fields = fields
        self._raw = raw
        self._object_id = object_id
        self._refresh = refresh

    @property
    def raw(self) -> object:
        """The object shown (the latest version once a refresh succeeds)."""
        return self._raw

    def compose(self) -> ComposeResult:
        title = Content.assemble((self._title, "bold"))
        if self._object_id:
            title += Content.styled("  " + clean_line(self._object_id), "dim")
        yield Static(title, id="detail-title")
        with VerticalScroll(id="detail-fields"):
            yield Grid(*self._field_cells(self._fields), id="detail-grid")
        yield Static(id="detail-status")
        yield Static(Content(CAPPED_NOTICE), id="detail-notice")
        yield JsonView(id="detail-json")
        with Horizontal(id="detail-searchbar"):
            yield Input(placeholder="Search the JSON", id="detail-search")
            yield Static(id="detail-matches")
        yield Footer()

    def on_mount(self) -> None:
        self._show_json()
        self.json_view.focus()
        if self._refresh is not None:
            self._set_status(FETCHING)
            self.run_worker(self._fetch(self._refresh), exclusive=True, group="detail-refresh")

    @staticmethod
    def _field_cells(fields: Fields) -> list[Static]:
        cells: list[Static] = []
        for label, value in fields:
            cells.append(Static(content(label), classes="detail--label"))
            cells.append(Static(content(display_value(value, FIELD_LIMIT))))
        return cells

    def _show_json(self) -> None:
        preview = preview_json(self._raw)
        self.json_view.set_lines(preview.lines)
        self.query_one("#detail-notice").display = preview.capped
        self.query_one("#detail-fields").display = bool(self._fields)
        if self.has_class("-searching"):
            self._show_matches()

    def _set_status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#detail-status", Static)
        status.update(Content(clean_line(message)))
        status.set_class(error, "-error")
        status.display = bool(message)

    async def _fetch(self, refresh: Refresh) -> None:
        try:
            fields, raw = await refresh()
        except Exception as error:
            message = getattr(error, "one_line", None) or str(error) or type(error).__name__
            self._set_status(f"Could not fetch the current version: {message}", error=True)
            return
        self._fields, self._raw = fields, raw
        grid = self.query_one("#detail-grid", Grid)
        await grid.remove_children()
        await grid.mount_all(self._field_cells(fields))
        self._show_json()
        self._set_status("")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
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
            self.dismiss()

    def action_copy_id(self) -> None:
        """Copy the object's id to the clipboard."""
        if not self._object_id:
            self.notify("This object has no id", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(self._object_id)
        self.notify("Copied id", markup=False)

    def action_copy_json(self) -> None:
        """Copy the whole object, uncapped, as pretty JSON."""
        try:
            text = full_json(self._raw)
        except (ValueError, RecursionError) as error:
            message = clean_line(str(error))
            self.notify(f"Could not copy the JSON: {message}", severity="error", markup=False)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the JSON ({len(text):,} characters)", markup=False)

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
            text = "no matches"
        else:
            total = f"{count:,}+" if view.matches_capped else f"{count:,}"
            text = f"match {view.current_match + 1:,} of {total}"
        self.query_one("#detail-matches", Static).update(Content(text))
