"""What every app of this package does with text going out to the terminal."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.color import ColorSystem
from textual import events, on
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel

from ..clean import clean_line, cut_long_words, escape_unsafe, escapes_in
from ..files import refused_by_system
from ..mask import mask_text, masking
from ..signals import ending_on, exit_status
from .acyclic_strips import use_acyclic_strips
from .escape_keys import read_escape_apart
from .focus_in_view import keep_focus_in_view
from .frame_slots import use_next_slots
from .json_text import full_json
from .key_frames import post_input_at_once
from .key_order import KeysInOrder
from .narrow import wrap_in_a_cell_at_least
from .safe import plain
from .served import ending_with_input, is_served
from .terminal import guarded_driver
from .terminal_mode import TerminalCaughtUp, keeping_the_terminal, one_frame
from .work_failures import ReportingWorkers, WorkFailed

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import App
    from textual.screen import Screen

ReturnType = TypeVar("ReturnType")

COPY_LIMIT = 8 * 1024 * 1024
"""Characters a copy may hold. The clipboard goes through the terminal's own output
(OSC 52): most terminals drop a sequence past a few megabytes, and until it is out the
app is held (over SSH, seconds for tens of megabytes)."""


def copy(
    app: App[Any],
    text: str,
    done: str,
    *,
    line: bool = False,
    severity: SeverityLevel = "information",
) -> None:
    """Copy ``text`` and say ``done`` in a toast; past :data:`COPY_LIMIT`, copy nothing and
    say so instead.

    Each character a paste could act on or hide text behind (a control, a bidi control,
    a lone surrogate; with ``line``, for one value copied on its own, a newline and a tab
    too) is copied as its ``\\uXXXX`` escape, and the toast says so and how: such a copy
    is not the exact text (an id pasted into ``get item`` names another).
    """
    copy_lines(app, [text], done, line=line, severity=severity)


def copy_lines(
    app: App[Any],
    texts: list[str],
    done: str,
    *,
    line: bool = True,
    severity: SeverityLevel = "information",
) -> None:
    """Like :func:`copy`, for values copied one a line (the ids of the marked rows): each
    escaped on its own, so that only the lines' ends are newlines."""
    copied = "\n".join(escape_unsafe(text, line=line) for text in texts)
    if _too_long(app, copied):
        return
    app.copy_to_clipboard(copied)
    escapes = [escape for text in texts for escape in escapes_in(text, line=line)]
    app.notify(done + _escaped_note(escapes), severity=severity, markup=False)


def _escaped_note(escapes: list[str]) -> str:
    """What a toast adds about a copy holding ``escapes`` (:func:`.clean.escapes_in`)."""
    if not escapes:
        return ""
    count = len(escapes)
    distinct = list(dict.fromkeys(escapes))
    written = " ".join(distinct[:4]) + (" …" if len(distinct) > 4 else "")
    return (
        f"\nEscaped, so not exact: {count:,} character{'s' if count != 1 else ''}"
        f" a paste could act on or hide text behind {'is' if count == 1 else 'are'}"
        f" written as {written}"
    )


def copy_json(app: App[Any], value: object, what: str) -> None:
    """Copy ``value`` (a server's object: :func:`.resources.as_sent`) as pretty JSON, its
    numbers as the server wrote them (:func:`.json_text.full_json`), and say it copied
    ``what`` ("the item"); say why where it cannot be written."""
    try:
        text = full_json(value)
    except (ValueError, RecursionError) as error:
        not_copied(app, error)
        return
    copy(app, text, f"Copied {what} as JSON ({len(text):,} characters)")


def not_copied(app: App[Any], error: ValueError | RecursionError) -> None:
    """Say why objects could not be written as JSON to copy (:func:`.json_text.full_json`)."""
    message = clean_line(str(error))
    app.notify(f"Could not copy the JSON: {message}", severity="error", markup=False)


def _too_long(app: App[Any], text: str) -> bool:
    if len(text) <= COPY_LIMIT:
        return False
    app.notify(
        f"{len(text) / 2**20:,.0f} MB is more than a clipboard takes: nothing was copied",
        title="Not copied",
        severity="warning",
    )
    return True


