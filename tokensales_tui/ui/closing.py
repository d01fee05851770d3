"""Closing a screen closes that screen, whatever is over it now.

Textual's ``Screen.dismiss`` runs the screen's result callback, then pops the screen on
top of the stack, whichever that is. A screen that closes itself after an await (a form
once its request is answered, a dialog once its file is saved) may have had another
opened over it meanwhile: the quit question, the command palette, the help. Its dismiss
then closed that one, and the screen itself stayed, its work done, as if still at it (a
form sent its request again at the next ctrl+s).

:func:`close` closes exactly the screen given: on top, as ``dismiss`` does; under
another, it is taken out of the stack and the screens over it stay, each shown over
what is under it now and closing on its own. Its result callback runs either way; a
screen no longer on the stack (closed already, or never shown) is left alone. Every
screen of ``ui/`` closes through it: ``tests/test_closing.py`` fails on a ``dismiss``
or ``pop_screen`` anywhere else.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.screen import Screen

__all__ = ["close"]

R = TypeVar("R")


def close(screen: Screen[R], result: R | None = None, *, answer: bool = True) -> None:
    """Close ``screen`` with ``result`` (see the module): on top or under other screens.

    With ``answer`` false its result callback is dropped, never called: a question taken
    back because whoever asked it gave up (its wait cancelled).
    """
    if not screen.is_attached:
        return
    app = screen.app
    stack = app._screen_stack  # the active mode's, the one ``dismiss`` pops from
    if screen not in stack:
        return
    if stack[-1] is screen:
        if answer:
            screen.dismiss(result)
        else:
            app.pop_screen()
        return
    if stack.index(screen) == 0:
        return  # the bottom screen is never closed: the app ends instead
    _close_under(screen, result, answer)


def _close_under(screen: Screen[Any], result: Any, answer: bool) -> None:
    """Take ``screen`` out from under the screens over it, as ``App.pop_screen`` takes
    the top one: its result callback, then its removal once it is suspended."""
    app = screen.app
    callback = screen._result_callbacks[-1] if screen._result_callbacks else None
    app._screen_stack.remove(screen)
    if callback is not None:
        screen._pop_result_callback()
        if answer:
            callback(result)

    async def remove() -> None:
        await app._replace_screen(screen)

    app.call_next(remove)
    # The screen on top showed this one through its background: drawn again without it.
    app.screen.refresh()
