"""The app served to web browsers: textual-serve behind an access token.

textual-serve starts one app process for each browser connection, with this server's
environment and profile, and has no access control of its own. :class:`GuardedServer`
adds it: every request needs the random access token (given once in the address, then
kept as a cookie), else it is answered 403 before any handler runs, so no app process
starts; a loopback server answers only to this machine's own names, and the websocket
only to a page of the address the browser used (see :mod:`.hosts`); and at most
``max_sessions`` apps run at once.

The page is textual-serve's without its link to an outside web-font stylesheet (the
font ships in its wheel), and its script turns on xterm.js's screen-reader mode, so the
terminal's text is in the page for assistive technology (and for the browser test).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web
from textual_serve.server import Server

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


def is_every_address(host: str) -> bool:
    """Whether ``host`` is 0.0.0.0 or ``::``: a socket bound to it listens on every address."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


class GuardedServer(Server):
    """textual-serve's server, reachable only with the access token.

    Args:
        command: Shell command that starts one app (it never holds the token).
        sock: A listening socket, bound already (so port 0 works and the address is known).
        max_sessions: Most app processes running at once; more connections get a 503.
        title: Shown on the page while the app starts.
    """

    def __init__(self, command: str, sock: socket.socket, *, max_sessions: int, title: str) -> None:
        host, port = sock.getsockname()[:2]
        super().__init__(command, host=host, port=port, title=title, templates_path=TEMPLATES)
        self.every_address = is_every_address(host)
        """Bound to 0.0.0.0 or ``::``: the address printed is this machine's loopback one."""
        shown = ("::1" if ":" in host else "127.0.0.1") if self.every_address else host
        self.public_url = f"http://{url_host(shown)}:{port}"
        """The address printed; the page's URLs use the address the browser used."""
        self.hosts = HostRule.for_bind(host, port)
        self.sock = sock
        self.max_sessions = max_sessions
        self.sessions = 0
        """App processes running now."""
        self.token = secrets.token_urlsafe(32)
        self.cookie = f"tokensales_serve_{port}"  # cookies ignore ports: one name a server
        self._script: str | None = None

    @property
    def url(self) -> str:
        """The address to open: the only place the token is ever shown."""
        return f"{self.public_url}/?token={self.token}"

    def _has_token(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

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

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
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

    async def handle_script(self, request: web.Request) -> web.StreamResponse:
        """textual.js with screen-reader mode on."""
        if self._script is None:
            original = (self.statics_path / "js" / "textual.js").read_text("utf-8")
            self._script = patched_script(original)
        return web.Response(text=self._script, content_type="application/javascript")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Start an app for this connection, unless ``max_sessions`` are running."""
        if self.sessions >= self.max_sessions:
            raise web.HTTPServiceUnavailable(
                text=f"503: {self.max_sessions} sessions are open already; close one first\n"
            )
        self.sessions += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions -= 1

    async def run(self, ready: Callable[[str], None], stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set; call ``ready`` with the address once listening."""
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.SockSite(runner, self.sock, shutdown_timeout=2.0).start()
            ready(self.url)
            await stop.wait()
        finally:
            await runner.cleanup()
