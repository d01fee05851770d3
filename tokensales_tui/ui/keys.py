"""Key bindings as the user has them: the defaults with the config file's ``[keymap]`` applied.

Textual applies a keymap to the bindings it dispatches; the help screen, the refusal
messages of hidden actions and the keymap check need the same view of them, from here.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import format_key


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


def binding_classes(
    classes: Iterable[type[DOMNode]], packages: tuple[str, ...] = ("tokensales_tui.", "textual.")
) -> Iterator[type[DOMNode]]:
    """``classes`` and their subclasses defined in ``packages`` (not a test's, a plugin's)."""
    seen: set[type[DOMNode]] = set()
    pending = list(classes)
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith(packages):
            yield cls


def binding_ids(
    classes: Iterable[type[DOMNode]], packages: tuple[str, ...] = ("tokensales_tui.", "textual.")
) -> Iterator[str]:
    """Every binding id declared by ``classes`` and their subclasses defined in ``packages``."""
    for cls in binding_classes(classes, packages):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                yield binding.id


def every_binding_id() -> set[str]:
    """Every binding id of the app's screens and widgets, the lazily imported ones too
    (which it imports: the other checks here see their classes then)."""
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
    form_bindings()  # imports the form modules with keys of their own
    for form in ("payout", "webhook"):  # and those with text fields (field_taken_keys)
        importlib.import_module(f"{__package__}.forms.{form}")
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


def usable_keymap(keymap: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """``keymap`` as Textual and this module may apply it, and one line per entry changed.

    Every other function here and Textual's own keymap take the keymap from this one:
    an empty key (``"f5,"``, ``","``, ``"   "``) makes :meth:`Binding.make_bindings` raise,
    and Textual keeps the spaces around a comma (``"f5, f6"`` bound ``" f6"``, which no
    key is). So each key is stripped and the empty ones left out; an entry left with no
    key at all (``delete = ""``) is refused and its binding keeps its own keys.
    """
    usable: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in keymap.items():
        parts = [part.strip() for part in keys.split(",")]
        named = [part for part in parts if part]
        if not named:
            problems.append(
                f"[keymap] {binding_id!r} = {keys!r} names no key, so it keeps its own"
                " (a space is written space, a comma comma)"
            )
            continue
        if len(named) < len(parts):
            problems.append(
                f"[keymap] {binding_id!r} = {keys!r} has an empty key, left out:"
                f" {','.join(named)!r} is used (a space is written space, a comma comma)"
            )
        usable[binding_id] = ",".join(named)
    return usable, problems


MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


@functools.cache
def _key_bases() -> frozenset[str]:
    """The names of keys that are no single character, as Textual names them."""
    from textual.keys import KEY_ALIASES, KEY_NAME_REPLACEMENTS, Keys

    names = {key.value.split("+")[-1] for key in Keys if not key.value.startswith("<")}
    aliases = {alias.split("+")[-1] for spellings in KEY_ALIASES.values() for alias in spellings}
    return frozenset(names | aliases | set(KEY_NAME_REPLACEMENTS.values()))


def typable(key: str) -> bool:
    """Whether a key as a keymap writes it (``f5``, ``ctrl+r``, ``?``, ``question_mark``,
    ``latin_small_letter_e_with_acute``) names a key a terminal can send; ``ctrl-r`` or
    ``nosuchkey`` never matches one."""
    *modifiers, base = key.strip().split("+") if key.strip() != "+" else ["+"]
    if not base or " " in base or not set(modifiers) <= MODIFIERS:
        return False
    if len(base) == 1:
        character = base
        if not character.isprintable():
            return False
    elif base in _key_bases():
        return True
    else:
        try:  # a character by its name, as Textual names keys: "question_mark", "latin_small_letter_e_with_acute"…
            character = unicodedata.lookup(base.replace("_", " "))
        except KeyError:
            return False
    # Control goes with ASCII only: no terminal sends ctrl and "é".
    return "ctrl" not in modifiers or character.isascii()


def untypable_keys(keymap: Mapping[str, str]) -> list[str]:
    """One line per key of the keymap no terminal can send (a typo: ``ctrl-r``), and per
    ``alt+`` key of a character, which reaches this app as escape and the character
    (see :mod:`.escape_keys`)."""
    problems = []
    for binding_id, keys in keymap.items():
        for key in (key.strip() for key in keys.split(",")):
            if not typable(key):
                problems.append(
                    f"[keymap] {binding_id!r}: {key!r} is no key name (as in f5, ctrl+r, ?)"
                )
            elif key.startswith("alt+") and len(key.split("+")[-1]) == 1:
                problems.append(
                    f"[keymap] {binding_id!r}: {key!r} arrives as escape and"
                    f" {key.split('+')[-1]!r} (the terminal sends it as ESC and the key):"
                    " choose another key"
                )
    return problems


def clashing_keys(keymap: Mapping[str, str]) -> list[str]:
    """One line per key the keymap gives to an action whose screen has another on it
    (``refresh = "q"`` beside quit): only one of them would answer."""
    problems: dict[str, None] = {}  # in order, each once (subclasses repeat their base's)
    for cls in binding_classes([DOMNode], ("tokensales_tui.",)):
        declared = [b for b in _inherited(cls) if isinstance(b, Binding)]
        holders: dict[str, list[Binding]] = {}
        for binding in bound(declared, keymap):
            for name in key_names(binding):
                holders.setdefault(name, []).append(binding)
        for name, bindings in holders.items():
            actions = {binding.action for binding in bindings}
            moved = [b.id for b in bindings if b.id in keymap]
            if len(actions) > 1 and moved:
                others = ", ".join(
                    sorted({repr(b.id or b.action) for b in bindings} - {repr(moved[0])})
                )
                problems[
                    f"[keymap] {moved[0]!r} takes {name}, which {others} has too:"
                    " only one of them answers it"
                ] = None
    return list(problems)


def field_taken_keys(keymap: Mapping[str, str]) -> list[str]:
    """One line per key the keymap gives to an action of a screen (or of a text field)
    that a text field of that screen takes for itself while it has the focus (an input's
    ctrl+k deletes to its end, a letter is typed): the action never runs from there.

    A screen names its text fields in ``TEXT_FIELDS``; a field takes its own bindings'
    keys (Textual's and ours, as the keymap has them) before the screen's, and the keys
    it types (:func:`types_key`) before any binding, its own too. A screen's priority
    bindings come before the field: never taken. An action none of whose own keys works
    in a field either (the main screen's letters, while the filter has the focus) is
    meant for when no field has it, and is not named.
    """
    problems: dict[tuple[str, str], str] = {}  # each (id, key) once: the forms share keys
    for cls in binding_classes([DOMNode], ("tokensales_tui.",)):
        fields: tuple[type[DOMNode], ...] = getattr(cls, "TEXT_FIELDS", ())
        screens = [(field, False) for field in fields]
        if _is_text_field(cls):  # its own keys, against what it types
            screens.append((cls, True))
        for binding in _inherited(cls):
            if not isinstance(binding, Binding) or binding.priority:
                continue
            if binding.id is None or binding.id not in keymap:
                continue
            for field, own in screens:
                taker = functools.partial(field_use, field, keymap, own=own, of=binding)
                if all(taker(key) for key in key_names(binding)):
                    continue  # not meant to work while the field has the focus
                for key in sorted(key_names(apply_keymap(binding, keymap))):
                    use = taker(key)
                    if use is not None and (binding.id, key) not in problems:
                        problems[(binding.id, key)] = (
                            f"[keymap] {binding.id!r} takes {key}, which {_kind(field)} uses"
                            f" itself ({use}): {binding.description or binding.action} never"
                            " runs while one has the focus — choose another key"
                        )
    return list(problems.values())


def types_key(field: type[DOMNode], key: str) -> bool:
    """Whether ``field`` (an input or a text area) takes ``key`` as text, before any
    binding sees it: a printable character (``a``, ``question_mark``, ``space``); in a
    text area enter too, which starts a new line."""
    from textual.widgets import TextArea

    if not _is_text_field(field):
        return False
    character = key_character(key)
    if character is not None and character.isprintable():
        return True
    return issubclass(field, TextArea) and key == "enter"


def key_character(key: str) -> str | None:
    """The character a key name (as a keymap writes it) types, if any: ``slash`` → ``/``,
    ``plus`` and ``+`` → ``+``, ``ctrl+k`` → None."""
    from textual.keys import KEY_NAME_REPLACEMENTS, key_to_character

    if key == "+":
        return key
    spelled = {short: long for long, short in KEY_NAME_REPLACEMENTS.items()}.get(key, key)
    return key_to_character(spelled)


def _is_text_field(cls: type[DOMNode]) -> bool:
    from textual.widgets import Input, TextArea

    return issubclass(cls, Input | TextArea)


def _kind(field: type[DOMNode]) -> str:
    from textual.widgets import TextArea

    return "a text area" if issubclass(field, TextArea) else "a text field"


def field_use(
    field: type[DOMNode],
    keymap: Mapping[str, str],
    key: str,
    *,
    own: bool,
    of: Binding | None = None,
) -> str | None:
    """What ``field`` does with ``key`` when it has the focus, said for a person ("typed",
    "Delete all to the right"); None when it leaves the key to the screen, or when the
    binding of the field that answers it runs the screen's binding ``of`` itself (the
    filter's escape is the screen's ``clear_filter``). ``own``: for the field's own
    bindings, which only what it types comes before."""
    if types_key(field, key):
        return "a new line" if key == "enter" else "typed into it"
    if own:
        return None
    from textual.widgets import Input, TextArea

    # Up to Input's and TextArea's own: the scroll keys they inherit (an input's up,
    # pagedown) pass the key on to the screen when there is nothing to scroll.
    for binding in bound(_inherited(field, upto=(Input, TextArea)), keymap):
        if key in key_names(binding):
            if of is not None and runs_the_same(binding, of):
                return None  # the field answers the key with the screen's action
            return binding.description or binding.action
    return None


def runs_the_same(field_binding: Binding, binding: Binding) -> bool:
    """Whether a text field's ``field_binding`` does what its screen's ``binding`` does:
    the same id (a keymap moves both), or the same action (``screen.escape`` in the
    field is the screen's ``escape``; ``app.quit`` is the app's in both)."""
    if field_binding.id is not None and field_binding.id == binding.id:
        return True
    action = field_binding.action
    if action.startswith("screen."):
        action = action.removeprefix("screen.")
    elif not action.startswith("app."):
        return False  # the field's own action, whatever its name
    return action == binding.action.removeprefix("screen.")


def _inherited(cls: type[DOMNode], upto: tuple[type[DOMNode], ...] = ()) -> list[BindingType]:
    """The bindings ``cls`` answers to: its own and those it inherits (a form's ctrl+s);
    with ``upto``, only those of the classes down to one of ``upto``."""
    found: list[BindingType] = []
    for base in cls.__mro__:
        found += base.__dict__.get("BINDINGS", ())
        if not base.__dict__.get("_inherit_bindings", True):  # set by Textual on each class
            break
        if base in upto:
            break
    return found


def _format(binding: Binding) -> str:
    # The same formatting as App.get_key_display, for callers without an app.
    modifiers, key = binding.parse_key()
    key = format_key(key)
    if "ctrl" in modifiers:
        modifiers.remove("ctrl")
        key = f"^{key}"
    return "+".join([*modifiers, key])


def key_display(binding: Binding, app: App[Any] | None = None) -> str:
    """How to show the key(s) of ``binding``: "esc", "^q", "esc / q".

    Args:
        binding: A binding; its key may list several keys separated by commas.
        app: Format with ``app.get_key_display`` (which an app may override).

    Returns:
        The binding's ``key_display`` if it has one, else each key formatted.
    """
    if binding.key_display:
        return binding.key_display
    return " / ".join(shown_keys(binding, app))


def shown_keys(binding: Binding, app: App[Any] | None = None) -> list[str]:
    """Each key of ``binding`` formatted as :func:`key_display` shows it, each once."""
    shown: list[str] = []
    for key in binding.key.split(","):
        key = key.strip()
        if not key:
            continue
        single = binding.with_key(key)
        text = app.get_key_display(single) if app is not None else _format(single)
        if text not in shown:
            shown.append(text)
    return shown
