"""Background work that fails says so, and never ends the app.

A failure of the app's work must not end the app. Textual starts a worker with
``exit_on_error=True`` unless told otherwise, and such a worker's failure ended the app
with a traceback: a replay of a delivery, the detail view's refresh, the app's saving of
its theme, each failing in a way not foreseen. :class:`ReportingWorkers` starts every
worker with ``exit_on_error=False``, whatever it was asked, with one exception: the
work the app cannot go on without (:data:`ENDS_THE_APP`: starting a session) ends it
with its crash report, secrets masked. Textual's own work (:func:`written_by_textual`:
the command palette's search, an input's suggestions) keeps what Textual started it
with: it is Textual's to answer for, and an app's suggester it runs may still end the
app if it raises.

Textual ends such a worker in its ``ERROR`` state, and its error goes nowhere unless
someone waits for it: an import whose file name the system refused left "Reading …" on
the form for good, an export whose writing failed an unforeseen way left the dialog
disabled.

:class:`ReportingWorkers`, the app's worker manager, sees every worker end. One that
failed, and that nobody waits for (:func:`~.cancelling.is_awaited`), is logged with its
traceback and posts :class:`WorkFailed` to its node, every secret the app knows masked
in both (an error's words can hold a token) (to the app once the node has left
it: a closed screen's). The message bubbles: a screen with a busy state of its own (a form,
the setup screen, the export dialog, the detail view's refresh) takes it and is put back to where the person can
act again, saying what failed, and undoes the state of that worker only
(:attr:`WorkFailed.worker`: a check failing while a form sends leaves the form waiting
for its answer); what no screen takes reaches the app, which shows it in a toast. So a
new worker, whatever it forgets to catch, never fails unseen. Every screen that starts
work says what becomes of its failures (``on_work_failed``), even if only that the
app says them: a test holds each to it.

What shows work under way (a row's "⌫ deleting" mark, a progress line) is taken off by
:func:`when_ended`, which the manager runs however the worker ends: done, failed,
cancelled, even before it ran. A mark undone in the worker's own ``finally`` stayed for
good when it failed before reaching it. A worker cancelled before it ran (replaced in
the turn it was asked for) ends cancelled, where Textual left it "running" for good,
and the coroutine it was given, never begun, is closed: dropped unclosed, it warned
that it was never awaited.
"""

from __future__ import annotations

import inspect
import logging
import traceback
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Final

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, WorkerState, WorkType
from textual.worker_manager import WorkerManager

from ..api.secret import redact
from ..clean import clean_line, shorten
from .cancelling import is_awaited

__all__ = [
    "ENDS_THE_APP",
    "ReportingWorkers",
    "WorkFailed",
    "failure_text",
    "when_ended",
    "written_by_textual",
]

log = logging.getLogger(__name__)

ENDS_THE_APP: Final = frozenset({"session"})
"""Groups of the app's work without which it cannot go on, whose failure ends it with its
crash report (secrets masked), as Textual ends it: a session that failed to start left
the app with keys held and no client, a toast said it, and nothing could be done."""

SHOWN_ERROR = 200
"""Characters of an error's message a report shows."""


class WorkFailed(Message):
    """Background work of the node it is posted to (or of one inside it) failed.

    Attributes:
        text: What failed, in one line: the error's type and message.
        worker: The worker that failed.
    """

    def __init__(self, text: str, worker: Worker[Any]) -> None:
        super().__init__()
        self.text = text
        self.worker = worker


def failure_text(error: BaseException) -> str:
    """``error`` in one line: its type, and its message cut short."""
    message = clean_line(str(error))
    message = shorten(message, SHOWN_ERROR)
    name = type(error).__name__
    return f"{name}: {message}" if message else name


def written_by_textual(work: object) -> bool:
    """Whether ``work`` (a worker's: a function, a coroutine, an awaitable) is Textual's
    own code, not this app's."""
    while isinstance(work, partial):  # what ``@work`` starts
        work = work.func
    frame = getattr(work, "cr_frame", None)  # a coroutine not yet ended
    if frame is not None:
        module = frame.f_globals.get("__name__")
    else:
        module = getattr(work, "__module__", None) or type(work).__module__
    return isinstance(module, str) and (module == "textual" or module.startswith("textual."))


class ReportingWorkers(WorkerManager):
    """Textual's worker manager, which never lets the app's work end the app, reports the
    failures nobody reads, and runs what :func:`when_ended` asked at each worker's end
    (see the module's docstring)."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self._endings: dict[Worker[Any], list[Callable[[], object]]] = {}
        self._coroutines: dict[Worker[Any], Coroutine[Any, Any, Any]] = {}
        """The coroutine each worker started with one runs (closed if it never began)."""

    def _new_worker(
        self, work: WorkType[Any], node: DOMNode, *, exit_on_error: bool = True, **options: Any
    ) -> Worker[Any]:
        if not written_by_textual(work) and options.get("group") not in ENDS_THE_APP:
            exit_on_error = False  # the app's work: failed, it is said, the app goes on
        worker = super()._new_worker(work, node, exit_on_error=exit_on_error, **options)
        if inspect.iscoroutine(work):
            self._coroutines[worker] = work
        return worker

    def when_ended(self, worker: Worker[Any], ending: Callable[[], object]) -> None:
        """Run ``ending`` once ``worker`` has ended, however it ends (now, if it has)."""
        if worker.is_finished or worker not in self:
            ending()
            return
        self._endings.setdefault(worker, []).append(ending)

    def _remove_worker(self, worker: Worker[Any]) -> None:
        super()._remove_worker(worker)
        coroutine = self._coroutines.pop(worker, None)
        if not worker.is_finished:
            # Cancelled before it began (replaced in the turn it was asked for, its tab
            # forgotten at once): Textual left it "running" for good, and its coroutine,
            # never run, warned that it was never awaited once collected.
            worker.state = WorkerState.CANCELLED
        if coroutine is not None and inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
            coroutine.close()
        for ending in self._endings.pop(worker, ()):
            try:
                ending()
            except Exception:  # one that fails leaves the others to run
                log.exception("ending background work %r failed", worker.name)
        error = worker.error
        if (
            worker.state is not WorkerState.ERROR
            or worker.exit_on_error  # Textual's own, which ends the app with it
            or error is None
            or is_awaited(worker)
        ):
            return
        secrets = self._secrets()  # an error's words can hold a token: never shown, nor logged
        told = "".join(traceback.format_exception(error))
        log.error("background work %r failed:\n%s", worker.name, redact(told, secrets))
        node = worker.node
        if not node.is_attached:  # its screen closed: no one there to say it
            node = self._app
        node.post_message(WorkFailed(redact(failure_text(error), secrets), worker))

    def _secrets(self) -> list[str]:
        """The secrets the app knows now (its credentials, its tokens), to mask."""
        known: Callable[[], list[str]] | None = getattr(self._app, "_known_secrets", None)
        try:
            return known() if known is not None else []
        except Exception:  # half set up: what it has not, it cannot show
            return []


def when_ended(worker: Worker[Any], ending: Callable[[], object]) -> None:
    """Run ``ending`` once ``worker`` has ended, whatever way: to take off what shows
    its work under way. ``worker`` is one of an app of this package's."""
    manager = worker.node.app.workers
    assert isinstance(manager, ReportingWorkers), manager
    manager.when_ended(worker, ending)
