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
(the source lines and paths Rich reads itself), each line then kept as wide as Rich laid
it out, so that the box's right edge stays in line. Masking keeps a line's colours.
Where stderr is a file (``2>``, or ``serve``'s ``--log``), it holds the report as the
screen shows it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from difflib import SequenceMatcher

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment, Segments
from rich.traceback import Stack, Trace, Traceback

from ..api.secret import MASK, redact
from ..clean import visible

__all__ = ["MASK", "crash_report", "redact"]


def crash_report(console: Console, secrets: Iterable[str] = ()) -> Segments:
    """The traceback of the exception being handled, rendered and redacted.

    Every line keeps its colours, a line with something masked on it too (a secret split
    across styled pieces of a line is still found, since whole lines are checked), and
    its width: the box's right edge stays where Rich drew it.
    """
    known = list(secrets)
    exc_type, exc_value, trace_back = sys.exc_info()
    if exc_type is None or exc_value is None:
        raise ValueError("crash_report is for the exception being handled")
    trace = Traceback.extract(exc_type, exc_value, trace_back, show_locals=False)
    traceback = Traceback(_shown(trace, known), show_locals=False, width=None)
    out: list[Segment] = []
    for line in console.render_lines(traceback, console.options, pad=False, new_lines=True):
        out.extend(_line_shown(line, known))
    return Segments(out)


def _line_shown(line: list[Segment], known: list[str]) -> list[Segment]:
    """A rendered ``line`` as it shows: masked (each piece keeping its style), every piece
    made visible, and as wide as Rich laid it out.

    What Rich read itself (a source line, a file's path) was measured before it was
    made visible: a zero-width character there counted no cell and shows as "⸱", a
    secret masked is as long as the mask. The line's box edge is kept in its place: the
    padding before it given up or added (the text cut only where it fills the line).
    """
    text = "".join(segment.text for segment in line)
    masked = redact(text, known)
    if masked != text:
        line = _restyled(line, text, masked)
    shown = [Segment(visible(s.text), s.style, s.control) for s in line]
    end = len(shown) - (bool(shown) and shown[-1].text == "\n")
    if end < 1 or not _BOX.fullmatch(shown[end - 1].text):
        return shown
    start = end - 1 - (end > 1 and shown[end - 2].text == " ")  # the box's own margin
    body, edge = shown[:start], shown[start:]
    width = cell_len(text.rstrip("\n")) - Segment.get_line_length(edge)
    if Segment.get_line_length(body) == width:
        return shown
    pad = body[-1].style if body and not body[-1].text.strip() else None
    return [*Segment.adjust_line_length(body, width, style=pad), *edge]


_BOX = re.compile("[\u2500-\u257f]+")
"""Box-drawing characters: a line that ends with them ends with the box's edge."""


def _restyled(line: list[Segment], text: str, masked: str) -> list[Segment]:
    """``masked`` (``text`` with secrets masked) in the styles of ``line``'s pieces: each
    character kept in its own, a mask in that of what it replaced."""
    styles = [segment.style for segment in line for _ in segment.text]
    pieces: list[Segment] = []
    matcher = SequenceMatcher(None, text, masked, autojunk=False)
    for tag, start, end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            pieces += map(Segment, masked[new_start:new_end], styles[start:end])
        elif new_end > new_start:  # a mask: in the style of the first character it replaced
            style = styles[min(start, len(styles) - 1)] if styles else None
            pieces.append(Segment(masked[new_start:new_end], style))
    return list(Segment.simplify(pieces))


def _shown(trace: Trace, known: list[str]) -> Trace:
    """``trace`` with every message, note and quoted line as the screen shows it (masked
    and made visible), so that Rich lays it out as it shows."""
    return Trace(stacks=[_shown_stack(stack, known) for stack in trace.stacks])


def _shown_stack(stack: Stack, known: list[str]) -> Stack:
    def shown(text: str) -> str:
        return visible(redact(text, known))

    error = stack.syntax_error
    if error is not None:
        error.msg, error.line = shown(error.msg), shown(error.line)
        error.notes = [shown(note) for note in error.notes]
    stack.exc_type, stack.exc_value = shown(stack.exc_type), shown(stack.exc_value)
    stack.notes = [shown(note) for note in stack.notes]
    stack.exceptions = [_shown(group, known) for group in stack.exceptions]
    return stack
