"""A modal listing every key, built from the app's real (possibly remapped) bindings."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from ..closing import close
from ..key_hints import either
from ..keys import bound, key_display, shown_keys
from ..safe import line
from ..widgets.footer import KeysFooter
from ..widgets.less_keys import LessKeys, less_keys
from ..wrap import wrapped_rows
from .base import ScreenKeys

__all__ = ["HelpRows", "HelpScreen", "Section", "key_display", "sections_from_bindings"]

Section = tuple[str, list[tuple[str, str]]]
"""A heading and its (key display, description) rows."""

KEYS_GAP = 3
"""Cells between a row's keys and its description."""
COLUMN_GAP = 3
"""Cells between two columns of sections."""
PANEL_EDGES = 2 + 2 + 2 + 1
"""The panel's border, its left padding, its scrollbar and the columns' right margin
(see the CSS)."""
DESCRIPTIONS_SHOWN = 30
"""Cells of a description two columns must show at least; where they cannot, the
columns go one below the other."""
NARROWEST = 8
"""Cells a description wraps at, however narrow the terminal: fewer, and its words
would break everywhere."""


def sections_from_bindings(
    groups: list[tuple[str, list[Binding]]], *, app: App[Any] | None = None
) -> list[Section]:
    """Turn groups of bindings into help sections.

    Bindings without a description are left out; bindings for the same action and
    description (one binding per key, as a keymap produces) share a row.

    Args:
        groups: (heading, bindings) pairs, e.g. the bindings active in each context.
        app: Format keys with ``app.get_key_display``.

    Returns:
        Sections for :class:`HelpScreen`; groups left empty are dropped.
    """
    sections: list[Section] = []
    for heading, bindings in groups:
        rows: dict[tuple[str, str], list[str]] = {}
        for binding in bindings:
            if not binding.description:
                continue
            keys = rows.setdefault((binding.action, binding.description), [])
            display = key_display(binding, app)
            if display not in keys:
                keys.append(display)
        if rows:
            sections.append(
                (
                    heading,
                    [(" / ".join(keys), description) for (_, description), keys in rows.items()],
                )
            )
    return sections


