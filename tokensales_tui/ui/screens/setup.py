"""The profile form: enter a service address and credentials, test them, save a profile.

Shown at first run, when there is no config file and no ``TOKENSALES_*`` variable
(:class:`SetupScreen`), and from the profile picker to add or edit a profile
(:class:`ProfileFormScreen`). The API secret is
typed into a password field and never leaves it except into the token request and the
saved file: no label, status line, notification or error shows it, and it cannot be
copied out of the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, Literal

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Static
from textual.worker import WorkerState

from ... import config
from ...api import ApiClient, Connection, Secret
from ...api.connection import DEFAULT_MAX_BODY, host_of
from ...files import WriteStop
from ..closing import close
from ..config_saves import WRITE_WAIT, ask_overwrite, save_config_change
from ..key_hints import hint, key_for, key_in
from ..keys import bound
from ..lifetime import is_gone, while_shown
from ..safe import line, show
from ..widgets.footer import KeysFooter
from ..widgets.header import describe_token
from ..widgets.safe_input import SafeInput
from ..widgets.secret_input import SecretInput
from ..work_failures import WorkFailed
from .base import ScreenKeys, own_bindings
from .confirm import DiscardScreen
from .help import Section, sections_from_bindings

if TYPE_CHECKING:
    import httpx

    TransportFactory = Callable[[], httpx.AsyncBaseTransport | None]

__all__ = ["ProfileFormScreen", "SetupResult", "SetupScreen"]

_NOT_IN_A_PROFILE_NAME = re.compile(r"[^A-Za-z0-9_-]")
"""A profile's name is an identifier: typed after ``--profile`` and into
``TOKENSALES_PROFILE``, completed by shells, a key of the config file, part of its payout
records' file names. ASCII only keeps it typeable everywhere and one of a kind: no
look-alike letters of other scripts ("prоd" with a Cyrillic о), no two ways to write
one name ("café" with é, or e and a combining accent), nothing invisible. A profile's
``label`` in the config file says anything the header should show."""
# Not on blur: tabbing past an empty field is fine; Save and Test check every field.
_VALIDATE_ON: Final[tuple[Literal["changed", "submitted"], ...]] = ("changed", "submitted")


@dataclass(frozen=True, slots=True)
class SetupResult:
    """How the form ended: a profile was saved, the user chose the demo, or went back."""

    action: Literal["saved", "demo", "cancelled"]
    profile: str | None = None
    """The saved profile's name; ``None`` otherwise."""

    @classmethod
    def saved(cls, profile: str) -> SetupResult:
        """Profile ``profile`` was saved and made the default."""
        return cls("saved", profile)

    @classmethod
    def demo(cls) -> SetupResult:
        """The user chose to open the embedded demo instead."""
        return cls("demo", None)

    @classmethod
    def cancelled(cls) -> SetupResult:
        """The user went back without saving."""
        return cls("cancelled", None)


# -- Validation --------------------------------------------------------------------------


class _ProfileName(Validator):
    def validate(self, value: str) -> ValidationResult:
        name = value.strip()
        if not name:
            return self.failure("a profile needs a name")
        bad = _NOT_IN_A_PROFILE_NAME.search(name)
        if bad:
            from ...checks.text import describe_char  # the checks load their libraries

            # "letters" alone promised more: é and 日 are letters too. Named by its code
            # point as well: a Cyrillic о reads as the o it is not.
            found = describe_char(bad[0])
            if bad[0].isprintable() and not bad[0].isascii():
                found += f" U+{ord(bad[0]):04X}"
            return self.failure(f"use only ASCII letters, digits, - and _ ({found} is not one)")
        return self.success()


class _Url(Validator):
    def __init__(self, field: str, *, required: bool, stored: config.Profile | None) -> None:
        super().__init__()
        self.field = field
        self.required = required
        self.stored = stored
        """The profile edited: its allow_insecure_http and proxy apply."""

    def validate(self, value: str) -> ValidationResult:
        url = value.strip()
        if not url:
            return self.failure(f"{self.field} is required") if self.required else self.success()
        try:
            _url(url, self.stored, self.field)
        except config.ConfigError as error:
            return self.failure(error.message)
        return self.success()


