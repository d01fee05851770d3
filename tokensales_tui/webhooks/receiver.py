"""Receiving webhook deliveries: judge each, keep the last few, forward, replay, save.

A :class:`Receiver` is an ASGI app. Each POST (or PUT, PATCH) to any path is a delivery:
its signature is judged (:mod:`.signatures`), it is kept (a bounded number, the oldest
dropped; of those cut short, the last :data:`KEEP_CUT_SHORT` only, so that a flood of
bodies that never came whole cannot push out, nor out of view, those that did), appended to the ``save`` file as a JSON line,
and relayed — body and headers as received — to the URL its event type is routed to, else
to the forward URL. The sender gets the relay's status (502 when the relay failed), or 200
when nothing is relayed; a body over the cap gets 413 and is kept without its body. Only a delivery whose body came
whole is relayed or replayed. Relays go to this machine only (see
:func:`.local.local_target`). Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import socket
import stat
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..clean import clean_line
from ..connections import (
    ACCEPTS_A_TURN,
    LISTEN_BACKLOG,
    REQUEST_WAIT,
    Closing,
    ConnectionGuard,
    accept_errors_throttled,
    connection_limit,
)
from ..debug_log import foreign_logs_to, route_server_logs
from ..digits import ascii_int
from ..files import NotRegular, check_regular
from ..http_clients import new_client
from ..local import bind, local_target
from ..web_urls import UnclearAddress, split_web_url
from .headers import Headers, Latin1Text, header_bytes, header_text
from .listen_flags import BODY_LIMIT, KEEP
from .signatures import DEFAULT_TOLERANCE, SeenIds, Verdict, resign, verify

if TYPE_CHECKING:
    import httpx

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

log = logging.getLogger("tokensales_tui.webhooks")

CLOSING_STATE = "tokensales_tui.closing"
"""The key of a request's ``scope["state"]`` that holds its connection's
:class:`~tokensales_tui.connections.Closing` (set by :class:`ReceiverServer`)."""

KEEP_CUT_SHORT = 10
"""Deliveries cut short kept at most, the newest: a flood of stalled bodies fills less than
a screen, so the deliveries that came whole around it stay in view (every one is still
counted, printed and saved)."""

RELAY_DEADLINE = 10.0
"""Longest a relay or a replay takes in all, from connecting to the target's status line
and headers (its body is not read): a target that answers a byte at a time is cut off."""
_HOP_BY_HOP = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",
    }
)
_TYPE_KEYS = ("type", "event", "eventType", "event_type")
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}
)
"""Headers whose values are credentials: relayed as received, shown and saved masked."""
MASK = "********"


def shown_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` with the values of credential headers masked."""
    return [(k, MASK if k.lower() in SENSITIVE_HEADERS else v) for k, v in headers]


_TYPE_HEADERS = ("x-github-event", "x-event-type", "x-event-name")


@dataclass
class Relay:
    """The outcome of relaying a delivery: where, the status or why none, how long."""

    target: str
    status: int | None = None
    error: str | None = None
    latency_ms: int = 0
    resigned: bool = False
    timed_out: bool = False

    @property
    def for_sender(self) -> int:
        """The status a relayed delivery's sender gets: the target's, else 504 or 502."""
        if self.status is not None:
            return self.status
        return 504 if self.timed_out else 502

    @property
    def pending(self) -> bool:
        """Whether it is still on its way: no status and no error yet."""
        return self.status is None and self.error is None

    def label(self) -> str:
        """``200 (12 ms)``, or the reason there was no status."""
        if self.status is not None:
            return f"{self.status} ({self.latency_ms} ms)"
        return self.error or "…"


