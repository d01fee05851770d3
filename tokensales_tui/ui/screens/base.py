"""The keys every screen of the app answers, whatever else it binds.

Textual gives every screen three keys: tab and shift+tab move the focus to the next and
previous widget, ctrl+c copies the text selected. A screen that starts its bindings afresh
(``inherit_bindings=False``, to leave out keys of the screen it is made from) lost them
too: in the profile form tab went into the field as nothing, and a whole profile typed
field after field ended up in "Profile name". Every screen of the app is made with
:class:`ScreenKeys`, which keeps :data:`SCREEN_KEYS` on such a screen; a test walks every
screen and presses tab and shift+tab on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual.binding import BindingType
from textual.screen import Screen

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = ["SCREEN_KEYS", "ScreenKeys"]

SCREEN_KEYS: Final[tuple[BindingType, ...]] = tuple(Screen.BINDINGS)
"""Textual's keys of every screen: tab, shift+tab (the focus), ctrl+c (copy the selection)."""


class ScreenKeys:
    """Base of every screen of the app (put before Textual's ``Screen`` or ``ModalScreen``).

    A screen declared with ``inherit_bindings=False`` keeps :data:`SCREEN_KEYS` all the
    same: it leaves out the keys of the screens it is made from, not those of every screen.
    """

    TEXT_FIELDS: ClassVar[tuple[type[Widget], ...]] = ()
    """The classes of the inputs and text areas the screen holds, each exactly: while one
    has the focus it takes some keys for itself, and the keymap check names a key moved
    onto one of those (:func:`~tokensales_tui.ui.keys.field_taken_keys`). A test opens
    every screen and compares."""

    def __init_subclass__(cls, inherit_bindings: bool = True, **kwargs: Any) -> None:
        if not inherit_bindings:
            own = [b for b in cls.__dict__.get("BINDINGS", ()) if b not in SCREEN_KEYS]
            cls.BINDINGS = [*SCREEN_KEYS, *own]  # type: ignore[attr-defined]
        super().__init_subclass__(inherit_bindings=inherit_bindings, **kwargs)  # type: ignore[call-arg]


def own_bindings(bindings: Any) -> list[BindingType]:
    """``bindings`` without :data:`SCREEN_KEYS`: the keys a screen's help lists as its own."""
    return [binding for binding in bindings if binding not in SCREEN_KEYS]
