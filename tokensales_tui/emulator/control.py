"""``tokensales-tui emulator trigger`` and ``deliveries``: talk to a running emulator.

Both sign in with the demo credentials and use the admin paths of :mod:`.admin`.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

from ..clean import clean_line
from ..script.output import encode_json
from .admin import DELIVERIES_PATH, EVENTS_PATH
from .app import TOKEN_PATH
from .state import DEMO_API_KEY, DEMO_API_SECRET


@contextlib.contextmanager
def _session(url: str) -> Iterator[Any]:
    """An httpx client of the emulator at ``url``, signed in with the demo credentials."""
    import httpx

    with httpx.Client(base_url=url, trust_env=False, timeout=10.0) as client:
        answer = client.post(
            TOKEN_PATH, json={"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}
        )
        answer.raise_for_status()
        try:
            token = str(answer.json()["accessToken"])
        except (ValueError, KeyError, TypeError):
            raise httpx.DecodingError("no token in the answer") from None
        client.headers["Authorization"] = "Bearer " + token
        yield client


def _fail(url: str, error: Exception) -> int:
    print(
        f"tokensales-tui: the emulator at {clean_line(url)} did not answer: {clean_line(str(error))}",
        file=sys.stderr,
    )
    return 1


def trigger(url: str, event_type: str, data_text: str | None) -> int:
    """Raise ``event_type`` on the emulator at ``url``; print the event as JSON."""
    import httpx

    body: dict[str, Any] = {"type": event_type}
    if data_text is not None:
        try:
            data = json.loads(data_text)
        except ValueError as error:
            print(f"tokensales-tui: --data is not JSON: {error}", file=sys.stderr)
            return 2
        if not isinstance(data, dict):
            print("tokensales-tui: --data must be a JSON object", file=sys.stderr)
            return 2
        body["data"] = data
    try:
        with _session(url) as client:
            answer = client.post(EVENTS_PATH, json=body)
    except httpx.HTTPError as error:
        return _fail(url, error)
    if answer.status_code != 202:
        message = (
            answer.json().get("message", answer.text) if answer.content else answer.status_code
        )
        print(f"tokensales-tui: refused: {clean_line(str(message))}", file=sys.stderr)
        return 2 if answer.status_code in (400, 422) else 1
    event = answer.json()
    print(encode_json(event).decode())
    print(f"# sent to {event.get('webhooks', 0)} webhook(s)", file=sys.stderr)
    return 0


def deliveries(url: str, *, as_json: bool = False) -> int:
    """Print the delivery log of the emulator at ``url``, one attempt a line."""
    import httpx

    try:
        with _session(url) as client:
            answer = client.get(DELIVERIES_PATH)
            answer.raise_for_status()
    except httpx.HTTPError as error:
        return _fail(url, error)
    for entry in answer.json()["deliveries"]:
        if as_json:
            print(encode_json(entry).decode())
        else:
            print(clean_line(attempt_line(entry)))
    return 0


def attempt_line(entry: dict[str, Any]) -> str:
    """One log entry as a line of text."""
    return (
        f"{entry['time']} {entry['event_type']} {entry['event_id']} → {entry['webhook_id']}"
        f" {entry['url']} attempt {entry['attempt']}: {entry['outcome']} ({entry['duration_ms']} ms)"
    )
