"""Serving the emulator on a socket with uvicorn, for clients outside this process."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable

import uvicorn
from starlette.applications import Starlette

from ..local import bind, is_every_address, reachable_url
from .app import create_app
from .events import Attempt
from .state import Emulator


class EmulatorServer:
    """An emulator app bound to ``host``:``port`` (0 picks a free port) and its uvicorn server.

    The socket is bound on construction, so :attr:`url` is known before :meth:`run`. Bound
    to 0.0.0.0 or ``::`` (:attr:`every_address`), :attr:`url` names this machine's
    loopback address, which a client can open.
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
    ) -> None:
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
            self.app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
        )
        self.server = uvicorn.Server(config)

    @property
    def emulator(self) -> Emulator:
        """The state of the served app."""
        emulator: Emulator = self.app.state.emulator
        return emulator

    def run(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve until :meth:`stop` or Ctrl+C; ``on_ready`` gets :attr:`url` once it accepts."""
        asyncio.run(self._serve(on_ready))

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
) -> None:
    """Serve a new emulator with uvicorn until Ctrl+C, then return.

    ``on_ready`` receives the base URL (e.g. ``http://127.0.0.1:8765``), which serves all
    three addresses; ``on_attempt`` each webhook delivery attempt. Prints nothing itself;
    uvicorn logs warnings only.
    Raises OSError when the address cannot be had (taken, a port outside 0–65535),
    ValueError for an unknown fault, an item count or a token lifetime out of range.
    """
    server = EmulatorServer(
        host, port, items=items, seed=seed, faults=faults, token_lifetime=token_lifetime
    )
    server.emulator.deliveries.on_attempt = on_attempt
    with contextlib.suppress(KeyboardInterrupt):
        server.run(on_ready)
