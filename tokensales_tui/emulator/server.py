"""Serving the emulator on a socket with uvicorn, for clients outside this process.

Nothing the server logs reaches the terminal as a traceback: uvicorn's loggers are handed
to the app's own (``tokensales_tui.emulator.server``), which writes to the ``--log`` file
only; :func:`serve` may be given ``on_error`` to hear of each error in one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator

import uvicorn
from starlette.applications import Starlette

from ..debug_log import route_server_logs
from ..local import bind, is_every_address, reachable_url
from ..signals import StoppedBy, ending_on
from .app import create_app
from .events import Attempt
from .state import Emulator


class EmulatorServer:
    """An emulator app bound to ``host``:``port`` (0 picks a free port) and its uvicorn server.

    The socket is bound on construction, so :attr:`url` is known before :meth:`run`. Bound
    to 0.0.0.0 or ``::`` (:attr:`every_address`), :attr:`url` names this machine's
    loopback address, which a client can open. While it runs, ``on_error`` hears of each
    error the emulator or its server logs, in one line (the traceback goes to the app's
    logger only).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8765,
        *,
        items: int = 40,
        seed: int = 0,
        faults: Iterable[str] = (),
        token_lifetime: float = 3600.0,
        clock: Callable[[], float] = time.time,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.on_error = on_error
        # Bound first: a port taken is said at once, before the data is generated.
        self._socket, bound = bind(host, port)
        try:
            self.app: Starlette = create_app(
                seed=seed, items=items, faults=faults, token_lifetime=token_lifetime, clock=clock
            )
        except BaseException:
            self._socket.close()
            raise
        self.url = reachable_url(bound)
        self.every_address = is_every_address(host)
        # A hung request (the hang fault) must not hold up shutdown for long.
        config = uvicorn.Config(
            self.app,
            log_config=None,  # uvicorn's own would write to stderr
            log_level="warning",
            timeout_graceful_shutdown=1,
            lifespan="off",
        )
        route_server_logs(APP_LOG + ".server")
        self.server = _Server(config)

    @property
    def emulator(self) -> Emulator:
        """The state of the served app."""
        emulator: Emulator = self.app.state.emulator
        return emulator

    @property
    def exit_code(self) -> int:
        """0 once :meth:`run` ended by :meth:`stop`; 128 + n once signal n stopped it."""
        return self.server.stopped.exit_code()

    def run(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve until :meth:`stop` or a signal (see :attr:`exit_code`); ``on_ready`` gets
        :attr:`url` once it accepts."""
        reporter = _OneLine(self.on_error) if self.on_error is not None else None
        if reporter is not None:
            logging.getLogger(APP_LOG).addHandler(reporter)
        try:
            asyncio.run(self._serve(on_ready))
        finally:
            if reporter is not None:
                logging.getLogger(APP_LOG).removeHandler(reporter)

    def stop(self) -> None:
        """Ask a running :meth:`run` to finish (from any thread)."""
        self.server.should_exit = True

    async def _serve(self, on_ready: Callable[[str], None] | None) -> None:
        task = asyncio.create_task(self.server.serve(sockets=[self._socket]))
        while not self.server.started and not task.done():
            await asyncio.sleep(0.01)
        if self.server.started and on_ready is not None:
            on_ready(self.url)
        while not task.done():
            if self.server.should_exit:
                self.emulator.injector.release_hung()
            await asyncio.wait({task}, timeout=0.05)
        await task


def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    items: int = 40,
    seed: int = 0,
    faults: Iterable[str] = (),
    token_lifetime: float = 3600.0,
    on_ready: Callable[[str], None] | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> int:
    """Serve a new emulator with uvicorn until Ctrl+C or another signal; its exit status
    (128 + the signal's number) once every request is answered and the socket closed.

    ``on_ready`` receives the base URL (e.g. ``http://127.0.0.1:8765``), which serves all
    three addresses; ``on_attempt`` each webhook delivery attempt; ``on_error`` one line
    for each error the emulator or its server logs (the traceback goes to the app's
    logger only). Prints nothing itself.
    Raises OSError when the address cannot be had (taken, a port outside 0–65535),
    ValueError for an unknown fault, an item count or a token lifetime out of range.
    """
    server = EmulatorServer(
        host,
        port,
        items=items,
        seed=seed,
        faults=faults,
        token_lifetime=token_lifetime,
        on_error=on_error,
    )
    server.emulator.deliveries.on_attempt = on_attempt
    server.run(on_ready)
    return server.exit_code


class _Server(uvicorn.Server):
    """uvicorn's server, stopped gracefully by every signal that would end the emulator
    (uvicorn takes SIGINT and SIGTERM only: SIGHUP, SIGQUIT, SIGUSR1… killed it on the
    spot), and never by one ignored on entry (``nohup``, a background job's SIGINT),
    which uvicorn took all the same. The first signal is kept for the exit status
    (:attr:`stopped`), as the commands, ``listen``, ``serve`` and the app end on one:
    uvicorn raised it again once the server stopped, which ended the process with 0 for
    ctrl+c and killed it by the signal otherwise."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stopped = StoppedBy(lambda signum: self.handle_exit(signum, None))

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with ending_on(self.stopped):
            yield


APP_LOG = "tokensales_tui.emulator"
"""The emulator's part of the app's logger, which ``--log`` writes to."""


class _OneLine(logging.Handler):
    """Tells ``say`` of each error logged, in one line: what failed and the exception."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.ERROR)
        self._say = say

    def emit(self, record: logging.LogRecord) -> None:
        try:
            lines = record.getMessage().strip().splitlines()
            line = lines[0] if lines else record.name
            error = record.exc_info[1] if record.exc_info else None
            if error is not None:
                line += f" ({type(error).__name__}: {error})"
            self._say(line)
        except Exception:  # a terminal gone away: the log file still has the record
            pass
