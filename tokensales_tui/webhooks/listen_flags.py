"""The flags of ``tokensales-tui listen``, apart from the command so that building the
command line loads nothing more than argparse."""

from __future__ import annotations

import argparse
from typing import Any

BODY_LIMIT = 1024 * 1024
"""Largest body kept, in bytes (1 MB)."""
KEEP = 1000
"""Deliveries kept in memory."""


def add_listen_command(commands: Any) -> None:
    """Add ``listen`` to the subparsers ``commands`` of the main parser."""
    from ..script.parser import _secret_flags, _session_flags

    parser = commands.add_parser(
        "listen",
        parents=[_session_flags()],
        help="receive webhook deliveries here: verify, forward, replay, save",
        description="Receive webhook deliveries on 127.0.0.1, judge their signatures "
        "(Standard Webhooks, Stripe-style, GitHub-style), relay them to local URLs and "
        "show them live; --print writes one line per delivery instead of the screen. "
        "With 'tokensales-tui --log FILE listen …', what fails in listen itself and what "
        "its web server reports go to FILE, never to the terminal.",
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s); another than loopback needs --expose",
    )
    parser.add_argument(
        "--expose",
        action="store_true",
        help="allow --host to be an address other machines can reach (prints a warning)",
    )
    parser.add_argument(
        "--forward-to",
        metavar="URL",
        help="relay every delivery to this local URL (10 s at most each; the sender gets its"
        " status, 504 when it timed out)",
    )
    parser.add_argument(
        "--route",
        metavar="EVENT=URL",
        action="append",
        default=[],
        help="relay deliveries of EVENT to this local URL (repeatable; before --forward-to)",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how far a signed timestamp may be off (default: %(default)s)",
    )
    parser.add_argument(
        "--max-body",
        type=int,
        default=BODY_LIMIT,
        metavar="BYTES",
        help="largest body accepted (default: %(default)s); larger ones get 413",
    )
    parser.add_argument(
        "--keep", type=int, default=KEEP, metavar="N", help="deliveries kept (default: %(default)s)"
    )
    parser.add_argument("--print", action="store_true", help="one line per delivery, no screen")
    parser.add_argument(
        "--save",
        type=_file_name,
        metavar="FILE",
        help="append each delivery to FILE as a JSON line",
    )
    parser.add_argument(
        "--register",
        metavar="PUBLIC_URL",
        help="create a webhook for PUBLIC_URL (e.g. a tunnel to this port) with a fresh "
        "secret on the active profile, and delete it when listen stops",
    )
    parser.add_argument(
        "--events",
        metavar="E1,E2",
        help="the events the webhook made by --register subscribes to",
    )
    _secret_flags(parser)


def _file_name(value: str) -> str:
    """A ``--save`` FILE: an empty one was taken as no file at all, silently."""
    if not value:
        raise argparse.ArgumentTypeError("a file name is needed")
    return value
