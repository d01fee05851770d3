"""Keys named in what the app says, taken from the bindings of the screen that says it.

A message that tells someone to press a key ("then press r") names the key bound now, on
the screen showing it, to the action meant (``refresh``, ``submit``), with the user's
keymap applied; where no key of that screen runs it, the message names none ("then try
again"). So no message can name a key that does nothing where it is read, or another
action's key (``r`` replays a delivery on the deliveries screen).

Every other text that names a key is made here the same way, in the forms a sentence
needs: ``a to add`` (:func:`hint`), several of them (:func:`hints`), every key of an action
(``esc or q back``: :func:`either`), or another screen's key (:func:`key_in`). A test scans
the package's strings for a key written by hand.

Each screen that can show a failed request names the action that sends it again in
``RETRY_ACTION`` (the main screen: ``refresh``; a form: ``submit``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import format_key, key_to_character
from textual.screen import Screen

from ..api import ApiError, AuthError
from .following import Following

__all__ = [
    "action_name",
    "either",
    "error_said",
    "follow_keys",
    "hint",
    "hint_in",
    "hints",
    "key_for",
    "key_in",
    "keys_for",
    "press",
    "retry_key",
    "spoken",
]


def action_name(action: str) -> str:
    """An action without its namespace and arguments: ``app.help`` → ``help``."""
    return action.split("(")[0].rpartition(".")[2]


def _local(action: str) -> str:
    """An action without its namespace, its arguments kept: ``app.help`` → ``help``,
    ``move(1)`` → ``move(1)``."""
    name, paren, arguments = action.partition("(")
    return name.rpartition(".")[2] + paren + arguments


def _runs(binding: Binding, wanted: str) -> bool:
    """Whether ``binding`` runs ``wanted``: an action named alone matches with any
    arguments (``show_tab``), one given with its arguments only with those (``move(1)``)."""
    if "(" in wanted:
        return _local(binding.action) == _local(wanted)
    return action_name(binding.action) == action_name(wanted)


def spoken(key: str, binding: Binding | None = None) -> str:
    """A key as a sentence names it: ``r``, ``?``, ``/``, ``ctrl+s``, ``esc``, ``enter``."""
    if binding is not None and binding.key_display:
        return binding.key_display
    if key == "enter":
        return "enter"  # not ⏎: "enter to switch" is read aloud
    if key == ",":
        return "comma"  # in a list of keys a comma is a word
    character = key_to_character(key)
    if (
        character is not None
        and len(character) == 1
        and character.isprintable()
        and character != " "
    ):
        return character
    return format_key(key)


def keys_for(screen: Screen[Any], action: str) -> list[str]:
    """Every key that runs ``action`` on ``screen`` now (its focused widget's, its own,
    the app's), as a sentence names them, each once; none when no key runs it there."""
    found: list[str] = []
    for key, active in screen.active_bindings.items():
        if active.enabled and _runs(active.binding, action):
            said = spoken(key, active.binding)
            if said not in found:
                found.append(said)
    return found


def key_for(screen: Screen[Any], action: str) -> str | None:
    """The key that runs ``action`` on ``screen`` now, as a sentence names it; None when
    no key of the screen (or of the app) runs it there."""
    return next(iter(keys_for(screen, action)), None)


def key_in(bindings: Iterable[BindingType], action: str, screen: Screen[Any]) -> str | None:
    """The key bound to ``action`` in ``bindings`` (another screen's: the one a message
    sends someone to, or one not shown yet), with the app's keymap applied; None when
    none is."""
    bound = getattr(screen.app, "bound", None)
    listed = (
        bound(bindings) if bound is not None else [b for b in bindings if isinstance(b, Binding)]
    )
    for binding in listed:
        if _runs(binding, action):
            return spoken(binding.key.split(",")[0].strip(), binding)
    return None


def either(keys: Iterable[str | None]) -> str:
    """Keys as a sentence lists them: ``q``, ``esc or q``, ``esc, ? or q``; "" for none."""
    *others, last = [key for key in keys if key] or [""]
    return f"{', '.join(others)} or {last}" if others else last


def hint(screen: Screen[Any], action: str, what: str) -> str:
    """``KEY what`` ("a to add", "ctrl+y copies the request") with the key that runs
    ``action`` on ``screen`` now; "" when none does."""
    key = key_for(screen, action)
    return f"{key} {what}" if key else ""


def hint_in(bindings: Iterable[BindingType], action: str, what: str, screen: Screen[Any]) -> str:
    """:func:`hint` for a key of ``bindings`` (another screen's, see :func:`key_in`)."""
    key = key_in(bindings, action, screen)
    return f"{key} {what}" if key else ""


def hints(screen: Screen[Any], said: Iterable[tuple[str, str]], between: str = " · ") -> str:
    """:func:`hint` for each (action, what) of ``said``, those with a key, joined by
    ``between``: "enter to switch · a to add · esc to close"."""
    return between.join(filter(None, (hint(screen, action, what) for action, what in said)))


def press(screen: Screen[Any], action: str, what: str) -> str:
    """``press KEY what`` with the key that runs ``action`` on ``screen``; "" when none does."""
    key = key_for(screen, action)
    return f"press {key} {what}" if key else ""


def follow_keys(node: Following, say: Callable[[], object]) -> None:
    """Run ``say`` now, and again each time the keys of ``node``'s screen change: a keymap
    applied (the main screen's tabs are up before the config file is read), the focus
    moved (a list's enter, a field's), an action turned on or off. For a text that names
    a key and stays on screen: it names the key bound now, not the one bound when drawn.
    ``node`` must be mounted; it lets go of the screen's signal when it unmounts."""
    assert isinstance(node, DOMNode)
    # At once, not as a message: keys typed meanwhile wait for no extra one (key_order).
    node.follow(node.screen.bindings_updated_signal, lambda _screen: say(), immediate=True)
    say()


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
