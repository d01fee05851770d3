"""The footer of key bindings: one widget that draws every key on one line."""

from __future__ import annotations

from typing import Any, NamedTuple

from textual import events
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

from ..following import Following
from ..safe import line


class FooterKey(NamedTuple):
    """One key the footer shows."""

    key: str
    """The key pressed when the key is clicked."""
    display: str
    description: str
    enabled: bool
    tooltip: str
    opens_help: bool = False
    """Whether the key shows every key (never dropped from a narrow footer)."""


HELP_ACTIONS = frozenset({"app.help", "help"})
"""The actions that list every key: the footer keeps their key whatever its width, so a
key dropped from it can still be found."""


def keys_shown(sizes: list[int], pinned: set[int], first: int, room: int) -> list[int]:
    """Which keys a footer ``room`` cells wide shows: the ``pinned`` ones, then those
    from ``first`` on, in order, as long as each fits whole (``sizes``: their cells).

    A key that does not fit is dropped with every key after it, never cut: the footer
    shows the first keys of the screen (its everyday ones) and the key to the help,
    which lists them all.
    """
    budget = room - sum(sizes[i] for i in pinned)
    shown = set(pinned)
    for index in range(first, len(sizes)):
        if index in pinned:
            continue
        if sizes[index] > budget:
            break
        budget -= sizes[index]
        shown.add(index)
    return sorted(shown)


