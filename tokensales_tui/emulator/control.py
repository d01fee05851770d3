"""``tokensales-tui emulator trigger`` and ``deliveries``: talk to a running emulator.

Both sign in with the demo credentials and use the admin paths of :mod:`.admin`. What
comes back is read as data of any shape and size, since ``--url`` may point anywhere:
each command ends with its output, or with one line on stderr and exit 2 when what it
was given cannot be used (``--data``, ``--url``, or a request the emulator refused as
malformed), exit 1 when the other side did not answer as an emulator does. A command
has :data:`DEADLINE` seconds in all, however slowly the other side answers, and reads
at most :data:`ANSWER_LIMIT` bytes of an answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from ..clean import clean_line
from ..console import OutputFailed
from ..http_clients import new_client
from ..script.output import encode_json
from ..script.parser import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from .admin import DELIVERIES_PATH, EVENTS_PATH
from .app import TOKEN_PATH
from .events import Attempt
from .state import DEMO_API_KEY, DEMO_API_SECRET
from .validation import json_type

if TYPE_CHECKING:
    import httpx

DEADLINE = 30.0
"""Seconds a command may take in all."""
ANSWER_LIMIT = 64 * 1024 * 1024
"""Largest answer read, in bytes (the emulator's delivery log is bounded well below)."""

_log = logging.getLogger(__name__)


class _Failed(Exception):
    """The command ends with this one line and exit ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.code = code


class DeliveryLog(msgspec.Struct):
    """The answer of ``GET /_emulator/deliveries``."""

    deliveries: list[Attempt]


def trigger(url: str, event_type: str, data_text: str | None) -> int:
    """Raise ``event_type`` on the emulator at ``url``; print the event as JSON."""
    body: dict[str, Any] = {"type": event_type}
    try:
        if data_text is not None:
            body["data"] = _data(data_text)
        content = json.dumps(body, allow_nan=False).encode()
    except _Failed as failed:
        return _say(failed)
    except (ValueError, RecursionError) as error:
        return _say(_Failed(f"--data cannot be sent as JSON: {error}", EXIT_USAGE))

    async def send(client: httpx.AsyncClient) -> int:
        status, answer = await _request(client, "POST", EVENTS_PATH, content)
        if status != 202:
            code = EXIT_USAGE if status in (400, 413, 422) else EXIT_FAILURE
            raise _Failed(f"refused: {_reason(status, answer)}", code)
        event = _decode(answer, EVENTS_PATH)
        count = event.get("webhooks") if isinstance(event, dict) else None
        if not isinstance(event, dict) or type(count) is not int:
            raise _Failed(f"the answer to {EVENTS_PATH} is not an event: {_shape(event)}")
        print(encode_json(event).decode())
        print(f"# sent to {count} webhook(s)", file=sys.stderr)
        return EXIT_OK

    return _run(url, send)


def deliveries(url: str, *, as_json: bool = False) -> int:
    """Print the delivery log of the emulator at ``url``, one attempt a line."""

    async def send(client: httpx.AsyncClient) -> int:
        status, answer = await _request(client, "GET", DELIVERIES_PATH)
        if status != 200:
            raise _Failed(f"the delivery log was refused: {_reason(status, answer)}")
        raw = _decode(answer, DELIVERIES_PATH)
        try:
            log = msgspec.convert(raw, DeliveryLog)
        except msgspec.ValidationError as error:
            raise _Failed(
                f"the answer to {DELIVERIES_PATH} is not a delivery log: {error}"
            ) from None
        for entry, attempt in zip(raw["deliveries"], log.deliveries, strict=True):
            print(encode_json(entry).decode() if as_json else clean_line(attempt.line()))
        return EXIT_OK

    return _run(url, send)


# --- the session ---------------------------------------------------------------------


def _run(url: str, command: Callable[[httpx.AsyncClient], Awaitable[int]]) -> int:
    """Sign in to the emulator at ``url`` and run ``command``; every failure is one line."""
    try:
        _check_url(url)
        return asyncio.run(_session(url, command))
    except _Failed as failed:
        return _say(failed)


async def _session(url: str, command: Callable[[httpx.AsyncClient], Awaitable[int]]) -> int:
    import httpx

    from ..api.names import look_up_in_own_threads

    look_up_in_own_threads()  # a resolver that never answers holds no thread waited for
    where = clean_line(url)
    try:
        async with asyncio.timeout(DEADLINE):
            async with new_client(
                base_url=url,
                timeout=10.0,
                headers={"accept-encoding": "identity", "content-type": "application/json"},
            ) as client:
                await _sign_in(client)
                return await command(client)
    except TimeoutError:
        raise _Failed(f"the emulator at {where} did not answer within {DEADLINE:g} s") from None
    except httpx.HTTPError as error:
        why = str(error) or type(error).__name__
        raise _Failed(f"the emulator at {where} did not answer: {why}") from None
    except (_Failed, OutputFailed):  # stdout's failure is the command line's to report
        raise
    except Exception as error:  # whatever else the other side provoked: one line, logged
        _log.warning("talking to the emulator at %s", where, exc_info=True)
        raise _Failed(f"talking to the emulator at {where} failed: {error!r}") from None


async def _sign_in(client: httpx.AsyncClient) -> None:
    credentials = json.dumps({"apiKey": DEMO_API_KEY, "apiSecret": DEMO_API_SECRET}).encode()
    status, answer = await _request(client, "POST", TOKEN_PATH, credentials)
    if status != 200:
        raise _Failed(f"the sign-in was refused: {_reason(status, answer)}")
    body = _decode(answer, TOKEN_PATH)
    token = body.get("accessToken") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token or not all("!" <= c <= "~" for c in token):
        raise _Failed(f"the answer to {TOKEN_PATH} holds no token: {_shape(body)}")
    client.headers["Authorization"] = "Bearer " + token


async def _request(
    client: httpx.AsyncClient, method: str, path: str, content: bytes | None = None
) -> tuple[int, bytes]:
    """The status and body of one request; a body over :data:`ANSWER_LIMIT` is a failure."""
    from ..api.endpoints import redact_url

    started = time.perf_counter()
    async with client.stream(method, path, content=content) as answer:
        body = bytearray()
        async for chunk in answer.aiter_raw():
            body += chunk
            if len(body) > ANSWER_LIMIT:
                raise _Failed(f"the answer to {path} is over {ANSWER_LIMIT:,} bytes")
    _log.debug(
        "%s %s → %s in %.0f ms",
        method,
        redact_url(str(answer.url)),
        answer.status_code,
        (time.perf_counter() - started) * 1000,
    )
    return answer.status_code, bytes(body)


# --- reading what was given and what came back ---------------------------------------


def _check_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError when the port is not one
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Failed(f"--url {clean_line(url)}: give the emulator's http:// address", EXIT_USAGE)


def _data(text: str) -> dict[str, Any]:
    """``--data`` as a JSON object that JSON can carry again: no NaN, no infinity."""

    def refuse_constant(name: str) -> None:
        raise ValueError(f"{name} is not a JSON number")

    def finite(literal: str) -> float:
        value = float(literal)
        if math.isinf(value):
            raise ValueError(f"{literal[:20]} is beyond the largest number JSON can carry")
        return value

    try:
        data = json.loads(text, parse_constant=refuse_constant, parse_float=finite)
    except RecursionError:
        raise _Failed("--data is not JSON: it nests too deeply", EXIT_USAGE) from None
    except ValueError as error:
        raise _Failed(f"--data is not JSON: {error}", EXIT_USAGE) from None
    if not isinstance(data, dict):
        raise _Failed("--data must be a JSON object", EXIT_USAGE)
    return data


def _decode(body: bytes, path: str) -> Any:
    decoded = _json(body)
    if decoded is _NOT_JSON:
        raise _Failed(f"the answer to {path} is not JSON: {_shape(body)}")
    return decoded


_NOT_JSON = object()


def _json(body: bytes) -> Any:
    """``body`` decoded, a lone surrogate (``\\ud800``) read as U+FFFD as the API client
    reads one; :data:`_NOT_JSON` when it is no JSON."""
    from ..api.shapes import repair_surrogates

    try:
        return msgspec.json.decode(body)
    except (ValueError, RecursionError):
        repaired = repair_surrogates(body) if b"\\u" in body else None
    try:
        return _NOT_JSON if repaired is None else msgspec.json.decode(repaired)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _reason(status: int, body: bytes) -> str:
    """What a refusal says: its JSON ``message`` when it has one, else its status."""
    decoded = _json(body)
    message = decoded.get("message") if isinstance(decoded, dict) else None
    if isinstance(message, str) and message.strip():
        return f"{message} ({status})"
    return f"status {status}"


def _shape(value: Any) -> str:
    """A short view of what came instead of what was expected."""
    if not isinstance(value, bytes):
        return f"a JSON {json_type(value)}"
    if not value:
        return "an empty body"
    return repr(value[:60].decode("utf-8", "replace")) + ("…" if len(value) > 60 else "")


def _say(failed: _Failed) -> int:
    print(f"tokensales-tui: {clean_line(str(failed))}", file=sys.stderr)
    return failed.code