class HelpRows(Widget):
    """A section's rows: each row's keys, and its description beside them, wrapped
    under itself where it is wider than the room given (:meth:`wrap_at`); the keys
    wrap in their own column too.

    One widget draws a whole section: a widget per key (a hundred and more) took a few
    hundred milliseconds to lay out before the help showed.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"help-rows--keys", "help-rows--description"}

    DEFAULT_CSS = """
    HelpRows {
        width: auto;
        height: auto;
        & > .help-rows--keys { text-style: bold; }
        & > .help-rows--description { color: $text-muted; }
    }
    """

    def __init__(self, rows: list[tuple[str, str]], key_width: int) -> None:
        super().__init__()
        # Keys may come from a user's keymap: literal text, never markup (cleaned here).
        self._rows = [(line(key).plain, line(text).plain) for key, text in rows]
        self._natural = (key_width, max((cell_len(text) for _, text in self._rows), default=0))
        self._widths = self._natural
        self._lines: list[tuple[str, str]] | None = None

    def wrap_at(self, keys: int, descriptions: int) -> None:
        """Wrap the keys at ``keys`` cells and the descriptions at ``descriptions``,
        where they are wider (each at least :data:`NARROWEST`)."""
        natural_keys, natural_texts = self._natural
        widths = (
            min(natural_keys, max(keys, NARROWEST)),
            min(natural_texts, max(descriptions, NARROWEST)),
        )
        if widths != self._widths:
            self._widths, self._lines = widths, None
            self.refresh(layout=True)

    def _wrapped(self) -> list[tuple[str, str]]:
        """Each line drawn: (its keys' part, its description's part)."""
        if self._lines is None:
            keys_width, texts_width = self._widths
            self._lines = []
            for key, text in self._rows:
                keys = wrapped_rows(key, keys_width)
                texts = wrapped_rows(text, texts_width)
                self._lines += zip_longest(keys, texts, fillvalue="")
        return self._lines

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._widths[0] + KEYS_GAP + self._widths[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._wrapped())

    def render(self) -> Content:
        keys_style = self.get_visual_style("help-rows--keys")
        texts_style = self.get_visual_style("help-rows--description")
        keys_width = self._widths[0]
        gap = " " * KEYS_GAP
        return Content("\n").join(
            line(keys).pad_right(keys_width - cell_len(keys)).stylize(keys_style)
            + gap
            + line(text).stylize(texts_style)
            for keys, text in self._wrapped()
        )


class HelpPanel(LessKeys, VerticalScroll):
    """The help's text, which scrolls as the detail view's JSON does (see :mod:`..less_keys`)."""

    BINDINGS: ClassVar[list[BindingType]] = less_keys("help", show_paging=True)


class HelpScreen(ScreenKeys, ModalScreen[None]):
    """Every key of the app, section by section, in a centred scrollable panel.

    Args:
        sections: (heading, [(key display, description)]) pairs.
    """

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > #help-panel {
            width: auto;
            min-width: 40;
            max-width: 90%;
            height: auto;
            max-height: 90%;
            padding: 0 0 1 2;
            background: $surface;
            border: round $primary;
            border-title-align: center;
            border-title-color: $text;
            border-title-style: bold;
            border-subtitle-align: center;
            border-subtitle-color: $text-muted;
        }
        & .help--heading {
            width: auto;
            margin-top: 1;
            color: $text-accent;
            text-style: bold;
        }
        & .help--columns { width: auto; height: auto; margin-right: 1; }
        & .help--columns.-stacked { layout: vertical; }
        & .help--column { width: auto; height: auto; }
        & .help--column.-second { margin-left: 3; }
        & .help--columns.-stacked > .help--column.-second { margin-left: 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections
        # Two columns of sections, so every key fits on one screen at 120x40; one below
        # the other where the terminal is narrower than the two (see _fit).
        self._columns = _balanced(sections)
        # Every section's key column gets the same width, so they line up.
        self._key_width = max((cell_len(key) for _, rows in sections for key, _ in rows), default=1)

    def compose(self) -> ComposeResult:
        with HelpPanel(id="help-panel") as panel:
            panel.border_title = "Keys"
            panel.border_subtitle = line(self._subtitle(more=False))  # keys: a keymap's
            with Horizontal(classes="help--columns"):
                for number, column in enumerate(self._columns):
                    with Vertical(classes="help--column -second" if number else "help--column"):
                        for heading, rows in column:
                            # Keys may come from a user's keymap: literal text, never markup.
                            yield Static(line(heading), classes="help--heading")
                            yield HelpRows(rows, self._key_width)
        yield KeysFooter(compact=True)  # this dialog's keys, not the screen's behind it

    def _subtitle(self, *, more: bool) -> str:
        """What the panel's lower border says: the keys that close it and, when the
        text goes on below (``more``), those that scroll it; as bound now."""
        closes = f"{self._keys_of(self.BINDINGS, 'help.close')} closes"
        if not more:
            return closes
        scroll = self._keys_of(HelpPanel.BINDINGS, "help.page_down", "help.down")
        return f"{scroll} scroll · {closes}"

    def _keys_of(self, bindings: list[BindingType], *ids: str) -> str:
        """The keys of the bindings ``ids``, as bound now ("esc, ? or q"; a keymap's)."""
        keymap = getattr(self.app, "keymap", {})  # the user's, in the app
        found = {b.id: b for b in bound(bindings, keymap)}
        # In a list of keys a comma is a word: "space, comma or f3", not "space, , or f3".
        shown = [
            "comma" if key == "," else key
            for binding_id in ids
            for key in shown_keys(found[binding_id], self.app)
        ]
        return either(shown)

    def on_mount(self) -> None:
        self._fit()
        self.query_one(HelpPanel).focus()  # its keys scroll it (and the footer shows them)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Side by side where two columns fit, else one below the other; descriptions
        wider than the room left wrap, so every word of them can be read."""
        room = int(self.size.width * 0.9) - PANEL_EDGES  # the panel takes 90% at most
        keys = min(self._key_width, room // 2)
        widest = [_widest(column) for column in self._columns]
        beside = keys + KEYS_GAP
        side_by_side = len(self._columns) == 2 and room >= COLUMN_GAP + sum(
            beside + min(DESCRIPTIONS_SHOWN, width) for width in widest
        )
        if side_by_side:
            texts = room - COLUMN_GAP - 2 * beside
            narrow = min(widest) if sum(widest) <= texts else min(min(widest), texts // 2)
            limits = [narrow if width == min(widest) else texts - narrow for width in widest]
        else:
            limits = [room - beside] * len(self._columns)
        self.query_one(".help--columns").set_class(not side_by_side, "-stacked")
        for column, limit in zip(self.query(".help--column"), limits, strict=True):
            for rows in column.query(HelpRows):
                rows.wrap_at(keys, limit)
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """Say, in the lower border, whether the text goes on below (and how to get there)."""
        if self.is_attached:
            panel = self.query_one(HelpPanel)
            panel.border_subtitle = line(self._subtitle(more=panel.max_scroll_y > 0))

    def action_close(self) -> None:
        """Close the help."""
        close(self)


def _widest(sections: list[Section]) -> int:
    return max((cell_len(text) for _, rows in sections for _, text in rows), default=0)


def _balanced(sections: list[Section]) -> list[list[Section]]:
    """The sections split into two columns of about equal height, order kept."""
    heights = [len(rows) + 2 for _, rows in sections]
    total, running = sum(heights), 0
    for index, height in enumerate(heights):
        running += height
        if running >= total / 2:
            return (
                [sections[: index + 1], sections[index + 1 :]]
                if index + 1 < len(sections)
                else [sections]
            )
    return [sections]
