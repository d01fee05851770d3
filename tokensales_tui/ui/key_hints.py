"""Keys named in what the app says, taken from the bindings of the screen that says it.

A message that tells someone to press a key ("then press r") names the key bound now, on
the screen showing it, to the action meant (``refresh``, ``submit``), with the user's
keymap applied; where no key of that screen runs it, the message names none ("then try
again"). So no message can name a key that does nothing where it is read, or another
action's key (``r`` replays a delivery on the deliveries screen).

Each screen that can show a failed request names the action that sends it again in
``RETRY_ACTION`` (the main screen: ``refresh``; a form: ``submit``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.binding import Binding, BindingType
from textual.keys import format_key, key_to_character
from textual.screen import Screen

from ..api import ApiError, AuthError

__all__ = ["action_name", "error_said", "key_for", "key_in", "press", "retry_key"]


def action_name(action: str) -> str:
    """An action without its namespace and arguments: ``app.help`` → ``help``."""
    return action.split("(")[0].rpartition(".")[2]


def spoken(key: str, binding: Binding | None = None) -> str:
    """A key as a sentence names it: ``r``, ``?``, ``/``, ``ctrl+s``, ``esc``."""
    if binding is not None and binding.key_display:
        return binding.key_display
    character = key_to_character(key)
    if (
        character is not None
        and len(character) == 1
        and character.isprintable()
        and character != " "
    ):
        return character
    return format_key(key)


def key_for(screen: Screen[Any], action: str) -> str | None:
    """The key that runs ``action`` on ``screen`` now, as a sentence names it; None when
    no key of the screen (or of the app) runs it there."""
    wanted = action_name(action)
    for key, active in screen.active_bindings.items():
        if active.enabled and action_name(active.binding.action) == wanted:
            return spoken(key, active.binding)
    return None


def key_in(bindings: Iterable[BindingType], action: str, screen: Screen[Any]) -> str | None:
    """The key bound to ``action`` in ``bindings`` (another screen's: the one a message
    sends someone to), with the app's keymap applied; None when none is."""
    bound = getattr(screen.app, "bound", None)
    listed = (
        bound(bindings) if bound is not None else [b for b in bindings if isinstance(b, Binding)]
    )
    wanted = action_name(action)
    for binding in listed:
        if action_name(binding.action) == wanted:
            return spoken(binding.key.split(",")[0].strip(), binding)
    return None


def press(screen: Screen[Any], action: str, what: str) -> str:
    """``press KEY what`` with the key that runs ``action`` on ``screen``; "" when none does."""
    key = key_for(screen, action)
    return f"press {key} {what}" if key else ""


def retry_key(screen: Screen[Any]) -> str | None:
    """The key that sends a failed request of ``screen`` again (see ``RETRY_ACTION``)."""
    action: str | None = getattr(screen, "RETRY_ACTION", None)
    return key_for(screen, action) if action else None


def error_said(error: ApiError, screen: Screen[Any]) -> str:
    """``error`` on one line for ``screen``: its retry key, and for refused credentials,
    the keys that lead to the profile's settings where the screen has them."""
    said = error.said(retry_key(screen))
    if isinstance(error, AuthError) and error.in_profile:
        from .screens.profiles import ProfileScreen

        profiles = key_for(screen, "switch_profile")
        edit = key_in(ProfileScreen.BINDINGS, "edit", screen)
        if profiles and edit:
            said += f" ({profiles} opens the profiles, {edit} edits the highlighted one)"
    return said
