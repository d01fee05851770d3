"""The payout form: add a payout definition (name, type, and the details of that type)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import SuggestFromList
from textual.widgets import Select, Static

from ...api import ApiClient
from ...api.body_paths import argument_paths, with_objects
from ...api.client import PAYOUT_UNKNOWN_ADVICE
from ...api.endpoints import Endpoint
from ...api.models import PayoutDefinition
from ...checks import KNOWN_CHAINS, PAYOUT_TYPES, detail_fields
from ...checks.forms import payout_problems
from ...files import LOCK_WAIT
from ...payouts import PayoutAdd, PayoutRecordError
from ..key_hints import press
from ..lifetime import is_gone
from ..widgets.safe_input import SafeInput
from ..worker import ApiWorker
from .base import FormResult, FormScreen, Outgoing, Problems, form_field, show_line
from .inputs import choice_hint

__all__ = ["ADD_PAYOUT", "OTHER", "Adding", "PayoutForm"]

ADD_PAYOUT = Endpoint("POST", "base", "/v1/payouts/add")
OTHER = "other"
"""The type choice that reveals a field for a type the form does not offer."""

Adding = Callable[[dict[str, Any], Callable[[Path], object]], PayoutAdd]
"""Makes the add of a definition to the session's record, given what to call while its
lock is waited for (``TokenSalesApp.payout_add``)."""

_ALL_DETAILS = ("provider", "paymentProviderId", "blockchainId", "tokenId", "spender")
_PLACEHOLDERS = {
    "provider": "e.g. stripe",
    "paymentProviderId": "the account id at the provider, e.g. acct_1Nv0…",
    "blockchainId": "e.g. polygon",
    "tokenId": "the token paid out, e.g. its asset id or contract",
    "spender": "the address allowed to spend, 0x…",
}


def _detail_id(name: str) -> str:
    """The id of the field a detail is read from, by its name on the wire."""
    return f"detail-{name}"


def _body_fields() -> dict[str, str]:
    """Each path of the body (:meth:`PayoutForm.body_fields`), as the body is built: type
    and name from the fields of their names, each details object's members from their
    detail fields, and a details object as a whole from its first."""

    def named(type: str, name: str) -> PayoutDefinition:
        return PayoutDefinition.build(type=type, name=name, details={})

    fields = {path: name for name, path in argument_paths(named, {"type": "", "name": ""}).items()}
    for kind in PAYOUT_TYPES:
        names = [name for name, _label in detail_fields(kind)]

        def detailed(kind: str = kind, **details: str) -> PayoutDefinition:
            return PayoutDefinition.build(type=kind, name="", details=details)

        landed = argument_paths(detailed, dict.fromkeys(names, ""))
        fields |= {path: _detail_id(name) for name, path in landed.items()}
    return with_objects(fields)


_BODY_FIELDS = _body_fields()


class PayoutForm(FormScreen):
    """Adds a payout definition with ``POST /v1/payouts/add``.

    Fields in order: name, type (free, fiat, stablecoin, native, or another typed in),
    then the details of that type: fiat → provider and payment provider id; stablecoin →
    blockchain, token id and spender; native → blockchain; free and other types → none.
    The body holds type, name and only the details object of the type. Every detail
    field shown is required (the interface does not say which are; a payout without
    them could not be paid out), and the spender must fit the chain's address format.

    The service lists no payout definitions, so each one added is kept in the local
    record (:mod:`tokensales_tui.payouts`), which is made ready before the definition is
    sent, in a thread: a record that cannot take it refuses the submit, the values kept,
    and nothing is sent.

    Args:
        api: the session's API worker.
        adding: makes the add of a definition to the session's record.
    """

    DEFAULT_CSS = """
    PayoutForm #details { height: auto; }
    """

    UNKNOWN_ADVICE = PAYOUT_UNKNOWN_ADVICE  # no list shows payout definitions

    TEXT_FIELDS = (SafeInput,)

    def __init__(self, api: ApiWorker, adding: Adding) -> None:
        super().__init__(
            api,
            title="New payout definition",
            discard_question="Discard this new payout definition?",
        )
        self._adding = adding
        self._add: PayoutAdd | None = None

    def compose_fields(self) -> ComposeResult:
        yield from form_field("Name", SafeInput(placeholder="e.g. EU card payouts", id="name"))
        yield from form_field(
            "Type",
            Select(
                [(kind, kind) for kind in PAYOUT_TYPES] + [("other…", OTHER)],
                prompt="Choose a type",
                id="type",
            ),
        )
        yield from form_field(
            "Other type",
            SafeInput(placeholder="a type the service accepts, e.g. crypto", id="other-type"),
        )
        labels = {
            name: label for fields in map(detail_fields, PAYOUT_TYPES) for name, label in fields
        }
        with Vertical(id="details"):
            for name in _ALL_DETAILS:
                chain = name == "blockchainId"
                yield from form_field(
                    labels[name],
                    SafeInput(
                        placeholder=_PLACEHOLDERS[name],
                        suggester=SuggestFromList(KNOWN_CHAINS, case_sensitive=False)
                        if chain
                        else None,
                        id=_detail_id(name),
                    ),
                    hint=choice_hint("", KNOWN_CHAINS) if chain else "",
                )

    def on_mount(self) -> None:
        # Textual runs FormScreen's on_mount after this one (it reads the fields shown).
        self._show_details()

    @property
    def payout_type(self) -> str:
        """The type as it will be sent: a known one in lower case, another as typed."""
        chosen = self.query_one("#type", Select).value
        if chosen == OTHER:
            typed = self.text("other-type").strip()
            return typed.lower() if typed.lower() in PAYOUT_TYPES else typed
        return chosen if isinstance(chosen, str) else ""

    def field_changed(self, widget: Any) -> None:
        if widget.id in ("type", "other-type"):
            self._show_details()
        elif widget.id == "detail-blockchainId":
            hint = self.query_one("#detail-blockchainId-hint", Static)
            show_line(hint, choice_hint(widget.value, KNOWN_CHAINS))

    def _show_details(self) -> None:
        other = self.query_one("#type", Select).value == OTHER
        self.query_one("#other-type-field").display = other
        wanted = {name for name, _label in detail_fields(self.payout_type)}
        for name in _ALL_DETAILS:
            self.query_one(f"#{_detail_id(name)}-field").display = name in wanted

    def _details(self) -> dict[str, str]:
        """The detail fields of the current type, trimmed, by wire name."""
        return {
            name: self.text(_detail_id(name)).strip() for name, _ in detail_fields(self.payout_type)
        }

    # --- checks and request ----------------------------------------------------------

    def check(self) -> Problems:
        other = self.query_one("#type", Select).value == OTHER
        return payout_problems(
            self.text("name").strip(),
            self.payout_type,
            self._details(),
            type_field="other-type" if other else "type",
        )

    def outgoing(self) -> Outgoing:
        body = PayoutDefinition.build(
            type=self.payout_type, name=self.text("name").strip(), details=self._details()
        )
        return Outgoing(ADD_PAYOUT, body)

    def body_fields(self, index: int | None) -> Mapping[str, str]:
        # The type is read from the field of another type while that one is chosen.
        other = self.query_one("#type", Select).value == OTHER
        return (_BODY_FIELDS | {"type": "other-type"}) if other else _BODY_FIELDS

    async def before_sending(self, outgoing: Outgoing) -> Outgoing | None:
        self._add = self._adding(msgspec.to_builtins(outgoing.body), self._say_waiting)
        try:
            await self._add.ready()
        except PayoutRecordError as error:
            self.set_status(f"Nothing was sent: {error}", "error")
            return None
        return outgoing

    def _say_waiting(self, lock: Path) -> None:
        if is_gone(self) or not self.sending:
            return
        stop = press(self, "cancel", "to stop")
        self.set_status(
            f"Waiting up to {LOCK_WAIT:g} s for the payout record's lock, held by another"
            " process" + (f" ({stop})" if stop else "") + f": {lock}",
            "busy",
        )

    async def send(self, client: ApiClient, outgoing: Outgoing) -> Any:
        add = self._add  # this submit's: taken before the request goes
        done = await client.add_payout(outgoing.body)
        if add is not None:
            add.answered()  # written from now on, whatever comes next
        return done

    def change_followed(self) -> bool:
        return self._add is not None and self._add.followed

    def sending_over(self) -> None:
        if self._add is not None:
            self._add.abandon()  # nothing once answered

    def succeeded(self, outgoing: Outgoing, answer: Any) -> FormResult:
        body: PayoutDefinition = outgoing.body
        name, kind = body.name, body.type
        return FormResult(
            f"Added payout definition {name} ({kind})",
            highlight=lambda row: (
                row.source == "added from here" and row.name == name and row.type == kind
            ),
            payout=self._add,
        )
