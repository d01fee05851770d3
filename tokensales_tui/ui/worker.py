"""The one background worker that owns the API client, and so the token and its refresh.

Widgets never see httpx: they ``await app.api.call(ApiClient.list_items)`` (or any
function of the client) and get the typed result or a typed :class:`ApiError`.
Calls run concurrently inside the worker, so a slow endpoint never delays another.
Switching profile stops the worker (closing its connections) and starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message
from textual.worker import Worker

from ..api import ApiClient, ApiError, Connection, RetryNotice
from ..api.auth import TokenState
from ..api.endpoints import Endpoint
from ..api.listing import StreamedList
from ..api.transport import noting_changes
from ..clean import clean_line
from .cancelling import wait_for_worker
from .in_flight import InFlight, QuittingError, Write
from .turns import keys_drawn

if TYPE_CHECKING:
    import httpx
    from textual.app import App

log = logging.getLogger(__name__)

T = TypeVar("T")
Operation = Callable[[ApiClient], Awaitable[T]]


class ApiRetrying(Message):
    """The client waits before trying a call again (shown as a countdown)."""

    def __init__(self, notice: RetryNotice, worker: ApiWorker) -> None:
        super().__init__()
        self.notice = notice
        self.worker = worker
        """The session's worker whose call waits (an ended one's is not shown)."""


class SessionEndedError(ApiError):
    """A call on the worker of a session that was replaced (a profile switch)."""


class ApiWorker:
    """Runs the API client in a long-lived Textual worker and serves calls to it.

    Args:
        app: the app whose worker manager runs the worker and receives its messages.
        connection: addresses and credentials.
        transport: optional httpx transport (the demo passes the in-process emulator).
        changes: told of each call that sends a change to the service, from its first
            such request to the call's end, but a call its caller follows already (see
            :meth:`call` and :mod:`.in_flight`).
    """

    def __init__(
        self,
        app: App[Any],
        connection: Connection,
        transport: httpx.AsyncBaseTransport | None = None,
        changes: InFlight | None = None,
    ) -> None:
        self._app = app
        self._changes = changes
        self.connection = connection
        self._transport = transport
        self._queue: asyncio.Queue[tuple[Operation[Any], asyncio.Future[Any]]] = asyncio.Queue()
        self._what: dict[asyncio.Future[Any], str] = {}
        """What each call asked with a name of it is, for :attr:`changes`."""
        self._followed: set[asyncio.Future[Any]] = set()
        """The calls whose change their caller has followed already (see :meth:`call`)."""
        self._client: ApiClient | None = None
        self._worker: Worker[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._shared: dict[object, _SharedCall] = {}
        self._running: dict[asyncio.Future[Any], asyncio.Task[None]] = {}  # call → request
        self._ended = False
        self._row_watchers: dict[str, Callable[[StreamedList], None]] = {}

    def start(self) -> None:
        """Start the worker (idempotent; never again once stopped)."""
        if self._worker is None and not self._ended:
            # The function, not a coroutine: one made for a worker stopped before it
            # ran would never be awaited (Python warns of it).
            self._worker = self._app.run_worker(
                self._serve, name="api", group="api", exit_on_error=False
            )

    async def stop(self) -> None:
        """Stop the worker for good, cancelling calls in flight, and close the connections.

        A call made afterwards (by a screen of the session that ended) is refused: it
        must never reach the server of a session the person has left.
        """
        self._ended = True
        worker, self._worker = self._worker, None
        try:
            if worker is not None:
                worker.cancel()
                # The caller's own cancellation (another switch) goes on from here: it
                # must not start this session's successor.
                with contextlib.suppress(Exception):
                    await wait_for_worker(worker)
        finally:
            self._refuse_queued()

    def _refuse_queued(self) -> None:
        """Answer every call still queued (the session ended before the worker took it,
        while its client was being built, say): none waits for an answer that never comes."""
        while not self._queue.empty():
            _operation, future = self._queue.get_nowait()
            if not future.done():
                future.set_exception(
                    SessionEndedError(
                        "this profile's session ended before the call was sent: nothing was sent",
                        hint="the app now shows another profile",
                    )
                )

    @property
    def token_state(self) -> TokenState:
        """The token's state, for the header."""
        if self._client is None:
            return TokenState("none")
        return self._client.token_state

    def secrets_in_use(self) -> list[str]:
        """The current token's value, for redacting crash reports; empty when there is none."""
        token = self._client.tokens.current if self._client is not None else None
        return [token.reveal()] if token is not None else []

    async def call(
        self,
        operation: Operation[T],
        *,
        shared: bool = False,
        what: str | None = None,
        followed: bool = False,
    ) -> T:
        """Run ``operation(client)`` in the worker and return its result.

        ``what``: the call in a person's words ("New webhook"), said with its request
        when the app quits before a change it sent has ended. ``followed``: the caller
        has the change followed as one under way already (a payout definition's add
        into its record), and keeps it under way for as long as this call's request
        may be out: none is added for the call. Neither counts with ``shared`` (a read).

        With ``shared``, callers asking for the same operation while it is in flight
        share one request (the Items and Payouts tabs both list items at start-up).
        Cancelling the caller cancels the call; a shared one once no caller waits for
        it any more, and a caller that asks after that sends a new one (see
        :class:`_SharedCall`).
        """
        if self._ended:
            raise SessionEndedError(
                "this profile's session has ended: nothing was sent",
                hint="the app now shows another profile",
            )
        self.start()
        if shared:
            return await self._call_shared(operation)
        own: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        if what is not None:
            self._what[own] = what
            own.add_done_callback(self._what.pop)
        if followed:
            self._followed.add(own)
            own.add_done_callback(self._followed.discard)
        self._queue.put_nowait((operation, own))
        return await own

    async def _call_shared(self, operation: Operation[T]) -> T:
        call = self._shared.get(operation)
        if call is not None and not call.wanted():
            # Every caller has given up on it (a cancelled load), even if the news has
            # not reached it yet: a caller asking now wants the list anew, not the end
            # of a request on its way out.
            self._end_call(call)
        if call is None or call.future.done():
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            call = self._shared[operation] = _SharedCall(future)
            future.add_done_callback(partial(self._forget_shared, operation, call))
            self._queue.put_nowait((operation, future))
        task = asyncio.current_task()
        if task is not None:
            call.waiters.add(task)
        try:
            result: T = await asyncio.shield(call.future)
        finally:
            if task is not None:
                call.waiters.discard(task)
            if not call.wanted():
                self._end_call(call)
        return result

    def _forget_shared(
        self, operation: object, call: _SharedCall, future: asyncio.Future[Any]
    ) -> None:
        if self._shared.get(operation) is call:
            del self._shared[operation]
        if not future.cancelled():
            future.exception()  # retrieved: every caller that still waits gets it anyway

    def _end_call(self, call: _SharedCall) -> None:
        """Let no one join ``call`` again and cancel it, and its request at once if it
        runs: no more of its body is read, nor shown to a watcher of its rows."""
        self._shared = {key: value for key, value in self._shared.items() if value is not call}
        future = call.future
        if future.done():
            return
        future.cancel()
        self._cancel_request(future)

    async def _serve(self) -> None:
        # Stopped meanwhile, the client is let go unclosed: it has no connection yet.
        client = await asyncio.to_thread(self._new_client)
        self._client = client
        try:
            while True:
                # Started from a frame of its own: one kept here held the last call, its
                # answer with it (a million rows), until the next call came.
                self._start_call(client, *await self._queue.get())
        finally:
            self._refuse_queued()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await client.aclose()

    def _start_call(
        self, client: ApiClient, operation: Operation[Any], future: asyncio.Future[Any]
    ) -> None:
        if future.cancelled():
            return
        task = asyncio.create_task(self._run(client, operation, future))
        self._tasks.add(task)
        self._running[future] = task
        task.add_done_callback(partial(self._ran, future))
        future.add_done_callback(self._cancel_request)

    def _cancel_request(self, future: asyncio.Future[Any]) -> None:
        """A call given up (cancelled) cancels its request, once: a second cancellation
        would land in what the request does to stop, such as closing its response."""
        if future.cancelled() and (task := self._running.pop(future, None)) is not None:
            task.cancel()

    def _ran(self, future: asyncio.Future[Any], task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._running.pop(future, None)

    def _new_client(self) -> ApiClient:
        """The API client, built in a thread: a process's first one imports httpx's
        transports and reads the system's certificates (0.1–0.3 s), and its first request
        imports anyio's asyncio backend (50 ms). On the event loop, each held a frame
        while the first tab's rows were awaited."""
        with contextlib.suppress(ImportError):  # what httpcore imports on first use
            import anyio._backends._asyncio  # noqa: F401
        return ApiClient(
            self.connection,
            transport=self._transport,
            on_retry=self._on_retry,
            watch_rows=self._rows_grew,
            # A key typed while a list arrives reaches its frame before the next piece.
            between_reads=partial(keys_drawn, self._app),
        )

    async def _run(
        self, client: ApiClient, operation: Operation[Any], future: asyncio.Future[Any]
    ) -> None:
        change: Write | None = None

        def changing(endpoint: Endpoint) -> None:
            nonlocal change
            if change is None and self._changes is not None:
                request = f"{endpoint.method} {clean_line(endpoint.path)}"
                if self._changes.closed:  # raised before the request is handed over
                    raise QuittingError(f"not sent: the app is quitting ({request})")
                if future in self._followed:
                    return
                what = self._what.get(future)
                change = self._changes.begin(f"{what} ({request})" if what else request)

        try:
            with noting_changes(changing):
                result = await operation(client)
        except asyncio.CancelledError:
            if not future.done():
                future.cancel()
            raise
        except Exception as error:
            if not future.done():
                future.set_exception(as_api_error(error))
        else:
            if not future.done():
                future.set_result(result)
        finally:
            if change is not None:
                change.end()

    def watch_rows(self, what: str, watcher: Callable[[StreamedList], None]) -> Callable[[], None]:
        """Show ``watcher`` the list ``what`` ("items") each time its rows grow while its
        body arrives (``rows``, the same list, longer) and when the body has ended;
        returns what stops it."""
        self._row_watchers[what] = watcher

        def stop() -> None:
            if self._row_watchers.get(what) is watcher:
                del self._row_watchers[what]

        return stop

    def _rows_grew(self, what: str, arrival: StreamedList) -> None:
        watcher = self._row_watchers.get(what)
        if watcher is not None:
            watcher(arrival)

    def _on_retry(self, notice: RetryNotice) -> None:
        if not self._ended:  # an ended session's calls are not the app's any more
            self._app.post_message(ApiRetrying(notice, self))


class _SharedCall:
    """One request that every caller of the same operation shares while it is in flight.

    It is counted who waits for it: it is cancelled once the last of them gives up
    (cancels), and never joined after that. A caller whose task is being cancelled no
    longer counts, even before the cancellation reaches it: escape, then ``r`` in the
    same read of the terminal, must send a new request, not join the one on its way out.
    """

    __slots__ = ("future", "waiters")

    def __init__(self, future: asyncio.Future[Any]) -> None:
        self.future = future
        self.waiters: set[asyncio.Task[Any]] = set()

    def wanted(self) -> bool:
        """Whether a caller still waits for it (none yet: it was just asked for)."""
        return any(not task.done() and not task.cancelling() for task in self.waiters)


def as_api_error(error: Exception) -> ApiError:
    """``error`` as an :class:`ApiError`: callers of the worker handle one hierarchy only.

    The client maps every failure it knows; anything else is a bug, logged with its
    traceback and shown as one line rather than a tab that stays blank or a form stuck
    in "Sending…".
    """
    if isinstance(error, ApiError):
        return error
    log.error("unexpected failure in the API client", exc_info=error)
    return ApiError(
        f"the client failed unexpectedly ({type(error).__name__})",
        hint="--log FILE records the details",
        retry="again",
    )
