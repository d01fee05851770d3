"""``tokensales-tui listen``: receive webhook deliveries on this machine.

The command's flags, its checks and the lifetime of one listening session (the receiver,
the optional registration of a webhook, the clean-up) live here; the terminal screen is
``ui/listen_app.py``, and ``--print`` runs without it (:func:`run_print`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import errno
import functools
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..clean import clean_line
from ..console import OutputFailed
from ..files import NotRegular, said
from ..local import is_loopback_host, reaches
from ..signals import ENDING_BUT_SIGINT, StoppedBy, ended_by, ending_on, raising_on
from .listen_flags import BODY_LIMIT, KEEP
from .receiver import Receiver, ReceiverServer, TargetError, check_target

if TYPE_CHECKING:
    from ..api import ApiClient, Done

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_READ_ONLY = 0, 1, 2, 5


class ListenError(Exception):
    """A flag that cannot be used, or a registration that failed; says what to do."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class ListenOptions:
    """The checked flags of one listen."""

    host: str = "127.0.0.1"
    port: int = 0
    expose: bool = False
    forward_to: str | None = None
    routes: dict[str, str] = field(default_factory=dict)
    tolerance: float = 300.0
    max_body: int = BODY_LIMIT
    keep: int = KEEP
    save: str | None = None
    register: str | None = None
    events: list[str] = field(default_factory=list)
    secret: str | None = None


def options_from(args: argparse.Namespace) -> ListenOptions:
    """Check the flags; :class:`ListenError` names the first that cannot be used."""
    if not 0 <= args.port <= 65535:
        raise ListenError(f"--port {args.port}: choose 0 (a free port) to 65535")
    if not is_loopback_host(args.host) and not args.expose:
        raise ListenError(
            f"--host {args.host}: other machines could reach it; add --expose to mean it"
        )
    routes: dict[str, str] = {}
    for text in args.route:
        name, sep, url = text.partition("=")
        if not sep or not name.strip() or not url.strip():
            raise ListenError(f"--route {text}: write EVENT=URL")
        routes[name.strip()] = url.strip()
    try:
        forward = check_target(args.forward_to) if args.forward_to else None
        for url in routes.values():
            check_target(url)
    except TargetError as error:
        raise ListenError(str(error)) from None
    if not 0 < args.tolerance <= 86400 * 365:
        raise ListenError("--tolerance: seconds, more than 0")
    if not 0 < args.max_body <= 1024**3:
        raise ListenError("--max-body: bytes, from 1 to 1 GB")
    if not 0 < args.keep <= 1_000_000:
        raise ListenError("--keep: from 1 to 1,000,000")
    events: list[str] = []
    if args.events:  # read by the rule of the webhook form and `create` (checks: 0.2 s to load)
        from ..checks.urls import check_events, parse_events

        events = parse_events(args.events)
        if args.register and (problem := check_events(args.events)):
            raise ListenError(f"--events: {problem}")
    if args.register and not events:
        raise ListenError("--register needs --events E1,E2 (the events the webhook subscribes to)")
    if args.register and (args.secret_stdin or args.secret_file):
        raise ListenError("--register makes its own secret: leave out --secret-stdin/--secret-file")
    secret = None
    if args.secret_stdin or args.secret_file:
        from ..script.changes import read_secret
        from ..script.run import UsageError

        try:
            secret = read_secret(args) or None
        except UsageError as error:
            raise ListenError(str(error)) from None
    return ListenOptions(
        host=args.host,
        port=args.port,
        expose=args.expose,
        forward_to=forward,
        routes=routes,
        tolerance=args.tolerance,
        max_body=args.max_body,
        keep=args.keep,
        save=args.save,
        register=args.register,
        events=events,
        secret=secret,
    )


def register_command(port: int, events: Sequence[str]) -> str:
    """The ``listen --register`` command that receives ``events`` from the service through
    a tunnel to ``port``, ready to paste: each word quoted for a shell where it needs it."""
    names = ",".join(clean_line(name) for name in events) or "EVENT1,EVENT2"
    words = ["--port", str(port), "--register", "PUBLIC_URL", "--events", names]
    return shlex.join(["tokensales-tui", "listen", *words])


