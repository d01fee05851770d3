"""The emulator's event catalogue and its deliveries to webhooks.

The interface names no event, payload, signature scheme or retry rule ("not shown"). The
emulator's choice, documented in the README:

- **Events** — raised by the changes it serves: ``webhook.created``, ``webhook.updated``,
  ``webhook.deleted``, ``item.deleted``, ``payout_definition.added``,
  ``collection.created``, ``collection.deleted``; and, for demos, the sale-side events
  ``item.sold``, ``payment.succeeded`` and ``token.minted``, raised on request through the
  admin path ``POST /_emulator/events`` (``tokensales-tui emulator trigger``), which also
  takes any other name made of letters, digits and ``._:-``.
- **Who receives** — every *active* webhook whose ``events`` holds the name (or ``*``).
- **Body** — ``{"id": "evt_…", "type", "time": ISO 8601 UTC, "data": {…}}``.
- **Signature** — Standard Webhooks: ``webhook-id`` (one per event and webhook, the same
  on every retry), ``webhook-timestamp`` (of the attempt), ``webhook-signature: v1,<base64
  HMAC-SHA256>`` with the webhook's secret (the base64 bytes after ``whsec_``, else the
  raw text). A webhook without a secret gets the first two headers only.
- **Retries** — a non-2xx answer, a time-out or a refused connection is retried after 1,
  2 and 4 s: four attempts at most. A redirect is an answer, never followed. An attempt
  has 5 s in all, from connecting to the end of the answer's headers, however slowly the
  receiver trickles them; the body of the answer is never read.
- **Failures** — whatever else fails in a delivery (a URL the HTTP client refuses, a bug
  of ours) is logged as a failed attempt, with its traceback in the app's log
  (``--log``), and ends the delivery: no exception escapes the task that runs it.
- **Only this machine** — deliveries go to loopback addresses only (``127.0.0.0/8``,
  ``::1``, ``localhost`` which is sent to 127.0.0.1 without a look-up) and to hosts given an
  in-process transport (the demo's receiver); any other URL is logged "not delivered: not
  a local address" and never contacted.
- **Log** — each attempt is kept (the last 1,000, and no more than 16 MB of them as JSON)
  and listed by ``GET /_emulator/deliveries`` (``tokensales-tui emulator deliveries``); a
  served emulator also prints one line per attempt.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from ..http_clients import new_client
from ..local import local_target
from ..webhooks.signatures import standard_headers
from .seed import iso_utc

if TYPE_CHECKING:
    import httpx


BACKOFF = (1.0, 2.0, 4.0)
"""Seconds before the second, third and fourth attempt."""
ATTEMPT_TIMEOUT = 5.0
"""Seconds one attempt may take in all: connecting, sending and the answer's headers."""
LOG_LIMIT = 1000
"""Attempts kept in the log."""
LOG_BYTES = 16 * 1024 * 1024
"""Most bytes the kept attempts take as JSON: the oldest go first past it."""
PENDING_LIMIT = 1000
NOT_LOCAL = "not delivered: not a local address"
ONLY_IN_PROCESS = "not delivered: a demo served to a browser delivers only to its own receiver"

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Attempt:
    """One delivery attempt as the log keeps it."""

    time: str
    event_id: str
    event_type: str
    webhook_id: str
    url: str
    attempt: int
    outcome: str
    """The status code, or why there was none."""
    duration_ms: int

    def line(self) -> str:
        """The attempt as one line of text (not yet cleaned)."""
        return (
            f"{self.time} {self.event_type} {self.event_id} → {self.webhook_id}"
            f" {self.url} attempt {self.attempt}: {self.outcome} ({self.duration_ms} ms)"
        )


