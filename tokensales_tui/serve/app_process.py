"""One browser tab's app process, and its end: it always comes, and within a bound.

textual-serve's :class:`~textual_serve.app_service.AppService` starts the app, reads
what it writes and sends that to the browser. Its own ending asks the app, over stdin,
to quit, then waits without a bound for the task reading the app's output. An app
blocked writing to a browser that stopped reading never reads that request; and a
browser gone in the middle of a send ends the reading task with ``ConnectionError``,
which that ending raises again. Either way the app was left running, blocked on its
stdout, outside the session limit.

:class:`AppProcess` keeps textual-serve's start and message handling and replaces the
ending: once the browser is gone (or the session ends), what the app writes is read and
dropped, so an app blocked on its output goes on and reads the request to quit; it has
``quit_wait`` seconds to end, then it is killed, and :meth:`AppProcess.end` returns once
the process is gone. What happens is logged to ``tokensales_tui.serve``, which writes
only to the ``--log`` file, never to the terminal.

textual-serve writes what an app wrote to stderr to ``sys.stdout`` once the app's output
ends, before its exit status is known. ``serve`` puts a stream there that hands it to the
app writing (:func:`app_writing`), which reports it with the exit status once the process
is gone: warnings of an app that ended well are no failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from asyncio.subprocess import Process
from collections.abc import Callable
from contextvars import ContextVar

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from ..clean import clean

__all__ = [
    "CLOSE_WAIT",
    "MAX_HEIGHT",
    "MAX_WIDTH",
    "QUIT_WAIT",
    "AppProcess",
    "StderrReport",
    "app_writing",
    "terminal_size",
]

log = logging.getLogger("tokensales_tui.serve")

QUIT_WAIT = 3.0
"""Seconds an app has to end once asked to quit, before it is killed."""

CLOSE_WAIT = 2.0
"""Seconds a browser has to take the websocket's closing frame before it is cut off."""

OUTPUT_WAIT = 1.0
"""Seconds the task reading an app's output has to see its end, once the app is gone."""

MAX_WIDTH = 1000
MAX_HEIGHT = 500
"""The largest terminal an app is given, in cells: past a screen's worth, a size only
costs memory (100,000 × 100,000 asked of one app took it past 2 GB, still growing)."""

StderrReport = Callable[[int, "int | None", str], None]
"""Told, once an app is gone, its pid, its exit status and what it wrote to stderr."""

_WRITING: ContextVar[AppProcess | None] = ContextVar("serve_app_writing", default=None)


def terminal_size(width: object, height: object) -> tuple[int, int] | None:
    """``width`` × ``height`` as an app may be given it, each from 1 to its maximum.

    None unless both are whole numbers (a page sends nothing else; a bool is no size).
    """
    if type(width) is not int or type(height) is not int:
        return None
    return max(1, min(width, MAX_WIDTH)), max(1, min(height, MAX_HEIGHT))


def app_writing() -> AppProcess | None:
    """The app whose output is read by the code running now, if any."""
    return _WRITING.get()


def _log_stderr(pid: int, status: int | None, text: str) -> None:
    log.warning("app %d (exit status %s) wrote on its way out:\n%s", pid, status, clean(text))