def new_secret() -> str:
    """A fresh webhook secret: ``whsec_`` + 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


class Registration:
    """A webhook created for this listen on the active profile, deleted at its end."""

    def __init__(self, client: ApiClient, url: str, events: list[str], secret: str) -> None:
        self.client = client
        self.url = url
        self.events = events
        self.secret = secret
        self.webhook_ids: list[str] = []
        self.sent = False
        """The create was sent: a webhook may exist, found or not (its answer lost, the
        look-up for its id failed or was interrupted)."""
        self.unfound = False
        """A webhook may exist that no look-up found: said at the end, to delete by hand."""
        self.created: Done | None = None
        """The create's answer, once it came: its note is said with the registration."""
        self.deleted: list[str] = []
        """What each delete done said (:meth:`Done.said`), where it noted anything."""
        self._before: set[str] = set()

    async def create(self) -> None:
        """Create the webhook and find its id (the service answers the POST without a body)."""
        from ..api import Secret
        from ..api.models import WebhookCreate

        self._before = {w.id for w in await self.client.list_webhooks()}
        self.sent = True
        self.created = await self.client.create_webhook(
            WebhookCreate(url=self.url, events=self.events, secret=Secret(self.secret))
        )
        await self._find()

    async def _find(self) -> None:
        after = await self.client.list_webhooks()
        self.webhook_ids = [w.id for w in after if w.id not in self._before and w.url == self.url]

    async def delete(self) -> list[str]:
        """Delete what :meth:`create` made (looked for again if its id was never found);
        returns the ids that could not be deleted."""
        from ..api.errors import ApiError, NotFoundError

        if self.sent and not self.webhook_ids:
            try:
                await self._find()
            except ApiError:
                self.unfound = True
                return []
        left = []
        for webhook_id in self.webhook_ids:
            try:
                done = await self.client.delete_webhook(webhook_id)
            except NotFoundError:
                continue
            except ApiError:
                left.append(webhook_id)
                continue
            if done.unusual:  # a delete done says nothing, unless only accepted or unread
                self.deleted.append(done.said(f"deleted webhook {webhook_id}"))
        self.webhook_ids = left
        return left


