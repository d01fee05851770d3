"""Helpers shared by the benchmark processes: frames, keys, memory, the emulator.

Frames: in headless mode Textual still lays out and renders every frame (the
compositor asks each dirty widget for its lines) but skips turning the result into
terminal bytes. :class:`FrameClock` hooks ``App._display`` to do that conversion too,
as a real terminal session would, and notes when each frame ends.

Keys: :func:`send_key` hands a key to the driver the way a terminal's input thread
does (``Driver.process_message``), without Pilot's wait for idle (~60 ms a key).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 40)
"""Terminal size of every headless app in the benchmark (columns, lines)."""


def memory() -> dict[str, int]:
    """Resident memory of this process now and at its peak, in bytes (Linux)."""
    values = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                values[line[:5]] = int(line.split()[1]) * 1024
    return {"rss": values.get("VmRSS", 0), "peak": values.get("VmHWM", 0)}


def isolated_env(home: Path) -> dict[str, str]:
    """The environment for a child: HOME and XDG folders in ``home``, no TOKENSALES_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSALES_")}
    env["HOME"] = str(home)
    for variable, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        env[variable] = str(home / folder)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


@dataclass
class FrameClock:
    """Ends of rendered frames of one app, with waiting for the frame after a change."""

    app: Any
    ends: list[float] = field(default_factory=list)
    bytes_out: int = 0
    _waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = field(default_factory=list)

    def install(self) -> FrameClock:
        """Wrap the app's ``_display`` (call once the app runs)."""
        from textual._compositor import CompositorUpdate

        original = self.app._display
        console = self.app.console

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None:
                return
            # What a terminal session would also do: the ANSI text of the update.
            if isinstance(renderable, CompositorUpdate):
                self.bytes_out += len(renderable.render_segments(console))
            now = time.perf_counter()
            self.ends.append(now)
            for waiter in list(self._waiters):
                condition, future = waiter
                if not future.done() and condition():
                    future.set_result(now)
                    self._waiters.remove(waiter)

        self.app._display = display
        return self

    def next_frame(self, condition: Callable[[], bool] = lambda: True) -> asyncio.Future[float]:
        """A future for the end of the first frame drawn while ``condition()`` holds.

        A frame is drawn between events, so a frame that ends with the condition true
        was rendered after the state changed.
        """
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        return future

    async def wait(self, condition: Callable[[], bool], timeout: float = 120.0) -> float:
        """Wait for :meth:`next_frame`; the frame's end time."""
        return await asyncio.wait_for(self.next_frame(condition), timeout)


def send_key(app: Any, key: str, character: str | None = None) -> None:
    """Deliver a key press as the terminal driver does."""
    from textual import events

    app._driver.process_message(events.Key(key, character))


@dataclass
class StallMonitor:
    """The longest time the event loop went without running a 5 ms timer."""

    period: float = 0.005
    longest: float = 0.0
    _task: asyncio.Task[None] | None = None
    _before: float = 0.0

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._before = loop.time()
            await asyncio.sleep(self.period)
            late = loop.time() - self._before - self.period
            self.longest = max(self.longest, late)

    def start(self) -> None:
        self.longest = 0.0
        self._before = asyncio.get_running_loop().time()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> float:
        # A stall that has just ended is one the timer has not woken up from yet: count it.
        late = asyncio.get_running_loop().time() - self._before - self.period
        self.longest = max(self.longest, late)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return self.longest


class EmulatorProcess:
    """``tokensales-tui emulator`` on 127.0.0.1, in its own process."""

    def __init__(self, items: int, *, seed: int = 0, token_lifetime: float = 3600.0) -> None:
        self.items = items
        self.args = [
            sys.executable,
            "-m",
            "tokensales_tui",
            "emulator",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--items",
            str(items),
            "--seed",
            str(seed),
            "--token-lifetime",
            str(token_lifetime),
        ]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.env: dict[str, str] = {}

    def __enter__(self) -> EmulatorProcess:
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + 600
        for line in self.process.stdout:
            found = re.match(r"export (TOKENSALES_\w+)=(\S+)", line)
            if found:
                self.env[found[1]] = found[2].strip("'")
            if "Ctrl+C" in line or time.monotonic() > deadline:
                break
        self.url = self.env.get("TOKENSALES_BASE_URL", "")
        if not self.url:
            self.__exit__()
            raise RuntimeError("the emulator did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def fetch_items_body(emulator: EmulatorProcess) -> tuple[bytes, float]:
    """The ``GET /v1/items`` body as the app receives it, and how long a plain GET took
    (which also builds the body in memory, as one ``bytes``: see :func:`body_arrival`)."""
    import httpx

    env = emulator.env
    with httpx.Client(timeout=600, trust_env=False) as client:  # loopback: no proxy
        headers = bearer(client.post(**token_request(env)))
        client.get(env["TOKENSALES_BASE_URL"] + "/v1/items", headers=headers)  # warm the cache
        started = time.perf_counter()
        response = client.get(env["TOKENSALES_BASE_URL"] + "/v1/items", headers=headers)
        took = time.perf_counter() - started
        response.raise_for_status()
        return response.content, took


ARRIVALS = 3
"""Streamed reads of the body timed for :func:`body_arrival` (figures take their median)."""


def body_arrival(emulator: EmulatorProcess, size: int) -> list[float]:
    """How long the ``GET /v1/items`` body (``size`` bytes) takes to arrive: read as it
    comes through httpx's asynchronous client, in pieces as large as the app reads, each
    counted and let go (:data:`ARRIVALS` times, after one not timed).

    A plain GET takes several times as long for a long list: it joins the pieces into
    one ``bytes``, and a new block of memory that size costs a page fault per 4 KB
    (1.8 s of a 2.4 s GET of 614 MB on a virtual machine), which the app, spooling the
    body to a file, never pays.
    """
    import httpx

    from tokensales_tui.api.client import _read_larger_pieces

    _read_larger_pieces()  # as the app's client does
    env = emulator.env
    url = env["TOKENSALES_BASE_URL"] + "/v1/items"

    async def timed() -> list[float]:
        async with httpx.AsyncClient(timeout=600, trust_env=False) as client:
            headers = bearer(await client.post(**token_request(env)))
            took = []
            for _ in range(ARRIVALS + 1):
                started, arrived = time.perf_counter(), 0
                async with client.stream("GET", url, headers=headers) as response:
                    response.raise_for_status()
                    async for piece in response.aiter_raw():
                        arrived += len(piece)
                took.append(time.perf_counter() - started)
                if arrived != size:
                    raise RuntimeError(f"the body was {arrived:,} bytes, not {size:,}")
            return took[1:]

    return asyncio.run(timed())


def token_request(env: dict[str, str]) -> dict[str, Any]:
    """The arguments of a token request to the emulator (for ``client.post``)."""
    return {
        "url": env["TOKENSALES_AUTH_URL"] + "/auth/getAccessToken",
        "json": {"apiKey": env["TOKENSALES_API_KEY"], "apiSecret": env["TOKENSALES_API_SECRET"]},
    }


def bearer(response: Any) -> dict[str, str]:
    """The headers of a request with the token of a token ``response``."""
    response.raise_for_status()
    return {"Authorization": f"Bearer {response.json()['accessToken']}"}


@contextlib.contextmanager
def timer() -> Iterator[Callable[[], float]]:
    """``with timer() as took: ...; took()`` → seconds."""
    started = time.perf_counter()
    ended: list[float] = []
    yield lambda: (ended[0] if ended else time.perf_counter()) - started
    ended.append(time.perf_counter())
