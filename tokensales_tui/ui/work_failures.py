"""Background work that fails says so.

Most of the app's workers are made with ``exit_on_error=False``: a failure of one must
not end the app. Textual then ends such a worker in its ``ERROR`` state, and its error
goes nowhere unless someone waits for it: an import whose file name the system refused
left "Reading …" on the form for good, an export whose writing failed an unforeseen way
left the dialog disabled.

:class:`ReportingWorkers`, the app's worker manager, sees every worker end. One that
failed, that nobody waits for (:func:`~.cancelling.is_awaited`) and whose node is still
on screen, is logged with its traceback and posts :class:`WorkFailed` to its node. The
message bubbles: a screen with a busy state of its own (a form, the export dialog)
takes it and is put back to where the person can act again, saying what failed; what
no screen takes reaches the app, which shows it in a toast. So a new worker, whatever
it forgets to catch, never fails unseen.
"""

from __future__ import annotations

import logging
from typing import Any

from textual.message import Message
from textual.worker import Worker, WorkerState
from textual.worker_manager import WorkerManager

from ..clean import clean_line
from .cancelling import is_awaited

__all__ = ["ReportingWorkers", "WorkFailed", "failure_text"]

log = logging.getLogger(__name__)

SHOWN_ERROR = 200
"""Characters of an error's message a report shows."""


class WorkFailed(Message):
    """Background work of the node it is posted to (or of one inside it) failed.

    Attributes:
        text: What failed, in one line: the error's type and message.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


def failure_text(error: BaseException) -> str:
    """``error`` in one line: its type, and its message cut short."""
    message = clean_line(str(error))
    if len(message) > SHOWN_ERROR:
        message = message[: SHOWN_ERROR - 1] + "…"
    name = type(error).__name__
    return f"{name}: {message}" if message else name


class ReportingWorkers(WorkerManager):
    """Textual's worker manager, which also reports the failures nobody reads (see the
    module's docstring)."""

    def _remove_worker(self, worker: Worker[Any]) -> None:
        super()._remove_worker(worker)
        error = worker.error
        if (
            worker.state is not WorkerState.ERROR
            or worker.exit_on_error  # Textual ends the app with it
            or error is None
            or is_awaited(worker)
        ):
            return
        log.error("background work %r failed", worker.name, exc_info=error)
        worker.node.post_message(WorkFailed(failure_text(error)))