class Listening:
    """One listen: the receiver served, and the webhook registered for it, if asked.

    ``async with Listening(options, on_change) as listening:`` starts both and, however
    the block ends, deletes the webhook and stops the receiver.
    """

    def __init__(
        self,
        options: ListenOptions,
        on_change: Callable[[Any], None] | None = None,
        *,
        args: argparse.Namespace | None = None,
        transport: Any = None,
    ) -> None:
        self.options = options
        self.args = args
        secret = new_secret() if options.register else options.secret
        try:
            self.receiver = self._receiver(options, secret, on_change, transport)
        except OSError as error:
            raise ListenError(f"--save {_unsaveable(error, options.save)}") from None
        self.server: ReceiverServer | None = None
        self.registration: Registration | None = None
        self.session: Any = None
        self._client: ApiClient | None = None

    @staticmethod
    def _receiver(
        options: ListenOptions,
        secret: str | None,
        on_change: Callable[[Any], None] | None,
        transport: Any,
    ) -> Receiver:
        return Receiver(
            secret=secret,
            forward_to=options.forward_to,
            routes=options.routes,
            tolerance=options.tolerance,
            body_limit=options.max_body,
            keep=options.keep,
            save=options.save,
            on_change=on_change,
            transport=transport,
        )

    @property
    def url(self) -> str:
        """Where the receiver listens."""
        return self.server.url if self.server else ""

    @property
    def port(self) -> int:
        """The port the receiver listens on (0 before it does)."""
        from urllib.parse import urlsplit

        return urlsplit(self.url).port or 0

    async def __aenter__(self) -> Listening:
        if self.options.register:
            self._prepare_registration()
        try:
            self.server = ReceiverServer(self.receiver, self.options.host, self.options.port)
        except OSError as error:
            await self.receiver.close()
            raise ListenError(
                f"cannot listen on {self.options.host}:{self.options.port}: {error.strerror or error}",
                EXIT_FAILURE,
            ) from None
        if own := self._own_target():  # before it listens: the socket is only bound
            await self._close()
            raise ListenError(
                f"{own} is listen's own address: each delivery would be relayed to itself"
                " again and again"
            )
        await self.server.start()
        if self.registration is not None:
            from ..api.errors import ApiError

            try:
                await self.registration.create()
            except ApiError as error:
                await self._close()
                raise ListenError(f"--register: {error.message}", EXIT_FAILURE) from None
            except BaseException:  # ctrl+c, a signal: what may have been made is deleted
                await self._close()
                raise
        return self

    def _own_target(self) -> str | None:
        """The first target (``--forward-to``, a ``--route``) whose relays would arrive at
        listen's own socket, if any (see :func:`~tokensales_tui.local.reaches`)."""
        assert self.server is not None
        for target in [self.options.forward_to, *self.options.routes.values()]:
            if target and reaches(target, self.server.socket):
                return target
        return None

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    def _prepare_registration(self) -> None:
        from ..api import ApiClient
        from ..config import ConfigError
        from ..script.run import open_session

        try:
            self.session, _ = open_session(self.args or argparse.Namespace())
        except ConfigError as error:
            raise ListenError(f"--register: {error}") from None
        if self.session.read_only:
            raise ListenError(
                f"--register: profile “{self.session.name}” is read-only; nothing was created",
                EXIT_READ_ONLY,
            )
        self._client = ApiClient(self.session.connection, transport=self.session.transport)
        assert self.receiver.secret is not None
        self.registration = Registration(
            self._client, self.options.register or "", self.options.events, self.receiver.secret
        )

    async def _close(self) -> None:
        try:
            registration = self.registration
            if registration is not None and (registration.webhook_ids or registration.sent):
                left = await asyncio.shield(registration.delete())
                for said in registration.deleted:
                    print(f"tokensales-tui: {clean_line(said)}", file=sys.stderr)
                for webhook_id in left:
                    print(
                        f"tokensales-tui: could not delete webhook {clean_line(webhook_id)}:"
                        " delete it with 'tokensales-tui delete webhook ID'",
                        file=sys.stderr,
                    )
                if registration.unfound:
                    print(
                        "tokensales-tui: a webhook for"
                        f" {clean_line(registration.url)} may have been created and could not"
                        " be found: look with 'tokensales-tui get webhooks' and delete it",
                        file=sys.stderr,
                    )
        finally:
            if self._client is not None:
                await self._client.aclose()
            if self.server is not None:
                await self.server.stop()
            else:
                await self.receiver.close()


def describe(listening: Listening, *, secret: bool = True) -> list[str]:
    """The lines that say where deliveries are expected and where they go, and (with
    ``secret``) that no secret was given: a screen says that itself, with its key."""
    options = listening.options
    lines = [f"listening on {listening.url}"]
    if options.expose and not is_loopback_host(options.host):
        lines.append(f"warning: {options.host} can be reached from other machines")
    for name, url in options.routes.items():
        lines.append(f"route {name} → {url}")
    if options.forward_to:
        lines.append(f"forward → {options.forward_to}")
    if (registration := listening.registration) is not None:
        ids = ", ".join(registration.webhook_ids) or "(id not found)"
        registered = (
            f"registered webhook {ids} for {options.register} ({', '.join(options.events)});"
            " deleted when listen stops"
        )
        created = registration.created
        lines.append(created.said(registered) if created is not None else registered)
    elif secret and listening.receiver.secret is None:
        lines.append("no secret given: signatures are named, not checked (--secret-stdin/-file)")
    return [clean_line(line) for line in lines]


