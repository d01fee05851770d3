"""The app served to web browsers: textual-serve behind an access token.

textual-serve starts one app process for each browser connection, with this server's
environment and profile, and has no access control of its own. :class:`GuardedServer`
adds it: every request needs the random access token (given once in the address, then
kept as a cookie), else it is answered 403 before any handler runs, so no app process
starts; a loopback server answers only to this machine's own names, and the websocket
only to a page of the address the browser used (see :mod:`.hosts`); at most
``max_sessions`` apps run at once; and no connection is kept without a request, nor more
than a bound of them (see :mod:`..connections`).

Each session's app is ended within a bound however the session ends, and counted until
its process is gone (see :mod:`.app_process`); while the server runs, what the libraries
under it log goes to the ``--log`` file, never to the terminal.

The page is textual-serve's without its link to an outside web-font stylesheet (the
font ships in its wheel), and its script turns on xterm.js's screen-reader mode, so the
terminal's text is in the page for assistive technology (and for the browser test).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import secrets
import socket
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import WSMsgType, web
from textual_serve.server import Server, to_int

from ..connections import (
    ACCEPTS_A_TURN,
    LISTEN_BACKLOG,
    REQUEST_WAIT,
    ConnectionGuard,
    accept_errors_throttled,
    connection_limit,
    peer_of,
)
from ..debug_log import foreign_logs_to
from ..download_names import content_disposition
from ..local import is_every_address
from .app_process import QUIT_WAIT, AppProcess, StderrReport
from .hosts import Address, HostRule, parse_address

__all__ = ["GuardedServer", "local_location", "patched_script"]

log = logging.getLogger("tokensales_tui.serve")

TEMPLATES = Path(__file__).parent / "templates"

SCRIPT_PATH = "/assets/textual.js"
"""Where the page's script is served (textual-serve's, with screen-reader mode on)."""

_TERMINAL_OPTIONS = "allowProposedApi:!0,"
"""The start of the options textual.js gives xterm.js's ``Terminal``."""

FORBIDDEN_TEXT = (
    "403 Forbidden: open the address that 'tokensales-tui serve' printed; it holds the access"
    " token.\n"
)

BAD_HOST_TEXT = "400 Bad Request: the Host header names no address.\n"

OTHER_SITE_TEXT = "403 Forbidden: another site's page\n"

SLOT_WAIT = 6.0
"""Seconds a new tab waits for a session that is ending (the same tab, reloaded) to be
gone, when ``max_sessions`` are running: its app has ``quit_wait`` (3 s) to quit."""

SLOT_GRACE = 1.0
"""Seconds a new tab waits, when ``max_sessions`` are running and none is ending, for one
to begin ending (a reloaded tab's websocket may come before its old one's close)."""

TRY_AGAIN_LATER = 1013
"""The websocket's closing code for a session refused for now (RFC 6455's registry)."""

HEARTBEAT = 15.0
"""Seconds between the websocket's pings (as textual-serve's)."""

CONNECTION_CHECK = 0.5
"""Seconds between two looks at whether a session's connection is gone."""

FILES_A_SESSION = 3
"""File descriptors of a session's app (its pipes), besides its connection."""

FOREIGN_LOGGERS = ("aiohttp", "asyncio", "textual-serve")
"""Loggers of the libraries under ``serve``, sent to the ``--log`` file while it runs."""

PAGE_ADDRESS = web.RequestKey("page_address", Address)
"""The address the browser used (its ``Host``), once the guard has accepted it."""


def patched_script(original: str) -> str:
    """textual.js with xterm.js's screen-reader mode on (unchanged if its options moved)."""
    if original.count(_TERMINAL_OPTIONS) != 1:
        log.warning("textual.js changed: the page is served without screen-reader mode")
        return original
    return original.replace(_TERMINAL_OPTIONS, _TERMINAL_OPTIONS + "screenReaderMode:!0,")


