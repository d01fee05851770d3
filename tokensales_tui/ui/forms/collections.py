"""The collections form: build one or more collections and create them in one request.

Each collection has a name, a blockchain, a contract address, a whitelisted switch and a
whitelist of wallets and e-mails, one per line. A whitelist of thousands of lines is
normal, often loaded from a file (``ctrl+o``), so the lists are checked in a thread and
the checks of a list never hold up typing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Static, Switch, TextArea

from ...api import ApiClient
from ...api.body_paths import argument_paths, with_objects
from ...api.endpoints import Endpoint
from ...api.models import NewCollection
from ...checks import (
    KNOWN_CHAINS,
    ImportedList,
    ListFileError,
    ListReport,
    check_address,
    check_email,
    check_list,
    load_list_file,
    parse_lines,
    split_lines,
)
from ...checks.forms import collection_problems
from ..key_hints import hint, key_for
from ..lifetime import while_shown
from ..safe import line, show
from ..served import is_served
from ..widgets.safe_input import SafeInput
from ..widgets.safe_text_area import SafeTextArea
from ..worker import ApiWorker
from .base import FormResult, FormScreen, Outgoing, Problems, form_field, show_line
from .import_list import ImportListScreen
from .inputs import choice_hint

__all__ = ["ADD_COLLECTIONS", "CollectionSection", "CollectionsForm", "check_entries"]

ADD_COLLECTIONS = Endpoint("POST", "console", "/collections")
CHECK_DELAY = 0.15
"""Seconds of quiet typing before a list is checked again."""
EDIT_LIMIT = 5_000
"""Lines a list keeps editable; past this an import is kept whole beside the text area."""
PREVIEW_LINES = 200
"""Lines of a list kept whole that the text area shows."""

LISTS = ("wallets", "emails")


def check_entries(text: str, check: Callable[[str], str | None]) -> ListReport:
    """Check the non-blank lines of ``text``, numbered as the text area shows them."""
    values: list[str] = []
    numbers: list[int] = []
    for number, entry in enumerate(split_lines(text), start=1):
        if stripped := entry.strip():
            values.append(stripped)
            numbers.append(number)
    # Run in a thread: the sleeps hand the interpreter to the event loop now and then,
    # so that typing stays smooth while a list of a million lines is checked.
    return check_list(values, check, line_numbers=numbers, pause=lambda: time.sleep(0.001))


def _address_check(chain: str) -> Callable[[str], str | None]:
    return lambda value: check_address(value, chain)


@dataclass(frozen=True, slots=True)
class _Kept:
    """A list too long to edit in a text area (Textual's redraws it whole on every key)."""

    text: str
    lines: int
    entries: list[str]
    """The non-blank lines, sent until a check of the list has finished."""


def _joined(existing: str, values: list[str]) -> _Kept:
    """``existing`` and the imported ``values`` as one list."""
    text = "\n".join(values)
    if existing:
        text = f"{existing}\n{text}"
    return _Kept(text, text.count("\n") + 1, parse_lines(text))


def _preview(text: str, lines: int) -> str:
    head = text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES]
    return "\n".join([*head, f"… and {lines - PREVIEW_LINES:,} more lines, kept whole"])


@dataclass(frozen=True, slots=True)
class _Checked:
    """A list's report and what it was made from (to know when it is stale)."""

    text: str
    chain: str
    report: ListReport


_ARGUMENTS = {
    "name": "name",
    "blockchain": "blockchain",
    "contract_address": "contract",
    "whitelisted": "whitelisted",
    "wallets": "wallets",
    "emails": "emails",
}
"""Each argument of :meth:`NewCollection.build`, and the kind of field of a collection
block its value is read from (:meth:`CollectionsForm._arguments`)."""


def _body_fields() -> dict[str, str]:
    """Each path of a collection in the body, and the kind of field its value is read from:
    where each argument of the build lands, and an object as a whole (``whitelistingInfo``)
    from the first field inside it."""
    sample = {"whitelisted": False, "wallets": [], "emails": []}
    landed = argument_paths(
        NewCollection.build, {name: sample.get(name, "") for name in _ARGUMENTS}
    )
    return with_objects({path: _ARGUMENTS[name] for name, path in landed.items()})