class Ending(StoppedBy):
    """How one listen takes the signals that would end it (see :func:`run_listening`):
    before it listens, a signal cancels the start, which deletes what it made; once it
    listens, :attr:`stopping` is called (``--print`` stops as on ctrl+c; the screen's
    app takes the signals itself while it runs). The first signal's number is kept for
    the exit status."""

    def __init__(self) -> None:
        super().__init__(self._stop)
        self.stopping: Callable[[], object] | None = None
        self._task = asyncio.current_task()
        self._cancelled = False

    def _stop(self, _signum: int) -> None:
        if self.stopping is not None:
            self.stopping()
        elif not self._cancelled and self._task is not None:
            self._cancelled = True  # once: a second lets the deletes finish
            self._task.cancel()


Listen = Callable[[ListenOptions, Ending], Awaitable[int]]
"""One form of listen (``--print``, the screen): its exit code, once it stopped."""


def run_listening(args: argparse.Namespace, listen: Listen) -> int:
    """Run ``listen`` with the flags of ``args``; its exit code.

    Every signal that would end it (ctrl+c, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, … — see
    :data:`~tokensales_tui.signals.APP_ENDING_SIGNALS`) ends it through its cleanup (the
    webhook registered deleted, the receiver closed), with exit status 128 + its number,
    whichever form it has; one ignored on entry (``nohup``) stays ignored.
    """
    try:
        with raising_on(ENDING_BUT_SIGINT):  # its secret's question, before they are taken
            options = options_from(args)
        with debug_log(args):
            return asyncio.run(_until_ended(listen, options))
    except ListenError as error:
        print(f"tokensales-tui: {clean_line(str(error))}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt as interrupted:  # before the signals were taken
        return ended_by(interrupted)


async def _until_ended(listen: Listen, options: ListenOptions) -> int:
    ending = Ending()
    with ending_on(ending, loop=asyncio.get_running_loop()):
        try:
            code = await listen(options, ending)
        except asyncio.CancelledError:
            if ending.signum is None:
                raise
            code = EXIT_OK  # a signal ended the start: said by its status
    return ending.exit_code(code)


async def _print_until_stopped(
    options: ListenOptions, ending: Ending, args: argparse.Namespace
) -> int:
    stop = asyncio.Event()
    failed: list[OutputFailed] = []

    def show(delivery: Any) -> None:
        if delivery.done and not delivery.replays and not failed:
            try:
                print(clean_line(delivery.line()), flush=True)
            except OutputFailed as error:
                # Listen ends as any command whose output cannot be written (a full disk,
                # a reader gone): the delivery itself was received and is answered.
                failed.append(error)
                stop.set()

    async with Listening(options, show, args=args) as listening:
        ending.stopping = stop.set  # as q does: the webhook deleted
        for line in describe(listening):
            print(line, file=sys.stderr, flush=True)
        await stop.wait()
        if not failed:
            print("stopping", file=sys.stderr, flush=True)
    if failed:
        raise failed[0]
    return EXIT_OK


@contextlib.contextmanager
def debug_log(args: argparse.Namespace) -> Iterator[None]:
    """Log to the ``--log FILE`` given before ``listen``, if any, while the block runs.

    It receives what fails in listen itself (with its traceback) and what the server logs;
    none of that is ever written to the terminal.
    """
    from ..debug_log import DebugLogError, logging_to

    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(logging_to(getattr(args, "log", None)))
        except DebugLogError as error:
            raise ListenError(f"--log {error}") from None
        yield


def run_print(args: argparse.Namespace) -> int:
    """``listen --print``: a line per delivery on stdout until ctrl+c or another signal."""
    return run_listening(args, functools.partial(_print_until_stopped, args=args))


def _unsaveable(error: OSError, path: str | None) -> str:
    """Why ``--save`` cannot take its file, as its user would put it, the file named."""
    name = clean_line(path or "")
    if error.errno == errno.ELOOP:  # O_NOFOLLOW met a link
        return (
            f"{name}: a symbolic link; deliveries are never written through one:"
            " give the file itself"
        )
    if isinstance(error, NotRegular):
        return f"{name} is not a regular file"
    return said(error, path)