def local_location(path: str, query: list[tuple[str, str]]) -> str:
    """``path`` and ``query`` as a redirect to this server, whatever the path holds.

    A ``Location`` starting with ``//`` (or ``/\\``, which browsers read alike) names
    another server: the leading slashes are made one.
    """
    location = quote("/" + path.lstrip("/\\"), safe="/")
    return f"{location}?{urlencode(query)}" if query else location


def url_host(host: str) -> str:
    """``host`` as it is written in a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class GuardedServer(Server):
    """textual-serve's server, reachable only with the access token.

    Args:
        command: Shell command that starts one app (it never holds the token).
        sock: A listening socket, bound already (so port 0 works and the address is known).
        max_sessions: Most app processes running at once; a tab more is refused, with
            the reason.
        title: Shown on the page while the app starts.
        quit_wait: Seconds an app has to end once its session is over, before it is killed.
        on_stderr: Told what an app wrote to stderr, with its exit status, once it is gone
            (default: logged).
        request_wait: Seconds a connection has to send a complete request (see
            :mod:`..connections`).
        max_connections: Most connections open at once (default: within the file limit).
    """

    def __init__(
        self,
        command: str,
        sock: socket.socket,
        *,
        max_sessions: int,
        title: str,
        quit_wait: float = QUIT_WAIT,
        on_stderr: StderrReport | None = None,
        request_wait: float = REQUEST_WAIT,
        max_connections: int | None = None,
    ) -> None:
        host, port = sock.getsockname()[:2]
        # exec: the shell textual-serve starts the command with becomes the app, so the
        # process a session ends (and kills, if it must) is the app itself.
        super().__init__(
            f"exec {command}", host=host, port=port, title=title, templates_path=TEMPLATES
        )
        self.every_address = is_every_address(host)
        """Bound to 0.0.0.0 or ``::``: the address printed is this machine's loopback one."""
        shown = ("::1" if ":" in host else "127.0.0.1") if self.every_address else host
        self.public_url = f"http://{url_host(shown)}:{port}"
        """The address printed; the page's URLs use the address the browser used."""
        self.hosts = HostRule.for_bind(host, port)
        self.sock = sock
        self.max_sessions = max_sessions
        self.quit_wait = quit_wait
        self.on_stderr = on_stderr
        self.request_wait = request_wait
        self.max_connections = max_connections or connection_limit(FILES_A_SESSION * max_sessions)
        self._connections: ConnectionGuard | None = None
        """The connections, once it serves: those with a request in progress are at work."""
        self.sessions = 0
        """App processes running now (each session counts until its process is gone)."""
        self.apps = 0
        """Of those, the apps started: a session counts from its websocket, its app only
        once its process runs (the log's count; several tabs may open at once)."""
        self._ending = 0
        """Sessions whose app is being ended (still counted)."""
        self._released = asyncio.Event()
        """Set (and replaced) each time a session stops counting."""
        self._running: dict[asyncio.Task[None], asyncio.Event] = {}
        """Each session's task, and the event that tells it to end."""
        self._stopping = False
        self.token = secrets.token_urlsafe(32)
        self.cookie = f"tokensales_serve_{port}"  # cookies ignore ports: one name a server
        self._script: str | None = None

    @property
    def url(self) -> str:
        """The address to open: the only place the token is ever shown."""
        return f"{self.public_url}/?token={self.token}"

    def _has_token(self, value: str | None) -> bool:
        # aiohttp decodes headers with surrogateescape: bytes that are not UTF-8 (anyone
        # can send them) become lone surrogates, which a plain encode() refuses.
        return value is not None and hmac.compare_digest(
            value.encode("utf-8", "surrogateescape"), self.token.encode()
        )

    def _wrong_host(self, host: str | None) -> web.Response:
        if self.hosts.names is None or parse_address(host or "") is None:
            return web.Response(status=400, text=BAD_HOST_TEXT)
        return web.Response(status=403, text=f"403 Forbidden: open {self.hosts.describe()}.\n")

    @web.middleware
    async def _guard(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        """Answer 403 to any request without the token, before any handler runs.

        Also refused: a ``Host`` this server does not answer to, and a websocket from a
        page of another address than the one it connects to.
        """
        connections = self._connections
        at_work = (
            connections.at_work(peer_of(request.transport))
            if connections is not None
            else contextlib.nullcontext()  # served by another server (tests)
        )
        with at_work:
            response = await self._guarded(request, handler)
            if not response.prepared:
                # Written here rather than after the middleware returns: until its answer
                # (a page, the script) has gone, the connection is at work, and the
                # connection limit never closes it as idle.
                await response.prepare(request)
                await response.write_eof()
                _sent(response)
            return response

    async def _guarded(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        host = request.headers.get("Host")
        address = self.hosts.page_address(host)
        if address is None:
            return self._wrong_host(host)
        request[PAGE_ADDRESS] = address
        if self._has_token(request.query.get("token")):
            # Keep the token as a cookie and take it out of the address bar.
            rest = [(key, value) for key, value in request.query.items() if key != "token"]
            response = web.Response(
                status=302, headers={"Location": local_location(request.path, rest)}
            )
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
            return response
        if not self._has_token(request.cookies.get(self.cookie)):
            return web.Response(status=403, text=FORBIDDEN_TEXT)
        # Browsers send Origin with every websocket; a client without it is no page.
        origin = request.headers.get("Origin")
        if (
            request.path == "/ws"
            and origin is not None
            and not HostRule.same_origin(origin, address)
        ):
            return web.Response(status=403, text=OTHER_SITE_TEXT)
        answer = await handler(request)
        answer.headers["Cache-Control"] = "no-store"
        answer.headers["Referrer-Policy"] = "no-referrer"
        return answer

    async def _make_app(self) -> web.Application:
        import aiohttp_jinja2
        import jinja2

        app = web.Application(middlewares=[self._guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.get(SCRIPT_PATH, self.handle_script, name="script"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        return app

    def _full(self) -> str:
        """Why a new tab gets no app now, in a line a person reads."""
        if self._stopping:
            return "The server is stopping."
        tabs = (
            "1 browser tab is"
            if self.max_sessions == 1
            else f"{self.max_sessions} browser tabs are"
        )
        return f"{tabs} open already, the most this server allows: close one, then try again."

    async def _room(self) -> bool:
        """Whether a new tab may have an app: at once if fewer than ``max_sessions`` run;
        else once one is gone, if one is ending (see ``SLOT_WAIT`` and ``SLOT_GRACE``)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        while not self._stopping and self.sessions >= self.max_sessions:
            left = (SLOT_WAIT if self._ending else SLOT_GRACE) - (loop.time() - started)
            if left <= 0:
                return False
            released = self._released
            with contextlib.suppress(TimeoutError):
                # Looked at again now and then: a session may begin ending meanwhile.
                async with asyncio.timeout(min(left, CONNECTION_CHECK)):
                    await released.wait()
        return not self._stopping

    def _release(self) -> None:
        self.sessions -= 1
        self._released.set()
        self._released = asyncio.Event()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, at the tab limit too: a reload's request comes while its old page,
        whose session it replaces, is still open (a browser keeps it until the new one
        arrives). Its websocket is where a session is refused, and why shown."""
        import aiohttp_jinja2

        context: dict[str, Any] = await super().handle_index.__wrapped__(self, request)  # type: ignore[attr-defined]
        # textual-serve builds the page's URLs from the bound address; the browser may
        # have used another name (localhost) or the server may be bound to 0.0.0.0.
        address = request[PAGE_ADDRESS]
        base = f"http://{address}"
        context["script_url"] = f"{base}{SCRIPT_PATH}"
        context["app_websocket_url"] = f"ws://{address}/ws"
        static = request.app.router["static"].url_for(filename="/")
        context["config"]["static"]["url"] = f"{base}{str(static).rstrip('/')}/"
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A file the app hands to the browser (an export), under its whole name.

        textual-serve's wrote ``filename=`` unquoted: ``Q3; final.csv`` was saved as
        ``Q3``. The name is sent as :func:`~..download_names.content_disposition` says.
        """
        key = request.match_info["key"]
        try:
            meta = await self.download_manager.get_download_metadata(key)
        except KeyError:
            raise web.HTTPNotFound(text="404 Not Found: no such download\n") from None
        response = web.StreamResponse()
        content_type = meta.mime_type
        if meta.encoding:
            content_type += f"; charset={meta.encoding}"
        response.headers["Content-Type"] = content_type
        disposition = "inline" if meta.open_method == "browser" else "attachment"
        response.headers["Content-Disposition"] = content_disposition(disposition, meta.file_name)
        await response.prepare(request)
        async for chunk in self.download_manager.download(key):
            await response.write(chunk)
        await response.write_eof()
        return response

    async def handle_script(self, request: web.Request) -> web.StreamResponse:
        """textual.js with screen-reader mode on."""
        if self._script is None:
            original = (self.statics_path / "js" / "textual.js").read_text("utf-8")
            self._script = patched_script(original)
        return web.Response(text=self._script, content_type="application/javascript")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Run an app for this connection, unless ``max_sessions`` are running.

        However the session ends (the browser closes or goes away, the app ends, something
        fails, the server stops), its app is ended within a bound and stays counted until
        its process is gone (:meth:`.AppProcess.end`). A session refused is closed at once
        with the reason, which the page shows (a 503 would reach no one: a page's script
        is told only that its websocket failed).
        """
        if not await self._room():
            refused = web.WebSocketResponse()
            await refused.prepare(request)
            await refused.close(code=TRY_AGAIN_LATER, message=self._full().encode())
            return refused
        self.sessions += 1  # before any wait: the limit holds against connections racing
        try:
            websocket = web.WebSocketResponse(heartbeat=HEARTBEAT)
            await websocket.prepare(request)
        except BaseException:
            self._release()
            raise
        leave = asyncio.Event()
        session = asyncio.create_task(self._session(request, websocket, leave))
        self._running[session] = leave
        session.add_done_callback(self._forget)
        try:
            await asyncio.shield(session)
        except asyncio.CancelledError:
            # aiohttp gives up on this handler (it is stopping): the session ends its app
            # in its own task, which end_sessions waits for.
            leave.set()
            raise
        return websocket

    async def _pass_messages(self, websocket: web.WebSocketResponse, app: AppProcess) -> None:
        """Hand the page's messages to the app: keys, sizes, focus; answer its pings.

        textual-serve's own loop ended the session at the first message not of the
        page's shape (a size given as a string); one such message is ignored here. Sizes
        reach the app clamped (:meth:`.AppProcess.set_terminal_size`).
        """
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                # JSON can spell a lone surrogate, which is no UTF-8.
                await app.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await app.set_terminal_size(data.get("width"), data.get("height"))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app.blur()
            elif kind == "focus":
                await app.focus()

    def _forget(self, session: asyncio.Task[None]) -> None:
        del self._running[session]

    async def _session(
        self, request: web.Request, websocket: web.WebSocketResponse, leave: asyncio.Event
    ) -> None:
        """One app for ``websocket``, until the browser or the app is gone; then its end."""
        app = AppProcess(
            self.command,
            request,
            websocket,
            self.download_manager,
            quit_wait=self.quit_wait,
            on_stderr=self.on_stderr,
        )
        started = False
        try:
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            await app.start(width, height)
            self.apps += 1
            started = True
            # No await between the count and the record: each app's is its own.
            log.info("app %s started (%d of %d sessions)", app.pid, self.apps, self.max_sessions)
            await self._until_over(request, websocket, app, leave)
        except Exception:
            log.exception("app %s: the session failed", app.pid)
        finally:
            self._ending += 1
            try:
                await app.end()
            finally:
                self._ending -= 1
                if started:
                    self.apps -= 1
                self._release()

    async def _until_over(
        self,
        request: web.Request,
        websocket: web.WebSocketResponse,
        app: AppProcess,
        leave: asyncio.Event,
    ) -> None:
        """Pass the browser's messages to the app until one side is gone or ``leave`` is set."""
        assert app.output is not None
        watches = {
            asyncio.create_task(self._pass_messages(websocket, app)): "the browser left",
            asyncio.create_task(connection_lost(request)): "the browser's connection was lost",
            asyncio.create_task(leave.wait()): "the server is stopping",
        }
        try:
            done, _ = await asyncio.wait([app.output, *watches], return_when=FIRST_COMPLETED)
        finally:
            for watch in watches:
                watch.cancel()
            await asyncio.wait(watches)
        why = next((watches[watch] for watch in watches if watch in done), "the app ended")
        log.info("app %s: session over: %s", app.pid, why)
        for watch in watches:
            if not watch.cancelled() and (error := watch.exception()) is not None:
                log.info("app %s: reading the browser's messages failed: %r", app.pid, error)

    async def end_sessions(self) -> None:
        """Refuse new sessions, end every running one and return once their apps are gone."""
        self._stopping = True
        for leave in self._running.values():
            leave.set()
        if self._running:
            await asyncio.wait(list(self._running))

    async def run(self, ready: Callable[[str], None], stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set; call ``ready`` with the address once listening.

        Then end every session, their apps within a bound, before closing the server.
        While it runs, what aiohttp, textual-serve and asyncio log goes to the
        ``tokensales_tui.serve`` logger (the ``--log`` file) instead of the terminal.
        """
        runner = web.AppRunner(
            await self._make_app(),
            access_log=None,
            handle_signals=False,
            shutdown_timeout=2.0,
            keepalive_timeout=self.request_wait,  # from the connection's start too
        )
        loop = asyncio.get_running_loop()
        with logs_to_serve_log(), accept_errors_throttled(loop, log):
            await runner.setup()
            listener: asyncio.Server | None = None
            try:
                assert runner.server is not None
                self._connections = ConnectionGuard(
                    runner.server,
                    limit=self.max_connections,
                    log=log,
                    request_wait=self.request_wait,
                )
                listener = await loop.create_server(
                    self._connections, sock=self.sock, backlog=ACCEPTS_A_TURN
                )
                self.sock.listen(LISTEN_BACKLOG)  # the system's queue, which that set too
                ready(self.url)
                await stop.wait()
            finally:
                if listener is not None:
                    listener.close()
                await self.end_sessions()
                await runner.cleanup()


async def connection_lost(request: web.Request) -> None:
    """Return once the connection of ``request`` is gone.

    aiohttp tells a handler so only through a read or a write in progress on it; a
    session may be doing neither, waiting on an app that reads nothing.
    """
    while request.transport is not None:
        await asyncio.sleep(CONNECTION_CHECK)


def logs_to_serve_log() -> contextlib.AbstractContextManager[None]:
    """While the block runs, what ``FOREIGN_LOGGERS`` log goes to the ``--log`` file only
    (:func:`~tokensales_tui.debug_log.foreign_logs_to`), at most one of a kind a second.
    Anyone who reaches the port, token or not, makes aiohttp log a traceback with each
    malformed request."""
    return foreign_logs_to(log.name, FOREIGN_LOGGERS)


def _sent(response: web.StreamResponse) -> None:
    """``response`` was sent whole: aiohttp prepares it again once the middleware returns,
    which a response does nothing for, but a :class:`~aiohttp.web.FileResponse` sends its
    file again for (it failed, with a traceback in the log for every file). Its
    ``prepare`` is made the one of every response from here on."""
    if isinstance(response, web.FileResponse):
        response.prepare = functools.partial(web.StreamResponse.prepare, response)  # type: ignore[method-assign]
