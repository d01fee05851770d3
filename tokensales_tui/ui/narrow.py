"""Text is never wrapped to a width of nothing.

Textual's ``Content`` wraps each line of its text through Rich's ``divide_line``, which
fails on a width of 0 (``ValueError: range() arg 3 must not be zero``). An
``OptionList`` asks its options for their height at its width less their padding: in a
terminal 6 or 7 columns wide that is 0, and the command palette and the profile picker
ended the app, where every other screen is drawn down to 1x1. :func:`wrap_in_a_cell_at_least`
has every ``Content`` of the app, in whatever widget, wrapped to at least one cell (and
its line padding): what does not fit is cut where the widget ends, as anywhere else, and
drawn whole again once the terminal is wider.
"""

from __future__ import annotations

import inspect
from typing import Any

from textual.content import Content

__all__ = ["wrap_in_a_cell_at_least"]

_wrap_and_format = Content._wrap_and_format

# Where ``line_pad`` comes among the arguments after ``width``, read from the signature
# of the Textual installed rather than assumed (none: no padding is ever passed).
_PARAMETERS = list(inspect.signature(_wrap_and_format).parameters)
_LINE_PAD = _PARAMETERS.index("line_pad") - 2 if "line_pad" in _PARAMETERS else 1 << 16


def _wrapping(self: Content, width: int, *args: Any, **kwargs: Any) -> Any:
    """``Content._wrap_and_format``, to no less than one cell inside the line padding."""
    line_pad = kwargs.get("line_pad", args[_LINE_PAD] if len(args) > _LINE_PAD else 0)
    return _wrap_and_format(self, max(width, 1 + 2 * line_pad), *args, **kwargs)


def wrap_in_a_cell_at_least() -> None:
    """Have every ``Content`` wrap its text to one cell at least (see the module's
    docstring)."""
    Content._wrap_and_format = _wrapping  # type: ignore[method-assign]
