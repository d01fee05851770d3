"""A modal listing every key, built from the app's real (possibly remapped) bindings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..key_hints import either
from ..keys import bound, key_display, shown_keys
from ..safe import line
from ..widgets.footer import KeysFooter
from ..widgets.less_keys import LessKeys, less_keys
from .base import ScreenKeys

__all__ = ["HelpScreen", "Section", "key_display", "sections_from_bindings"]

Section = tuple[str, list[tuple[str, str]]]
"""A heading and its (key display, description) rows."""

COLUMN_GAPS = 3 + 2 + 3
"""Cells a column of the help takes beside its keys and descriptions: the keys' right
margin, the descriptions' padding and the column's margin (see the CSS)."""
PANEL_EDGES = 2 + 2
"""The panel's border and left padding."""
DESCRIPTIONS_SHOWN = 30
"""Cells of a description two columns must show at least (longer ones end with "…");
where they cannot, the columns go one below the other."""


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
        & .help--rows { width: auto; height: auto; }
        & .help--heading {
            width: auto;
            margin-top: 1;
            color: $text-accent;
            text-style: bold;
        }
        & .help--columns { width: auto; height: auto; }
        & .help--columns.-stacked { layout: vertical; }
        & .help--column { width: auto; height: auto; margin-right: 3; }
        & .help--keys {
            width: auto;
            margin-right: 3;
            text-style: bold;
        }
        & .help--descriptions {
            width: auto;
            padding-right: 2;
            color: $text-muted;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections
        self._wide = 0
        """Cells the two columns take side by side (set by compose)."""

    def compose(self) -> ComposeResult:
        # A section's keys are one text and its descriptions another, each row one line
        # of both: a widget per key (a hundred and more) took a few hundred milliseconds
        # to lay out before the help showed.
        with HelpPanel(id="help-panel") as panel:
            panel.border_title = "Keys"
            panel.border_subtitle = line(self._subtitle(more=False))  # keys: a keymap's
            # Every section's key column gets the same width, so they line up.
            key_width = max(
                (cell_len(key) for _, rows in self._sections for key, _ in rows), default=1
            )
            # Two columns of sections, so every key fits on one screen at 120x40; one
            # below the other where the terminal is narrower than the two (see on_resize).
            columns = _balanced(self._sections)
            self._wide = PANEL_EDGES + sum(
                key_width + COLUMN_GAPS + min(DESCRIPTIONS_SHOWN, _widest(column))
                for column in columns
            )
            with Horizontal(classes="help--columns"):
                for column in columns:
                    with Vertical(classes="help--column"):
                        for heading, rows in column:
                            # Keys may come from a user's keymap: literal text, never markup.
                            yield Static(line(heading), classes="help--heading")
                            yield _rows(rows, key_width)
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
        # The panel may take 90% of the screen's width.
        stacked = self.size.width * 0.9 < self._wide
        self.query_one(".help--columns").set_class(stacked, "-stacked")
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """Say, in the lower border, whether the text goes on below (and how to get there)."""
        if self.is_attached:
            panel = self.query_one(HelpPanel)
            panel.border_subtitle = line(self._subtitle(more=panel.max_scroll_y > 0))

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss()


def _rows(rows: list[tuple[str, str]], key_width: int) -> Horizontal:
    """A section's keys, as one text ``key_width`` wide, beside their descriptions."""
    keys = Static(_lines(key for key, _ in rows), classes="help--keys")  # gate: _lines
    keys.styles.width = key_width
    said = Static(_lines(text for _, text in rows), classes="help--descriptions")  # gate: _lines
    return Horizontal(keys, said, classes="help--rows")


def _widest(sections: list[Section]) -> int:
    return max((cell_len(text) for _, rows in sections for _, text in rows), default=0)


def _lines(texts: Iterable[str]) -> Content:
    """One line for each text, each literal (built by ``safe.line``)."""
    return Content("\n").join(line(text) for text in texts)


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
