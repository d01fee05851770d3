"""The arguments of the scripting commands; argparse only, so building the parser stays cheap."""

from __future__ import annotations

import argparse
from typing import Any, Final

__all__ = [
    "COMMANDS",
    "EXIT_AUTH",
    "EXIT_CODES",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_NOT_RECORDED",
    "EXIT_OK",
    "EXIT_READ_ONLY",
    "EXIT_USAGE",
    "LIST_KINDS",
    "add_commands",
    "exit_codes_text",
]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
EXIT_AUTH: Final = 3
EXIT_NOT_FOUND: Final = 4
EXIT_READ_ONLY: Final = 5
EXIT_NOT_RECORDED: Final = 6
EXIT_INTERRUPTED: Final = 130

EXIT_CODES: Final[tuple[tuple[int, str], ...]] = (
    (EXIT_OK, "success"),
    (
        EXIT_FAILURE,
        "the service or the network failed (server error, time-out, unexpected answer),"
        " or the output could not be written (a full disk, a closed stdout)",
    ),
    (
        EXIT_USAGE,
        "usage or validation error: nothing was sent, or the service refused the input"
        " (400, 409, 422), or the --jq program failed",
    ),
    (EXIT_AUTH, "authentication: the credentials or the token were refused"),
    (EXIT_NOT_FOUND, "not found"),
    (EXIT_READ_ONLY, "refused: the profile is read-only"),
    (
        EXIT_NOT_RECORDED,
        "done on the service, but its local record could not be written (add payout:"
        " the definition is added; do not add it again)",
    ),
    (EXIT_INTERRUPTED, "interrupted (Ctrl+C)"),
)

EXIT_SIGNAL_TEXT: Final = (
    "128+n ended by signal n, through its cleanup: 143 SIGTERM, 129 SIGHUP (the terminal"
    " gone), 131 SIGQUIT, 138 SIGUSR1; a signal ignored when it started stays ignored"
)
"""How every command and app of the package ends on a signal (``signals.exit_status``)."""

COMMANDS: Final = ("get", "create", "update", "delete", "add", "api", "token", "profiles")
"""The commands :mod:`tokensales_tui.script.run` runs (``completion`` needs no session)."""

LIST_KINDS: Final = ("webhooks", "items", "assets", "collections", "payouts")
_SINGULAR: Final = {kind.removesuffix("s"): kind for kind in LIST_KINDS}
FORMATS: Final = ("table", "json", "jsonl", "csv")


def exit_codes_text() -> str:
    """The exit codes as lines for ``--help``."""
    lines = [f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES]
    return "exit codes:\n" + "\n".join([*lines, f"  {EXIT_SIGNAL_TEXT}"])


def _kind(text: str) -> str:
    """A resource name, singular or plural."""
    kind = _SINGULAR.get(text, text)
    if kind not in LIST_KINDS:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(LIST_KINDS)}")
    return kind


def _object_id(text: str) -> str:
    """An id a request can carry in its path: checked before anything is sent, so that a
    command given several ids sends nothing while one of them cannot be sent."""
    from ..api.endpoints import id_problem  # when an id is given: the API is loaded then

    if problem := id_problem(text):
        raise argparse.ArgumentTypeError(f"the id {problem}; no request can address it")
    return text


class _NoSecretInArgv(argparse.Action):
    """``--secret VALUE`` is refused without repeating VALUE: argv shows in ``ps``."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        parser.error(
            "--secret is not accepted, since the command line shows in ps and the shell "
            "history: pass --secret-stdin (and the secret on stdin) or --secret-file FILE"
        )


def add_profile_flag(parser: Any, text: str, **options: Any) -> None:
    """``--profile NAME`` on ``parser`` (or an argument group), completed from the config
    file's profile names (:func:`complete_profiles`)."""
    action = parser.add_argument("--profile", metavar="NAME", help=text, **options)
    action.completer = complete_profiles


def complete_profiles(prefix: str, **_: object) -> list[str]:
    """The config file's profile names that start with ``prefix``, for shell completion.

    A file that cannot be read offers none: a completion never prints an error.
    """
    from ..config import load_config

    try:
        names = load_config().profiles
    except Exception:  # a corrupt or unreadable file: nothing to offer
        return []
    return [name for name in names if name.startswith(prefix) and name.isprintable()]


