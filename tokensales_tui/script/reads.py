"""The commands that read: ``get``, ``token``, ``profiles`` and ``api``."""

from __future__ import annotations

import re
import sys
from contextlib import nullcontext
from typing import Any

import msgspec

from ..api import Done, NotFoundError, UnexpectedResponse, shapes
from ..api.endpoints import Endpoint, id_problem, raw_endpoint
from ..api.paging import Paging, paging_of
from ..api.secret import hide_secrets
from ..api.transport import unread_why
from ..api.written import read_written
from ..clean import clean_line
from .output import OutputError, Printer
from .parser import EXIT_OK, EXIT_USAGE
from .run import (
    Context,
    UsageError,
    decode_input,
    preview,
    read_config,
    read_input,
    say,
    unknown_if_interrupted,
)

__all__ = ["api", "get", "profiles", "token"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Largest body ``api --input`` sends."""
_BLANK = re.compile(rb"\s*")
_WEBHOOK_IDS = shapes.IdReader(("id",))


def output_format(requested: str | None) -> str:
    """The format asked for, else a table on a terminal and JSON otherwise."""
    if requested:
        return requested
    return "table" if sys.stdout.isatty() else "json"


def _printer(context: Context, kind: str = "") -> Printer:
    args = context.args
    given: str | None = getattr(args, "fields", None)
    fields = [name.strip() for name in (given or "").split(",")]
    if given is not None and not any(fields):  # --fields '' or ',' printed every field
        raise UsageError("--fields: name at least one field, as in --fields id,name")
    jq: str | None = getattr(args, "jq", None)
    requested: str | None = getattr(args, "output", None)
    if jq is not None and requested is not None:  # it was left unused without a word
        raise UsageError(
            f"-o {requested} and --jq: --jq prints the program's results, one a line (strings"
            " bare, as jq -r does); leave out -o"
        )
    return Printer(
        output_format(requested),
        fields=[name for name in fields if name],
        jq=jq,
        kind=kind,
    )


async def get(context: Context) -> int:
    """``get KIND [ID]``: a list, streamed, or one object."""
    kind, wanted = context.args.kind, context.args.id
    printer = _printer(context, kind)
    client = context.client
    if kind == "payouts":
        rows = await _payout_rows(context)
        if wanted is not None:
            printer.one(_find(rows, wanted, ("id",), "payout"))
        else:
            printer.rows(rows)
            printer.end()
        return EXIT_OK
    if wanted is not None and kind in ("items", "assets"):
        if problem := id_problem(wanted):
            raise UsageError(f"ID: the id {problem}; no request can address it")
        found = await (client.get_item(wanted) if kind == "items" else client.get_asset(wanted))
        if found.id is not None and found.id != wanted:
            # A server that mixes objects up (a cache, a proxy, a bug): a script must not
            # take the object it got for the one it asked for.
            raise UnexpectedResponse(
                f"GET {kind} {clean_line(wanted)[:100]}: the server answered with another"
                f" object, ID {clean_line(str(found.id))[:100]}; not printed"
            )
        printer.one(found.raw_text if found.raw_text is not None else found.raw)
        return EXIT_OK
    if wanted is not None:
        # The interface cannot fetch one webhook or collection: find it in the list, by
        # the id read from each object's text as the app reads it (1e+20 is not 1e20).
        reader = shapes.COLLECTION_IDS if kind == "collections" else _WEBHOOK_IDS
        matches: list[msgspec.Raw] = []

        def keep(batch: list[msgspec.Raw]) -> None:
            matches.extend(element for element in batch if reader(element) == wanted)

        say_paging(await client.stream_list(kind, keep), kind)
        if not matches:
            raise NotFoundError(f"there is no {kind.removesuffix('s')} {wanted}")
        printer.one(msgspec.Raw(bytes(matches[0])))
        return EXIT_OK
    paging = await client.stream_list(kind, printer.rows)
    printer.end()
    say_paging(paging, kind)
    return EXIT_OK


def say_paging(paging: Paging | None, kind: str) -> None:
    """Warn, on stderr, that the list's answer says the server holds more than it did
    (:mod:`~tokensales_tui.api.paging`); the exit code stays as it is: what was listed
    is what the server answered."""
    if paging is not None:
        say(f"warning: {paging.said(kind)}")


def _find(rows: list[Any], wanted: str, keys: tuple[str, ...], noun: str) -> Any:
    for row in rows:
        if isinstance(row, dict) and shapes.find_id(row, keys) == wanted:
            return row
    raise NotFoundError(f"there is no {noun} {wanted}")


async def _payout_rows(context: Context) -> list[dict[str, Any]]:
    """The Payouts tab's rows: the definitions added from here, then those items use."""
    from ..api.decode import left_out
    from ..payouts import PayoutRecord, PayoutRecordError, payout_rows

    session = context.session
    added: list[dict[str, Any]] = []
    if not session.demo:
        try:
            added = PayoutRecord.for_session(session).load()
        except PayoutRecordError as error:  # the items' payouts are still worth listing
            say(f"warning: the payout definitions added from here are left out: {error}")
    items = await context.client.list_items()
    if short := left_out(items):  # the other items' payouts are still worth listing
        say(f"warning: {short.summary('items')}; their payouts are left out")
    say_paging(paging_of(items), "items")
    return [
        {
            "id": row.id,
            "type": row.type,
            "name": row.name,
            "chain": row.chain,
            "account": row.account,
            "spender": row.spender,
            "usedBy": row.used_by,
            "source": row.source,
            "detail": row.raw,
        }
        for row in payout_rows(items, added)
    ]


async def token(context: Context) -> int:
    """``token``: a fresh access token on stdout (``export TOKENSALES_TOKEN=$(…)``)."""
    if sys.stdout.isatty():
        raise UsageError(
            "the token is not shown on a terminal: capture it, as in"
            " export TOKENSALES_TOKEN=$(tokensales-tui token)"
        )
    client = context.client
    await client.check_credentials()
    current = client.tokens.current
    assert current is not None
    sys.stdout.write(current.reveal() + "\n")
    sys.stdout.flush()
    return EXIT_OK


def _stored_profiles() -> tuple[list[dict[str, Any]] | None, str | None]:
    """The profiles of the config file as rows, and its default profile; no rows where
    the file cannot be read (what is wrong with it is said where the session is opened)."""
    from .. import config

    try:
        stored = read_config()
    except config.ConfigError:
        return None, None
    rows = [
        {
            "name": name,
            "default": name == stored.default_profile,
            "baseUrl": profile.base_url,
            "readOnly": profile.read_only,
            "label": profile.label,
        }
        for name, profile in stored.profiles.items()
    ]
    return rows, stored.default_profile


def _print_profiles(rows: list[dict[str, Any]] | None) -> None:
    if rows is None:
        sys.stdout.write("the config file cannot be read\n")
    elif rows:
        printer = Printer("table", columns=("name", "default", "baseUrl", "readOnly", "label"))
        printer.rows(rows)
        printer.end()
    else:
        sys.stdout.write("no profiles in the config file\n")


async def profiles(context: Context) -> int:
    """``profiles``: the profiles of the file, then the settings in use and their sources."""
    rows, default = _stored_profiles()
    session = context.session
    connection = session.connection
    values = {
        "profile": session.name,
        "base_url": connection.base_url,
        "auth_url": connection.auth_url,
        "console_url": connection.console_url,
        "api_key": "set" if connection.api_key else "not set",
        "api_secret": "set" if connection.api_secret else "not set",
        "read_only": session.read_only,
    }
    settings = [
        {"setting": name, "value": value, "from": context.sources.get(name, "")}
        for name, value in values.items()
    ]
    if output_format(context.args.output) == "json":
        document = {"profiles": rows, "default": default, "inUse": session.name}
        Printer("json").one({**document, "settings": settings})
        return EXIT_OK
    _print_profiles(rows)
    sys.stdout.write(f"\nin use: {clean_line(session.name)}\n")
    printer = Printer("table", columns=("setting", "value", "from"))
    printer.rows(settings)
    printer.end()
    return EXIT_OK


def profiles_without_session(args: Any) -> int:
    """``profiles`` when no profile can be chosen (the reason is already said): the list."""
    rows, default = _stored_profiles()
    if output_format(args.output) == "json":
        Printer("json").one({"profiles": rows, "default": default, "inUse": None})
    else:
        _print_profiles(rows)
    return EXIT_USAGE


def endpoint_of(method: str, target: str) -> Endpoint:
    """The endpoint of a raw request (see :func:`~..api.endpoints.raw_endpoint`)."""
    try:
        return raw_endpoint(method, target)
    except ValueError as error:
        raise UsageError(f"PATH: {error}") from None


async def api(context: Context) -> int:
    """``api METHOD PATH``: any request of the interface, with the profile's token."""
    args = context.args
    endpoint = endpoint_of(args.method, args.path)
    content = request = None
    if args.input is not None:
        content = read_input(args.input, "--input", limit=MAX_INPUT_BYTES)
        # Sent as it is, once known to be JSON; its secrets are found by their keys.
        request = decode_input(content, "--input: the body")
    secrets = hide_secrets(request)
    if args.method != "GET":
        context.refuse_if_read_only(f"{args.method} {args.path}")
    if args.dry_run:  # the bytes as given, their secret values masked
        return preview(context, (endpoint, None if content is None else read_written(content)))
    del request  # only the bytes as given are sent
    for secret in secrets:
        secret.reveal()  # sent: remembered, so that a message quoting it masks it
    changing = args.method != "GET"
    with unknown_if_interrupted(f"{args.method} {args.path}") if changing else nullcontext():
        response = await context.client.request(endpoint, content)
    if unread := unread_why(response):  # a write answered 2xx: done, its body unread
        done = Done(unread, response.status_code)
        say(done.said(f"{args.method} {args.path}: done", f"HTTP {response.status_code}"))
        return EXIT_OK
    if changing and (done := Done(status=response.status_code)).accepted:
        say(done.said(f"{args.method} {args.path}: answered"))  # its body on stdout, as any
    # A large body is a memory map (see api.transport): read through the buffer protocol.
    body = memoryview(response.content)
    if _BLANK.fullmatch(body):
        return EXIT_OK
    try:
        payload = shapes.decode_json(
            body,
            status=response.status_code,
            content_type=response.headers.get("content-type", ""),
            what=f"{args.method} {args.path}",
        )
    except UnexpectedResponse:
        if args.jq:
            raise OutputError("--jq: the answer is not JSON") from None
        # As it came, bytes that are not UTF-8 too; a terminal's gate cleans it.
        sys.stdout.buffer.write(body)
        if sys.stdout.isatty() and body[-1] != ord("\n"):
            sys.stdout.write("\n")  # the prompt on a line of its own
        return EXIT_OK
    Printer(output_format("json"), jq=args.jq).one(payload)
    return EXIT_OK
