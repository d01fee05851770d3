"""Running one scripting command: its session, its client, and the exit code of its outcome.

Every failure ends as one line on stderr, ``tokensales-tui: what went wrong — what to
do``, with server text cleaned, and one of the exit codes of :data:`~.parser.EXIT_CODES`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from .. import config
from ..api.errors import ApiError, AuthError, NotFoundError, RefusedRequest, ValidationError
from ..clean import clean_line
from ..session import Launch, Session, demo_session, profile_session
from ..signals import ended_by
from .parser import (
    EXIT_AUTH,
    EXIT_FAILURE,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_READ_ONLY,
    EXIT_USAGE,
)

if TYPE_CHECKING:
    from ..api import ApiClient, RetryNotice
    from ..api.endpoints import Endpoint

__all__ = ["Context", "Refused", "UsageError", "ask", "preview", "run", "say"]


class UsageError(Exception):
    """A flag or a file that cannot be used; nothing was sent. The message says what to do."""


class Refused(Exception):
    """The profile is read-only and the command would change data."""


def say(message: str) -> None:
    """One line to stderr, cleaned (it may hold server text or a file's)."""
    print(f"tokensales-tui: {clean_line(message)}", file=sys.stderr, flush=True)


_SAID_ONCE: set[str] = set()


def say_once(message: str) -> None:
    """:func:`say`, unless this process has said ``message`` already."""
    if message not in _SAID_ONCE:
        _SAID_ONCE.add(message)
        say(message)


def read_config() -> config.ConfigFile:
    """The config file, as every command reads it: a file others may read while it
    holds an API secret is warned of on stderr, once however often it is read."""
    return config.load_config(loose=lambda warning: say_once(f"warning: {warning}"))


class Context:
    """What a command works with: its arguments, its session and (on demand) its client."""

    def __init__(
        self,
        args: argparse.Namespace,
        session: Session,
        sources: Mapping[str, str] | None = None,
    ) -> None:
        self.args = args
        self.session = session
        self.sources: Mapping[str, str] = sources or {}
        """Where each setting of the session came from (see ``ResolvedProfile.sources``)."""
        self._client: ApiClient | None = None

    @property
    def client(self) -> ApiClient:
        """The session's API client, made on first use."""
        if self._client is None:
            from ..api import ApiClient

            self._client = ApiClient(
                self.session.connection, transport=self.session.transport, on_retry=_retrying
            )
        return self._client

    def refuse_if_read_only(self, what: str) -> None:
        """Raise :class:`Refused` for a change in a read-only session."""
        if self.session.read_only:
            raise Refused(f"{what}: profile “{self.session.name}” is read-only; nothing was sent")

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


def preview(context: Context, *requests: tuple[Endpoint, Any]) -> int:
    """``--dry-run``: each request as it would be sent, secrets masked; nothing is sent."""
    from ..api.preview import RequestPreview

    connection = context.session.connection
    text = "\n\n".join(
        RequestPreview.build(endpoint, connection, body).as_text() for endpoint, body in requests
    )
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    say("dry run: nothing was sent")
    return EXIT_OK


def _retrying(notice: RetryNotice) -> None:
    say(f"{notice.method} {notice.path}: {notice.reason} — retrying in {notice.delay:.1f} s")


def without_httpx_command_line() -> None:
    """Keep httpx from importing its own command line when it is first imported.

    httpx imports ``httpx._main`` (click, pygments and Rich: some 50 ms) whenever those
    packages are installed, as they are beside the app. A command never uses it, and
    never loads Rich: a ``None`` in ``sys.modules`` makes that import fail, and httpx
    falls back on a stub, as it does when the packages are missing.
    """
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def open_session(args: argparse.Namespace) -> tuple[Session, Mapping[str, str]]:
    """The session the flags, the environment and the config file choose, and where
    each of its settings came from."""
    overrides = config.Overrides(
        profile=getattr(args, "profile", None),
        base_url=getattr(args, "base_url", None),
        auth_url=getattr(args, "auth_url", None),
        console_url=getattr(args, "console_url", None),
        read_only=True if getattr(args, "read_only", False) else None,
    )
    launch = Launch(overrides=overrides, env=dict(os.environ), demo=getattr(args, "demo", False))
    if launch.demo:
        session = demo_session(launch)
        sources = dict.fromkeys(("profile", "base_url", "auth_url", "console_url"), "--demo")
        sources |= {"api_key": "--demo", "api_secret": "--demo"}
        sources["read_only"] = "--read-only" if session.read_only else "default"
        return session, sources
    resolved = config.resolve_profile(read_config(), cli=overrides, env=launch.env)
    return profile_session(resolved, launch), resolved.sources


def exit_code(error: BaseException) -> int:
    """The exit code of a failure."""
    if isinstance(error, UsageError | ValidationError | RefusedRequest | config.ConfigError):
        return EXIT_USAGE
    if isinstance(error, AuthError):
        return EXIT_AUTH
    if isinstance(error, NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(error, Refused):
        return EXIT_READ_ONLY
    return EXIT_FAILURE


def message_of(error: BaseException) -> str:
    """The one line that says what went wrong and, where known, what to do."""
    if isinstance(error, ApiError):
        # A shell user runs the command again; a list to refresh is the app's.
        if isinstance(error, NotFoundError):
            return error.message
        if isinstance(error, ValidationError):  # the server's words, headed by what it refused
            return error.headed
        return error.one_line.replace("refresh to check", "check with 'tokensales-tui get'")
    if isinstance(error, config.NoConfiguration):
        return f"{error} (or pass --demo)"
    return str(error)


@contextlib.contextmanager
def unknown_if_interrupted(
    what: str, check: str = "check with 'tokensales-tui get'"
) -> Iterator[None]:
    """Ctrl+C while the change ``what`` waits: once its request was handed to the
    connection, its outcome is unknown, and said so (it may be done, as the app and a
    lost answer say); before that, nothing was sent, and "interrupted" says enough."""
    from ..api.transport import noting_attempts

    sent = False

    def note() -> None:
        nonlocal sent
        sent = True

    try:
        with noting_attempts(note):
            yield
    except (asyncio.CancelledError, KeyboardInterrupt):
        if sent:
            say(f"{what}: outcome unknown — interrupted once its request was sent; {check}")
        raise


def run(args: argparse.Namespace, command: Callable[[Context], Awaitable[int]]) -> int:
    """Open the session, run ``command`` and turn its outcome into an exit code."""
    from ..debug_log import DebugLogError, logging_to
    from .output import Halted, OutputError

    without_httpx_command_line()
    try:
        with logging_to(getattr(args, "log", None)):
            return _open_and_run(args, command)
    except DebugLogError as error:
        say(f"--log {error}")
        return EXIT_USAGE
    except KeyboardInterrupt as interrupted:  # ctrl+c, or another signal (SignalEnded)
        say("interrupted")
        return ended_by(interrupted)
    except Halted as halted:  # the --jq program's own end: its words, as jq prints them
        sys.stderr.write(halted.message)
        sys.stderr.flush()
        return halted.code
    except (ApiError, UsageError, Refused, OutputError, config.ConfigError) as error:
        say(message_of(error))
        return EXIT_USAGE if isinstance(error, OutputError) else exit_code(error)


def _open_and_run(args: argparse.Namespace, command: Callable[[Context], Awaitable[int]]) -> int:
    try:
        session, sources = open_session(args)
    except config.ConfigError as error:
        if args.command != "profiles":
            raise
        from .reads import profiles_without_session

        say(message_of(error))
        return profiles_without_session(args)
    return asyncio.run(_run(Context(args, session, sources), command))


async def _run(context: Context, command: Callable[[Context], Awaitable[int]]) -> int:
    try:
        return await command(context)
    finally:
        await context.aclose()


def read_json_file(path: str, what: str, *, limit: int = 64 * 1024 * 1024) -> Any:
    """A JSON file (``-`` for stdin), or :class:`UsageError` naming ``what`` and the file."""
    return decode_input(read_input(path, what, limit=limit), f"{what}: {path}")


def decode_input(data: bytes, what: str) -> Any:
    """JSON given to a command, or :class:`UsageError` naming ``what``; a lone surrogate
    (``\\ud800``, valid JSON) is read as U+FFFD, as the API client reads one. Every JSON
    a command reads (``api --input``, ``--from-file``) is read here.

    A body nested deeper than :data:`~..api.written.MAX_DEPTH` is refused first: every
    check and view of it would stop short of the whole, each in its own way. So is one
    with a key given twice in one object (:func:`repeated_key`): which one counts is a
    reader's guess (the last, for this one and many servers; the first, for others), and
    a preview and its masks would show one value where the bytes send both.
    """
    import msgspec

    from ..api.shapes import repair_surrogates
    from ..api.written import TooDeep, check_nesting

    try:
        check_nesting(data)
    except TooDeep as error:
        raise UsageError(f"{what} is {error}") from None
    try:
        value = msgspec.json.decode(data)
    except (ValueError, RecursionError) as error:
        repaired = repair_surrogates(data) if b"\\u" in data else None
        if repaired is not None:
            return decode_input(repaired, what)
        raise UsageError(f"{what} is not JSON ({error})") from None
    if (twice := repeated_key(data, what)) is not None:
        raise UsageError(
            f"{what}: the key “{clean_line(twice)[:100]}” comes twice in one object (which"
            " one counts is a reader's guess); give it once"
        )
    return value


def repeated_key(data: bytes, what: str) -> str | None:
    """A key that comes twice in one object of the JSON ``data`` (already read by
    :func:`decode_input`), if any; :class:`UsageError` naming ``what`` when it cannot be
    told (never "none" for a body not looked through)."""
    import json

    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen and not found:
                found.append(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(data, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as error:  # msgspec read it: a limit of this parser's
        raise UsageError(f"{what} cannot be checked for a key given twice ({error})") from None
    return found[0] if found else None


def standard_input(what: str, *, instead: str = "pass the data on it, or name a file") -> TextIO:
    """The standard input, for ``what`` to read; :class:`UsageError` (exit 2, ``what:
    stdin is closed — instead``) when it is closed (``<&-``: ``sys.stdin`` is None), as
    an empty one (``</dev/null``) ends in a line of its own. Every reader of stdin takes
    it from here."""
    stream = sys.stdin
    if stream is None:
        raise UsageError(f"{what}: stdin is closed — {instead}")
    return stream


def ask(question: str, what: str, *, hidden: bool = False) -> str | None:
    """The line typed on the terminal of stdin at ``question`` (written to stderr), without
    its line ending; ``None`` at the end of input (ctrl+d). ``hidden``: typed without
    echo, as a secret is, the echo put back however the question ends.

    Every question of the commands is asked here. Ctrl+C, or another signal, ends the
    command at once (:func:`~.output.interruptible`). A question left without the line
    ending of an answer (ctrl+d, ctrl+c, a hidden answer's unechoed Enter) has its line
    ended, so that what is said next starts a line of its own (it was said after the
    question: ``…? [y/N] tokensales-tui: webhook …: kept``).
    """
    from .output import interruptible

    stdin = standard_input(what)
    line = ""
    try:
        with interruptible(), _unechoed(stdin) if hidden else contextlib.nullcontext():
            sys.stderr.write(question)
            sys.stderr.flush()
            line = stdin.readline()
    finally:
        if hidden or not line.endswith("\n"):
            sys.stderr.write("\n")
            sys.stderr.flush()
    return line.removesuffix("\n") if line else None


@contextlib.contextmanager
def _unechoed(stream: TextIO) -> Iterator[None]:
    """The terminal of ``stream`` does not echo what is typed while the block runs."""
    import termios

    try:
        before = termios.tcgetattr(stream.fileno())
    except (termios.error, OSError, ValueError):
        say("warning: the terminal's echo cannot be turned off: what is typed may show")
        yield
        return
    quiet = list(before)
    quiet[3] &= ~termios.ECHO
    # TCSAFLUSH, as getpass: what was typed before the question is not taken for the answer.
    termios.tcsetattr(stream.fileno(), termios.TCSAFLUSH, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(stream.fileno(), termios.TCSAFLUSH, before)


def read_input(path: str, what: str, *, limit: int) -> bytes:
    """The bytes of ``path`` (``-`` for stdin), at most ``limit``; a regular file only."""
    from pathlib import Path

    from ..files import LocalFileError, NotRegular, read_local_file

    if path == "-":
        data = standard_input(what).buffer.read(limit + 1)
        if len(data) > limit:
            raise UsageError(f"{what}: stdin holds more than {limit:,} bytes")
        return data
    try:
        return read_local_file(Path(path).expanduser(), limit=limit)
    except FileNotFoundError:
        raise UsageError(f"{what}: there is no file at {path} — check the path") from None
    except LocalFileError as error:
        # A pipe (``<(cmd)``) is read from stdin, where its end is known: opened by name,
        # one without a writer would be waited on for good.
        piped = f" — pass it on stdin instead: {what} -" if isinstance(error, NotRegular) else ""
        raise UsageError(f"{what}: {path} is {error}{piped}") from None
    except OSError as error:
        raise UsageError(f"{what}: cannot read {path}: {error.strerror or error}") from None
