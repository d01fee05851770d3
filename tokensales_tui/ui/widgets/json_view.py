"""A scrollable, searchable, syntax-highlighted view of lines of JSON.

It highlights and wraps only the lines on screen: a ``Static`` holding a 2,000-line
``Syntax`` took 0.4–0.7 s per update (every search step), this takes a few milliseconds.
The lines come from :func:`~tokensales_tui.ui.json_text.preview_json`, already cleaned.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, islice
from typing import ClassVar

from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...mask import mask_text, masking
from ..following import Following
from ..safe import text as safe_text
from ..wrap import hanging_wrap
from .less_keys import LessKeys, less_keys

__all__ = ["MAX_MATCHES", "JsonView"]

MAX_MATCHES = 10_000
"""Most search matches highlighted and counted."""


@lru_cache(maxsize=256)
def _foreground(style: Style) -> Style:
    # Pygments themes paint every token on the theme's background; keep the
    # widget's own background instead.
    return Style(color=style.color, bold=style.bold, italic=style.italic)


class JsonView(Following, LessKeys, ScrollView, can_focus=True):
    """A scrollable, searchable, syntax-highlighted view of lines of JSON.

    Lines are highlighted (with ``rich.syntax.Syntax``) and wrapped only when they
    come into view, so opening and searching stay fast on large objects.
    """

    COMPONENT_CLASSES = {"json-view--match", "json-view--current"}

    BINDINGS: ClassVar[list[BindingType]] = less_keys("json_view")  # as in less

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
        """The lines shown: masked in mask mode (the search finds what is shown)."""
        self._given: list[str] = []
        self._code: str | None = None
        self._width = 0
        self._wraps: list[list[int]] = []
        self._hangs: dict[int, int] = {}
        """The indent of the continuation rows of each line that wraps."""
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
        self.follow(self.app.theme_changed_signal, self._theme_changed)
        signal = getattr(self.app, "mask_changed_signal", None)
        if signal is not None:
            self.follow(signal, lambda _on: self.set_lines(self._given))

    def set_lines(self, lines: list[str]) -> None:
        """Show new lines, keeping the search query (its matches are found again)."""
        self._given = lines
        self._lines = [mask_text(line) for line in lines] if masking() else lines
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

    def _theme_changed(self, _theme: object) -> None:
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
        hangs: dict[int, int] = {}
        for index, line in enumerate(self._lines):
            if len(line) <= width and (line.isascii() or cell_len(line) <= width):
                wraps.append([])
            else:
                offsets, hangs[index] = hanging_wrap(line, width)
                wraps.append(offsets)
        self._wraps, self._hangs = wraps, hangs
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
            text = safe_text(line)  # the printer escaped it already: a no-op check
            text.no_wrap = True
            text.spans = spans
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
            piece = row - self._row_starts[index]
            text = self._pieces_of(index)[piece]
            segments = list(Segment.apply_style(text.render(self.app.console), base))
            if piece:  # a continuation row: under its key
                segments.insert(0, Segment(" " * self._hangs.get(index, 0), base))
            strip = Strip(segments).adjust_cell_length(width, base)
            self._strips.set(key, strip)
        return strip
