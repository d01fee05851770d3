"""``tokensales-tui serve``: the app in web browsers, one app process per browser tab.

See :mod:`.server` for the access control. This module reads the command line, binds
the socket (loopback unless told otherwise), prints the address with the access token
once, and serves until Ctrl+C or another signal, which ends every session's app before
``serve`` exits with 128 + its number (130 for Ctrl+C).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import io
import logging
import shlex
import socket
import sys
from typing import Any

from ..clean import clean
from ..local import bind
from ..script.parser import add_profile_flag
from ..signals import ENDING_BUT_SIGINT, StoppedBy, ending_on, raising_on

__all__ = ["AppLeftovers", "add_serve_command", "app_command", "run_serve"]

log = logging.getLogger("tokensales_tui.serve")

DEFAULT_MAX_SESSIONS = 4


def add_serve_command(commands: Any) -> None:
    """Add ``serve`` to the command line's subcommands."""
    serve = commands.add_parser(
        "serve",
        help="serve the app to web browsers (each tab its own app), behind an access token",
        description="Serve the app to web browsers until Ctrl+C: each browser tab runs its own "
        "app, with this machine's profile and credentials. The address printed at start holds "
        "a random access token; without it every request is refused (403). What the server "
        "logs (sessions, errors) goes to the --log FILE given before 'serve', never to the "
        "terminal.",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s, this machine only)",
    )
    serve.add_argument(
        "--port", type=_port, default=8000, help="port (default: %(default)s; 0 picks a free one)"
    )
    serve.add_argument(
        "--max-sessions",
        type=_positive,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help="most browser tabs served at once (default: %(default)s)",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="let a --host other than this machine serve a real profile (its credentials "
        "would be reachable by anyone who has the address)",
    )
    for flag, text in (
        ("--demo", "serve the embedded demo service: the way to show the product to anyone"),
        ("--read-only", "hide and refuse every action that changes data"),
        ("--mask", "show addresses, e-mails, account ids and keys partly hidden"),
    ):
        serve.add_argument(flag, action="store_true", default=argparse.SUPPRESS, help=text)
    add_profile_flag(serve, "profile", default=argparse.SUPPRESS)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("must be a number from 0 to 65535 (0 picks a free one)")
    return value


def app_command(args: argparse.Namespace) -> str:
    """The shell command that starts one served app: this Python (in UTF-8 mode, which
    the app would otherwise start again in under a locale of another charset), or a
    frozen executable, which is the app itself; the session's flags."""
    from ..cli import UTF8_MODE
    from ..interpreter import python

    interpreter = python()
    app = [interpreter, *UTF8_MODE, "-m", "tokensales_tui"] if interpreter else [sys.executable]
    argv = [*app, "--served"]
    for flag in ("demo", "read_only", "mask"):
        if getattr(args, flag, False):
            argv.append("--" + flag.replace("_", "-"))
    for flag in ("profile", "base_url", "auth_url", "console_url"):
        value = getattr(args, flag, None)
        if value:
            argv += ["--" + flag.replace("_", "-"), value]
    return shlex.join(argv)


def run_serve(args: argparse.Namespace) -> int:
    """Serve the app until Ctrl+C; refuse an outside address for real credentials.

    Every signal that would end it (ctrl+c, SIGTERM, SIGHUP, … — see
    :data:`~tokensales_tui.signals.APP_ENDING_SIGNALS`) ends every session's app, closes
    the socket and exits with 128 + its number, as the commands and the app do; one
    ignored on entry (``nohup``) stays ignored. With ``--log FILE`` (given before
    ``serve``), what the server logs goes there: each session's start and end, an app
    killed, an error; never the token.
    """
    from ..debug_log import DebugLogError, logging_to

    try:
        # Before it serves (and after), a signal ends it where it is, as a command.
        with raising_on(ENDING_BUT_SIGINT), logging_to(getattr(args, "log", None)):
            return _run_serve(args)
    except DebugLogError as error:
        print(f"tokensales-tui: --log {clean(str(error))}", file=sys.stderr)
        return 2


