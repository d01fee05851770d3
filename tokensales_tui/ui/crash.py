"""Crash reports without secrets.

Textual prints a traceback with local variables when the app dies. Secrets are
held in :class:`~tokensales_tui.api.secret.Secret` (masked in reprs), but a local
variable, an exception message or a header dict could still hold the plain value,
so the report is rendered without locals and every known secret and anything
shaped like a JWT or a bearer credential is masked in the rendered text.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment, Segments
from rich.traceback import Traceback

from ..api.secret import MASK, redact

__all__ = ["MASK", "crash_report", "redact"]


def crash_report(console: Console, secrets: Iterable[str] = ()) -> Segments:
    """The traceback of the exception being handled, rendered and redacted.

    Lines keep their colours unless something on them is masked; a secret split
    across styled pieces of a line is still found, since whole lines are checked.
    """
    known = list(secrets)
    traceback = Traceback(show_locals=False, width=None)
    out: list[Segment] = []
    for line in console.render_lines(traceback, console.options, pad=False, new_lines=True):
        text = "".join(segment.text for segment in line)
        cleaned = redact(text, known)
        out.extend(line if cleaned == text else [Segment(cleaned)])
    return Segments(out)