@dataclass(eq=False)
class Delivery:
    """One delivery as received (equal to itself only)."""

    number: int
    received: float
    """Wall-clock time of arrival."""
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes
    size: int
    verdict: Verdict
    event_type: str | None
    too_large: bool = False
    cut_short: bool = False
    """Whether less of the body came than was sent (its connection closed first, by the
    sender or by listen): not judged."""
    closed_by_listen: str | None = None
    """Why listen closed the connection of a delivery cut short (its
    :class:`~tokensales_tui.connections.Closing`); None when the sender closed it."""
    whole: bool = True
    """Whether ``body`` is all that was sent: not when over the cap, cut short, or when
    listen failed before it had read it all."""
    relay: Relay | None = None
    replays: list[Relay] = field(default_factory=list)
    done: bool = False
    """Whether its relay (if any) has ended and the sender was answered."""
    problem: str | None = None
    """What failed in listen itself while it was handled (logged with the details)."""

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (any case), as :mod:`.headers` reads one."""
        return Headers(self.headers).first(name)

    def to_json(self) -> dict[str, Any]:
        """The delivery as a JSON object for ``--save`` (the body as text, else base64)."""
        record: dict[str, Any] = {
            "number": self.number,
            "received": self.received,
            "method": self.method,
            "path": self.path,
            "type": self.event_type,
            "size": self.size,
            "headers": [[k, v] for k, v in shown_headers(self.headers)],
            "verdict": {
                "status": self.verdict.status,
                "scheme": self.verdict.scheme,
                "reason": self.verdict.reason,
                "repeated": self.verdict.repeated,
            },
        }
        try:
            record["body"] = self.body.decode("utf-8")
        except UnicodeDecodeError:
            record["body_base64"] = base64.b64encode(self.body).decode("ascii")
        if self.verdict.repeat_unknown:
            record["verdict"]["repeat_unknown"] = True
        if self.cut_short:
            record["cut_short"] = True
        if self.closed_by_listen is not None:
            record["closed_by_listen"] = self.closed_by_listen
        latin1 = [index for index, (_, v) in enumerate(self.headers) if isinstance(v, Latin1Text)]
        if latin1:  # the values that were not UTF-8, read as Latin-1 (a character a byte)
            record["latin1_headers"] = latin1
        if self.problem is not None:
            record["problem"] = self.problem
        if self.relay is not None:
            record["relay"] = {
                "target": self.relay.target,
                "status": self.relay.status,
                "error": self.relay.error,
                "latency_ms": self.relay.latency_ms,
            }
        return record

    def line(self) -> str:
        """One line for ``--print`` (not yet cleaned): time, type, size, verdict, relay."""
        moment = time.strftime("%H:%M:%S", time.localtime(self.received))
        relay = f"→ {self.relay.target} {self.relay.label()}" if self.relay else "not relayed"
        problem = f" ({self.problem})" if self.problem and self.verdict.status != "error" else ""
        return (
            f"{moment} #{self.number} {self.event_type or '(no type)'} {self.size} B"
            f" {self.verdict.label()} {relay}{problem}"
        )


def event_type_of(
    headers: Headers | Mapping[str, str] | Iterable[tuple[str, str]], body: bytes
) -> str | None:
    """The event type a delivery names: a header (its first value), or a top-level field
    of its JSON."""
    given = Headers.of(headers)
    for name in _TYPE_HEADERS:
        if value := given.first(name):
            return value
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(document, dict):
        for key in _TYPE_KEYS:
            if isinstance(document.get(key), str):
                return str(document[key])
    return None


class _RelayRefused(Exception):
    """A relay not attempted; the message says why."""


class TargetError(ValueError):
    """A relay address that is not on this machine."""


def check_target(url: str) -> str:
    """``url`` when it is http(s) on this machine; else :class:`TargetError`."""
    try:
        split_web_url(url)
    except UnclearAddress as error:  # said apart: "not this machine" would not say why
        raise TargetError(f"{url}: {error}") from None
    if local_target(url) is None:
        raise TargetError(
            f"{url}: relays go to this machine only (http(s) to localhost, 127.0.0.1 or ::1)"
        )
    return url


class Receiver:
    """Receives, judges, keeps and relays deliveries (an ASGI app).

    Args:
        secret: the webhook's secret, to check signatures and sign replays; None to skip.
        forward_to: where every delivery is relayed when no route matches.
        routes: event type → URL.
        tolerance: seconds a signed timestamp may be off.
        body_limit: largest body kept; a larger one is answered 413.
        keep: deliveries kept (past it, the oldest cut short goes first, else the oldest;
            of those cut short, the last :data:`KEEP_CUT_SHORT` at most).
        relay_deadline: seconds a relay or a replay may take in all.
        save: a file that receives one JSON line per delivery (created 0600, appended).
        on_change: called with each delivery when it arrives and when its relay ends.
        transport: how relays travel (tests); None for the network.
    """

    def __init__(
        self,
        *,
        secret: str | None = None,
        forward_to: str | None = None,
        routes: Mapping[str, str] | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
        body_limit: int = BODY_LIMIT,
        keep: int = KEEP,
        save: str | None = None,
        on_change: Callable[[Delivery], None] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        relay_deadline: float = RELAY_DEADLINE,
    ) -> None:
        self.secret = secret
        self.forward_to = check_target(forward_to) if forward_to else None
        self.routes = {name: check_target(url) for name, url in (routes or {}).items()}
        self.tolerance = tolerance
        self.body_limit = body_limit
        self.keep = max(1, keep)
        self._kept: OrderedDict[int, Delivery] = OrderedDict()
        self._kept_cut_short: deque[int] = deque()
        """The numbers of the kept deliveries cut short, oldest first: those go first."""
        self.count = 0
        self.cut_short = 0
        """How many deliveries were cut short (their connection closed first)."""
        self.closed_by_listen = 0
        """How many of those were cut short by listen (see :attr:`Delivery.closed_by_listen`)."""
        self.on_change = on_change
        self.clock = clock
        self.relay_deadline = relay_deadline
        self._seen = SeenIds(keep=2 * tolerance)
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._save_fd = _open_append(save) if save else None

    @property
    def deliveries(self) -> list[Delivery]:
        """The deliveries kept, oldest first (a copy)."""
        return list(self._kept.values())

    @property
    def cut_short_kept(self) -> int:
        """How many of the deliveries kept were cut short."""
        return len(self._kept_cut_short)

    def target_for(self, event_type: str | None) -> str | None:
        """Where a delivery of ``event_type`` is relayed, if anywhere."""
        if event_type is not None and event_type in self.routes:
            return self.routes[event_type]
        return self.forward_to

    @property
    def has_target(self) -> bool:
        """Whether any delivery can be relayed or replayed: a target was given."""
        return bool(self.forward_to or self.routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one request; no exception ever leaves (uvicorn would print it).

        A fault of ours while a delivery is handled is logged with its traceback, the
        delivery is kept with what went wrong (verdict ``error`` when it could not be
        judged), and the sender is answered 500 if it was not answered yet.
        """
        if scope["type"] != "http":
            return
        handling = _Handling(send)
        try:
            await self._handle(scope, receive, handling)
        except Exception as error:
            self._failed(scope, handling, error)
            if not handling.answered:
                try:
                    await handling.answer(500)
                except Exception:
                    log.exception("listen: could not answer a delivery that failed")

    async def _handle(self, scope: Scope, receive: Receive, handling: _Handling) -> None:
        method = str(scope["method"])
        if method not in ("POST", "PUT", "PATCH"):
            await handling.answer(
                200 if method in ("GET", "HEAD") else 405, b"tokensales-tui listen\n"
            )
            return
        headers = [(k.decode("latin-1"), header_text(v)) for k, v in scope["headers"]]
        handling.headers = headers
        handling.stage = "reading it"
        given = Headers(headers)
        announced = ascii_int(given.first("content-length") or "", 20)
        closing: Closing | None = scope.get("state", {}).get(CLOSING_STATE)
        body, size, not_whole, closed_by_listen = await self._read(receive, announced, closing)
        handling.body, handling.size, handling.whole = body, size, not_whole is None
        handling.stage = "judging it"
        too_large = size > self.body_limit
        if not_whole is not None:
            # Only a body that came whole is judged, relayed or remembered by its id: a
            # part could be judged invalid, and its id would make the sender's retry of
            # the whole delivery look like a repeat.
            verdict = Verdict("invalid", None, not_whole)
            event_type = given.first("x-github-event")
        else:
            verdict = verify(
                given,
                body,
                self.secret,
                now=self.clock(),
                tolerance=self.tolerance,
                seen=self._seen,
            )
            event_type = event_type_of(given, body)
        delivery = self._keep(
            Delivery(
                self.count + 1,
                self.clock(),
                method,
                _path_of(scope),
                headers,
                body,
                size,
                verdict,
                event_type,
                too_large,
                cut_short=not_whole is not None and not too_large,
                whole=not_whole is None,
                closed_by_listen=closed_by_listen,
            ),
            handling,
        )
        target = None if not_whole else self.target_for(event_type)
        if target is not None:
            delivery.relay = Relay(target)
        handling.stage = "showing it"
        self._changed(delivery)
        status = 413 if too_large else 400 if delivery.cut_short else 200
        if delivery.relay is not None:
            handling.stage = "relaying it"
            relay = await self.relay(delivery, delivery.relay.target, outcome=delivery.relay)
            status = relay.for_sender
        handling.stage = "saving it"
        handling.saved = True  # a save that fails is not tried again
        self._save(delivery)
        delivery.done = True
        handling.stage = "showing it"
        self._changed(delivery)
        await handling.answer(status)

    def _keep(self, delivery: Delivery, handling: _Handling) -> Delivery:
        """Keep ``delivery``; past :data:`KEEP_CUT_SHORT` cut short, or past :attr:`keep`,
        drop the oldest cut short other than it, else the oldest: a flood of bodies that
        never came whole pushes out its own kind (as the connections' guard does), and the
        newest is always shown."""
        self.count += 1
        self._kept[delivery.number] = delivery
        if delivery.cut_short:
            self.cut_short += 1
            self.closed_by_listen += delivery.closed_by_listen is not None
            self._kept_cut_short.append(delivery.number)
        if len(self._kept_cut_short) > KEEP_CUT_SHORT or len(self._kept) > self.keep:
            if self._kept_cut_short and self._kept_cut_short[0] != delivery.number:
                del self._kept[self._kept_cut_short.popleft()]
            else:  # none cut short is kept but the newest: the oldest is not one
                self._kept.popitem(last=False)
        handling.delivery = delivery
        return delivery

    def _failed(self, scope: Scope, handling: _Handling, error: Exception) -> None:
        """Keep, save and show a delivery whose handling failed; log why. Never raises."""
        what = f"{type(error).__name__} while {handling.stage}"
        try:
            log.error("listen: a delivery failed: %s", what, exc_info=error)
            detail = str(error)[:120]
            what += f" ({detail})" if detail else ""
            delivery = handling.delivery
            if delivery is None:
                if handling.headers is None:  # not a delivery yet: nothing to keep
                    return
                delivery = self._keep(
                    Delivery(
                        self.count + 1,
                        time.time(),
                        str(scope.get("method", "")),
                        _path_of(scope),
                        handling.headers,
                        handling.body,
                        handling.size,
                        Verdict("error", None, f"listen failed, not judged: {what}"),
                        None,
                        whole=handling.whole,
                    ),
                    handling,
                )
            delivery.problem = f"listen failed: {what}"
            if delivery.relay is not None and delivery.relay.pending:
                delivery.relay.error = "not relayed"
            delivery.done = True
        except Exception:
            log.exception("listen: could not keep a delivery that failed")
            return
        if not handling.saved:
            handling.saved = True
            try:
                self._save(delivery)
            except Exception:
                log.exception("listen: could not save a delivery that failed")
        try:
            self._changed(delivery)
        except Exception:
            log.exception("listen: could not show a delivery that failed")

    async def relay(
        self,
        delivery: Delivery,
        target: str,
        headers: list[tuple[str, str]] | None = None,
        *,
        outcome: Relay | None = None,
    ) -> Relay:
        """Send ``delivery`` to ``target`` with its headers (or ``headers``).

        It takes at most :attr:`relay_deadline` seconds in all and never raises. The
        outcome is filled into ``outcome`` (a pending :class:`Relay` already shown), or
        into a new one, and returned; a relay stopped midway (cancelled) is marked so.
        """
        import httpx

        outcome = outcome if outcome is not None else Relay(target)
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.relay_deadline):
                outcome.status = await self._send(delivery, target, headers)
        except (TimeoutError, httpx.TimeoutException):
            outcome.timed_out = True
            outcome.error = f"timed out: no answer within {self.relay_deadline:g} s"
        except _RelayRefused as refused:
            outcome.error = str(refused)
        except (httpx.HTTPError, ValueError, OSError) as error:
            outcome.error = f"failed: {type(error).__name__}"
        except asyncio.CancelledError:
            outcome.error = "stopped before an answer came"
            raise
        except Exception as error:  # a fault of ours: said, logged, never raised
            log.error("listen: relaying #%s failed", delivery.number, exc_info=error)
            outcome.error = f"failed in listen: {type(error).__name__}"
        finally:
            outcome.latency_ms = int((time.monotonic() - started) * 1000)
        return outcome

    async def _send(
        self, delivery: Delivery, target: str, headers: list[tuple[str, str]] | None
    ) -> int:
        """The status ``target`` answers ``delivery`` with; its body is not read."""
        import httpx

        url = local_target(target)
        if url is None:
            raise _RelayRefused("not relayed: not a local address")
        if self._client is None:
            self._client = new_client(
                transport=self._transport,
                timeout=self.relay_deadline,
                limits=httpx.Limits(max_connections=RELAY_CONNECTIONS),
            )
        # Bytes, as received: a header value outside ASCII is relayed, not refused.
        sent = [
            (k.encode("latin-1", "replace"), header_bytes(v))
            for k, v in (headers or delivery.headers)
            if k.lower() not in _HOP_BY_HOP
        ]
        request = self._client.build_request(
            delivery.method, url, content=delivery.body, headers=sent
        )
        answer = await self._client.send(request, stream=True)
        await answer.aclose()
        return answer.status_code

    def replay_refusal(self, delivery: Delivery) -> str | None:
        """Why ``delivery`` cannot be replayed, in one line; None when it can.

        Only a body that came whole is sent again: a part, or none, would go out under the
        original signature and ``webhook-id`` as if it were the delivery. And there must be
        a target.
        """
        if delivery.too_large:
            return f"body over the {self.body_limit:,} byte limit, not kept"
        if delivery.cut_short:
            by = f" by listen ({delivery.closed_by_listen})" if delivery.closed_by_listen else ""
            return f"cut short{by}, only {delivery.size:,} bytes came"
        if not delivery.whole:
            return "listen failed before reading its body"
        if self.target_for(delivery.event_type) is None:
            if not self.has_target:
                return "no target: listen was started without --forward-to or --route"
            kind = clean_line(delivery.event_type or "(no type)")
            return f"no --route for {kind} and no --forward-to: quit and start listen with one"
        return None

    async def replay(self, delivery: Delivery) -> Relay:
        """Send a kept delivery again to its target, signed anew when the secret is known.

        The replay is listed (pending) at once, and ends within :attr:`relay_deadline`. One
        that :meth:`replay_refusal` refuses is not sent nor listed: the outcome says why.
        """
        target = self.target_for(delivery.event_type)
        refused = self.replay_refusal(delivery)
        if refused is not None or target is None:
            return Relay(target or "", error=refused)
        outcome = Relay(target)
        delivery.replays.append(outcome)
        self._changed(delivery)
        try:
            headers, outcome.resigned = resign(
                delivery.headers,
                delivery.body,
                self.secret,
                delivery.verdict,
                now=int(self.clock()),
            )
        except Exception as error:  # a fault of ours: said, logged, never raised
            log.error("listen: signing #%s again failed", delivery.number, exc_info=error)
            outcome.error = f"failed in listen: {type(error).__name__}"
        else:
            try:
                await self.relay(delivery, target, headers, outcome=outcome)
            finally:
                self._changed(delivery)
        return outcome

    async def close(self) -> None:
        """Close the relay client and the save file."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._save_fd is not None:
            os.close(self._save_fd)
            self._save_fd = None

    async def _read(
        self, receive: Receive, announced: int | None, closing: Closing | None = None
    ) -> tuple[bytes, int, str | None, str | None]:
        """The body, how many bytes of it came, why it is not whole (None if it is), and
        why listen closed its connection first (None if it did not).

        A body is whole when its last part came (``more_body`` false) and it is as long as
        its ``Content-Length`` said. One over the cap is not read further nor kept; one
        whose connection closed first is kept as far as it came, and said closed by listen
        when its connection's ``closing`` says why, else by the sender.
        """
        chunks: list[bytes] = []
        size = 0
        ended = False
        while not ended:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.body_limit:  # answered 413 at once: the rest is never read
                return b"", size, f"body over the {self.body_limit:,} byte limit: not kept", None
            chunks.append(chunk)
            ended = not message.get("more_body", False)
        body = b"".join(chunks)
        if ended and announced in (None, size):
            return body, size, None, None
        came = f"{size:,} bytes" + (f" of {announced:,}" if announced is not None else "")
        by_listen = None if ended or closing is None else closing.why
        if by_listen is not None:
            said = f"listen closed the connection: {by_listen}; {came} came, not judged or relayed"
            return body, size, said, by_listen
        closed = "" if ended else " before the sender closed the connection"
        return body, size, f"cut short: {came} came{closed}; not judged or relayed", None

    def _changed(self, delivery: Delivery) -> None:
        if self.on_change is not None:
            self.on_change(delivery)

    def _save(self, delivery: Delivery) -> None:
        if self._save_fd is None:
            return
        line = json.dumps(delivery.to_json(), ensure_ascii=True) + "\n"
        os.write(self._save_fd, line.encode("ascii"))


@dataclass
class _Handling:
    """How far the handling of one request got: what the guard needs to finish it."""

    send: Send
    stage: str = "reading it"
    headers: list[tuple[str, str]] | None = None
    body: bytes = b""
    size: int = 0
    whole: bool = False
    """Whether ``body`` is all that was sent (known once it has been read)."""
    delivery: Delivery | None = None
    saved: bool = False
    answered: bool = False

    async def answer(self, status: int, body: bytes = b"") -> None:
        """Answer the sender (once)."""
        self.answered = True
        await _answer(self.send, status, body)


def _path_of(scope: Scope) -> str:
    path = str(scope.get("path", "/"))
    query = scope.get("query_string", b"")
    return path + "?" + query.decode("latin-1") if query else path


def _open_append(path: str) -> int:
    """A file descriptor appending to ``path``: created 0600, never through a link.

    Raises:
        files.NotRegular: ``path`` is a FIFO, a device, a folder or a socket, looked at
            before it is opened (opening a FIFO without a reader failed as "No such
            device or address", and waited for one with ``O_NONBLOCK`` gone).
        OSError: It cannot be opened.
    """
    check_regular(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # put in its place meanwhile
            raise NotRegular("not a regular file")
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


async def _answer(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


RELAY_CONNECTIONS = 64
"""Most connections relays keep open at once: file descriptors kept for them."""

SERVER_LOG = "tokensales_tui.webhooks.server"
"""Where what the server under listen logs goes (the ``--log`` file only)."""

FOREIGN_LOGGERS = ("asyncio",)
"""Loggers of the libraries under the server, besides uvicorn's, sent to the ``--log`` file."""


class ReceiverServer:
    """A :class:`Receiver` served by uvicorn on ``host``:``port`` (0 picks a free port).

    The socket is bound on construction, so :attr:`url` is known at once. It installs no
    signal handler: the caller decides what ctrl+c and SIGTERM do. Nothing it logs reaches
    the terminal, where a screen may be drawn: uvicorn's and asyncio's loggers are handed to
    the app's own (:func:`~tokensales_tui.debug_log.route_server_logs`,
    :func:`~tokensales_tui.debug_log.foreign_logs_to`), which writes only to the ``--log``
    file, at most one record of a kind a second.

    Its connections are those of :class:`~tokensales_tui.connections.ConnectionGuard`: each
    has ``request_wait`` seconds for a complete request (more for a large body coming at a
    fair rate), at most ``max_connections`` are open (the oldest not at work closed for a
    new one), and a failed ``accept()`` is retried a second later, logged once a second.
    """

    def __init__(
        self,
        receiver: Receiver,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        request_wait: float = REQUEST_WAIT,
        max_connections: int | None = None,
    ) -> None:
        import uvicorn
        from uvicorn.config import HTTP_PROTOCOLS
        from uvicorn.importer import import_from_string

        self.receiver = receiver
        self._socket, self.url = bind(host, port)
        self.connections = ConnectionGuard(
            limit=max_connections or connection_limit(RELAY_CONNECTIONS),
            log=logging.getLogger(SERVER_LOG),
            request_wait=request_wait,
            body_limit=receiver.body_limit,
        )
        http = import_from_string(HTTP_PROTOCOLS["auto"])
        config = uvicorn.Config(
            self._served,
            interface="asgi3",
            # Called as the protocol's class would be, for each connection: it is guarded,
            # and each request's scope["state"] holds its connection's Closing.
            http=lambda **given: self.connections.wrap(  # type: ignore[arg-type]
                lambda closing: http(
                    **{**given, "app_state": {**given["app_state"], CLOSING_STATE: closing}}
                )
            ),
            proxy_headers=False,  # the client is the connection's other end, never a header
            log_config=None,  # uvicorn's own would write to stderr
            log_level="warning",
            lifespan="off",
            ws="none",  # a delivery is never a websocket: an upgrade is read as plain HTTP
            timeout_graceful_shutdown=1,
            access_log=False,
            backlog=ACCEPTS_A_TURN,  # the system's queue is set once it serves
        )
        route_server_logs(SERVER_LOG)
        self._server = _quiet_server(config)
        self._task: asyncio.Task[None] | None = None
        self._logs = contextlib.ExitStack()

    @property
    def socket(self) -> socket.socket:
        """The listening socket."""
        return self._socket

    async def _served(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The receiver, its connection at work from the last byte of a request's body
        until the request is answered; then its time for the next request starts."""
        work = contextlib.ExitStack()
        begun = False

        def whole() -> None:
            nonlocal begun
            if not begun:
                begun = True
                work.enter_context(self.connections.at_work(scope.get("client")))

        async def read() -> MutableMapping[str, Any]:
            message = await receive()
            if not message.get("more_body", False):  # the last part, or the sender gone
                whole()
            return message

        with work:
            try:
                await self.receiver(scope, read, send)
            finally:
                whole()  # answered: a request without a body too

    async def start(self) -> None:
        """Start serving in the running loop; returns once it accepts (at most 20 s)."""
        loop = asyncio.get_running_loop()
        self._logs.enter_context(foreign_logs_to(SERVER_LOG, FOREIGN_LOGGERS))
        self._logs.enter_context(accept_errors_throttled(loop, logging.getLogger(SERVER_LOG)))
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]))
        try:
            async with asyncio.timeout(20):
                while not self._server.started:
                    if self._task.done():
                        await self._task
                        raise OSError("the receiver stopped at start")
                    await asyncio.sleep(0.01)
        except BaseException:
            self._logs.close()
            raise
        self._socket.listen(LISTEN_BACKLOG)  # uvicorn set one connection a turn, and this

    async def stop(self) -> None:
        """Stop serving, close relays and the save file (at most a few seconds)."""
        self._server.should_exit = True
        try:
            if self._task is not None:
                try:
                    async with asyncio.timeout(5):
                        await self._task
                except TimeoutError:
                    self._task.cancel()
            self._socket.close()
            await self.receiver.close()
        finally:
            self._logs.close()


def _quiet_server(config: Any) -> Any:
    """A uvicorn server without its own signal handlers (the caller owns ctrl+c)."""
    import contextlib

    import uvicorn

    class QuietServer(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

    return QuietServer(config)