def demo_data(event_type: str, items: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Plausible data for a sale-side event, about one of ``items``."""
    item = next(iter(items.values()), {}) if items else {}
    item_id = str(item.get("id", "itm_000000000000"))
    buyer = "0x" + secrets.token_hex(20)
    if event_type == "item.sold":
        return {
            "itemId": item_id,
            "title": item.get("title"),
            "price": item.get("price"),
            "currency": item.get("currency"),
            "quantity": 1,
            "buyer": {"wallet": buyer},
        }
    if event_type == "payment.succeeded":
        return {
            "paymentId": "pay_" + secrets.token_hex(6),
            "itemId": item_id,
            "amount": item.get("price"),
            "currency": item.get("currency"),
        }
    if event_type == "token.minted":
        contract = (item.get("contractFunction") or {}).get("contract") or {}
        return {
            "tokenId": str(secrets.randbelow(10_000)),
            "itemId": item_id,
            "contractAddress": contract.get("address"),
            "blockchainId": contract.get("blockchainId"),
            "owner": buyer,
        }
    return {}


class Deliverer:
    """Sends events to the webhooks subscribed to them, and keeps the log of attempts.

    Args:
        clock: the emulator's clock (times in the body, the log and the signature).
        backoff: seconds before each retry; tests shorten it.
        timeout: seconds one attempt may take.
        in_process: transports for hosts served inside this process (the demo's receiver).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        *,
        backoff: Iterable[float] = BACKOFF,
        timeout: float = ATTEMPT_TIMEOUT,
    ) -> None:
        self.clock = clock
        self.backoff = tuple(backoff)
        self.timeout = timeout
        self.log: deque[Attempt] = deque()
        self._log_sizes: deque[int] = deque()
        self._log_bytes = 0
        self.in_process: dict[str, httpx.AsyncBaseTransport] = {}
        self.to_this_machine = True
        """Whether deliveries may go to this machine's loopback addresses. A demo served
        to browsers (``serve --demo``) delivers only in-process: a browser would else
        have the serving machine post to its own local services."""
        self.on_attempt: Callable[[Attempt], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def emit(
        self, event_type: str, data: Mapping[str, Any], webhooks: Iterable[Mapping[str, Any]]
    ) -> dict[str, Any]:
        """Raise an event: deliver it, in the background, to each subscribed active webhook.

        Returns the event with ``webhooks``, the number of deliveries started. Outside a
        running event loop nothing is sent (the emulator's state used directly by a test).
        """
        event = {
            "id": "evt_" + secrets.token_hex(8),
            "type": event_type,
            "time": iso_utc(self.clock()),
            "data": dict(data),
        }
        targets = [w for w in webhooks if _subscribed(w, event_type)]
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return {**event, "webhooks": 0}
        body = msgspec.json.encode(event)
        for webhook in targets:
            if len(self._tasks) >= PENDING_LIMIT:
                self._record(event, webhook, 1, "not delivered: too many deliveries pending", 0)
                continue
            task = loop.create_task(self._deliver(event, webhook, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return {**event, "webhooks": len(targets)}

    async def idle(self) -> None:
        """Wait until every delivery started so far has ended (for tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def entries(self) -> list[dict[str, Any]]:
        """The log, oldest first, as JSON objects."""
        return [asdict(attempt) for attempt in self.log]

    async def _deliver(
        self, event: dict[str, Any], webhook: Mapping[str, Any], body: bytes
    ) -> None:
        """Deliver ``event`` to ``webhook``, attempt after attempt, logging each; never raises."""

        number = 1
        try:
            url = str(webhook.get("url", ""))
            host = (urlsplit(url).hostname or "").lower() if "://" in url else ""
            transport = self.in_process.get(host)
            if transport is not None:
                target: str | None = url
            elif not self.to_this_machine:
                self._record(event, webhook, 1, ONLY_IN_PROCESS, 0)
                return
            else:
                target = local_target(url)
            if target is None:
                self._record(event, webhook, 1, NOT_LOCAL, 0)
                return
            msg_id = "msg_" + secrets.token_hex(8)
            delays = (0.0, *self.backoff)
            async with new_client(transport=transport, timeout=self.timeout) as client:
                for number, delay in enumerate(delays, start=1):
                    if delay:
                        await asyncio.sleep(delay)
                    started = time.monotonic()
                    outcome, again = await self._attempt(client, target, webhook, msg_id, body)
                    elapsed = int((time.monotonic() - started) * 1000)
                    self._record(event, webhook, number, outcome, elapsed)
                    if not again:
                        return
        except Exception as error:  # a bug of ours: the delivery ends, logged
            _log.warning("delivering %s to %s", event.get("id"), webhook.get("id"), exc_info=True)
            self._record(event, webhook, number, f"failed: {type(error).__name__}", 0)

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        target: str,
        webhook: Mapping[str, Any],
        msg_id: str,
        body: bytes,
    ) -> tuple[str, bool]:
        """One attempt within :attr:`timeout` in all: its outcome, and whether to try again.

        Only the status is read: the answer's body, of any size, is left unread.
        """
        import httpx

        try:
            async with asyncio.timeout(self.timeout):
                headers = {"content-type": "application/json", "user-agent": "tokensales-emulator"}
                now = int(self.clock())
                secret = webhook.get("secret")
                if isinstance(secret, str) and secret:
                    headers.update(standard_headers(secret, msg_id, now, body))
                else:
                    headers.update({"webhook-id": msg_id, "webhook-timestamp": str(now)})
                request = client.build_request("POST", target, content=body, headers=headers)
                response = await client.send(request, stream=True)
                await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            return "timed out", True
        except httpx.HTTPError as error:
            return f"failed: {type(error).__name__}", True
        except Exception as error:  # a URL httpx refuses, a bug: the same again would fail
            _log.warning("delivery attempt to %s", webhook.get("id"), exc_info=True)
            return f"failed: {type(error).__name__}", False
        return str(response.status_code), not 200 <= response.status_code < 300

    def _record(
        self,
        event: Mapping[str, Any],
        webhook: Mapping[str, Any],
        number: int,
        outcome: str,
        duration_ms: int,
    ) -> None:
        attempt = Attempt(
            time=iso_utc(self.clock()),
            event_id=str(event["id"]),
            event_type=str(event["type"]),
            webhook_id=str(webhook.get("id", "")),
            url=str(webhook.get("url", "")),
            attempt=number,
            outcome=outcome,
            duration_ms=duration_ms,
        )
        size = len(msgspec.json.encode(asdict(attempt)))
        self.log.append(attempt)
        self._log_sizes.append(size)
        self._log_bytes += size
        while len(self.log) > LOG_LIMIT or (self._log_bytes > LOG_BYTES and len(self.log) > 1):
            self.log.popleft()
            self._log_bytes -= self._log_sizes.popleft()
        if self.on_attempt is not None:
            try:
                self.on_attempt(attempt)
            except Exception:  # a printer whose reader went away: the log still has it
                _log.warning("reporting a delivery attempt", exc_info=True)


def _subscribed(webhook: Mapping[str, Any], event_type: str) -> bool:
    events = webhook.get("events")
    if webhook.get("isActive") is not True or not isinstance(events, list):
        return False
    return event_type in events or "*" in events
