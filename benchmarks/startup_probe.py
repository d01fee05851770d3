"""Process start → end of the first rendered frame, for ``run.py`` (figure 1).

``python startup_probe.py app`` runs ``tokensales-tui --demo`` through its real entry
point (``rows``: the same, until the first frame showing the Webhooks tab's rows, the
reference of figure 17); ``python startup_probe.py minimal`` runs a minimal Textual app with five empty
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


def _probe(until_rows: bool = False) -> None:
    """Make every app run headless and end the process after its first frame.

    With ``until_rows``: after the first frame that shows the Webhooks tab's rows.
    """
    from textual._compositor import CompositorUpdate
    from textual.app import App

    original = App._display

    def display(self: App[object], screen: object, renderable: object) -> None:
        original(self, screen, renderable)  # type: ignore[arg-type]
        if renderable is None:
            return
        if until_rows and not _rows_shown(self):
            return
        if isinstance(renderable, CompositorUpdate):
            renderable.render_segments(self.console)
        os.write(1, f"{time.monotonic()!r}\n".encode())
        os._exit(0)

    App._display = display  # type: ignore[method-assign]
    App.run = functools.partialmethod(App.run, headless=True, size=(120, 40))  # type: ignore[method-assign, assignment]


def _rows_shown(app: object) -> bool:
    tabs = getattr(app, "browse", None)
    try:
        tab = tabs.query_one("#webhooks-tab") if tabs is not None else None
    except Exception:  # not composed yet
        return False
    return bool(tab is not None and tab.loaded_once and tab.table.total_count)


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
    _probe(until_rows=sys.argv[1] == "rows")
    if sys.argv[1] in ("app", "rows"):
        from tokensales_tui import cli

        cli.has_terminal = lambda: True  # headless here: the app refuses a pipe otherwise
        cli.main(["--demo"])
    else:
        minimal()
    raise SystemExit("no frame was drawn")


if __name__ == "__main__":
    main()
