"""The list of webhook deliveries: one line each, drawn only where it is visible.

Rows are drawn from the receiver's kept deliveries (a bounded list) on demand, so a flood
costs one redraw per refresh, not one per delivery. Every field that came from a sender
(type, verdict reason, relay target) passes :func:`clean_line` before it is drawn.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..safe import plain
from ..wrap import fit_cells

SIZE_WIDTH = len("0.98 MB")
"""The widest size :func:`size_cell` writes."""
NUMBER_WIDTH = 5
"""The number column's width until a number needs more (it grows to fit, never cut)."""
COLUMNS = (
    ("Time", len("23:59:59")),
    ("#", NUMBER_WIDTH),
    ("Type", 0),
    ("Size", SIZE_WIDTH),
    ("Verdict", 0),
    ("Relay", 0),
)
"""Column titles and widths; those of 0 share the rest of the line."""

_UNITS = ("KB", "MB", "GB", "TB", "PB", "EB")


def size_cell(size: int) -> str:
    """``size`` bytes in at most :data:`SIZE_WIDTH` characters, to 3 significant digits:
    ``999 B``, ``0.98 KB``, ``10.2 KB``, ``1016 KB`` as ``0.99 MB`` (a KB is 1,024 bytes).
    The detail view gives the size to the byte."""
    if size < 1000:
        return f"{max(size, 0)} B"
    value = float(size)
    for unit in _UNITS:
        value /= 1024
        if value < 999.5 or unit == _UNITS[-1]:
            break
    if value < 9.995:
        return f"{value:.2f} {unit}"
    return f"{value:.1f} {unit}" if value < 99.95 else f"{value:.0f} {unit}"