_BODY_FIELDS = _body_fields()


class CollectionSection(Vertical):
    """The fields of one collection; ids start with the section's key (``c1-name`` …).

    Args:
        key: a key unique in the form, such as ``c2``; it never changes.
        number: the collection's position, counted from 1, for its heading.
    """

    def __init__(self, key: str, number: int) -> None:
        super().__init__(id=key, classes="collection")
        self.key = key
        self.number = number

    def compose(self) -> ComposeResult:
        key = self.key
        yield Static(line(f"Collection {self.number}"), classes="collection-title")
        yield from form_field(
            "Name",
            SafeInput(placeholder="short: checkout modals show 24 characters", id=f"{key}-name"),
        )
        yield from form_field(
            "Blockchain",
            SafeInput(
                placeholder="e.g. polygon",
                suggester=SuggestFromList(KNOWN_CHAINS, case_sensitive=False),
                id=f"{key}-blockchain",
            ),
            hint=choice_hint("", KNOWN_CHAINS),
        )
        yield from form_field(
            "Contract address", SafeInput(placeholder="0x… or base58", id=f"{key}-contract")
        )
        yield from form_field(
            "Whitelisted", Switch(id=f"{key}-whitelisted"), hint='sent as "true" or "false"'
        )
        # Served to a browser, no file is imported (its key is off): pasted.
        imports = hint(self.screen, "import_list", "imports a file")
        placeholder = f"one per line — {imports}" if imports else "one per line, pasted"
        for kind, label in (("wallets", "Wallets"), ("emails", "E-mails")):
            yield from form_field(
                label,
                SafeTextArea(
                    id=f"{key}-{kind}",
                    soft_wrap=False,
                    show_line_numbers=True,
                    placeholder=placeholder,
                ),
                hint="",
            )
        with Horizontal(classes="collection-actions"):
            for kind in LISTS:
                button = Button(
                    line(f"Import {kind} file…"),
                    id=f"{key}-import-{kind}",
                    compact=True,
                    classes="import",
                )
                button.can_focus = False  # ctrl+o does it from the keyboard
                yield button
            yield Button(
                "Remove this collection", id=f"{key}-remove", compact=True, classes="remove"
            )

    def renumber(self, number: int) -> None:
        """Show the collection's new position after another was removed."""
        self.number = number
        show(self.query_one(".collection-title", Static), line(f"Collection {number}"))