class AppProcess(AppService):
    """textual-serve's app service for one websocket, with an end that always comes.

    Args:
        command: Shell command that starts the app.
        request: The browser's websocket request.
        websocket: Its websocket, prepared.
        download_manager: The server's (files the app hands to the browser).
        quit_wait: Seconds the app has to end once asked to quit, before it is killed.
        on_stderr: Told what the app wrote to stderr, if anything, once it is gone
            (default: logged).
    """

    def __init__(
        self,
        command: str,
        request: web.Request,
        websocket: web.WebSocketResponse,
        download_manager: DownloadManager,
        *,
        quit_wait: float = QUIT_WAIT,
        on_stderr: StderrReport | None = None,
    ) -> None:
        super().__init__(
            command,
            write_bytes=self._send_bytes,
            write_str=self._send_str,
            close=self.close_browser,
            download_manager=download_manager,
        )
        self.request = request
        self.websocket = websocket
        self.quit_wait = quit_wait
        self._dropping = False
        """What the app writes is read and dropped: the browser is gone, or the session over."""
        self.on_stderr = on_stderr or _log_stderr
        self._stderr: list[str] = []

    @property
    def pid(self) -> int | None:
        """The app's process id, once started."""
        return None if self._process is None else self._process.pid

    @property
    def output(self) -> asyncio.Task[None] | None:
        """The task reading the app's output; it ends when the app's stdout closes."""
        return self._task

    async def start(self, width: int, height: int) -> None:
        """Start the app with a terminal of ``width`` × ``height`` (or the nearest allowed)."""
        width, height = terminal_size(width, height) or (80, 24)
        await super().start(width, height)

    async def set_terminal_size(self, width: object, height: object) -> None:
        """Tell the app its terminal's new size (the nearest allowed); not a size: nothing."""
        size = terminal_size(width, height)
        if size is not None:
            await super().set_terminal_size(*size)

    async def run(self) -> None:
        """Read the app's output until it ends (textual-serve's), as the app writing."""
        _WRITING.set(self)  # in this task's own context only
        await super().run()

    def wrote_on_stderr(self, text: str) -> None:
        """Keep what textual-serve read of the app's stderr, until its exit status is known."""
        # An app that fails to start has its stderr written twice: kept once.
        if text.strip() and text not in self._stderr:
            self._stderr.append(text)

    async def _send_bytes(self, data: bytes) -> None:
        if not self._dropping:
            try:
                await self.websocket.send_bytes(data)
            except ConnectionError:
                self._browser_gone()

    async def _send_str(self, text: str) -> None:
        if not self._dropping:
            try:
                await self.websocket.send_str(text)
            except ConnectionError:
                self._browser_gone()

    def _browser_gone(self) -> None:
        # Reading on keeps an app that is writing from blocking on its stdout.
        log.info("app %s: the browser went away; its output is dropped", self.pid)
        self._dropping = True

    async def close_browser(self) -> None:
        """Close the websocket; a browser that does not take the closing frame is cut off."""
        closing = asyncio.ensure_future(self.websocket.close())
        await asyncio.wait({closing}, timeout=CLOSE_WAIT)
        if not closing.done():
            # Not cancelled: a send waiting for the browser (the app's output) waits on
            # the same future in aiohttp, and would be cancelled with it. Cutting the
            # connection ends both waits.
            if (transport := self.request.transport) is not None:
                transport.abort()
            done, _ = await asyncio.wait({closing}, timeout=CLOSE_WAIT)
            if not done:
                closing.cancel()
                await asyncio.wait({closing})
        if not closing.cancelled() and (error := closing.exception()) is not None:
            log.info("app %s: closing the websocket failed: %r", self.pid, error)

    async def end(self) -> None:
        """End the session: close the browser, end the app, return once it is gone.

        The app is asked to quit (and its stdin closed); its output is read and dropped
        meanwhile. After ``quit_wait`` seconds it is killed.
        """
        self._dropping = True
        process = self._process
        if process is None:  # it never started
            await self.close_browser()
            return
        draining = asyncio.create_task(self._drain(process, self._task))
        try:
            await self.close_browser()
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            if process.returncode is None:
                try:
                    async with asyncio.timeout(self.quit_wait):
                        await self._ask_to_quit()
                        await process.wait()
                except TimeoutError:
                    log.warning(
                        "app %d did not quit within %g s: killed", process.pid, self.quit_wait
                    )
        finally:
            # Whatever stopped the steps above (even a cancellation), the app ends here.
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await self._end_output(draining)  # its pipes read to their end: it can be waited
            await process.wait()
            # Said even when the end was cancelled: what the app left is never lost.
            log.info("app %d ended (exit status %s)", process.pid, process.returncode)
            if self._stderr:
                self.on_stderr(process.pid, process.returncode, "".join(self._stderr))

    async def _ask_to_quit(self) -> None:
        await self.send_meta({"type": "quit"})
        with contextlib.suppress(OSError):
            # An app that reads no more sees the end of its input, and ends too
            # (ui/served.py): as it does when this server dies without a word.
            self.stdin.close()

    @staticmethod
    async def _drain(process: Process, output: asyncio.Task[None] | None) -> None:
        """Once ``output`` has stopped reading the app's pipes, read and drop what comes.

        An app whose pipes are not read may block writing them, and asyncio does not see
        a process end before its pipes do.
        """
        if output is not None:
            await asyncio.wait({output})
        await asyncio.gather(
            *(_read_to_end(pipe) for pipe in (process.stdout, process.stderr) if pipe is not None)
        )

    async def _end_output(self, draining: asyncio.Task[None]) -> None:
        """Let the tasks reading the app's pipes see their end, then collect how it came."""
        output, self._task = self._task, None
        for task in (output, draining):
            if task is None:
                continue
            done, _ = await asyncio.wait({task}, timeout=OUTPUT_WAIT)
            if not done:
                task.cancel()
                await asyncio.wait({task})
            if not task.cancelled() and (error := task.exception()) is not None:
                log.warning("app %s: reading its output failed: %r", self.pid, error)


async def _read_to_end(pipe: asyncio.StreamReader) -> None:
    while await pipe.read(65536):
        pass
