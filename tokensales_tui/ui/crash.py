"""Crash reports without secrets, and without a character a terminal acts on or hides.

Textual prints a traceback with local variables when the app dies. Secrets are
held in :class:`~tokensales_tui.api.secret.Secret` (masked in reprs), but a local
variable, an exception message or a header dict could still hold the plain value,
so the report is rendered without locals and every known secret and anything
shaped like a JWT or a bearer credential is masked in the rendered text.

An exception's message often quotes what came from outside (a server's answer, a file's
line): the report shows it as every text on screen is shown
(:func:`~tokensales_tui.clean.visible`), an ESC as ``␛``, a zero-width space as ``⸱``.
Rich let ESC through to the terminal, where ``ESC ] 52`` in a message wrote the
clipboard. The messages are made visible before Rich lays the report out, so that its
box is measured on what shows, and every piece of every line again once it is rendered
(the source lines Rich reads itself). Where stderr is a file (``2>``, or ``serve``'s
``--log``), it holds the report as the screen shows it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment, Segments
from rich.traceback import Stack, Trace, Traceback

from ..api.secret import MASK, redact
from ..clean import visible

__all__ = ["MASK", "crash_report", "redact"]


def crash_report(console: Console, secrets: Iterable[str] = ()) -> Segments:
    """The traceback of the exception being handled, rendered and redacted.

    Lines keep their colours unless something on them is masked; a secret split
    across styled pieces of a line is still found, since whole lines are checked.
    """
    known = list(secrets)
    exc_type, exc_value, trace_back = sys.exc_info()
    if exc_type is None or exc_value is None:
        raise ValueError("crash_report is for the exception being handled")
    trace = _shown(Traceback.extract(exc_type, exc_value, trace_back, show_locals=False))
    traceback = Traceback(trace, show_locals=False, width=None)
    out: list[Segment] = []
    for line in console.render_lines(traceback, console.options, pad=False, new_lines=True):
        text = "".join(segment.text for segment in line)
        cleaned = redact(text, known)
        if cleaned != text:
            line = [Segment(cleaned)]
        out.extend(Segment(visible(s.text), s.style, s.control) for s in line)
    return Segments(out)


def _shown(trace: Trace) -> Trace:
    """``trace`` with every message, note and quoted line as the screen shows it."""
    return Trace(stacks=[_shown_stack(stack) for stack in trace.stacks])


def _shown_stack(stack: Stack) -> Stack:
    error = stack.syntax_error
    if error is not None:
        error.msg, error.line = visible(error.msg), visible(error.line)
        error.notes = [visible(note) for note in error.notes]
    stack.exc_type, stack.exc_value = visible(stack.exc_type), visible(stack.exc_value)
    stack.notes = [visible(note) for note in stack.notes]
    stack.exceptions = [_shown(group) for group in stack.exceptions]
    return stack