class CollectionsForm(FormScreen):
    """Creates one or more collections with one ``POST {console_url}/collections``.

    The body is a JSON array; each element has name, blockchain, contractAddress,
    whitelisted (the string "true" or "false") and whitelistingInfo
    ``{"list": {"wallets": [...]}, "emails": [...]}``. Invalid list lines stop the submit;
    repeated ones are flagged and sent once.
    """

    DEFAULT_CSS = """
    CollectionsForm .collection {
        height: auto; margin-bottom: 1; border-top: hkey $panel-lighten-2;
    }
    CollectionsForm .collection-title { text-style: bold; color: $accent; }
    CollectionsForm .collection-actions { height: auto; margin-left: 21; }
    CollectionsForm .collection-actions Button { margin-right: 2; }
    CollectionsForm #add-collection { margin-left: 21; }
    CollectionsForm.-served .import { display: none; }
    """

    TEXT_FIELDS = (SafeInput, SafeTextArea)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "import_list", "Import list file", id="form.import_list"),
        Binding("ctrl+l", "empty_list", "Empty list", id="form.empty_list"),
        Binding("ctrl+n", "add_collection", "Add another", id="form.add_collection"),
    ]

    def __init__(self, api: ApiWorker) -> None:
        super().__init__(
            api,
            title="New collections",
            discard_question="Discard these new collections?",
        )
        self._next_key = 1
        self._checked: dict[str, _Checked] = {}
        self._notes: dict[str, str] = {}
        self._kept: dict[str, _Kept] = {}
        self._import_path = ""
        """The path last typed in the import dialog."""

    # --- layout ----------------------------------------------------------------------

    def compose_fields(self) -> ComposeResult:
        yield self._new_section(1)
        yield Button("Add another collection", id="add-collection", compact=True)

    def _new_section(self, number: int) -> CollectionSection:
        key = f"c{self._next_key}"
        self._next_key += 1
        return CollectionSection(key, number)

    @property
    def sections(self) -> list[CollectionSection]:
        """The collections, in order."""
        body = self.by_id("form-body", VerticalScroll)
        return [child for child in body.children if isinstance(child, CollectionSection)]

    def on_mount(self) -> None:
        # Textual runs FormScreen's on_mount after this one.
        self._update_remove_buttons()
        self.set_class(self.served, "-served")

    @on(Button.Pressed, "#add-collection")
    async def action_add_collection(self) -> None:
        """Start the next collection below the others and put the cursor in its name."""
        section = self._new_section(len(self.sections) + 1)
        await self.query_one("#form-body").mount(section, before="#add-collection")
        self.fields_added()
        self._update_remove_buttons()
        self.query_one(f"#{section.key}-name", Input).focus()
        section.scroll_visible()
        self.refresh_form()

    @on(Button.Pressed, ".remove")
    async def _remove(self, event: Button.Pressed) -> None:
        section = next(a for a in event.button.ancestors if isinstance(a, CollectionSection))
        for kind in LISTS:
            self._checked.pop(f"{section.key}-{kind}", None)
            self._notes.pop(f"{section.key}-{kind}", None)
            self._kept.pop(f"{section.key}-{kind}", None)
        await section.remove()
        for number, other in enumerate(self.sections, start=1):
            other.renumber(number)
        self._update_remove_buttons()
        self.refresh_form()

    def _update_remove_buttons(self) -> None:
        only = len(self.sections) == 1
        for button in self.query(".remove").results(Button):
            button.display = not only

    # --- values ----------------------------------------------------------------------

    def text(self, field_id: str) -> str:
        """The text of a field; for a list kept whole, all of it (the area shows its start)."""
        kept = self._kept.get(field_id)
        return kept.text if kept is not None else super().text(field_id)

    def _chain(self, key: str) -> str:
        return self.text(f"{key}-blockchain").strip()

    def _list_check(self, key: str, kind: str) -> Callable[[str], str | None]:
        return _address_check(self._chain(key)) if kind == "wallets" else check_email

    def _fresh(self, field_id: str, key: str) -> _Checked | None:
        """The check of a list if it still fits the text and the chain."""
        checked = self._checked.get(field_id)
        if checked is None or checked.text != self.text(field_id):
            return None
        if field_id.endswith("-wallets") and checked.chain != self._chain(key):
            return None
        return checked

    def _entries(self, key: str, kind: str) -> list[str]:
        field_id = f"{key}-{kind}"
        checked = self._fresh(field_id, key)
        if checked is not None:
            return checked.report.valid
        kept = self._kept.get(field_id)
        return kept.entries if kept is not None else parse_lines(self.text(field_id))

    def field_changed(self, widget: Any) -> None:
        section = next((a for a in widget.ancestors if isinstance(a, CollectionSection)), None)
        if section is None:
            return
        key = section.key
        if widget.id == f"{key}-blockchain":
            hint = self.by_id(f"{key}-blockchain-hint", Static)
            show_line(hint, choice_hint(widget.value, KNOWN_CHAINS))
            if self.text(f"{key}-wallets").strip():
                self._check_soon(f"{key}-wallets")
        elif widget.id in (f"{key}-wallets", f"{key}-emails"):
            self._check_soon(widget.id)

    # --- list checks (off the event loop) -----------------------------------------------

    def _check_soon(self, field_id: str) -> None:
        self._show_list_hint(field_id, checking=True)
        self.run_worker(
            self._check_list(field_id, delay=CHECK_DELAY),
            group=f"check-{field_id}",
            exclusive=True,
            exit_on_error=False,
        )

    @while_shown
    async def _check_list(self, field_id: str, *, delay: float = 0.0) -> _Checked | None:
        if delay:
            await asyncio.sleep(delay)
        key, kind = field_id.rsplit("-", 1)
        text, chain = self.text(field_id), self._chain(key)
        check = self._list_check(key, kind)
        report = await asyncio.to_thread(check_entries, text, check)
        checked = _Checked(text, chain, report)
        if self.has_widget(field_id):  # the section may have been removed meanwhile
            self._checked[field_id] = checked
            self._show_list_hint(field_id)
            self.refresh_form()
        return checked

    def _show_list_hint(self, field_id: str, *, checking: bool = False) -> None:
        key = field_id.rsplit("-", 1)[0]
        try:
            hint = self.by_id(f"{field_id}-hint", Static)
        except NoMatches:
            return
        parts = []
        checked = self._fresh(field_id, key)
        unchained = field_id.endswith("-wallets") and not self._chain(key).strip()
        if unchained and (field_id in self._kept or self.text(field_id).strip()):
            # Which addresses are valid depends on the chain: none is counted before it.
            parts.append("not checked yet: choose the chain first")
        elif checked is not None and not checking:
            report = checked.report
            if report.valid or report.problems or report.duplicates:
                parts.append(report.summary)
        elif field_id in self._kept or self.text(field_id).strip():
            parts.append("checking…")
        if note := self._notes.get(field_id):
            parts.append(note)
        show_line(hint, " · ".join(parts))

    async def check_before_submit(self) -> Problems:
        for section in self.sections:
            for kind in LISTS:
                field_id = f"{section.key}-{kind}"
                if self._fresh(field_id, section.key) is None:
                    await self._check_list(field_id)
        return self.check()

    # --- checks and request ----------------------------------------------------------

    def check(self) -> Problems:
        problems: Problems = {}
        names: dict[str, int] = {}
        # A list too long to edit here is mended in its file, or emptied.
        empty = key_for(self, "empty_list")
        kept_fix = "correct them in the file and import it again, or empty the list" + (
            f" ({empty})" if empty else ""
        )
        for number, section in enumerate(self.sections, start=1):
            key = section.key
            lists = {}
            for kind in LISTS:
                checked = self._fresh(f"{key}-{kind}", key)
                lists[kind] = checked.report if checked is not None else None
            found = collection_problems(
                self.text(f"{key}-name").strip(),
                self._chain(key),
                self.text(f"{key}-contract"),
                lists,
                earlier_names=names,
                number=number,
                fixes={kind: kept_fix for kind in LISTS if f"{key}-{kind}" in self._kept},
            )
            problems |= {f"{key}-{field}": problem for field, problem in found.items()}
        return problems

    def outgoing(self) -> Outgoing:
        body = [NewCollection.build(**self._arguments(s.key)) for s in self.sections]
        return Outgoing(ADD_COLLECTIONS, body)

    def _arguments(self, key: str) -> dict[str, Any]:
        """What collection ``key`` is built from (:data:`_ARGUMENTS`), read from its fields."""
        return {name: self._value(key, kind) for name, kind in _ARGUMENTS.items()}

    def _value(self, key: str, kind: str) -> Any:
        if kind == "blockchain":
            return self._chain(key)
        if kind == "whitelisted":
            return bool(self.by_id(f"{key}-whitelisted", Switch).value)
        if kind in LISTS:
            return self._entries(key, kind)
        return self.text(f"{key}-{kind}").strip()

    async def send(self, client: ApiClient, outgoing: Outgoing) -> Any:
        return await client.add_collections(outgoing.body)

    def body_fields(self, index: int | None) -> Mapping[str, str]:
        sections = self.sections
        if index is None and len(sections) == 1:
            index = 0
        if index is None or index >= len(sections):
            return {}  # which collection it means is not said, or none sent was
        key = sections[index].key
        return {path: f"{key}-{kind}" for path, kind in _BODY_FIELDS.items()}

    def succeeded(self, outgoing: Outgoing, answer: Any) -> FormResult:
        names = [collection.name for collection in outgoing.body]
        ids = answer.ids
        noun = "collection" if len(names) == 1 else f"{len(names)} collections"
        first = names[0]
        return FormResult(
            f"Created {noun}: {', '.join(names)}",
            highlight=(lambda row: row.id in ids) if ids else (lambda row: row.name == first),
        )

    # --- import ----------------------------------------------------------------------

    @property
    def served(self) -> bool:
        """Served to a browser (``serve``): the files it could import are the serving
        machine's (its config file, its keys), not the browser's: none is read."""
        return is_served(self.app)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "import_list" and self.served)

    def action_import_list(self) -> None:
        """Ask for a file and add its wallets or e-mails to the list in focus."""
        self._ask_import(self._import_target())

    @on(Button.Pressed, ".import")
    def _import_pressed(self, event: Button.Pressed) -> None:
        self._ask_import((event.button.id or "").replace("-import-", "-"))

    def _import_target(self) -> str:
        focused = self.focused
        section = next(
            (a for a in (focused.ancestors if focused else []) if isinstance(a, CollectionSection)),
            self.sections[-1],
        )
        if focused is not None and focused.id == f"{section.key}-emails":
            return focused.id
        return f"{section.key}-wallets"

    def action_empty_list(self) -> None:
        """Empty the list in focus (the way back from a list too long to edit)."""
        field_id = self._import_target()
        self._kept.pop(field_id, None)
        self._notes.pop(field_id, None)
        area = self.query_one(f"#{field_id}", TextArea)
        area.read_only = False
        area.load_text("")
        self.touch(field_id)
        self._check_soon(field_id)
        area.focus()

    def _ask_import(self, field_id: str) -> None:
        if self.served:
            self.notify(
                "Served to a browser, no file of the serving machine is read: paste the list",
                severity="warning",
            )
            return
        key, kind = field_id.rsplit("-", 1)
        number = next(s.number for s in self.sections if s.key == key)

        def chosen(path: str | None) -> None:
            if path:
                self._import_path = path  # offered again: a failed import is retried, not retyped
                self._import(field_id, path)

        self.app.push_screen(
            ImportListScreen(f"the {kind} of collection {number}", self._import_path), chosen
        )

    @work(group="import", exclusive=True, exit_on_error=False)
    @while_shown
    async def _import(self, field_id: str, path: str) -> None:
        kind = field_id.rsplit("-", 1)[1]
        self.set_status(f"Reading {path}…", "busy")
        try:
            imported = await asyncio.to_thread(
                load_list_file, path, column_hint="wallet" if kind == "wallets" else "email"
            )
        except ListFileError as error:
            self.set_status(f"Not imported: {error}", "error")
            return
        existing = self.text(field_id).rstrip("\n")
        joined = await asyncio.to_thread(_joined, existing, imported.values)
        self.set_status("", "")
        area = self.query_one(f"#{field_id}", TextArea)
        note = _import_note(imported)
        if joined.lines > EDIT_LIMIT:
            # Textual's text area redraws every line on each key: a list this long is
            # kept whole here, checked and sent from here, and only its start is shown.
            self._kept[field_id] = joined
            area.read_only = True
            area.load_text(await asyncio.to_thread(_preview, joined.text, joined.lines))
            empties = hint(self, "empty_list", "empties the list")
            note += f" — {joined.lines:,} lines: too many to edit here" + (
                f"; {empties}" if empties else ""
            )
        else:
            area.load_text(joined.text)
        self._notes[field_id] = note
        self.touch(field_id)
        area.focus()


def _import_note(imported: ImportedList) -> str:
    note = f"imported {len(imported.values):,} from {imported.path.name}"
    if imported.column:
        note += f" (column {imported.column})"
    if imported.warning:
        note += f" — {imported.warning}"
    if imported.missing_lines:
        lines = ", ".join(map(str, imported.missing_lines[:5]))
        note += f" — {len(imported.missing_lines):,} rows had no value (file line {lines})"
    return note