def complete_payout_types(prefix: str, **_: object) -> list[str]:
    """The payout types the form offers that start with ``prefix``, for shell completion
    (another may still be typed)."""
    from ..checks.payouts import PAYOUT_TYPES

    return [name for name in PAYOUT_TYPES if name.startswith(prefix)]


def _session_flags() -> argparse.ArgumentParser:
    """The profile flags, accepted after every command too (``get items --demo``)."""
    flags = argparse.ArgumentParser(add_help=False)
    group = flags.add_argument_group("profile")
    add_profile_flag(group, "profile to use", default=argparse.SUPPRESS)
    for flag, metavar, text in (
        ("--demo", None, "use the embedded demo service (in this process)"),
        ("--read-only", None, "refuse every change"),
        ("--base-url", "URL", "address of the /v1 API"),
        ("--auth-url", "URL", "address of the token endpoint"),
        ("--console-url", "URL", "address of the collections endpoints"),
    ):
        if metavar is None:
            group.add_argument(flag, action="store_true", default=argparse.SUPPRESS, help=text)
        else:
            group.add_argument(flag, metavar=metavar, default=argparse.SUPPRESS, help=text)
    return flags


def _output_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        choices=FORMATS,
        help="table (the default on a terminal), json (the default otherwise), jsonl or csv",
    )
    parser.add_argument(
        "--fields", metavar="A,B", help="only these fields (JSON keys; a.b reaches inside)"
    )
    parser.add_argument(
        "--jq", metavar="EXPR", help="filter the JSON through a jq program (strings print bare)"
    )


def _secret_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--secret-stdin",
        action="store_true",
        help="read the webhook secret from stdin (asked without echo on a terminal)",
    )
    group.add_argument("--secret-file", metavar="FILE", help="read the webhook secret from FILE")
    parser.add_argument("--secret", nargs="?", action=_NoSecretInArgv, help=argparse.SUPPRESS)


def _dry_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the request (method, URL, body with secrets masked) and send nothing",
    )