class _Required(Validator):
    def __init__(self, field: str, *, stored: bool = False) -> None:
        super().__init__()
        self.field = field
        self.stored = stored
        """Whether the profile has one stored already (then empty keeps it)."""

    def validate(self, value: str) -> ValidationResult:
        if value.strip() or self.stored:
            return self.success()
        return self.failure(f"{self.field} is required")


@dataclass(frozen=True, slots=True)
class _Form:
    """The fields, checked and tidied."""

    name: str
    base_url: str
    auth_url: str | None
    console_url: str | None
    api_key: str
    api_secret: str

    def connection(self, stored: config.Profile | None = None) -> Connection:
        """The connection to test; an empty key or secret is ``stored``'s."""
        kept_key = stored.api_key if stored else None
        kept_secret = stored.api_secret if stored else None
        return Connection(
            base_url=self.base_url,
            auth_url=self.auth_url or self.base_url,
            console_url=self.console_url or self.base_url,
            api_key=Secret(self.api_key) if self.api_key or not kept_key else kept_key,
            api_secret=Secret(self.api_secret)
            if self.api_secret or not kept_secret
            else kept_secret,
            profile=self.name,
            # The test goes the way the profile's requests go: through its proxy.
            proxy=stored.proxy if stored else None,
            max_body=stored.max_body if stored else DEFAULT_MAX_BODY,
        )

    def profile(self) -> config.Profile:
        """The profile to save; an empty key or secret is ``None`` (kept, when editing)."""
        return config.Profile(
            base_url=self.base_url,
            auth_url=self.auth_url,
            console_url=self.console_url,
            api_key=Secret(self.api_key) if self.api_key else None,
            api_secret=Secret(self.api_secret) if self.api_secret else None,
        )


def _url(value: str, stored: config.Profile | None, field: str = "") -> str | None:
    """``value`` checked as the profile edited (``stored``) would have it; None if empty."""
    value = value.strip()
    if not value:
        return None
    return config.validate_url(
        value,
        field=field,
        allow_insecure_http=stored.allow_insecure_http if stored else False,
        proxy=stored.proxy if stored else None,
    )


# -- The screen --------------------------------------------------------------------------