class KeysFooter(Following, Widget, can_focus=False):
    """The keys of the screen's bindings, as Textual's ``Footer`` shows them, drawn by
    one widget.

    Textual's ``Footer`` holds a widget for each key and removes and mounts them all
    whenever the screen's bindings may have changed: each focus change, and here a
    filter that empties or fills a table. Each rebuild laid the screen out again
    (10-30 ms) and the messages of forty new widgets held the next frame meanwhile:
    the first key typed in a filter waited 80-110 ms for its frame while a list
    arrived. Here the keys are one line of text: a change of bindings that changes the
    keys repaints that line, and nothing else.

    As in Textual's footer, a click on a key presses it (a disabled key rings the
    bell), the key under the pointer is highlighted and shows its tooltip, and the
    command palette's key stays at the right end. Keys of one binding group are shown
    one by one.

    Where the keys do not fit, none is cut: the command palette's key goes first (the
    help names ctrl+p), then whole keys from the end (see :func:`keys_shown`); the
    help's key always stays. The mouse wheel brings the dropped keys in, a key at a time.
    """

    ALLOW_SELECT = False

    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",
        "keys-footer--hover",
        "keys-footer--disabled",
        "keys-footer--border",
    }

    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keys-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .keys-footer--disabled {
            text-style: dim;
        }
        .keys-footer--border {
            color: $foreground 20%;
        }
    }
    """

    compact = reactive(False, toggle_class="-compact")
    """Display in compact style (less space around each key)."""
    show_command_palette = reactive(True)
    """Show the key to invoke the command palette, at the right end."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        show_command_palette: bool = True,
        compact: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(KeysFooter.show_command_palette, show_command_palette)
        self.set_reactive(KeysFooter.compact, compact)
        self.set_class(compact, "-compact", update=False)
        self.keys: tuple[FooterKey, ...] = ()
        """The keys shown (the command palette's aside)."""
        self._palette: FooterKey | None = None
        self._spans: list[tuple[int, int, FooterKey]] = []
        """Where each key was drawn last: its first and last cell (exclusive)."""
        self._hover: FooterKey | None = None
        self._first = 0
        """The first key shown: those before it are scrolled out at the left."""
        self._last_first = 0
        """The first key shown once the wheel has brought in the last (as last drawn)."""

    def on_mount(self) -> None:
        self.follow(self.screen.bindings_updated_signal, self.bindings_changed)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Show the keys of ``screen``'s bindings now (repainted only if they changed)."""
        # Without the app's focus, Textual leaves the footer as it is.
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        keys, palette = self._keys_of(screen)
        if keys != self.keys or palette != self._palette:
            self.keys, self._palette = keys, palette
            self._forget_hover()
            self.refresh()

    def watch_show_command_palette(self) -> None:
        self._forget_hover()

    def _keys_of(self, screen: Screen[Any]) -> tuple[tuple[FooterKey, ...], FooterKey | None]:
        """The keys ``Footer.compose`` would show for ``screen``: the first binding of
        each action, in order; and the command palette's."""
        app = self.app
        keys: dict[str, FooterKey] = {}
        for _, binding, enabled, tooltip in screen.active_bindings.values():
            if binding.show and binding.action not in keys:
                display = app.get_key_display(binding)
                keys[binding.action] = FooterKey(
                    binding.key,
                    display,
                    binding.description,
                    enabled,
                    tooltip,
                    binding.action in HELP_ACTIONS,
                )
        palette = None
        found = screen.active_bindings.get(app.COMMAND_PALETTE_BINDING)
        if found is not None and app.ENABLE_COMMAND_PALETTE:
            _, binding, enabled, _ = found
            palette = FooterKey(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
                binding.tooltip or binding.description,
            )
        return tuple(keys.values()), palette

    # --- drawing -------------------------------------------------------------------

    def render(self) -> Content:
        width = self.size.width
        gap = line(" ") if self.compact else Content("")
        pieces = [self._key(key) + gap for key in self.keys]
        sizes = [piece.cell_length for piece in pieces]
        pinned = {index for index, key in enumerate(self.keys) if key.opens_help}
        # A compact line's last gap may fall past its end.
        fits = width + gap.cell_length
        right = Content("")
        palette = self._palette if self.show_command_palette else None
        if palette is not None:
            # Docked at the right, with a border at its left and a cell after it; drawn
            # compact in either style, as Textual's footer draws it. Shown only when every
            # other key fits beside it.
            right = line("▏", ".keys-footer--border") + self._key(palette, compact=True)
            right += line(" ")
            if self._first or sum(sizes) > fits - right.cell_length:
                palette, right = None, Content("")
        room = max(0, width - right.cell_length)
        fits = room + gap.cell_length
        # The first key from which every key fits (beside the pinned ones).
        budget = fits - sum(sizes[index] for index in pinned)
        last_first = len(pieces)
        while last_first and (last_first - 1 in pinned or sizes[last_first - 1] <= budget):
            last_first -= 1
            if last_first not in pinned:
                budget -= sizes[last_first]
        self._last_first = min(last_first, max(0, len(pieces) - 1))
        self._first = min(self._first, self._last_first)
        shown = keys_shown(sizes, pinned, self._first, fits)
        spans: list[tuple[int, int, FooterKey]] = []
        at = 0
        for index in shown:
            if at < room:
                end = min(at + sizes[index] - gap.cell_length, room)
                spans.append((at, end, self.keys[index]))
            at += sizes[index]
        # Cut only when the pinned keys alone are wider than the footer.
        left = Content("").join(pieces[index] for index in shown).truncate(room, pad=True)
        if palette is not None:
            start = room + 1  # after the border
            spans.append((start, width - 1, palette))
        self._spans = spans
        return left + right

    def _key(self, key: FooterKey, compact: bool | None = None) -> Content:
        """One key as Textual's ``FooterKey`` draws it: the key in bold, its
        description, with the spacing of the footer's style (or ``compact``'s)."""
        if not key.description:
            piece = line(key.display, ".footer-key--key")
        elif self.compact if compact is None else compact:
            piece = line(key.display, ".footer-key--key") + line(
                " " + key.description, ".footer-key--description"
            )
        else:
            piece = line(" " + key.display + " ", ".footer-key--key") + line(
                key.description + " ", ".footer-key--description"
            )
        if not key.enabled:
            piece = piece.stylize_before(".keys-footer--disabled")
        if key == self._hover:
            # As Textual draws a key under the pointer: the hover's background over the
            # footer's, the key's own colours on it.
            piece = piece.stylize_before(self.get_visual_style("keys-footer--hover"))
        return piece

    # --- the mouse -----------------------------------------------------------------

    def _key_at(self, x: int) -> FooterKey | None:
        for start, end, key in self._spans:
            if start <= x < end:
                return key
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_over(self._key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover_over(None)

    def _forget_hover(self) -> None:
        """Let go of the key under the pointer (the keys changed: the next move finds it)."""
        self._hover_over(None)

    def _hover_over(self, key: FooterKey | None) -> None:
        if key != self._hover:
            self._hover = key
            self.tooltip = line(key.tooltip) if key is not None and key.tooltip else None
            self.styles.pointer = "default" if key is None else "pointer"
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self._first < self._last_first:
            self._scroll(1, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self._first:
            self._scroll(-1, event)

    def _scroll(self, keys: int, event: events.MouseEvent) -> None:
        """Show the keys from ``keys`` further on (or back)."""
        self._first += keys  # kept in by the next render
        self._forget_hover()
        event.stop()
        event.prevent_default()
        self.refresh()