def add_commands(commands: Any) -> None:
    """Add the scripting commands to the subparsers ``commands`` of the main parser."""
    epilog = exit_codes_text()
    flags = _session_flags()

    def command(
        name: str, help: str, description: str, *, under: Any = commands, **more: Any
    ) -> argparse.ArgumentParser:
        return under.add_parser(  # type: ignore[no-any-return]
            name,
            help=help,
            description=description,
            epilog=epilog,
            parents=[flags],
            allow_abbrev=False,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            **more,
        )

    get = command(
        "get",
        "list or show webhooks, items, assets, collections or payouts",
        "List a resource, or show one object by id. The table cleans server text; JSON is\n"
        "the server's data re-encoded (control characters escaped). Lists stream: a list of\n"
        "any length goes to -o jsonl without being held in memory.",
    )
    get.add_argument(
        "kind", type=_kind, choices=LIST_KINDS, metavar="RESOURCE", help=", ".join(LIST_KINDS)
    )
    get.add_argument("id", nargs="?", metavar="ID", help="show only this object")
    _output_flags(get)

    create = command("create", "create a webhook", "Create a webhook.")
    create_kinds = create.add_subparsers(dest="kind", metavar="KIND", required=True)
    webhook = command(
        "webhook",
        under=create_kinds,
        help="register a platform webhook",
        description="Register a platform webhook (POST /v1/platform-webhooks).",
    )
    webhook.add_argument("--url", required=True, help="absolute http(s) address of the hook")
    webhook.add_argument(
        "--event",
        action="append",
        required=True,
        metavar="EVENT",
        help="an event name (repeat, or separate names with commas)",
    )
    _secret_flags(webhook)
    _dry_run(webhook)

    update = command("update", "change a webhook", "Change a webhook's URL, events or secret.")
    update_kinds = update.add_subparsers(dest="kind", metavar="KIND", required=True)
    webhook = command(
        "webhook",
        under=update_kinds,
        help="change a platform webhook",
        description="Change a platform webhook (PUT /v1/platform-webhooks/ID); only the\n"
        "fields given are sent.",
    )
    webhook.add_argument("id", type=_object_id, metavar="ID")
    webhook.add_argument("--url", help="new absolute http(s) address")
    webhook.add_argument(
        "--event", action="append", metavar="EVENT", help="the new event names (replace them all)"
    )
    _secret_flags(webhook)
    _dry_run(webhook)

    delete = command(
        "delete",
        "delete webhooks, items or collections",
        "Delete objects by id. On a terminal it asks first, naming each object; without\n"
        "one it refuses unless --yes. Each id's outcome is reported.",
    )
    delete.add_argument("kind", choices=("webhook", "item", "collection"), metavar="KIND")
    delete.add_argument("ids", nargs="+", type=_object_id, metavar="ID")
    delete.add_argument("-y", "--yes", action="store_true", help="do not ask")
    _dry_run(delete)

    add = command("add", "add a payout definition or collections", "Add objects.")
    add_kinds = add.add_subparsers(dest="kind", metavar="KIND", required=True)
    payout = command(
        "payout",
        under=add_kinds,
        help="add a payout definition",
        description="Add a payout definition (POST /v1/payouts/add), from flags or a JSON\n"
        'file such as {"type": "fiat", "name": "EU", "fiatDetails": {...}}. Each detail\n'
        "of the type is required: fiat --provider --payment-provider-id; stablecoin\n"
        "--blockchain --token-id --spender; native --blockchain.",
    )
    payout.add_argument("--from-file", metavar="FILE", help="a JSON object (flags override it)")
    payout.add_argument("--name")
    payout.add_argument(
        "--type", help="free, fiat, stablecoin, native, or another"
    ).completer = complete_payout_types  # type: ignore[attr-defined]
    for flag in ("provider", "payment-provider-id", "blockchain", "token-id", "spender"):
        payout.add_argument(f"--{flag}")
    _dry_run(payout)

    collections = command(
        "collections",
        under=add_kinds,
        aliases=["collection"],
        help="create one or more collections",
        description="Create collections in one request (POST /collections): from a JSON\n"
        "file (an array of objects with name, blockchain, contractAddress, whitelisted,\n"
        "wallets, emails), or one from flags, its whitelists read from text or CSV files\n"
        "by the same rules as the form's import (a column named wallet/address/email…).",
    )
    collections.add_argument("--from-file", metavar="FILE", help="a JSON array of collections")
    collections.add_argument("--name")
    collections.add_argument("--blockchain")
    collections.add_argument("--contract", metavar="ADDRESS", help="the contract address")
    collections.add_argument("--whitelisted", action="store_true")
    collections.add_argument("--wallets-file", metavar="FILE", help="wallets, one a line or CSV")
    collections.add_argument("--emails-file", metavar="FILE", help="e-mails, one a line or CSV")
    _dry_run(collections)

    api = command(
        "api",
        "send a raw request to the service",
        "Send a request with the profile's token to the host the path belongs to:\n"
        "/v1/... the API, /collections and /collection/... the console. Prints the answer.",
    )
    api.add_argument("method", type=str.upper, choices=("GET", "POST", "PUT", "DELETE", "PATCH"))
    api.add_argument("path", metavar="PATH", help="e.g. /v1/items?limit=5")
    api.add_argument("--input", metavar="FILE", help="the JSON body, from FILE or - for stdin")
    api.add_argument("--jq", metavar="EXPR", help="filter the JSON answer through a jq program")
    _dry_run(api)

    command(
        "token",
        "print an access token",
        "Print a valid access token of the profile, e.g.\n"
        "  export TOKENSALES_TOKEN=$(tokensales-tui token)\n"
        "for the curl commands the forms copy. It is never printed on a terminal.",
    )
    profiles = command(
        "profiles",
        "list the profiles and where each setting comes from",
        "List the profiles of the config file (the default one marked), then each setting\n"
        "of the profile in use and where it came from: a flag, the environment or the file.",
    )
    profiles.add_argument("-o", "--output", choices=("table", "json"))

    completion = commands.add_parser(
        "completion",
        help="print a shell completion script",
        description="Print the completion script for SHELL, e.g.\n"
        "  tokensales-tui completion bash > ~/.local/share/bash-completion/completions/tokensales-tui\n"
        '  eval "$(tokensales-tui completion zsh)"\n'
        "  tokensales-tui completion fish > ~/.config/fish/completions/tokensales-tui.fish",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))
