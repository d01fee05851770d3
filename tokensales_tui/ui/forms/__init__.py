"""Modal forms that create and edit: webhooks, payout definitions, collections.

Every form is a :class:`~.base.FormScreen` and dismisses with a
:class:`~.base.FormResult` (or ``None`` when cancelled). The app asks this module for
them; the form modules, and the checks they use (email-validator, Keccak), take about
70 ms to import that the first frame does not need, so they load on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.binding import Binding

    from ...api.models import Webhook
    from ..worker import ApiWorker
    from .base import FormScreen
    from .payout import Adding

__all__ = ["CREATABLE", "EDITABLE", "NEW_TITLES", "edit_form", "form_bindings", "new_form"]

CREATABLE = frozenset({"webhooks", "payouts", "collections"})
"""The tabs whose objects can be created here."""
EDITABLE = frozenset({"webhooks"})
"""The tabs whose objects can be edited here (the interface updates only webhooks)."""
NEW_TITLES = {
    "webhooks": "New webhook",
    "payouts": "New payout definition",
    "collections": "New collections",
}
"""What the command palette calls each tab's form."""


def new_form(
    tab: str, api: ApiWorker, *, payout_add: Adding, webhooks: Sequence[Webhook] = ()
) -> FormScreen | None:
    """The form that creates an object of tab ``tab``, or ``None`` when there is none.

    ``payout_add`` makes the add of a payout definition to the session's record;
    ``webhooks`` are the listed webhooks, whose event names the webhook form suggests.
    """
    if tab == "webhooks":
        from .webhook import WebhookForm, known_events

        return WebhookForm(api, known_events=known_events(webhooks))
    if tab == "payouts":
        from .payout import PayoutForm

        return PayoutForm(api, payout_add)
    if tab == "collections":
        from .collections import CollectionsForm

        return CollectionsForm(api)
    return None


def edit_form(
    tab: str, api: ApiWorker, row: Any, *, webhooks: Sequence[Webhook] = ()
) -> FormScreen | None:
    """The form that edits ``row`` of tab ``tab``, or ``None`` when there is none."""
    if tab == "webhooks":
        from .webhook import WebhookForm, known_events

        return WebhookForm(api, known_events=known_events(webhooks), webhook=row)
    return None


def form_bindings() -> list[Binding]:
    """Every key the forms have, for the help screen."""
    from textual.binding import Binding

    from .base import FormScreen
    from .collections import CollectionsForm

    keys = (*FormScreen.BINDINGS, *CollectionsForm.BINDINGS)
    return [binding for binding in keys if isinstance(binding, Binding)]
