"""The command line: ``tokensales-tui`` runs the app, ``tokensales-tui emulator`` serves the
demo service, and the scripting commands (``get``, ``create`` …) live in :mod:`.script`."""

from __future__ import annotations

import argparse
import gc
import os
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:
    from .console import OutputFailed


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for both commands."""
    from .script import add_commands, exit_codes_text
    from .script.parser import add_profile_flag

    parser = argparse.ArgumentParser(
        prog="tokensales-tui",
        description="Browse and edit the webhooks, items, assets, payouts and collections\n"
        "of a Token Sales Management Service; without a command, the terminal app.",
        epilog="environment: TOKENSALES_PROFILE, TOKENSALES_BASE_URL, TOKENSALES_AUTH_URL,\n"
        "  TOKENSALES_CONSOLE_URL, TOKENSALES_API_KEY, TOKENSALES_API_SECRET\n"
        "Run 'tokensales-tui COMMAND --help' for a command, 'tokensales-tui emulator --help'\n"
        "for the local demo service.\n\n" + exit_codes_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_profile_flag(parser, "profile of the config file to use")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="run on the embedded demo service (no credentials needed)",
    )
    parser.add_argument(
        "--read-only", action="store_true", help="hide and refuse every action that changes data"
    )
    parser.add_argument(
        "--mask",
        action="store_true",
        help="show addresses, e-mails, account ids and keys partly hidden (for demos)",
    )
    # How `serve` starts each browser tab's app (see Launch.served): not for people.
    parser.add_argument("--served", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", metavar="URL", help="address of the /v1 API")
    parser.add_argument("--auth-url", metavar="URL", help="address of the token endpoint")
    parser.add_argument("--console-url", metavar="URL", help="address of the collections endpoints")
    parser.add_argument(
        "--log",
        metavar="FILE",
        help="write a debug log of requests (method, URL, status, timing; never secrets) to FILE",
    )
    parser.add_argument("--version", action="version", version=f"tokensales-tui {__version__}")

    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    emulator = commands.add_parser(
        "emulator",
        help="serve the embedded demo service on this machine",
        description="Serve the embedded emulator of the service until Ctrl+C. It first prints "
        "export lines to paste into another shell, so 'tokensales-tui' there uses it.",
    )
    emulator.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s); another than loopback needs --expose",
    )
    emulator.add_argument(
        "--expose",
        action="store_true",
        help="allow --host to be an address other machines can reach: with the published demo"
        " credentials, anyone who reaches it can make this machine send requests to its own"
        " loopback services (prints a warning)",
    )
    emulator.add_argument(
        "--port", type=_port, default=8765, help="port (default: %(default)s; 0 picks a free one)"
    )
    emulator.add_argument(
        "--items",
        type=_items,
        default=40,
        help="number of items, at most 10,000,000; a million take some 1.3 GB of memory"
        " (default: %(default)s)",
    )
    emulator.add_argument(
        "--seed", type=int, default=0, help="seed of the generated data (default: %(default)s)"
    )
    emulator.add_argument(
        "--faults",
        metavar="NAME[,NAME]",
        default="",
        help="misbehave on purpose: slow, flaky, ratelimit, expiring, garbage, hang,"
        " token-down, hostile (every string an attack on the terminal)",
    )
    emulator.add_argument(
        "--token-lifetime",
        type=_token_lifetime,
        default=3600.0,
        metavar="SECONDS",
        help="lifetime of issued tokens, 1 to 31,536,000 s (a year) (default: %(default)s)",
    )
    _add_emulator_commands(emulator)
    add_commands(commands)
    from .serve import add_serve_command
    from .webhooks.listen_flags import add_listen_command

    add_serve_command(commands)
    add_listen_command(commands)
    return parser


def _add_emulator_commands(emulator: argparse.ArgumentParser) -> None:
    from .webhooks.catalogue import DEFAULT_EMULATOR_URL, catalogue_text

    actions = emulator.add_subparsers(dest="emulator_command", metavar="ACTION")
    url_help = f"the running emulator (default: $TOKENSALES_BASE_URL, else {DEFAULT_EMULATOR_URL})"
    trigger = actions.add_parser(
        "trigger",
        help="raise an event on a running emulator",
        description="Raise one event on a running emulator: it is delivered, signed, to every"
        " active webhook subscribed to it. The emulator's own events:\n" + catalogue_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    trigger.add_argument("event", metavar="EVENT", help="event name, e.g. item.sold")
    trigger.add_argument("--data", metavar="JSON", help="a JSON object merged into the data")
    trigger.add_argument("--url", metavar="URL", help=url_help)
    log = actions.add_parser(
        "deliveries", help="print the delivery log of a running emulator, one attempt a line"
    )
    log.add_argument("--url", metavar="URL", help=url_help)
    log.add_argument("--json", action="store_true", help="one JSON object a line")


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a whole number") from None


def _port(text: str) -> int:
    value = _whole_number(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value}: choose 0 (a free port) to 65535")
    return value


def _items(text: str) -> int:
    from .emulator.state import ITEMS_LIMIT

    value = _whole_number(text)
    if not 0 <= value <= ITEMS_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{value:,}: from 0 to {ITEMS_LIMIT:,} (a million items take some 1.3 GB of memory)"
        )
    return value


def _token_lifetime(text: str) -> float:
    import math

    from .emulator.state import TOKEN_LIFETIME_LIMIT

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 1 <= value <= TOKEN_LIFETIME_LIMIT):
        raise argparse.ArgumentTypeError(
            f"{text[:20]}: a number of seconds from 1 to {TOKEN_LIFETIME_LIMIT:,.0f} (a year)"
        )
    return value


UTF8_MODE = ("-X", "utf8")
"""The interpreter option of Python's UTF-8 mode: every name exchanged with the system
(arguments, variables, file names, the command line of a program started) is UTF-8,
whatever the locale says. See :func:`_in_utf8_mode`."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tokensales-tui`` command; ``argv``: the arguments, else the
    command line's (run again in UTF-8 mode where the locale's charset is another)."""
    if argv is None:
        _in_utf8_mode()
    from .console import OutputFailed, flush_output, guard_streams, unguard

    guard_streams()
    try:
        try:
            code = _main(argv)
        except SystemExit:  # argparse's, after --help or a usage error
            flush_output()
            raise
        flush_output()  # what is still buffered fails now, while it can be said
        return code
    except OutputFailed as failed:  # whichever command was writing (see console)
        return _output_failed(failed)
    except KeyboardInterrupt as interrupted:  # before a command's own handling began
        from .signals import ended_by

        print("tokensales-tui: interrupted", file=sys.stderr)
        return ended_by(interrupted)
    finally:
        unguard()


def _in_utf8_mode() -> None:
    """Run this same command again, in place, in Python's UTF-8 mode, where the locale's
    charset is not UTF-8.

    The app reads and writes the terminal as UTF-8, and so do the commands. Under a
    locale of another charset (over SSH, a server's ``LANG=en_US``, ISO-8859-1, with a
    UTF-8 terminal) Python reads the arguments and variables in that charset, and
    encodes every file name and every argument of a program it starts in it:
    ``--url https://例え.jp`` arrived as other characters, controls among them, and an
    export to ``prix-€.csv`` or a link to open with a character the charset lacks ended
    in ``UnicodeEncodeError``. The arguments are given again as the bytes they came as
    (read and written back in the same charset), and read as UTF-8 this time.

    Under a UTF-8 locale (and the C locale, where Python is in UTF-8 mode already) this
    costs a look at two values; elsewhere, one more start of the interpreter. The same
    process goes on (its id, its descriptors): a closed stdin stays closed. Where no
    interpreter can be started again (embedded, or a frozen executable), the command
    runs as it is.
    """
    if sys.flags.utf8_mode or sys.getfilesystemencoding() == "utf-8":
        return
    from .interpreter import python

    interpreter = python()
    if interpreter is None or len(sys.orig_argv) < 2:
        return  # embedded or frozen: no Python command line to run again
    try:
        os.execv(interpreter, [interpreter, *UTF8_MODE, *sys.orig_argv[1:]])
    except OSError:
        return


def _output_failed(failed: OutputFailed) -> int:
    """The exit code, and the line on stderr, of a command whose output failed."""
    from .console import quiet_stdout
    from .script.parser import EXIT_FAILURE, EXIT_OK

    quiet_stdout()
    if failed.reader_gone:  # `| head`: what the reader wanted was printed
        return EXIT_OK
    print(f"tokensales-tui: {failed}", file=sys.stderr, flush=True)
    return EXIT_FAILURE


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # a shell asking for completions (see `completion`)
        import argcomplete

        argcomplete.autocomplete(parser)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(_shown(unknown))}")
    if args.command == "emulator":
        return run_emulator(args)
    if args.command == "serve":
        from .serve import run_serve

        return run_serve(args)
    if args.command == "completion":
        from .script.main import completion

        return completion(args.shell)
    if args.command == "listen":
        return run_listen(args)
    if args.command is not None:
        from .script.main import main as run_command

        return run_command(args)
    from .console import unguard

    unguard()  # the app writes through Textual's driver
    return run_app(args)


def _shown(unknown: Sequence[str]) -> list[str]:
    """Arguments not understood, as an error repeats them: what an option not understood
    was given (``--secre VALUE``, ``--secre=VALUE``, ``-s VALUE``: a mistyped secret flag?)
    may be a secret, and an error shows on screen and in logs, so it is left out."""
    shown: list[str] = []
    for index, word in enumerate(unknown):
        before = unknown[index - 1] if index else ""
        if word.startswith("-") and "=" in word:
            shown.append(word.split("=", 1)[0] + "=…")
        elif before.startswith("-") and "=" not in before and not word.startswith("-"):
            shown.append("…")
        else:
            shown.append(word)
    return shown


def run_emulator(args: argparse.Namespace) -> int:
    """Serve the emulator until Ctrl+C, after printing the export lines; or, with an
    action, talk to a running one. ``--log FILE`` given before ``emulator`` holds what
    either logs (requests, and the server's errors with their tracebacks).

    Every signal that would end it (ctrl+c, SIGTERM, SIGHUP, … — see
    :data:`~tokensales_tui.signals.APP_ENDING_SIGNALS`) ends it with 128 + its number, as
    the commands and the app: a served emulator once its requests are answered and its
    socket closed; one ignored on entry (``nohup``) stays ignored."""
    from .clean import clean_line
    from .debug_log import DebugLogError, logging_to
    from .signals import ENDING_BUT_SIGINT, raising_on

    try:
        # Before it serves (and after), a signal ends it where it is, as a command.
        with raising_on(ENDING_BUT_SIGINT), logging_to(args.log):
            return _run_emulator(args)
    except DebugLogError as error:
        print(f"tokensales-tui: --log {clean_line(str(error))}", file=sys.stderr)
        return 2


def _run_emulator(args: argparse.Namespace) -> int:
    if args.emulator_command is not None:
        from .emulator import control
        from .webhooks.catalogue import DEFAULT_EMULATOR_URL

        url = args.url or os.environ.get("TOKENSALES_BASE_URL") or DEFAULT_EMULATOR_URL
        if args.emulator_command == "trigger":
            return control.trigger(url, args.event, args.data)
        return control.deliveries(url, as_json=args.json)
    from .clean import clean_line
    from .emulator import DEMO_API_KEY, DEMO_API_SECRET, FAULTS
    from .emulator.server import serve
    from .local import is_every_address, is_loopback_host

    faults = [name.strip() for name in args.faults.split(",") if name.strip()]
    unknown = [name for name in faults if name not in FAULTS]
    if unknown:
        known = ", ".join(FAULTS)
        print(
            f"tokensales-tui: unknown fault {', '.join(unknown)} (known: {known})", file=sys.stderr
        )
        return 2

    if not is_loopback_host(args.host):
        risk = (
            f"--host {clean_line(args.host)} is not a loopback address: other machines could"
            " reach the emulator, whose demo credentials are published; anyone who reaches it"
            " can register a webhook to"
            " 127.0.0.1 and make this machine send what they choose to its own loopback services"
        )
        if not args.expose:
            print(f"tokensales-tui: {risk}. Refused: add --expose to mean it.", file=sys.stderr)
            return 2
        print(f"tokensales-tui: warning: {risk}.", file=sys.stderr, flush=True)

    def ready(url: str) -> None:
        lines = {
            "TOKENSALES_BASE_URL": url,
            "TOKENSALES_AUTH_URL": url,
            "TOKENSALES_CONSOLE_URL": url,
            "TOKENSALES_API_KEY": DEMO_API_KEY,
            "TOKENSALES_API_SECRET": DEMO_API_SECRET,
        }
        print(
            "# The emulator is running. Paste these lines into another shell, then run tokensales-tui:"
        )
        for name, value in lines.items():
            print(f"export {name}={shlex.quote(value)}")
        if is_every_address(args.host):
            # 0.0.0.0 names no machine: other machines reach this one by its own address.
            loopback = url.split("/")[2].rsplit(":", 1)[0]
            print(f"# From another machine: this machine's name or address in place of {loopback}.")
        print("# Demo credentials only. Press Ctrl+C here to stop.", flush=True)

    if args.log:
        hint = f"its traceback is in {args.log}"
    else:
        hint = "'tokensales-tui --log FILE emulator …' keeps the traceback"

    def report(line: str) -> None:
        print(clean_line(f"tokensales-tui: {line} — {hint}"), file=sys.stderr, flush=True)

    try:
        return serve(
            args.host,
            args.port,
            items=args.items,
            seed=args.seed,
            faults=faults,
            token_lifetime=args.token_lifetime,
            on_ready=ready,
            on_attempt=lambda attempt: print(clean_line(attempt.line()), flush=True),
            on_error=report,
        )
    except OSError as error:
        print(
            f"tokensales-tui: cannot serve on {clean_line(args.host)}:{args.port}:"
            f" {error.strerror or error}",
            file=sys.stderr,
        )
        return 1


def run_listen(args: argparse.Namespace) -> int:
    """``listen``: the deliveries screen, or one line per delivery with ``--print``."""
    if args.print:
        from .webhooks.listen import run_print

        return run_print(args)
    if not has_terminal():
        print(
            "tokensales-tui: listen needs a terminal; for scripts: listen --print", file=sys.stderr
        )
        return 2
    if problem := color_system_problem():
        print(f"tokensales-tui: {problem}", file=sys.stderr)
        return 2
    from .console import unguard
    from .ui.listen_app import run_listen_app

    unguard()  # the screen writes through Textual's driver
    return run_listen_app(args)


def has_terminal() -> bool:
    """Whether stdin, stdout and stderr are a terminal, as the app needs them: Textual
    draws on stderr (``2>log`` had the whole screen written into the log, and a closed
    stderr left an app drawing nowhere that no key could quit).

    An app served to a browser (``serve``) talks to it through pipes, with Textual's web
    driver.
    """
    if in_browser():
        return True
    return all(_is_terminal(stream) for stream in (sys.stdin, sys.stdout, sys.stderr))


COLOR_SYSTEMS = ("auto", "standard", "256", "truecolor", "windows")
"""What ``TEXTUAL_COLOR_SYSTEM`` may say: Textual hands it to Rich, which knows these."""


def color_system_problem() -> str | None:
    """Why ``TEXTUAL_COLOR_SYSTEM`` cannot be used, or ``None``: any other value ended
    the app with a ``KeyError`` traceback from Rich as it was made."""
    value = os.environ.get("TEXTUAL_COLOR_SYSTEM")
    if value is None or value in COLOR_SYSTEMS:
        return None
    from .clean import clean_line

    return (
        f"TEXTUAL_COLOR_SYSTEM={clean_line(value)[:40]!r} is not a colour system:"
        f" choose {', '.join(COLOR_SYSTEMS[:-1])} or {COLOR_SYSTEMS[-1]}"
    )


WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def in_browser() -> bool:
    """Whether the app draws for a browser, through Textual's web driver (``serve``)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (OSError, ValueError):  # closed
        return False


def run_app(args: argparse.Namespace) -> int:
    """Run the terminal app; without a terminal on stdin, stdout and stderr, refuse in
    one line."""
    # Importing the app makes tens of thousands of objects that live as long as it does:
    # collecting garbage in the middle of that only delays the first frame (~30 ms on a
    # slow machine). Collect nothing until the imports are done, then set what they made
    # aside for good, so that later collections do not walk it again.
    gc.disable()
    try:
        from .config import Overrides
        from .debug_log import DebugLogError
        from .fence import fence_in
        from .session import Launch
        from .ui.app import TokenSalesApp
    finally:
        gc.freeze()
        gc.enable()

    launch = Launch(
        overrides=Overrides(
            profile=args.profile,
            base_url=args.base_url,
            auth_url=args.auth_url,
            console_url=args.console_url,
            read_only=True if args.read_only else None,
        ),
        env=dict(os.environ),
        demo=args.demo,
        log_file=args.log,
        mask=args.mask,
        # The flag serve gives, or the web driver itself: either turns the limits on.
        served=args.served or in_browser(),
        fence=fence_in,
    )
    if not has_terminal():
        # Textual would wait on a closed or piped input forever, using a core.
        print(
            "tokensales-tui: the app needs a terminal on stdin, stdout and stderr"
            " (for scripts: tokensales-tui get, create, … — see --help)",
            file=sys.stderr,
        )
        return 2
    if problem := color_system_problem():
        print(f"tokensales-tui: {problem}", file=sys.stderr)
        return 2
    try:
        app = TokenSalesApp(launch)
    except DebugLogError as error:
        print(f"tokensales-tui: --log {error}", file=sys.stderr)
        return 2
    app.run()
    return app.return_code or 0
