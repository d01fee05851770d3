"""The terminal tripwire: every byte an app in a test would write to its terminal is checked.

Tests run apps headless, where Textual draws nothing. The tripwire renders each screen
update anyway, as it would be written, and fails the test if any text segment holds a
control character (an escape sequence in server text that a widget let through) or a
character the screen must show as a mark (a zero-width or format character — ZWSP, ZWJ,
BOM, a soft hyphen —, or another of disputed width: ``tokensales_tui.clean.visible``),
or if
any write to the driver holds an OSC, DCS, APC, PM or SOS string or a C1 control that
our own code did not write on purpose (see ``tokensales_tui/ui/terminal.py``: the one
OSC 52 of an explicit copy, its decoded text checked too, and Textual's pointer shape).

It checks what reaches the terminal guard, not what leaves it: a leak at the source
fails the test even though the guard would have removed it in a real terminal.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from typing import Any

from rich.segment import Segment
from textual._compositor import ChopsUpdate, InlineUpdate, LayoutUpdate
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver
from textual.strip import Strip

from tokensales_tui.clean import settle_width, unsettled_in
from tokensales_tui.ui.terminal import foreign_sequences

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CLIPBOARD = re.compile(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


def _strips(update: object) -> Iterator[Strip]:
    if isinstance(update, LayoutUpdate):
        for line in update.strips:
            yield from line
    elif isinstance(update, ChopsUpdate):
        for chops in update.chops:
            yield from (strip for strip in chops.values() if strip is not None)
    elif isinstance(update, InlineUpdate):
        yield from update.strips


def _segments(strips: Iterable[Strip]) -> Iterator[Segment]:
    for strip in strips:
        yield from strip


class Tripwire:
    """Records what apps write to their terminal; :meth:`check` fails on any foreign control."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.clipboard: list[str] = []
        """The decoded text of every OSC 52 copy, in order."""
        self.updates = 0
        self.writes = 0

    def display(self, update: object) -> None:
        """Check the text of every segment a screen update draws."""
        self.updates += 1
        for segment in _segments(_strips(update)):
            if segment.control:
                continue
            if found := _CONTROL.search(segment.text):
                self.problems.append(
                    f"drawn text holds U+{ord(found[0]):04X}: {segment.text[:60]!r}"
                )
            for unsettled in unsettled_in(segment.text):
                if settle_width(unsettled[0]) != unsettled[0]:
                    self.problems.append(
                        f"drawn text holds U+{ord(unsettled[0]):04X} unmarked:"
                        f" {segment.text[:60]!r}"
                    )
                    break

    def write(self, data: str) -> None:
        """Check a write to the driver (mode changes, clipboard, pointer shape)."""
        self.writes += 1
        self.problems += foreign_sequences(data)
        for encoded in _CLIPBOARD.findall(data):
            self.clipboard.append(base64.b64decode(encoded).decode("utf-8"))

    def check(self) -> None:
        """Fail with every problem seen (each once)."""
        if self.problems:
            unique = list(dict.fromkeys(self.problems))
            raise AssertionError("the terminal tripwire fired:\n" + "\n".join(unique[:20]))


def install(tripwire: Tripwire, monkeypatch: Any) -> None:
    """Route every app's screen updates and driver writes through ``tripwire``."""
    display = App._display

    def _display(self: App[Any], screen: Any, renderable: Any) -> None:
        if renderable is not None:
            tripwire.display(renderable)
        display(self, screen, renderable)

    def _write(self: HeadlessDriver, data: str) -> None:
        tripwire.write(data)

    monkeypatch.setattr(App, "_display", _display)
    monkeypatch.setattr(HeadlessDriver, "write", _write)
