"""The footer of key bindings, recomposed only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's ``Footer``, which rebuilds its keys (removes and mounts a widget for
    each) whenever the screen's bindings may have changed: each focus change asks
    twice, and the browse screen asks when a filter empties or fills a table. A
    rebuild lays the screen out again (10-30 ms), and the messages of its widgets keep
    the screen from drawing the next frame meanwhile. Here the footer rebuilds only
    when what it would show differs from what it shows.
    """

    _shown: Hashable | None = None
    """The keys shown, or to be shown by the rebuild asked for."""

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Without the app's focus, Textual leaves the footer as it is.
        shown, app = self._shown, screen.app
        if shown is not None and self.is_attached and screen is self.screen and app.app_focus:
            keys = self._keys(screen)
            if keys == shown:
                return
            self._shown = keys  # asked again before the rebuild: one is enough
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        self._shown = self._keys(self.screen) if self._bindings_ready else None
        yield from super().compose()

    def _keys(self, screen: Screen[Any]) -> Hashable:
        """Everything of the screen's bindings that ``Footer.compose`` reads."""
        keys = tuple(
            (
                binding.key,
                binding.description,
                binding.action,
                binding.show,
                id(binding.group),
                self.app.get_key_display(binding),
                enabled,
                tooltip,
            )
            for _, binding, enabled, tooltip in screen.active_bindings.values()
        )
        return (self.show_command_palette, keys)
