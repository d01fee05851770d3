"""The machinery every create/edit form shares: one modal screen class, three forms on it.

A form subclasses :class:`FormScreen` and says only what is particular to it:

* :meth:`~FormScreen.compose_fields` yields its fields (with :func:`form_field`), in tab order;
* :meth:`~FormScreen.check` judges the values: a :class:`Problem` per wrong field id;
* :meth:`~FormScreen.outgoing` builds the request (:class:`Outgoing`), or ``None`` when
  there is nothing to send;
* :meth:`~FormScreen.send` makes the call with the API client, and
  :meth:`~FormScreen.succeeded` turns its answer into the :class:`FormResult` the screen
  dismisses with;
* :meth:`~FormScreen.body_fields` says which field each path of the request body is read
  from, so that a server's refusal naming paths marks those fields.

The base shows each problem under its field (once the field was touched, or after a
submit), keeps a live preview of the request under the fields, submits with ``ctrl+s``
(never with a wrong field, and never twice at once), copies the request as curl with
``ctrl+y``, and asks before ``escape`` throws typed values away. While a request is out the
fields are disabled and nothing holds the focus, so a submit key pressed again lands on
nothing (not on Stop waiting); any failure re-enables them with every value as it was and
shows the message; a refusal that names fields of the body shows each problem under its
field too, and puts the cursor in the first. A POST is never repeated by the form: once one's outcome is unknown, the
next submit says so and asks before sending it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Input,
    Label,
    LoadingIndicator,
    Select,
    Static,
    Switch,
    TextArea,
)
from textual.worker import Worker

from ...api import ApiClient, ApiError, Done, OutcomeUnknownError, ValidationError
from ...api.body_paths import without_positions
from ...api.endpoints import Endpoint
from ...api.errors import Refusal
from ...api.preview import Change, RequestPreview
from ...api.transport import noting_attempts
from ...checks.forms import Problem, Problems
from ...clean import clean_line
from ..closing import close
from ..key_hints import error_said, hint, press
from ..lifetime import is_gone, while_shown
from ..safe import line, show
from ..safe_app import copy
from ..screens.base import ScreenKeys
from ..screens.confirm import ConfirmScreen, DiscardScreen
from ..widgets.button_row import ButtonRow
from ..widgets.footer import KeysFooter
from ..work_failures import WorkFailed
from ..worker import ApiWorker

if TYPE_CHECKING:
    from ...payouts import PayoutAdd

__all__ = [
    "FormResult",
    "FormScreen",
    "Outgoing",
    "Problem",
    "Problems",
    "form_field",
    "show_line",
    "value_of",
]

PREVIEW_LINES = 120
"""Lines of a request body shown in the preview; the copied curl always holds all of it."""

VALUE_WIDGETS = (Input, TextArea, Switch, Select)
W = TypeVar("W", bound=Widget)
FRAME_ROWS = 7
"""Rows around the fields always: margin 1, border 2, buttons 3, footer 1 (the status line,
up to 4 rows for a file's path and what is wrong with it, and the progress bar take
theirs only while shown)."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """The request a form would send now."""

    endpoint: Endpoint
    body: Any
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True, slots=True)
class FormResult:
    """How a form ended, for the app to report and show.

    Attributes:
        summary: what was created or changed, for a notification.
        highlight: picks the new or changed row once the tab has reloaded.
        payout: the add of a payout definition, whose record's write the tab waits for
            before it reloads.
        changed: False when nothing was sent (an edit that changed nothing).
    """

    summary: str
    highlight: Callable[[Any], bool] | None = None
    payout: PayoutAdd | None = None
    changed: bool = True


def form_field(label: str, widget: Widget, *, hint: str | Content = "") -> ComposeResult:
    """A labelled field: the label, the widget, a hint line and the line for its problem.

    The hint's and problem's ids are the widget's id plus ``-hint`` / ``-problem``.
    """
    with Horizontal(classes="form-field", id=f"{widget.id}-field"):
        yield Label(line(label), classes="form-label")
        with Vertical(classes="form-control"):
            if isinstance(widget, Switch):  # its state in words: a switch alone shows none
                with Horizontal(classes="form-switch"):
                    yield widget
                    state = _switch_state(widget)  # a safe.line
                    yield Static(state, id=f"{widget.id}-state")  # gate: a safe.line
            else:
                yield widget
            hint_line = Static(id=f"{widget.id}-hint", classes="form-hint")
            show_line(hint_line, hint)
            yield hint_line
            yield Static("", id=f"{widget.id}-problem", classes="form-problem")


def _switch_state(switch: Switch) -> Content:
    return line("yes" if switch.value else "no")


def show_line(widget: Static, text: str | Content) -> None:
    """Show ``text`` literally in ``widget`` (never as markup), or hide it when ``text`` is empty.

    A ``Content`` given here was built by :mod:`..safe` (the only way to build one).
    """
    show(widget, text)
    widget.display = bool(text)


def value_of(widget: Widget) -> Any:
    """The value a person entered in ``widget`` (text, switch state or selection)."""
    if isinstance(widget, TextArea):
        return widget.text
    if isinstance(widget, Input | Switch | Select):
        return widget.value
    raise TypeError(f"{type(widget).__name__} holds no form value")


class FormScreen(ScreenKeys, ModalScreen[FormResult | None]):
    """A modal form that builds one request, previews it, and sends it through the API worker.

    Args:
        api: the session's API worker; the form asks it to send and reads the profile's
            addresses from it for the preview.
        title: the dialog's title (never server text: titles are markup).
        discard_question: asked when escape would throw typed values away.
    """

    DEFAULT_CSS = """
    FormScreen { align: center top; }
    FormScreen > #form {
        width: 104; max-width: 100%; height: auto; max-height: 100%; margin-top: 1;
        border: round $primary; border-title-style: bold; background: $surface;
        padding: 0 1;
    }
    FormScreen #form-body { height: auto; max-height: 75vh; scrollbar-gutter: stable; }
    FormScreen .form-field { height: auto; }
    FormScreen .form-label { width: 21; padding: 1 1 0 0; color: $text-muted; }
    FormScreen .form-control { width: 1fr; height: auto; }
    FormScreen .form-hint { color: $text-muted; padding: 0 1; height: auto; }
    FormScreen .form-problem { display: none; color: $text-error; padding: 0 1; height: auto; }
    FormScreen .form-problem.-shown { display: block; }
    FormScreen .form-problem.-warning { color: $text-warning; }
    FormScreen TextArea { height: 6; }
    FormScreen Switch { margin-left: 0; }
    FormScreen .form-switch { height: auto; }
    FormScreen .form-switch > Static { width: auto; padding: 1 1 0 1; }
    FormScreen #preview {
        height: auto; margin: 1 0 0 0; padding: 0 1;
        border: round $panel-lighten-2; border-title-color: $text-muted;
    }
    FormScreen #preview-request { text-style: bold; }
    FormScreen #preview-changes { color: $text-warning; margin-top: 1; }
    FormScreen #preview-body { color: $text-muted; margin-top: 1; }
    FormScreen #form-status { height: auto; max-height: 4; padding: 0 1; }
    FormScreen #form-status.-error { color: $text-error; background: $error 10%; }
    FormScreen #form-status.-busy { color: $text-muted; }
    FormScreen #form-progress { display: none; height: 1; }
    FormScreen #form-progress.-shown { display: block; }
    FormScreen #form-buttons { margin-top: 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Submit", id="form.submit", priority=True),
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        # Priority: in a text area ctrl+y would otherwise be redo (ctrl+z still undoes).
        Binding("ctrl+y", "copy_curl", "Copy as curl", id="form.copy_curl", priority=True),
    ]

    RETRY_ACTION = "submit"
    """The action that sends the request again after a failure (see :mod:`..key_hints`)."""

    UNKNOWN_ADVICE: ClassVar[str] = "refresh to check"
    """How to find out whether a request whose answer was not waited for did anything."""

    def __init__(self, api: ApiWorker, *, title: str, discard_question: str) -> None:
        super().__init__()
        self.api = api
        self.form_title = title
        self.discard_question = discard_question
        self.attempted = False
        """True once a submit was tried: every field there was then shows its problems."""
        self.sending = False
        self._submitting: Worker[None] | None = None  # the last submit
        self._touched: set[str] = set()
        self._refused = False  # the last submit was refused for the marked fields
        self._initial: dict[str, Any] = {}
        self._focus_before: Widget | None = None
        self._preview: RequestPreview | None = None
        self.problems: Problems = {}
        self._problems_shown: set[str] = set()
        """The fields whose problem lines show something (or did at the last redraw)."""
        self._by_id: dict[str, Widget] = {}
        self._refusals: Problems = {}
        """The server's refusals, under the field each names, until that field changes."""
        self._unknown_post = False
        """A POST went and its outcome is unknown: the next one is sent only once confirmed."""

    # --- what a form provides --------------------------------------------------------

    def compose_fields(self) -> ComposeResult:
        """Yield the fields, in the order tab moves through them."""
        raise NotImplementedError
        yield  # pragma: no cover

    def check(self) -> Problems:
        """The problems of the values as they are now; cheap, called on every change."""
        return {}

    async def check_before_submit(self) -> Problems:
        """The problems that block a submit; a form with slow checks runs them off the loop."""
        return self.check()

    def outgoing(self) -> Outgoing | None:
        """The request to send now, or ``None`` when nothing would change."""
        raise NotImplementedError

    async def send(self, client: ApiClient, outgoing: Outgoing) -> Any:
        """Send ``outgoing`` with ``client``; return the answer, if any (a
        :class:`~tokensales_tui.api.Done` has its note added to the summary)."""
        raise NotImplementedError

    def succeeded(self, outgoing: Outgoing, answer: Any) -> FormResult:
        """What to report once ``outgoing`` was accepted."""
        raise NotImplementedError

    async def before_sending(self, outgoing: Outgoing) -> Outgoing | None:
        """Called while the form waits, before ``outgoing`` goes: what to send after all, or
        ``None`` to send nothing (having said why). An edit reads the server's copy here."""
        return outgoing

    def change_followed(self) -> bool:
        """Whether the change about to be sent is followed already as one under way,
        its request included (:mod:`~tokensales_tui.ui.in_flight`): a quit then names it
        once, not again as a request."""
        return False

    def sending_over(self) -> None:
        """Called once a submit that reached :meth:`before_sending` is over, however it
        ended: answered, refused, stopped, failed, or nothing sent. What was made ready
        there for the answer is let go of here."""

    def body_fields(self, index: int | None) -> Mapping[str, str]:
        """Where each member of the request body is read from: its path in the body, in
        the wire's names and without positions (``fiatDetails.paymentProviderId``), to
        the id of the field holding its value. For an array body, the fields of element
        ``index`` (``None``: the server named no element). Derive it from how the body
        is built (:mod:`~tokensales_tui.api.body_paths`): a refusal naming a path marks
        the field it maps to."""
        return {}

    def nothing_to_send(self) -> FormResult:
        """The result when :meth:`outgoing` has nothing to send."""
        return FormResult("Nothing changed — nothing was sent", changed=False)

    def on_copied(self) -> str:
        """The notification after copying the request as curl."""
        return "Copied as curl; it reads the token from $TOKENSALES_TOKEN"

    # --- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="form") as form:
            form.border_title = line(self.form_title)
            with VerticalScroll(id="form-body", can_focus=False):
                yield from self.compose_fields()
                with Vertical(id="preview") as preview:
                    preview.border_title = "Request preview"
                    yield Static("", id="preview-request")
                    yield Static("", id="preview-changes")
                    yield Static("", id="preview-body")
            yield LoadingIndicator(id="form-progress")
            yield Static("", id="form-status")
            with ButtonRow(id="form-buttons"):
                yield Button("Copy as curl", id="form-copy")
                yield Button("Cancel", id="form-cancel")
                yield Button("Submit", id="form-submit", variant="primary")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.set_status("", "")
        self._initial = self.values()
        first = next(iter(self.fields()), None)
        if first is not None:
            first.focus()
        self.refresh_form()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_body()

    def _fit_body(self) -> None:
        """Give the fields every row the rest leaves: the border, the buttons, the footer
        and, while shown, the status line and the progress bar always show."""
        status = self.query_one("#form-status", Static)
        taken = FRAME_ROWS + (status.outer_size.height if status.display else 0)
        taken += 1 if self.query_one("#form-progress").has_class("-shown") else 0
        self.query_one("#form-body").styles.max_height = max(6, self.size.height - taken)

    # --- values and problems ---------------------------------------------------------

    def fields(self) -> Iterable[Widget]:
        """The value-holding widgets of the form, in tab order."""
        return (w for w in self.query_one("#form-body").query("*") if isinstance(w, VALUE_WIDGETS))

    def values(self) -> dict[str, Any]:
        """Every field's value by id (what escape would lose)."""
        return {w.id or "": value_of(w) for w in self.fields()}

    @property
    def dirty(self) -> bool:
        """Whether a field holds something other than what it opened with: what escape
        would lose. A field taken away (a collection removed) took its text with it."""
        return any(value != self._initial.get(key) for key, value in self.values().items())

    def edited(self, field_id: str) -> bool:
        """Whether the field holds other than what it was filled with.

        An edit form sends, and reads back, only the fields the user changed: text it put
        in a field itself does not always read back as what it came from (a stored name
        holding a comma, a stored URL ending in a space), and must never be sent as a change.
        """
        return bool(value_of(self.by_id(field_id, Widget)) != self._initial.get(field_id))

    def fields_added(self) -> None:
        """Take the fields mounted since the form opened (another collection) as opened
        with what they hold now."""
        for key, value in self.values().items():
            self._initial.setdefault(key, value)

    def text(self, field_id: str) -> str:
        """The text of an input or text area, as typed."""
        return str(value_of(self.by_id(field_id, Widget)))

    def by_id(self, widget_id: str, kind: type[W]) -> W:
        """The form's widget with id ``widget_id``; raises ``NoMatches`` when there is none.

        The checks and the preview read every field at each key. Textual keeps the
        widgets it found by id, but forgets them all whenever any widget is shown or
        hidden (a hint, a problem line), and a query then walks the whole form: hundreds
        of widgets once there are many collections. A widget found here is kept while
        it is still in the form under that id.
        """
        found = self._by_id.pop(widget_id, None)
        if found is None or found.id != widget_id or not self._holds(found):
            found = self.query_one(f"#{widget_id}")
        self._by_id[widget_id] = found
        if not isinstance(found, kind):
            raise TypeError(f"#{widget_id} is a {type(found).__name__}, not a {kind.__name__}")
        return found

    def has_widget(self, widget_id: str) -> bool:
        """Whether the form holds a widget with id ``widget_id`` now."""
        try:
            self.by_id(widget_id, Widget)
        except NoMatches:
            return False
        return True

    def _holds(self, widget: Widget) -> bool:
        node = widget.parent
        while node is not None and node is not self:
            node = node.parent
        return node is self

    def refresh_form(self) -> None:
        """Check the values again and redraw the problems and the preview."""
        self.show_problems(self.check())
        self.refresh_preview()

    def show_problems(self, problems: Problems) -> None:
        """Show each problem under its field: those of fields touched or there at a submit."""
        self.problems = problems
        if self._refused:  # "Nothing was sent: fix …" follows the fields as they are fixed
            self._say_refused(problems)
        # A field our checks find wrong shows that; one the server refused, the server's words.
        problems = {**self._refusals, **problems}
        # Only the lines that show a problem, now or until now, can change: the others are
        # empty and hidden, as they were made.
        now = {field_id for field_id in problems if field_id in self._touched}
        for field_id in now | self._problems_shown:
            try:
                widget = self.by_id(f"{field_id}-problem", Static)
            except NoMatches:  # a field of a block removed since, or one with no line
                continue
            problem = problems.get(field_id)
            shown = problem is not None and field_id in now
            show(widget, problem.message if shown and problem else "")
            widget.set_class(shown, "-shown")
            widget.set_class(shown and problem is not None and problem.warning, "-warning")
        self._problems_shown = now

    def _say_refused(self, problems: Problems) -> None:
        """Say how many fields keep the request from being sent; nothing once none does."""
        errors = sum(not p.warning for key, p in problems.items() if key in self._touched)
        if not errors:
            self._refused = False
            self.set_status("", "")
            return
        fields = "the marked field" if errors == 1 else f"the {errors} marked fields"
        self.set_status(f"Nothing was sent: fix {fields} first", "error")

    def first_error(self, problems: Problems) -> Widget | None:
        """The first field, in tab order, that has an error."""
        for widget in self.fields():
            problem = problems.get(widget.id or "")
            if problem is not None and not problem.warning:
                return widget
        return None

    def problem_shown(self, field_id: str) -> bool:
        """Whether a problem shows under the field now (checked, or refused by the server)."""
        return field_id in self._touched and (
            field_id in self.problems or field_id in self._refusals
        )

    def touch(self, field_id: str) -> None:
        """Mark a field as edited, so its problems show from now on."""
        self._touched.add(field_id)

    # --- preview ---------------------------------------------------------------------

    def refresh_preview(self) -> None:
        """Rebuild the preview from the values as they are now."""
        outgoing = self.outgoing()
        request = self.by_id("preview-request", Static)
        changes = self.by_id("preview-changes", Static)
        body = self.by_id("preview-body", Static)
        if outgoing is None:
            self._preview = None
            show(request, line("Nothing changed — nothing will be sent"))
            show_line(changes, "")
            show_line(body, "")
            return
        preview = RequestPreview.build(
            outgoing.endpoint, self.api.connection, outgoing.body, changes=outgoing.changes
        )
        self._preview = preview
        show(request, line(preview.request_line))
        show_line(changes, "\n".join(clean_line(c.describe()) for c in preview.changes))
        text, more = preview.body_start(PREVIEW_LINES)
        if more:
            copies = hint(self, "copy_curl", "copies the whole request")
            text += "\n… more lines" + (f": {copies}" if copies else "")
        show_line(body, text)

    @property
    def preview(self) -> RequestPreview | None:
        """The request as the preview shows it now (secrets masked)."""
        return self._preview

    # --- reacting to input -----------------------------------------------------------

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Switch.Changed)
    @on(Select.Changed)
    def _value_changed(self, event: Message) -> None:
        widget = getattr(event, "control", None)
        if widget is None or widget.id is None or not self.is_mounted:
            return
        event.stop()
        if isinstance(widget, Switch):
            show(self.by_id(f"{widget.id}-state", Static), _switch_state(widget))
        self.touch(widget.id)
        self._refusals.pop(widget.id, None)
        self.field_changed(widget)
        self.refresh_form()

    def field_changed(self, widget: Widget) -> None:
        """Called before the re-check when ``widget``'s value changed."""

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        widget = event.widget
        if (
            isinstance(widget, VALUE_WIDGETS)
            and widget.id
            and value_of(widget) != self._initial.get(widget.id)
        ):
            self.touch(widget.id)
            self.show_problems(self.problems)

    # --- actions ---------------------------------------------------------------------

    @on(Button.Pressed, "#form-submit")
    def action_submit(self) -> None:
        """Check every field and send the request, unless something is wrong."""
        if not self.sending:
            self._submitting = self._submit()

    @on(Button.Pressed, "#form-cancel")
    def action_cancel(self) -> None:
        """Stop waiting for a request in flight; otherwise close, asking first if anything was typed."""
        if self.sending:
            waiting = [w for w in self.workers if w.group == "form-submit" and w.is_running]
            for worker in waiting:
                worker.cancel()
            if not waiting:  # nothing in flight any more: never leave the form locked
                self._set_sending(False)
            return
        if not self.dirty:
            close(self, None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                close(self, None)

        self.app.push_screen(
            DiscardScreen(self.discard_question, "What you typed will be lost."),
            answered,
        )

    @on(Button.Pressed, "#form-copy")
    def action_copy_curl(self) -> None:
        """Copy the request as a curl command (token from $TOKENSALES_TOKEN, secrets masked)."""
        self.refresh_preview()
        if self._preview is None:
            self.notify("Nothing to copy: nothing would be sent", severity="warning")
            return
        copy(self.app, self._preview.as_curl(), self.on_copied())

    # --- sending ---------------------------------------------------------------------

    @work(group="form-submit", exclusive=True, exit_on_error=False)
    @while_shown
    async def _submit(self) -> None:
        self.attempted = True
        # Every field there is now shows its problems; a block added later starts clean.
        self._touched |= {
            (w.id or "").removesuffix("-problem") for w in self.query(".form-problem")
        }
        self.set_status("Checking…", "busy")
        problems = await self.check_before_submit()
        self._touched |= set(problems)
        self.show_problems(problems)
        wrong = self.first_error(problems)
        if wrong is not None:
            self._refused = True
            self._say_refused(problems)
            wrong.focus()
            return
        planned = self.outgoing()
        if planned is None:
            close(self, self.nothing_to_send())
            return
        outgoing: Outgoing = planned
        again = self._unknown_post and outgoing.endpoint.method == "POST"
        if again and not await self._send_again_confirmed():
            return
        self._set_sending(True, outgoing)
        attempted = False

        def note() -> None:
            nonlocal attempted
            attempted = True

        async def send(client: ApiClient) -> Any:
            with noting_attempts(note):
                return await self.send(client, outgoing)

        try:
            ready = await self.before_sending(outgoing)
            if ready is None:
                self._set_sending(False)
                return
            outgoing = ready
            self._say_sending(outgoing)
            answer = await self.api.call(
                send, what=self.form_title, followed=self.change_followed()
            )
        except asyncio.CancelledError:
            self._set_sending(False)
            self._unknown_post = attempted and outgoing.endpoint.method == "POST"
            if attempted:
                said = f"Stopped waiting for the answer: outcome unknown — {self.UNKNOWN_ADVICE}"
            else:  # waiting for a token, a connection or a retry: the request never went
                said = "Stopped before the request was sent: nothing was changed"
                said += self._again("sends it")
            self.set_status(said, "error")
            raise
        except ApiError as error:
            self._set_sending(False)
            self._unknown_post = (
                isinstance(error, OutcomeUnknownError) and outgoing.endpoint.method == "POST"
            )
            self._show_failure(error)
            return
        except BaseException:
            if not is_gone(self):
                self._set_sending(False)
            raise
        finally:
            self.sending_over()
        self.sending = False
        result = self.succeeded(outgoing, answer)
        if isinstance(answer, Done):  # with its note (its answer's body unread)
            result = replace(result, summary=answer.said(result.summary))
        close(self, result)

    async def _send_again_confirmed(self) -> bool:
        """Ask before a POST goes again after one whose outcome is unknown: the first may
        have created it, and a submit key pressed once too often must not create two."""
        unknown = f"The last request got no answer: outcome unknown — {self.UNKNOWN_ADVICE}"
        self.set_status(unknown, "error")
        again = await self.app.push_screen_wait(
            ConfirmScreen(
                "Send it again?",
                unknown,
                detail="If the last one went through, this makes a second.",
                confirm_label="Send again",
            )
        )
        if not again:
            self.set_status(f"Nothing was sent. {unknown}", "error")
            return False
        self._unknown_post = False
        return True

    def _show_failure(self, error: ApiError) -> None:
        """Say why the request failed; mark every field the server refused by name, and
        put the cursor in the first. The whole message stays in the status line, with
        what names no field here."""
        refused = self.refused_fields(error) if isinstance(error, ValidationError) else {}
        self._refusals = refused  # the server's latest word replaces its last
        if not refused:
            self.show_problems(self.problems)
            self.set_status(self._failure(error), "error")
            return
        self._touched |= set(refused)
        self.show_problems(self.problems)
        fields = "the marked field" if len(refused) == 1 else f"the {len(refused)} marked fields"
        self.set_status(
            f"The server refused it: {error.message} — change {fields}"
            + self._again("again", joiner=" and "),
            "error",
        )
        first = next((w for w in self.fields() if w.id in refused), None)
        if first is not None:
            first.focus()

    def refused_fields(self, error: ValidationError) -> Problems:
        """The server's words under each field of the form its refusal names (by a path of
        :meth:`body_fields`, or a path inside one: ``events[2]`` is ``events``); a field
        hidden now is not named. Several problems of one field are said together."""
        problems = error.problems or (Refusal(error.field, error.index, error.message),)
        said: dict[str, list[str]] = {}
        for problem in problems:
            field_id = self._refused_field(problem)
            if field_id is not None:
                said.setdefault(field_id, []).append(problem.message)
        return {
            field_id: Problem("; ".join(dict.fromkeys(words))) for field_id, words in said.items()
        }

    def _refused_field(self, problem: Refusal) -> str | None:
        if problem.field is None:
            return None
        fields = self.body_fields(problem.index)
        path = without_positions(problem.field)
        while path:
            field_id = fields.get(path)
            if field_id is not None:
                return field_id if self._shown(field_id) else None
            path = path.rpartition(".")[0]
        return None

    def _shown(self, field_id: str) -> bool:
        """Whether the field is in the form and shown (not in a part hidden for now)."""
        try:
            widget = self.by_id(field_id, Widget)
        except NoMatches:
            return False
        node: Widget | None = widget
        while isinstance(node, Widget) and node is not self:
            if not node.display:
                return False
            node = node.parent if isinstance(node.parent, Widget) else None
        return True

    def _again(self, what: str, joiner: str = " — ") -> str:
        """``joiner`` press KEY ``what``, with the key that submits here; "" if none does."""
        again = press(self, "submit", what)
        return f"{joiner}{again}" if again else ""

    def _failure(self, error: ApiError) -> str:
        """The failure in a form's words: the submit key sends again, nothing by itself."""
        if isinstance(error, OutcomeUnknownError):
            return error.message  # "… outcome unknown (why) — refresh to check", or where to
        if isinstance(error, ValidationError):
            return f"The server refused it: {error.message} — change the values" + self._again(
                "again", joiner=" and "
            )
        return f"Failed: {error_said(error, self)}"

    def _set_sending(self, sending: bool, outgoing: Outgoing | None = None) -> None:
        self.sending = sending
        if sending:
            self._focus_before = self.focused
        self.query_one("#form-body").disabled = sending
        self.query_one("#form-submit", Button).disabled = sending
        self.query_one("#form-copy", Button).disabled = sending
        self.query_one("#form-progress").set_class(sending, "-shown")
        self._fit_body()
        cancel = self.query_one("#form-cancel", Button)
        cancel.label = "Stop waiting" if sending else "Cancel"
        if sending and outgoing is not None:
            self._say_sending(outgoing)
            # Disabling the focused button hands the focus on, to Stop waiting at the last:
            # a submit key pressed again would stop the wait. Escape or a tab to it does.
            self.set_focus(None)
        elif not sending and self._focus_before is not None and self._focus_before.is_attached:
            self._focus_before.focus()

    def _say_sending(self, outgoing: Outgoing) -> None:
        self.set_status(f"Sending {outgoing.endpoint.method} {outgoing.endpoint.path}…", "busy")

    def on_work_failed(self, event: WorkFailed) -> None:
        """Work of the form (a check, an import, the sending) failed in a way not
        foreseen: said on the status line, and the form can be used again. While a
        request is in flight, other work failing leaves the form waiting for its answer
        (submitted again meanwhile, it would stop that wait and could send it twice):
        the app says that failure."""
        if self.sending and event.worker is not self._submitting:
            return
        event.stop()
        if self.sending:
            self._set_sending(False)
        self.set_status(f"Failed: {event.text}", "error")

    def set_status(self, text: str, state: str) -> None:
        """Show a line above the buttons: ``busy``, ``error`` or ``ok``."""
        status = self.query_one("#form-status", Static)
        show_line(status, text)
        for name in ("busy", "error", "ok"):
            status.set_class(name == state, f"-{name}")
        status.call_after_refresh(self._fit_body)  # with the lines it takes now