class SetupScreen(ScreenKeys, Screen[SetupResult]):
    """Asks for a profile's address and credentials, tests them and saves them.

    Dismisses with :class:`SetupResult` ``("saved", name)`` after a save, or
    ``("demo", None)`` when the user opens the demo instead.

    Args:
        base: the config file as read when the form opened (none: empty). Save writes
            only what the form changes into the file as it is then.
        transport_factory: makes the httpx transport for "Test connection" (tests pass
            the in-process emulator); ``None`` uses the network.
        config_path: the file Save writes; defaults to :func:`config.config_path`.
    """

    DEFAULT_CSS = """
    SetupScreen { align-horizontal: center; }
    SetupScreen > #setup { width: 100%; max-width: 100; height: 1fr; }
    SetupScreen #setup > VerticalScroll { height: 1fr; padding: 0 2; }
    SetupScreen .title { text-style: bold; color: $accent; padding-top: 1; }
    SetupScreen .welcome { color: $text; }
    SetupScreen .path { color: $text-muted; padding-bottom: 1; }
    SetupScreen Label { padding-left: 1; color: $text-muted; }
    SetupScreen .field-error { color: $text-error; padding-left: 1; display: none; }
    SetupScreen .field-error.-shown { display: block; }
    SetupScreen #setup-actions { height: auto; padding: 0 2; }
    SetupScreen #buttons { height: auto; align-horizontal: right; }
    SetupScreen #buttons Button { margin-left: 2; }
    SetupScreen #status { height: auto; min-height: 1; padding-left: 1; }
    SetupScreen #status.-busy { color: $text-muted; }
    SetupScreen #status.-ok { color: $text-success; }
    SetupScreen #status.-error { color: $text-error; }
    """

    STOP_WAITING: ClassVar[str] = "first_field"
    """The action that stops a save waiting for the file's lock, named in its status."""

    TEXT_FIELDS = (SafeInput, SecretInput)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="setup.save", priority=True),
        Binding("escape", "first_field", "First field", id="setup.first_field"),
        # Letters go into the fields: the ways out are control keys, shown in the footer.
        Binding("ctrl+o", "demo", "Open demo", id="setup.demo"),
        Binding("ctrl+q", "app.quit", "Quit", id="setup.quit", priority=True),
    ]

    HELP_HEADING: ClassVar[str] = "Setup"

    AUTO_FOCUS = ""  # none: on_mount focuses the first field without scrolling to it

    def __init__(
        self,
        *,
        base: config.ConfigFile | None = None,
        transport_factory: TransportFactory | None = None,
        config_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.base = base or config.ConfigFile()
        """The config file as the form read it: what Save's changes are made from."""
        self._transport_factory = transport_factory
        self.config_path = config_path or config.config_path()
        self._save_stop = WriteStop()
        """What stops the save running (each save has its own)."""
        self.stored: config.Profile | None = None
        """The profile being edited, as the file had it; ``None`` for a new one."""
        self._initial: list[str] = []

    def _intro(self) -> ComposeResult:
        yield Static("Welcome to tokensales-tui", classes="title", markup=False)
        yield Static(
            "To connect, enter the address of the Token Sales service and the API key"
            " and secret of your account. Save keeps them as a profile in:",
            classes="welcome",
            markup=False,
        )

    def _buttons(self) -> ComposeResult:
        # As in every form: the other action first, the way out, the main one last.
        yield Button("Test connection", id="test")
        yield Button("Open demo instead", id="demo")
        yield Button("Save", id="save", variant="primary")

    def _name_field(self) -> SafeInput:
        return SafeInput(
            "default", id="profile", validators=[_ProfileName()], validate_on=_VALIDATE_ON
        )

    def compose(self) -> ComposeResult:
        stored = self.stored
        kept = "stored one kept — type to replace"
        # The fields scroll; the buttons and the status line under them stay in view.
        with Vertical(id="setup"):
            with VerticalScroll(can_focus=False):
                yield from self._intro()
                yield Static(line(str(self.config_path)), classes="path")
                yield from self._field("Profile name", self._name_field())
                for label, placeholder in (
                    ("Base URL", "https://api.example.com"),
                    ("Auth URL", "same as base URL"),
                    ("Console URL", "same as base URL"),
                ):
                    yield from self._field(label, _url_input(label, placeholder, stored))
                # An edited profile's key and secret are never shown: empty keeps them.
                has_key = stored is not None and stored.api_key is not None
                has_secret = stored is not None and stored.api_secret is not None
                yield from self._field(
                    "API key",
                    SecretInput(
                        placeholder=kept if has_key else "",
                        id="api-key",
                        validators=[_Required("API key", stored=has_key)],
                        validate_on=_VALIDATE_ON,
                    )
                    if has_key
                    else SafeInput(
                        id="api-key", validators=[_Required("API key")], validate_on=_VALIDATE_ON
                    ),
                )
                yield from self._field(
                    "API secret",
                    SecretInput(
                        placeholder=kept if has_secret else "", password=True, id="api-secret"
                    ),
                )
            with Vertical(id="setup-actions"):
                with Horizontal(id="buttons"):
                    yield from self._buttons()
                yield Static(id="status", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        # Focus the first field without scrolling to it: at 80x24 that would hide the
        # welcome text and the path the profile is saved in; the field is in view anyway.
        first = next(field for field in self.query(Input) if not field.disabled)
        self.set_focus(first, scroll_visible=False)
        self._initial = self._values()
        self.call_after_refresh(self._lift_toasts)

    def on_resize(self) -> None:
        self.call_after_refresh(self._lift_toasts)

    def _lift_toasts(self) -> None:
        """Show the toasts above the buttons, not over them: at 80x24 the one ctrl+c
        shows ("Press ctrl+q to quit the app") covered Open demo instead."""
        if not self.is_attached:
            return
        actions = self.query_one("#setup-actions").outer_size.height
        for rack in self.query("#textual-toastrack"):
            rack.styles.margin = (0, 0, actions + 1, 0)  # and the footer's line

    def _values(self) -> list[str]:
        return [field.value for field in self.query(Input)]

    @property
    def dirty(self) -> bool:
        """Whether something was typed that leaving would lose (ctrl+q asks first)."""
        return self.is_mounted and self._values() != self._initial

    @staticmethod
    def _field(label: str, field: Input) -> ComposeResult:
        yield Label(line(label))
        yield field
        yield Static(id=f"{field.id}-error", classes="field-error", markup=False)

    # -- Validation ----------------------------------------------------------------------

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._show_error(event.input, event.validation_result)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self._show_error(event.input, event.validation_result)
        if event.validation_result is None or event.validation_result.is_valid:
            self.focus_next()

    def _show_error(self, field: Input, result: ValidationResult | None) -> None:
        widget = self.query_one(f"#{field.id}-error", Static)
        problems = result.failure_descriptions if result is not None else []
        show(widget, line(problems[0]) if problems else "")
        widget.set_class(bool(problems), "-shown")

    def _read_form(self) -> _Form | None:
        """The checked fields, or ``None`` after showing every problem."""
        first_invalid: Input | None = None
        for field in self.query(Input):
            result = field.validate(field.value)
            self._show_error(field, result)
            if result is not None and not result.is_valid and first_invalid is None:
                first_invalid = field
        if first_invalid is not None:
            first_invalid.focus()
            return None

        def value(selector: str) -> str:
            return self.query_one(selector, Input).value

        base_url = _url(value("#base-url"), self.stored)
        assert base_url is not None  # required by its validator
        return _Form(
            name=value("#profile").strip(),
            base_url=base_url,
            auth_url=_url(value("#auth-url"), self.stored),
            console_url=_url(value("#console-url"), self.stored),
            api_key=value("#api-key").strip(),
            api_secret=value("#api-secret"),
        )

    def _set_status(self, text: str, state: Literal["busy", "ok", "error"]) -> None:
        status = self.query_one("#status", Static)
        show(status, line(text))
        for name in ("busy", "ok", "error"):
            status.set_class(name == state, f"-{name}")
        status.call_after_refresh(self._lift_toasts)  # once it has its new height

    # -- Actions -------------------------------------------------------------------------

    @on(Button.Pressed, "#test")
    def action_test_connection(self) -> None:
        """Ask the token endpoint for a token with the typed credentials."""
        form = self._read_form()
        if form is not None:
            connection = form.connection(self.stored)
            self._set_status(f"Testing {host_of(connection.auth_url)}…", "busy")
            self._test_connection(connection)

    @work(exclusive=True, group="setup-test", exit_on_error=False)
    @while_shown
    async def _test_connection(self, connection: Connection) -> None:
        try:
            transport = self._transport_factory() if self._transport_factory else None
            client = ApiClient(connection, transport=transport)
        except Exception as error:  # shown like any other failure
            self._set_status(getattr(error, "one_line", str(error)), "error")
            return
        try:
            state = await client.check_credentials()
        except Exception as error:  # ApiError, or anything unexpected
            self._set_status(getattr(error, "one_line", str(error)), "error")
        else:
            self._set_status(
                f"Connected — {describe_token(state).replace('token: ', 'token ', 1)}", "ok"
            )
        finally:
            await client.aclose()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        """Check the fields and write the profile (see :meth:`_saving`), then close the screen."""
        if self._saving_now():
            return  # the status says what it waits for; escape stops it
        form = self._read_form()
        if form is None:
            return
        try:
            change = config.ConfigChange.of(self.base, self._saving(form.name, form.profile()))
        except config.ConfigError as error:
            self._not_saved(error)
            return
        self._set_status("Saving…", "busy")
        self._save_stop = WriteStop()
        self._save(change, form.name, self._save_stop)

    @work(exclusive=True, group="setup-save", exit_on_error=False)
    @while_shown
    async def _save(self, change: config.ConfigChange, name: str, stop: WriteStop) -> None:
        # In a thread: another program may hold the file's lock (see config_saves).
        try:
            saved = await save_config_change(
                change,
                self.config_path,
                waiting=self._waiting,
                overwrite=lambda conflict: ask_overwrite(self.app, conflict, "this form opened"),
                stop=stop,
            )
        except config.ConfigConflict as conflict:
            # The advice first: a long value cuts the line's end.
            save = key_for(self, "save") or "Save"
            changed = conflict.message.removeprefix("not saved: ")
            self._set_status(f"not saved ({save} again, then Overwrite): {changed}", "error")
            return
        except config.ConfigError as error:
            self._not_saved(error)
            return
        if saved.kept is not None:
            self.app.notify(config.kept_note(saved.kept), markup=False, timeout=15)
        close(self, SetupResult.saved(name))

    def _waiting(self, text: str) -> None:
        if not is_gone(self) and self._saving_now():
            stop = hint(self, self.STOP_WAITING, "stops waiting")
            self._set_status(f"{text} ({stop})" if stop else text, "busy")

    def _not_saved(self, error: config.ConfigError) -> None:
        message = error.message
        if not message.startswith("not saved"):
            message = f"not saved: {message}"
        self._set_status(message, "error")

    def on_work_failed(self, event: WorkFailed) -> None:
        """A save or a test failed in a way not foreseen: said on the status line, which
        said "Saving…" or "Testing …" for good, and the form can be used again."""
        event.stop()
        if event.worker.group == "setup-save":
            self._set_status(f"not saved: {event.text}", "error")
        else:
            self._set_status(f"Failed: {event.text}", "error")

    def _saving_now(self) -> bool:
        return any(
            worker.group == "setup-save"
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.workers
        )

    def _stop_saving(self) -> bool:
        """Stop a save; whether there was one. What was typed stays.

        A save stopped before the file is written writes nothing: "not saved". One past
        that point writes on: it is waited for, :data:`WRITE_WAIT` seconds at most, and
        its real outcome said (saved, the screen closing as after any save; or why not).
        """
        if not self._saving_now():
            return False
        stop = self._save_stop
        if stop.stop():
            self.workers.cancel_group(self, "setup-save")
            self._set_status("not saved: stopped before the config file was written", "error")
            return True
        self._set_status(
            f"Writing {self.config_path}: too late to stop, waiting for it to end…", "busy"
        )
        self.set_timer(WRITE_WAIT, lambda: self._written_too_long(stop))
        return True

    def _written_too_long(self, stop: WriteStop) -> None:
        """A save stopped while it wrote has not ended within :data:`WRITE_WAIT`."""
        if stop is not self._save_stop or not self._saving_now() or is_gone(self):
            return
        self.workers.cancel_group(self, "setup-save")
        self._set_status(
            f"outcome unknown: {self.config_path} was being written when the save was"
            f" stopped, and has not finished within {WRITE_WAIT:g} s — check it",
            "error",
        )

    def _saving(self, name: str, profile: config.Profile) -> Callable[[config.ConfigFile], None]:
        """How Save changes the file: the profile is added, and made the default."""
        return config.add_profile(name, profile, make_default=True)

    @on(Button.Pressed, "#demo")
    def action_demo(self) -> None:
        """Close the screen and open the embedded demo."""
        close(self, SetupResult.demo())

    def help_sections(self, keymap: Mapping[str, str]) -> list[Section]:
        """This screen's keys, as bound now, for the help."""
        groups = [(self.HELP_HEADING, bound(own_bindings(self.BINDINGS), keymap))]
        sections = sections_from_bindings(groups, app=self.app)
        # Keys of Textual's, as bound now: the screen's, a field's, the app's.
        between = " / ".join(
            filter(None, (key_for(self, f"focus_{way}") for way in ("next", "previous")))
        )
        rows = [
            (between, "Next / previous field or button"),
            (key_in(Input.BINDINGS, "submit", self), "Next field; on a button, press it"),
            (key_for(self, "command_palette"), "Command palette"),
            (key_for(self, "suspend_process"), "Suspend (fg resumes)"),
        ]
        sections[0][1].extend((key, does) for key, does in rows if key)
        return sections

    def action_first_field(self) -> None:
        """Stop a save waiting for the file's lock, else go back to the first field;
        nothing typed is lost."""
        if not self._stop_saving():
            self.query_one("#profile", Input).focus()


def _url_input(label: str, placeholder: str, stored: config.Profile | None) -> SafeInput:
    """The field of one of a profile's addresses ("Base URL": ``#base-url``, the stored
    ``base_url``, required)."""
    name = label.replace(" URL", "").lower()
    value: str | None = getattr(stored, f"{name}_url", None)
    return SafeInput(
        value or "",
        placeholder=placeholder,
        id=f"{name}-url",
        validators=[_Url(f"{name} URL", required=name == "base", stored=stored)],
        validate_on=_VALIDATE_ON,
    )


class ProfileFormScreen(SetupScreen, inherit_bindings=False):
    """The setup form opened from the profile picker: adds a profile, or edits one.

    Editing changes the addresses and, when retyped, the key and secret; the name and
    the profile's other settings stay. Dismisses with :class:`SetupResult` ``("saved",
    name)``, or ``("cancelled", None)`` on escape or Cancel.

    Args:
        base: the config file as read when the picker opened; the form is filled from it.
        editing: the name of the profile of ``base`` to edit; ``None`` adds a new one.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="setup.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="profile_form.cancel"),
    ]
    STOP_WAITING = "cancel"
    HELP_HEADING = "Profile"

    def __init__(
        self,
        base: config.ConfigFile,
        editing: str | None = None,
        *,
        transport_factory: TransportFactory | None = None,
        config_path: Path | None = None,
    ) -> None:
        super().__init__(base=base, transport_factory=transport_factory, config_path=config_path)
        self.name_edited = editing
        self.stored = base.profiles[editing] if editing is not None else None

    def _intro(self) -> ComposeResult:
        if self.name_edited is None:
            yield Static("New profile", classes="title", markup=False)
            yield Static("Save adds it to the profiles in:", classes="welcome", markup=False)
        else:
            yield Static(line(f"Edit profile {self.name_edited}"), classes="title")
            yield Static(
                "Change its addresses, or type a new key or secret (left empty, the stored"
                " ones stay). Save writes it to:",
                classes="welcome",
                markup=False,
            )

    def _buttons(self) -> ComposeResult:
        yield Button("Test connection", id="test")
        yield Button("Cancel", id="cancel")
        yield Button("Save", id="save", variant="primary")

    def _name_field(self) -> SafeInput:
        if self.name_edited is None:
            return SafeInput(id="profile", validators=[_ProfileName()], validate_on=_VALIDATE_ON)
        return SafeInput(self.name_edited, id="profile", disabled=True)

    def _saving(self, name: str, profile: config.Profile) -> Callable[[config.ConfigFile], None]:
        if self.name_edited is None:
            return config.add_profile(name, profile)
        return config.edit_profile(self.name_edited, profile)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Stop a save waiting for the file's lock, else go back to the picker; nothing
        is saved. Asks first when something was typed."""
        if self._stop_saving():
            return
        if not self.dirty:
            close(self, SetupResult.cancelled())
            return

        def answered(discard: bool | None) -> None:
            if discard:
                close(self, SetupResult.cancelled())

        self.app.push_screen(
            DiscardScreen(
                "Discard what you typed?",
                f"Profile {self.name_edited}" if self.name_edited else "New profile",
            ),
            answered,
        )