class GuardedApp(KeysInOrder[ReturnType]):
    """An app whose toasts, copies and terminal writes are all cleaned (and masked in mask
    mode), whose frames follow a late one on the next slot (:mod:`.frame_slots`), whose
    lines are freed when let go (:mod:`.acyclic_strips`), whose keys each reach the
    widget the keys before them left the focus on (:mod:`.key_order`), whose focused
    widget is scrolled back into view when the terminal is made smaller
    (:mod:`.focus_in_view`), and whose background work, failed, always says so
    (:mod:`.work_failures`).

    Nothing is animated unless ``TEXTUAL_ANIMATIONS`` is set (to any level): Textual
    scrolls a view to its end or a page down for up to a second, redrawing it each frame
    (each a screenful of output over SSH), where a terminal tool is expected to jump. A
    loading indicator says "Loading..." then, instead of pulsing.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Over SSH ctrl+z is the reflex to get a shell back; fg brings the app back.
        Binding("ctrl+z", "suspend_process", "Suspend (fg resumes)", show=False, id="suspend"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        use_next_slots()
        use_acyclic_strips()
        wrap_in_a_cell_at_least()  # the command palette at 6 columns
        keep_focus_in_view()  # a terminal made shorter
        post_input_at_once()  # escape and a key typed right after it: two keys
        read_escape_apart()
        super().__init__(*args, **kwargs)
        self._workers = ReportingWorkers(self)  # a failure nobody reads is said
        self._signal_ended: int | None = None
        """The signal that ended the app, the first one (see :meth:`end_by_signal`)."""
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            self.animation_level = "none"
        if self.console.color_system is None:
            # TERM=dumb (or unknown): Rich finds no colour, and Textual draws in 24-bit
            # colour then, more than any other terminal gets. The 16 standard colours are
            # the least it can draw, and what TERM=xterm gets.
            self.console._color_system = ColorSystem.STANDARD

    def watch_app_focus(self, focus: bool) -> None:
        """Back with the focus, show the keys as bound now. A footer leaves its keys as
        they are while the app has not the focus (as Textual's does), and the focus also
        comes back with a key or a click, after which Textual refreshes the bindings only
        if it gives a widget its focus back: a keymap applied meanwhile (listen's, once
        its config file is read) stayed out of the footer until the bindings next
        changed."""
        if focus and self.screen_stack:
            self.screen.refresh_bindings()

    @on(Driver.SignalResume)
    @on(TerminalCaughtUp)
    def _redraw_all(self) -> None:
        """Back from a suspend (SIGTSTP, then ``fg``) the terminal shows an alternate screen
        made anew, blank; caught up after a stall, it shows a frame from before the frames
        dropped meanwhile (:mod:`.terminal_mode`): draw all of it. Textual draws only what
        changed since, which was the header's clock alone after a suspend."""
        self.refresh(layout=True)

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        with one_frame(self._driver):  # dropped whole while the terminal is backed up
            super()._display(screen, renderable)

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        # Imported by now if TEXTUAL_DRIVER names it (serve): not otherwise.
        web = sys.modules.get("textual.drivers.web_driver")
        if web is not None and issubclass(driver, web.WebDriver):
            driver = ending_with_input(driver)
        # Every write to the terminal passes the guard (see terminal.py).
        driver = guarded_driver(driver)
        linux = sys.modules.get("textual.drivers.linux_driver")
        if linux is not None and issubclass(driver, linux.LinuxDriver):
            driver = keeping_the_terminal(driver)
        return driver

    async def run_async(self, *args: Any, **kwargs: Any) -> ReturnType | None:
        """Run the app; every signal that would end it (SIGTERM, SIGHUP, SIGINT from
        outside, SIGQUIT, … — see :data:`~tokensales_tui.signals.APP_ENDING_SIGNALS`) ends
        it as quitting does, the terminal put back as it was (their default killed the
        process mid-frame: the alternate screen, mouse reporting and raw mode stayed, and
        an export's temporary file too)."""
        with ending_on(self.end_by_signal, loop=asyncio.get_running_loop()):
            return await super().run_async(*args, **kwargs)

    async def on_event(self, event: events.Event) -> None:
        # A mouse report beyond the screen (from a terminal not yet laid out at its new
        # size, or a broken report) hit no widget, and Textual took the focus from every
        # widget for it. Dropped, unless a widget holds the mouse (a drag ending outside).
        if (
            isinstance(event, events.MouseEvent)
            and not event.is_forwarded
            and self.mouse_captured is None
            and not self.size.contains(int(event.screen_x), int(event.screen_y))
        ):
            return
        await super().on_event(event)

    def action_command_palette(self) -> None:
        """Show the command palette, whose search field takes a paste as one line
        (:mod:`.palette`)."""
        from textual.command import CommandPalette

        from .palette import SafePalette

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(SafePalette(id="--command-palette"))

    def end_by_signal(self, signum: int) -> None:
        """End the app at once, as signal ``signum`` asks (a hang-up too when the terminal
        is gone without one), with exit status 128 + its number. The first signal
        decides: one after it (the hang-up that follows a terminal gone, a TERM after a
        HUP) changes neither the status nor what is said."""
        if self._signal_ended is not None:
            return
        self._signal_ended = signum
        self._end_for_signal(signum)

    def _end_for_signal(self, signum: int) -> None:
        """How :meth:`end_by_signal` ends the app; one that leaves work under way says
        what it leaves (:meth:`.app.TokenSalesApp._end_for_signal`)."""
        self.exit(return_code=exit_status(signum))

    def _print_error_renderables(self) -> None:
        """What is said once the terminal is back goes to stderr, which may be gone by
        then (the terminal closed: EIO; a closed stream): said where it can be
        (the ``--log`` file), it never turns the app's end into a crash."""
        try:
            super()._print_error_renderables()
        except (OSError, ValueError):
            self._exit_renderables.clear()

    def panic(self, *renderables: RenderableType) -> None:
        """End the app showing ``renderables``, with exit status 1: Textual's ``panic``
        (how a failure of its input thread ends the app) left the status unset, and a
        crash ended with 0."""
        self._return_code = self._return_code or 1
        super().panic(*renderables)

    def action_suspend_process(self) -> None:
        """ctrl+z: give the shell its terminal back until ``fg``, as ``kill -TSTP`` does.

        The key sends the process that very signal, whose handler (the driver's, see
        :mod:`.terminal_mode`) puts the terminal back before it stops, and draws the app
        whole again on ``fg``: one way for both. Served to a browser, or wherever the
        driver cannot stop the process, it says so rather than nothing.
        """
        driver = self._driver
        if driver is None or not driver.can_suspend:
            where = "Served to a browser, the app" if is_served(self) else "The app"
            self.notify(
                f"{where} cannot be suspended here: there is no shell to go back to",
                title="Suspend",
                severity="warning",
            )
            return
        super().action_suspend_process()

    def action_help_quit(self) -> None:
        """ctrl+c: say which key quits (Textual's says it in markup, which toasts here
        never read: "Press [b]q[/b]")."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a toast. Its text is always literal and shown as every text is
        (:func:`.safe.plain`: controls, zero-width and format characters as marks),
        whoever calls this, and an address or any other long run of text without a space
        is cut in its middle, its start and end kept
        (:func:`~tokensales_tui.clean.cut_long_words`).

        ``markup`` is accepted for Textual's signature and ignored: a toast here never
        parses markup, so a message that quotes a server can never become an action.
        """
        super().notify(
            plain(cut_long_words(message)),
            title=plain(cut_long_words(title), line=True),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def on_work_failed(self, event: WorkFailed) -> None:
        """Background work failed, and no screen took it (see :mod:`.work_failures`)."""
        self.notify(event.text, title="Something failed", severity="error", timeout=10)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Open ``url`` in a browser, and say what came of it in a toast.

        Served (``serve``), the browser showing the app opens it: the web driver's own
        way. Otherwise this machine's browser, started off the event loop by
        :func:`~.links.open_in_browser`: the app answers keys meanwhile, never waits for
        the browser to end (Python's :mod:`webbrowser`, on the event loop, held the app
        until a ``BROWSER`` such as ``lynx`` ended), and never gives it the terminal.
        """
        driver = self._driver
        if driver is None:
            return
        if type(driver).open_url is not Driver.open_url:  # the web driver's
            super().open_url(url, new_tab=new_tab)
            return
        self.run_worker(self._open_in_browser(url), group="open-url", exit_on_error=False)

    async def _open_in_browser(self, url: str) -> None:
        from .key_hints import key_for
        from .links import open_in_browser

        try:
            started = await open_in_browser(url)
        except (OSError, ValueError) as error:
            # A character the charset of the command line has no bytes for raised
            # UnicodeEncodeError out of webbrowser, and the app ended.
            self.notify(f"Not opened: {refused_by_system(error)}", severity="error")
            return
        if started:
            self.notify("Opened in the browser")
            return
        copy_key = key_for(self.screen, "copy_link")
        self.notify(
            "No browser could be started: set BROWSER"
            + (f", or copy the address with {copy_key}" if copy_key else ""),
            title="Not opened",
            severity="error",
        )

    def copy_to_clipboard(self, text: str) -> None:
        """Copy ``text`` (OSC 52), with every control character a paste could act on escaped.

        Newlines and tabs stay; any other control, bidi or surrogate character becomes a
        ``\\uXXXX`` escape, which is still valid inside JSON text. Callers copying one
        value (an id, an address) pass ``escape_unsafe(value, line=True)``.

        In mask mode what is copied is masked as it is shown, and a toast says so. Past
        :data:`COPY_LIMIT` nothing is copied, and a toast says so (:func:`copy` says
        what was copied otherwise).
        """
        if _too_long(self, text):
            return
        if masking():
            masked = mask_text(text)
            if masked != text:
                self.notify("Mask mode: the copy is masked as shown", title="Masked")
            text = masked
        super().copy_to_clipboard(escape_unsafe(text))