def column_widths(width: int, largest_number: int = 0) -> list[int]:
    """The width of each column on a line ``width`` cells wide, when the largest delivery
    number shown is ``largest_number`` (its column grows to fit it).

    Type, verdict and relay share what the other columns leave: a quarter, two fifths and
    the rest, never under 8 cells each.
    """
    widths = [size for _, size in COLUMNS]
    widths[1] = max(NUMBER_WIDTH, len(str(largest_number)))
    rest = max(24, width - sum(widths) - len(COLUMNS) - 1)
    kind = max(8, rest // 4)
    verdict = max(8, rest * 2 // 5)
    widths[2], widths[4], widths[5] = kind, verdict, max(8, rest - kind - verdict)
    return widths


def delivery_cells(delivery: Any) -> list[str]:
    """The cells of one delivery's line, as the screen shows text (:func:`..safe.plain`):
    time, number, type, size, verdict, relay."""
    moment = time.strftime("%H:%M:%S", time.localtime(delivery.received))
    relay = delivery.relay
    if relay is None:
        relay_text = "—"
    elif relay.status is None and relay.error is None:
        relay_text = f"→ {relay.target} …"
    else:
        relay_text = f"{relay.label()} → {relay.target}"
    if delivery.replays:
        last = delivery.replays[-1]
        replayed = "replaying…" if last.pending else f"replayed {last.label()}"
        relay_text = f"{replayed}; {relay_text}"
    if delivery.problem and delivery.verdict.status != "error":
        relay_text = f"{delivery.problem}; {relay_text}"
    return [
        moment,
        str(delivery.number),
        plain(delivery.event_type or "(no type)", line=True),
        size_cell(delivery.size),
        plain(delivery.verdict.label(), line=True),
        plain(relay_text, line=True),
    ]


def fit(text: str, width: int) -> str:
    """``text`` padded or cut to exactly ``width`` cells."""
    return fit_cells(text, width)


@dataclass
class _Styles:
    base: Style
    header: Style
    cursor: Style
    invalid: Style


class DeliveryList(ScrollView, can_focus=True):
    """Deliveries, newest last; the cursor follows new ones while it is on the last.

    The cursor's row is always in view. Lines are cut to the width left beside the vertical
    scrollbar, so there is nothing to scroll sideways and no horizontal scrollbar.
    """

    DEFAULT_CSS = """
    DeliveryList {
        height: 1fr;
        overflow-x: hidden;
        background: $surface;
        & > .delivery-list--header { text-style: bold; color: $text-muted; }
        & > .delivery-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        & > .delivery-list--invalid { color: $text-error; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "delivery-list--header",
        "delivery-list--cursor",
        "delivery-list--invalid",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, id="deliveries.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="deliveries.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="deliveries.pageup"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="deliveries.pagedown"),
        Binding("home,g", "jump(0)", "First", show=False, id="deliveries.home"),
        Binding("end,G", "jump(-1)", "Last", show=False, id="deliveries.end"),
    ]

    class Chosen(Message):
        """A click on the highlighted delivery."""

        def __init__(self, delivery: Any) -> None:
            super().__init__()
            self.delivery = delivery

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: Sequence[Any] = ()
        self.cursor = 0
        self.redraws = 0
        """How many times the rows were replaced (what the coalescing saves)."""

    @property
    def rows(self) -> Sequence[Any]:
        """The deliveries shown, oldest first."""
        return self._rows

    @property
    def highlighted(self) -> Any | None:
        """The delivery under the cursor."""
        return self._rows[self.cursor] if 0 <= self.cursor < len(self._rows) else None

    def set_rows(self, rows: Sequence[Any]) -> None:
        """Show ``rows`` (in the order of their numbers, not every number among them); the
        cursor stays on its delivery (or the next one kept, if it went), or follows the
        newest."""
        following = self.cursor >= len(self._rows) - 1
        current = self.highlighted
        self._rows = rows
        self.redraws += 1
        if following or current is None:
            self.cursor = max(0, len(rows) - 1)
        else:  # some between may have gone (those cut short go first): found by number
            at = bisect_left(rows, current.number, key=lambda delivery: delivery.number)
            self.cursor = max(0, min(len(rows) - 1, at))
        self.virtual_size = Size(self.scrollable_size.width, len(rows) + 1)
        self._scroll_to_cursor()
        self.refresh()

    def on_resize(self) -> None:
        # A shorter terminal, or the first layout, may leave the cursor's row out of view.
        self._scroll_to_cursor()

    def _styles(self) -> _Styles:
        base = self.rich_style
        return _Styles(
            base,
            base + self.get_component_rich_style("delivery-list--header"),
            base + self.get_component_rich_style("delivery-list--cursor"),
            base + self.get_component_rich_style("delivery-list--invalid"),
        )

    def _line(self, cells: list[str], width: int) -> str:
        largest = self._rows[-1].number if self._rows else 0  # numbers grow down the list
        return " " + " ".join(map(fit, cells, column_widths(width, largest)))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_size.width
        styles = self._styles()
        if y == 0:
            text = self._line([title for title, _ in COLUMNS], width)
            return Strip([Segment(fit(text, width), styles.header)], width)
        index = round(self.scroll_y) + y - 1
        if index >= len(self._rows):
            if not self._rows and y == 2:
                message = fit("  Waiting for deliveries…", width)
                return Strip([Segment(message, styles.base)], width)
            return Strip.blank(width, styles.base)
        delivery = self._rows[index]
        style = styles.base
        if index == self.cursor:
            style = styles.cursor
        elif (
            delivery.verdict.status in ("invalid", "error")
            or delivery.verdict.repeated
            or delivery.verdict.repeat_unknown
            or delivery.problem
        ):
            style = styles.invalid
        return Strip(
            [Segment(fit(self._line(delivery_cells(delivery), width), width), style)], width
        )

    @property
    def _page(self) -> int:
        """How many rows show under the header."""
        return max(1, self.scrollable_size.height - 1)

    def _scroll_to_cursor(self) -> None:
        # force: the rows may have just grown past the height, and the vertical scrollbar
        # (without which Textual refuses to scroll) only shows at the next layout.
        height = self._page
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, force=True)

    def _set_cursor(self, index: int) -> None:
        if not self._rows:
            return
        self.cursor = max(0, min(len(self._rows) - 1, index))
        self._scroll_to_cursor()
        self.refresh()

    def action_move(self, step: int) -> None:
        """Move the cursor ``step`` rows."""
        self._set_cursor(self.cursor + step)

    def action_page(self, direction: int) -> None:
        """Move the cursor a page."""
        self._set_cursor(self.cursor + direction * max(1, self._page - 1))

    def action_jump(self, index: int) -> None:
        """Go to the first (0) or last (-1) row."""
        self._set_cursor(len(self._rows) - 1 if index < 0 else index)

    def on_click(self, event: events.Click) -> None:
        index = round(self.scroll_y) + event.y - 1
        if event.y >= 1 and 0 <= index < len(self._rows):
            if index == self.cursor:
                self.post_message(self.Chosen(self._rows[index]))
            self._set_cursor(index)
