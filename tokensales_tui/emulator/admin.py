"""The emulator's admin paths, outside the interface's: raise an event, list deliveries.

``POST /_emulator/events`` with ``{"type": NAME, "data": {...}?}`` raises one event and
answers 202 with the event and how many webhooks it goes to; ``GET /_emulator/deliveries``
lists the attempts, oldest first. Both need the same bearer token as every other path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ..webhooks.catalogue import CATALOGUE, EVENT_NAME
from . import validation
from .errors import ApiError, json_response
from .events import demo_data

if TYPE_CHECKING:
    from .state import Emulator

EVENTS_PATH = "/_emulator/events"
DELIVERIES_PATH = "/_emulator/deliveries"


def public(webhook: Mapping[str, Any]) -> dict[str, Any]:
    """A webhook as an event carries it: without its secret."""
    return {key: value for key, value in webhook.items() if key != "secret"}


def raise_event(emulator: Emulator, event_type: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """Deliver ``event_type`` with ``data`` to the emulator's subscribed webhooks."""
    return emulator.deliveries.emit(event_type, data, list(emulator.webhooks.values()))


async def trigger(request: Request, emulator: Emulator) -> Response:
    """``POST /_emulator/events``: raise the event named in the body."""
    fields = validation.expect_object(validation.parse_json(await request.body()), status=400)
    event_type = fields.string("type")
    if not EVENT_NAME.fullmatch(event_type):
        raise ApiError(
            422,
            "type: letters, digits and ._:- only, at most 100"
            f" (the emulator's own: {', '.join(CATALOGUE)})",
            field="type",
        )
    data: dict[str, Any] = demo_data(event_type, emulator.items)
    if fields.has("data"):
        given = fields.value("data")
        if not isinstance(given, dict):
            raise ApiError(422, "data must be a JSON object", field="data")
        data.update(given)
    return json_response(raise_event(emulator, event_type, data), 202)


async def deliveries(request: Request, emulator: Emulator) -> Response:
    """``GET /_emulator/deliveries``: every attempt kept, oldest first."""
    return json_response({"deliveries": emulator.deliveries.entries()})
