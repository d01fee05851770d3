"""Process start → end of the first rendered frame, for ``run.py`` (figure 1).

``python startup_probe.py app`` runs ``tokensales-tui --demo`` through its real entry
point; ``python startup_probe.py minimal`` runs a minimal Textual app with five empty
tabs. Both run headless at the benchmark's terminal size, turn their first frame into
terminal bytes as a terminal session would, print ``time.monotonic()`` (a clock shared
by all processes) at that moment and exit at once. The parent notes the same clock
just before starting the process.
"""

from __future__ import annotations

import functools
import os
import sys
import time


def _probe() -> None:
    """Make every app run headless and end the process after its first frame."""
    from textual._compositor import CompositorUpdate
    from textual.app import App

    original = App._display

    def display(self: App[object], screen: object, renderable: object) -> None:
        original(self, screen, renderable)  # type: ignore[arg-type]
        if renderable is None:
            return
        if isinstance(renderable, CompositorUpdate):
            renderable.render_segments(self.console)
        os.write(1, f"{time.monotonic()!r}\n".encode())
        os._exit(0)

    App._display = display  # type: ignore[method-assign]
    App.run = functools.partialmethod(App.run, headless=True, size=(120, 40))  # type: ignore[method-assign, assignment]


def minimal() -> None:
    """A Textual app with five empty tabs."""
    from textual.app import App, ComposeResult
    from textual.widgets import TabbedContent, TabPane

    class FiveTabs(App[None]):
        def compose(self) -> ComposeResult:
            with TabbedContent():
                for number in range(1, 6):
                    yield TabPane(f"{number} Tab {number}")

    FiveTabs().run()


def main() -> None:
    _probe()
    if sys.argv[1] == "app":
        from tokensales_tui import cli

        cli.has_terminal = lambda: True  # headless here: the app refuses a pipe otherwise
        cli.main(["--demo"])
    else:
        minimal()
    raise SystemExit("no frame was drawn")


if __name__ == "__main__":
    main()
