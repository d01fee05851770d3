"""Key bindings as the user has them: the defaults with the config file's ``[keymap]`` applied.

Textual applies a keymap to the bindings it dispatches; the help screen, the refusal
messages of hidden actions and the keymap check need the same view of them, from here.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Iterator, Mapping

from textual.binding import Binding, BindingType
from textual.dom import DOMNode


def apply_keymap(binding: Binding, keymap: Mapping[str, str]) -> Binding:
    """``binding`` with its keys replaced by the keymap's, when the keymap names its id."""
    keys = keymap.get(binding.id) if binding.id else None
    return binding.with_key(keys) if keys else binding


def bound(bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> list[Binding]:
    """The :class:`Binding` objects of ``bindings``, with the keymap applied."""
    return [apply_keymap(b, keymap) for b in bindings if isinstance(b, Binding)]


def key_names(binding: Binding) -> set[str]:
    """The key names a binding answers to, as :attr:`textual.events.Key.key` spells them."""
    return {single.key for single in Binding.make_bindings([binding])}


def binding_ids(
    classes: Iterable[type[DOMNode]], packages: tuple[str, ...] = ("tokensales_tui.", "textual.")
) -> Iterator[str]:
    """Every binding id declared by ``classes`` and their subclasses defined in ``packages``."""
    seen: set[type[DOMNode]] = set()
    pending = list(classes)
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        if not cls.__module__.startswith(packages):
            continue  # someone else's class (a test's, a plugin's): not a key of this app
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                yield binding.id


def every_binding_id() -> set[str]:
    """Every binding id of the app's screens and widgets, the lazily imported ones too."""
    from .forms import form_bindings

    for screen in (
        "browse",
        "config_error",
        "deliveries",
        "detail",
        "export",
        "help",
        "profiles",
        "setup",
    ):
        importlib.import_module(f"{__package__}.screens.{screen}")
    form_bindings()  # imports the form modules
    return set(binding_ids([DOMNode]))


def unknown_keymap_ids(keymap: Mapping[str, str], known: Iterable[str]) -> list[str]:
    """One line per keymap id no binding has, with the likely id when one is close."""
    names = sorted(set(known))
    problems = []
    for binding_id in keymap:
        if binding_id in names:
            continue
        close = difflib.get_close_matches(binding_id, names, n=1)
        hint = f" — did you mean {close[0]!r}?" if close else ""
        problems.append(f"[keymap] {binding_id!r} is not a key binding id{hint}")
    return problems
