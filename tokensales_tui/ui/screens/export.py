"""The export dialog: format, path, then the rows written in a thread with progress.

Served to a browser (``serve``), the dialog asks for a file name only, and the browser
downloads the file: nothing is written where the app runs but a private temporary file,
gone before the download starts."""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, ProgressBar, RadioButton, RadioSet, Static

from ...api.models import raw_texts
from ...download_names import browser_change
from ...files import said, typed_path
from ...mask import masking
from ..closing import close
from ..export import FORMATS, ExportStopped, default_path, export_rows, with_extension
from ..key_hints import hint
from ..resources import Resource
from ..safe import line, show
from ..served import is_served
from ..table.cells import Column
from ..widgets.button_row import ButtonRow
from ..widgets.footer import KeysFooter
from ..widgets.safe_input import SafeInput
from ..work_failures import WorkFailed
from .base import ScreenKeys
from .confirm import ConfirmScreen

__all__ = ["ExportScreen"]


def _working_folder() -> Path:
    """The working folder, else the home folder (the working one may have been removed)."""
    try:
        return Path.cwd()
    except OSError:
        return Path.home()


class ExportScreen(ScreenKeys, ModalScreen[Path | None]):
    """Asks for the format and the file, then writes the rows as shown; returns the path.

    Never replaces a file without asking. While writing, escape stops (nothing is
    written); on a failure the dialog stays open and says why.
    """

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > VerticalScroll {
        width: 76; max-width: 95%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ExportScreen .title { text-style: bold; }
    ExportScreen RadioSet { margin-top: 1; width: 100%; }
    ExportScreen Input { margin-top: 1; }
    ExportScreen ProgressBar { margin-top: 1; display: none; }
    ExportScreen ProgressBar.-running { display: block; }
    ExportScreen .status { color: $text-muted; }
    ExportScreen .status.-error { color: $text-error; }
    """

    AUTO_FOCUS = "#path"

    TEXT_FIELDS = (SafeInput,)

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
        Binding("ctrl+s", "export", "Export", id="export.save"),
    ]

    def __init__(
        self,
        resource: Resource,
        columns: Sequence[Column],
        rows: Sequence[Any],
        folder: Path | None = None,
    ) -> None:
        super().__init__()
        self.resource = resource
        self.columns = tuple(columns)
        self.rows = rows
        self.folder = folder or _working_folder()
        self.kind = FORMATS[0].key
        self._halt = threading.Event()
        self._writing = False

    @property
    def served(self) -> bool:
        """Whether the app is served to a browser, which then downloads the file."""
        return is_served(self.app)

    def compose(self) -> ComposeResult:
        count = self.resource.counted(len(self.rows))
        path = default_path(self.resource.key, FORMATS[0].extension, self.folder)
        with VerticalScroll(can_focus=False):  # scrolls in a short terminal; the buttons stay
            yield Static(line(f"Export {count}, as shown (filter and sort)"), classes="title")
            with RadioSet(id="format"):
                for number, kind in enumerate(FORMATS):
                    yield RadioButton(line(kind.label), value=number == 0, id=f"format-{kind.key}")
            shown = path.name if self.served else str(path)
            yield SafeInput(value=shown, id="path")
            yield ProgressBar(total=len(self.rows), show_eta=False, id="progress")
            yield Static(
                line(
                    "Your browser downloads it: nothing is written where the app runs."
                    if self.served
                    else "Written atomically, mode 0600; an existing file is never replaced"
                    " without asking."
                ),
                classes="status",
            )
            with ButtonRow():
                yield Button("Cancel", id="cancel")
                yield Button("Export", id="export", variant="primary")
        yield KeysFooter(compact=True)

    @on(RadioSet.Changed)
    def _format_changed(self, event: RadioSet.Changed) -> None:
        self.kind = FORMATS[event.index].key
        path = self.query_one("#path", Input)
        path.value = with_extension(path.value, FORMATS[event.index].extension)

    @on(Input.Submitted, "#path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_export()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self.action_export()
        else:
            self.action_cancel()

    def _say(self, text: str, *, error: bool = False) -> None:
        status = self.query_one(".status", Static)
        show(status, line(text))
        status.set_class(error, "-error")

    def chosen_path(self) -> Path | None:
        """The path typed, made absolute; None (and a message) when it cannot be used."""
        typed = self.query_one("#path", Input).value.strip()
        if not typed:
            self._say("Type the path of the file to write", error=True)
            return None
        try:
            # Served: no home folder of the serving machine is anybody's.
            path = typed_path(
                typed.replace("\\", "/") if self.served else typed, home=not self.served
            )
        except OSError as error:  # a NUL, a character no file name here can have
            self._say(f"Not a file name: {error}", error=True)
            return None
        if self.served:
            return self._private_path(path)
        if not path.is_absolute():
            path = self.folder / path
        try:
            problem = _unusable(path)
        except OSError as error:  # a name too long, a folder not to be entered, a loop of links
            problem = f"{_short(path)}: {error.strerror or error}"
        if problem is not None:
            self._say(problem, error=True)
            return None
        return path

    def _private_path(self, typed: Path) -> Path | None:
        """Served: the name the browser saves the file as, the last part of what was
        typed (no folder of the serving machine is taken); written first in a private
        folder the writing makes (see :meth:`_run`). A name a browser would save under
        another is refused: the message after the export names the file downloaded."""
        name = typed.name
        if name in ("", ".", ".."):
            self._say("Type a file name", error=True)
            return None
        if len(os.fsencode(name)) > 200:
            self._say("The file name is too long", error=True)
            return None
        if (change := browser_change(name)) is not None:
            self._say(f"{change[:1].upper()}{change[1:]}: choose another name", error=True)
            return None
        return Path(name)

    def action_export(self) -> None:
        """Check the path, ask before replacing a file, then write."""
        if self._writing:
            return
        path = self.chosen_path()
        if path is None:
            return
        if self.served or not path.exists():  # served: a name, no file of this machine
            self._write(path, replace=False)
            return

        def answered(replace: bool | None) -> None:
            if replace:
                self._write(path, replace=True)
            else:
                self._say("Not exported: choose another name", error=True)

        self.app.push_screen(
            ConfirmScreen("Replace the existing file?", str(path), confirm_label="Replace"),
            answered,
        )

    def _write(self, path: Path, *, replace: bool) -> None:
        self._writing = True
        self._halt.clear()
        for widget in self.query("RadioSet, Input, #export"):
            widget.disabled = True
        self.query_one(ProgressBar).add_class("-running")
        stops = hint(self, "cancel", "stops; nothing is written then")
        self._say(f"Writing… ({stops})" if stops else "Writing…")
        self._run(path, replace)

    @dataclass
    class Progress(Message):
        """Rows written so far (posted from the writing thread, which does not wait)."""

        done: int

    def on_export_screen_progress(self, event: Progress) -> None:
        self.query_one(ProgressBar).update(progress=event.done)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _run(self, path: Path, replace: bool) -> None:
        if not self.served:
            self._write_rows(path, replace)
            return
        # Served: written in a private folder, handed to the browser from an open file,
        # and the folder removed at once, whatever happens.
        private = Path(tempfile.mkdtemp(prefix="tokensales-export-"))
        try:
            self._write_rows(private / path.name, replace=False)
        finally:
            shutil.rmtree(private, ignore_errors=True)

    def _write_rows(self, path: Path, replace: bool) -> None:
        def progress(done: int) -> None:
            self.post_message(self.Progress(done))

        shown = path.name if self.served else _short(path)  # a private path is nobody's
        try:
            export_rows(
                path,
                self.kind,
                self.columns,
                self.rows,
                self.resource.raw,
                raw_texts=_bulk_texts(self.resource),
                replace=replace,
                progress=progress,
                stopped=self._halt.is_set,
            )
        except ExportStopped:
            self.app.call_from_thread(self._failed, "Export stopped: nothing was written")
        except FileExistsError:
            self.app.call_from_thread(
                self._failed, f"{path} appeared meanwhile: not replaced, nothing was written"
            )
        except OSError as error:  # the file or folder the system named, else the export's
            named = said(error) if error.filename is not None and not self.served else None
            reason = named or f"{error.strerror or error} ({shown})"
            self.app.call_from_thread(self._failed, f"Not exported: {reason}")
        except (RecursionError, ValueError, TypeError) as error:
            self.app.call_from_thread(
                self._failed, f"Not exported: an object cannot be written as JSON ({error})"
            )
        else:
            if self.served:
                self._hand_over(path)
            else:
                self.app.call_from_thread(self._done, path)

    def _hand_over(self, path: Path) -> None:
        """Served: give the file written to the browser, which downloads it. The file is
        read from an open handle: removed here at once, it leaves nothing behind."""
        try:
            handle = path.open("rb")
        except OSError as error:
            reason = error.strerror or str(error)
            self.app.call_from_thread(self._failed, f"Not exported: {reason}")
            return
        try:
            self.app.call_from_thread(self._deliver, handle, path.name)
        except BaseException:  # the app ending: the handle is nobody's now
            handle.close()
            raise

    def _deliver(self, handle: Any, name: str) -> None:
        self._writing = False
        self.app.deliver_binary(handle, save_filename=name)  # it closes the handle
        self.app.notify(f"{self._exported()}: your browser downloads {name}", markup=False)
        close(self, None)

    def _done(self, path: Path) -> None:
        self._writing = False
        self.app.notify(f"{self._exported()} to {path}")
        close(self, path)

    def _exported(self) -> str:
        """``Exported 40 items`` (``, masked as shown (mask mode)``)."""
        masked = ", masked as shown (mask mode)" if masking() else ""
        return f"Exported {self.resource.counted(len(self.rows))}{masked}"

    def _failed(self, message: str) -> None:
        self._writing = False
        for widget in self.query("RadioSet, Input, #export"):
            widget.disabled = False
        self.query_one(ProgressBar).remove_class("-running")
        self._say(message, error=True)
        # Disabled while writing, the field lost the focus: the path is what to mend.
        self.query_one("#path", Input).focus()

    def on_work_failed(self, event: WorkFailed) -> None:
        """The writing failed in a way not foreseen: said, and the dialog open again."""
        event.stop()
        self._failed(f"Not exported: {event.text}")

    def action_cancel(self) -> None:
        """Stop writing (nothing is written), or close."""
        if self._writing:
            self._halt.set()
            return
        close(self, None)


SHOWN_PATH = 60
"""Characters of a path a message of the dialog shows (its end)."""

_PLAIN_RAW = next(f.default for f in dataclasses.fields(Resource) if f.name == "raw")


def _bulk_texts(resource: Resource) -> Callable[[Sequence[Any]], Sequence[bytes | None]] | None:
    """Reads many rows' JSON texts at once, for a resource whose rows answer ``raw``."""
    if resource.raw is not _PLAIN_RAW:
        return None
    return raw_texts


def _unusable(path: Path) -> str | None:
    """Why ``path`` cannot be written as an export, or None; an ``OSError`` for what the
    system refuses to look at (a name too long, a folder not to be entered)."""
    if path.is_dir():
        return f"{_short(path)} is a folder: add a file name"
    if not path.parent.is_dir():
        return f"There is no folder {_short(path.parent)}"
    try:
        status = path.stat()  # through a link to where it leads
    except FileNotFoundError:
        if path.is_symlink():
            return f"{_short(path)} is a link to nothing: choose another name"
        return None  # a new file
    if not stat.S_ISREG(status.st_mode):
        # A FIFO, a device: writing would wait on a reader, or replace it by a file.
        return f"{_short(path)} is not a regular file: choose another name"
    return None


def _short(path: Path) -> str:
    """``path`` for a one-line message: its end, where it is long (the reason must show)."""
    text = str(path)
    return text if len(text) <= SHOWN_PATH else "…" + text[-(SHOWN_PATH - 1) :]
