"""Which function runs which command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable

from ..signals import ENDING_BUT_SIGINT, raising_on
from .run import Context, run

__all__ = ["completion", "main"]

Command = Callable[[Context], Awaitable[int]]


def _command(args: argparse.Namespace) -> Command:
    # Only the module of the command is imported: the checks of the changes load the
    # e-mail and address validators, which a `get` does not need.
    if args.command in ("get", "token", "profiles", "api"):
        from . import reads

        found: Command = getattr(reads, args.command)
        return found
    from . import changes

    kind = args.kind.removesuffix("s") if args.command == "add" else args.kind
    if args.command == "delete":
        return changes.delete
    return {
        ("create", "webhook"): changes.create_webhook,
        ("update", "webhook"): changes.update_webhook,
        ("add", "payout"): changes.add_payout,
        ("add", "collection"): changes.add_collections,
    }[(args.command, kind)]


def main(args: argparse.Namespace) -> int:
    """Run the scripting command ``args.command``; its exit code.

    Every signal that would end it (SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, … — see
    :data:`~tokensales_tui.signals.APP_ENDING_SIGNALS`) ends it as ctrl+c does, through
    its cleanup, with exit code 128 + its number: their default ended the process on the
    spot, which left a terminal without echo after the secret's prompt, a temporary file
    and a lock behind, and said nothing of a change whose request had gone. A signal
    ignored on entry (``nohup``) stays ignored. SIGINT is asyncio's, which cancels the
    command at its next wait (and :func:`~.output.interruptible` where none comes).
    """
    with raising_on(ENDING_BUT_SIGINT):
        return run(args, _command(args))


def completion(shell: str) -> int:
    """Print the completion script of ``shell`` (argcomplete's)."""
    from argcomplete.shell_integration import shellcode

    sys.stdout.write(shellcode(["tokensales-tui"], shell=shell))
    return 0