def _run_serve(args: argparse.Namespace) -> int:
    from ..local import is_loopback_host
    from .server import GuardedServer

    demo = bool(getattr(args, "demo", False))
    if not is_loopback_host(args.host):
        warning = (
            f"tokensales-tui: --host {clean(args.host)} is not a loopback address: other"
            " machines could reach the app, and anyone with the printed address could use it"
        )
        if not demo and not args.allow_remote:
            print(
                f"{warning}, and with this profile's real credentials. Refused: add"
                " --allow-remote to do it anyway, or serve --demo.",
                file=sys.stderr,
            )
            return 2
        risk = "(demo data only)" if demo else "WITH THIS PROFILE'S REAL CREDENTIALS"
        print(f"{warning} {risk}.", file=sys.stderr)
    if not demo and (problem := _profile_problem(args)):
        # A tab without a profile would show the setup form, which writes this
        # machine's config file from a browser: refused here, before anything serves.
        print(f"tokensales-tui: serve: {clean(problem)}", file=sys.stderr)
        return 2
    if not demo:
        # Said here, to whoever runs serve: a browser's tab does not say it (its reader
        # could not mend it, and would learn this machine's paths).
        for warning in _loose_config():
            print(f"tokensales-tui: warning: {clean(warning)}", file=sys.stderr)
    try:
        sock = _listen(args.host, args.port)
    except OSError as error:
        print(
            f"tokensales-tui: cannot serve on {args.host}:{args.port}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    if args.log:
        hint = f"its traceback is in {args.log}"
    else:
        hint = "'tokensales-tui --log FILE serve …' keeps its traceback"
    leftovers = AppLeftovers(hint)
    server = GuardedServer(
        app_command(args),
        sock,
        max_sessions=args.max_sessions,
        title="tokensales-tui",
        on_stderr=leftovers.app_ended,
    )

    terminal = sys.stdout

    def ready(url: str) -> None:
        say = functools.partial(print, file=terminal)
        say(f"Serving tokensales-tui{' (demo)' if demo else ''}. Open this address:")
        say(url)
        if server.every_address:
            # 0.0.0.0 names no machine: other machines open this one by its own address.
            loopback = url.split("/")[2].rsplit(":", 1)[0]
            say(f"# From another machine: this machine's name or address in place of {loopback}.")
        say(
            f"# It holds the access token. At most {args.max_sessions} browser tabs at once."
            " Ctrl+C stops.",
            flush=True,
        )

    # textual-serve copies what an app wrote to stderr to this process's stdout when the
    # app ends: a crash's traceback, over the operator's terminal.
    with contextlib.redirect_stdout(leftovers):
        return asyncio.run(_serve(server, ready))


def _loose_config() -> list[str]:
    """What is loose about the config file's and its folder's modes (others may read)."""
    from .. import config

    return config.permission_warnings(None)


def _profile_problem(args: argparse.Namespace) -> str | None:
    """Why no profile can be served as ``args`` give it (None: one can)."""
    import os

    from .. import config

    overrides = config.Overrides(
        profile=getattr(args, "profile", None),
        base_url=getattr(args, "base_url", None),
        auth_url=getattr(args, "auth_url", None),
        console_url=getattr(args, "console_url", None),
    )
    try:
        config.resolve_profile(config.load_config(), cli=overrides, env=dict(os.environ))
    except config.NoConfiguration as error:
        return f"{error} (or serve --demo)"
    except config.ConfigError as error:
        return str(error)
    return None


class AppLeftovers(io.TextIOBase):
    """Where textual-serve writes what an app wrote to stderr, once its output ended.

    The app writing keeps it until its exit status is known (:meth:`app_ended`): the log
    gets it (``tokensales_tui.serve``, only ever the ``--log`` file), and for an app that
    did not end well the terminal gets one line saying so. An app that exited 0 having
    written a warning did not fail.
    """

    def __init__(self, hint: str) -> None:
        self._hint = hint
        self._last = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        from .app_process import app_writing

        if (app := app_writing()) is not None:
            app.wrote_on_stderr(text)
        # Not from an app's output (textual-serve changed): said as a failure, and once
        # when written twice, as for an app that fails to start.
        elif text.strip() and text != self._last:
            self._failed(f"a browser tab's app wrote on its way out:\n{clean(text)}")
        self._last = text
        return len(text)

    def app_ended(self, pid: int, status: int | None, text: str) -> None:
        """What the app ``pid`` wrote to stderr, now that it is gone with ``status``."""
        said = f"app {pid} (exit status {status}) wrote on its way out:\n{clean(text)}"
        if status == 0:
            log.warning("%s", said)
        else:
            self._failed(said)

    def _failed(self, said: str) -> None:
        log.error("%s", said)
        print(f"tokensales-tui: a browser tab's app failed — {self._hint}", file=sys.stderr)


def _listen(host: str, port: int) -> socket.socket:
    sock, _url = bind(host.strip("[]"), port)
    try:
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


async def _serve(server: Any, ready: Any) -> int:
    """Serve until a signal; its exit status once every session's app is gone."""
    stop = asyncio.Event()
    # Every signal that would end the server stops it, every session ended with its app
    # (SIGHUP's default killed the server and left every app running); one ignored on
    # entry (nohup) stays ignored.
    stopped = StoppedBy(lambda _signum: stop.set())
    with ending_on(stopped, loop=asyncio.get_running_loop()):
        await server.run(ready, stop)
    return stopped.exit_code()
