"""The commands that change data: ``create``, ``update``, ``delete`` and ``add``.

Each judges its flags with the forms' own checks (:mod:`tokensales_tui.checks.forms`),
names the flag of each problem in the forms' words and sends nothing while one is
wrong. ``--dry-run`` prints the request, secrets masked, and sends nothing; a
read-only profile refuses before anything is read or sent.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET

from ..api import ApiError, Secret
from ..api.endpoints import Endpoint, collection_endpoint, item_endpoint, webhook_endpoint
from ..api.models import NewCollection, PayoutDefinition, WebhookCreate, WebhookUpdate
from ..checks import (
    PAYOUT_TYPES,
    ListFileError,
    ListReport,
    check_address,
    check_email,
    check_list,
    check_text,
    detail_fields,
    load_list_file,
    parse_events,
    secret_as_given,
)
from ..checks.forms import Problems, collection_problems, payout_problems, webhook_problems
from ..checks.lists import MAX_LIST_FILE_BYTES
from ..clean import shorten
from ..files import LocalFileError, read_local_file
from ..signals import answered_then_finished
from .output import encode_json
from .parser import EXIT_FAILURE, EXIT_NOT_RECORDED, EXIT_OK, EXIT_USAGE
from .run import (
    Context,
    UsageError,
    ask,
    exit_code,
    message_of,
    preview,
    read_input,
    read_json_file,
    say,
    standard_input,
    unknown_if_interrupted,
)

__all__ = ["add_collections", "add_payout", "create_webhook", "delete", "update_webhook"]

CREATE_WEBHOOK = Endpoint("POST", "base", "/v1/platform-webhooks")
ADD_PAYOUT = Endpoint("POST", "base", "/v1/payouts/add")
ADD_COLLECTIONS = Endpoint("POST", "console", "/collections")
MAX_SECRET_BYTES = 64 * 1024

WEBHOOK_FLAGS = {"url": "--url", "events": "--event", "secret": "the secret"}
PAYOUT_FLAGS = {
    "name": "--name",
    "type": "--type",
    "detail-provider": "--provider",
    "detail-paymentProviderId": "--payment-provider-id",
    "detail-blockchainId": "--blockchain",
    "detail-tokenId": "--token-id",
    "detail-spender": "--spender",
}
COLLECTION_FLAGS = {
    "name": "--name",
    "blockchain": "--blockchain",
    "contract": "--contract",
    "wallets": "--wallets-file",
    "emails": "--emails-file",
}


def judge(problems: Problems, names: Mapping[str, str], where: str = "") -> None:
    """Report warnings; raise :class:`UsageError` (nothing is sent) if anything is wrong."""
    errors: list[str] = []
    for field, problem in problems.items():
        head, *rest = problem.message.split("\n")
        lines = [f"{where}{names.get(field, field)}: {head}", *(f"  {line}" for line in rest)]
        if problem.warning:
            for line in lines:
                say(f"warning: {line}")
        else:
            errors += lines
    if errors:
        for line in errors[:-1]:
            say(line)
        raise UsageError(errors[-1])


# --- webhooks ---------------------------------------------------------------------------


def read_secret(args: Any) -> str:
    """The secret from stdin (asked without echo on a terminal) or a file, never argv,
    for every command that takes one (``create``/``update webhook``, ``listen``): the
    bytes given, less one line ending after them; spaces are the secret's own."""
    if args.secret_stdin:
        source = "--secret-stdin"
        stdin = standard_input(source, instead="pass the secret on it, or use --secret-file")
        if stdin.isatty():
            typed = ask("webhook secret (not shown): ", source, hidden=True)
            if typed is None:
                raise UsageError(f"{source}: no secret given (end of input)")
            return _secret_text(typed, source)
        data = stdin.buffer.read(MAX_SECRET_BYTES + 1)
    elif args.secret_file:
        source = "--secret-file"
        try:
            data = read_local_file(Path(args.secret_file).expanduser(), limit=MAX_SECRET_BYTES)
        except FileNotFoundError:
            raise UsageError(f"{source}: there is no file at {args.secret_file}") from None
        except LocalFileError as error:
            raise UsageError(f"{source}: {args.secret_file} is {error}") from None
        except OSError as error:
            raise UsageError(
                f"{source}: cannot read {args.secret_file}: {error.strerror}"
            ) from None
    else:
        return ""
    if len(data) > MAX_SECRET_BYTES:
        raise UsageError(f"{source}: a secret is shorter than {MAX_SECRET_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{source}: the secret is not UTF-8 text") from None
    return _secret_text(text, source)


def _secret_text(text: str, source: str) -> str:
    """The secret as sent: as given, its line ending left out (:func:`secret_as_given`,
    as the app reads a typed one); never empty, nor holding a control character (a
    second line ending, a tab), which no form could take and no one type again."""
    secret = secret_as_given(text)
    if not secret:
        blank = " (only white space)" if text.strip("\r\n") else ""
        raise UsageError(f"{source}: the secret is empty{blank}")
    if problem := check_text(secret, "the secret"):
        raise UsageError(f"{source}: {problem}")
    return secret


async def create_webhook(context: Context) -> int:
    """``create webhook --url U --event E…``."""
    args = context.args
    context.refuse_if_read_only("create webhook")
    events = "\n".join(args.event)
    secret = read_secret(args)
    judge(webhook_problems(args.url, events, secret), WEBHOOK_FLAGS)
    url = args.url.strip()
    body = WebhookCreate(
        url=url, events=parse_events(events), secret=Secret(secret) if secret else UNSET
    )
    if args.dry_run:
        return preview(context, (CREATE_WEBHOOK, body))
    with unknown_if_interrupted(f"create webhook {url}"):
        done = await context.client.create_webhook(body)
    say(done.said(f"created webhook {url}"))
    return EXIT_OK


async def update_webhook(context: Context) -> int:
    """``update webhook ID [--url U] [--event E…] [--secret-stdin]``: only what is given."""
    args = context.args
    context.refuse_if_read_only("update webhook")
    events = "\n".join(args.event) if args.event else None
    secret = read_secret(args)
    if args.url is None and events is None and not secret:
        raise UsageError("nothing to change: give --url, --event, --secret-stdin or --secret-file")
    judge(webhook_problems(args.url, events, secret), WEBHOOK_FLAGS)
    body = WebhookUpdate()
    if args.url is not None:
        body.url = args.url.strip()
    if events is not None:
        body.events = parse_events(events)
    if secret:
        body.secret = Secret(secret)
    if args.dry_run:
        return preview(context, (webhook_endpoint("PUT", args.id), body))
    with unknown_if_interrupted(f"update webhook {args.id}"):
        done = await context.client.update_webhook(args.id, body)
    changed = [name for name in ("url", "events", "secret") if getattr(body, name) is not UNSET]
    say(done.said(f"updated webhook {args.id}: {', '.join(changed)}"))
    return EXIT_OK


# --- delete -----------------------------------------------------------------------------


async def delete(context: Context) -> int:
    """``delete KIND ID…``: asks on a terminal, refuses without one unless ``--yes``."""
    args = context.args
    kind: str = args.kind
    ids: list[str] = list(dict.fromkeys(args.ids))
    context.refuse_if_read_only(f"delete {kind}")
    endpoint = {"webhook": webhook_endpoint, "item": item_endpoint}.get(kind)
    if args.dry_run:
        return preview(
            context,
            *((endpoint("DELETE", i) if endpoint else collection_endpoint(i), None) for i in ids),
        )
    if (
        not args.yes
        and not standard_input("delete", instead=f"pass --yes to delete {kind}s by id").isatty()
    ):
        raise UsageError(f"delete: no terminal to ask on — pass --yes to delete {kind}s by id")
    failures: list[int] = []
    if not args.yes:
        names, missing = await _names(context, kind, ids)
        for object_id in missing:
            say(f"{kind} {_shown_id(object_id)}: not found")
            failures.append(exit_code(_not_found()))
        ids = [
            object_id for object_id in ids if object_id in names and _ask(kind, object_id, names)
        ]
    client = context.client
    method = {
        "webhook": client.delete_webhook,
        "item": client.delete_item,
        "collection": client.delete_collection,
    }[kind]
    for object_id in ids:
        shown = _shown_id(object_id)
        try:
            with unknown_if_interrupted(f"{kind} {shown}"):
                done = await method(object_id)
        except ApiError as error:
            say(f"{kind} {shown}: {message_of(error)}")
            failures.append(exit_code(error))
        else:
            say(done.said(f"deleted {kind} {shown}"))
    if not failures:
        return EXIT_OK
    # Not the first failure's code: the outcome does not depend on the order of the ids.
    return failures[0] if len(set(failures)) == 1 else EXIT_FAILURE


def _shown_id(object_id: str, most: int = 100) -> str:
    """An id as a message names it: cut to ``most`` characters (one may be of any length)."""
    return shorten(object_id, most)


def _not_found() -> ApiError:
    from ..api import NotFoundError

    return NotFoundError("not found")


async def _names(
    context: Context, kind: str, ids: Sequence[str]
) -> tuple[dict[str, str], list[str]]:
    """What to call each object in the question, and the ids that do not exist."""
    from ..api import NotFoundError

    client = context.client
    names: dict[str, str] = {}
    if kind == "item":
        missing = []
        for object_id in ids:
            try:
                names[object_id] = (await client.get_item(object_id)).title
            except NotFoundError:
                missing.append(object_id)
        return names, missing
    if kind == "webhook":
        names = {w.id: w.url or "" for w in await client.list_webhooks()}
    else:
        names = {c.id: c.name or "" for c in await client.list_collections() if c.id is not None}
    return {i: names[i] for i in ids if i in names}, [i for i in ids if i not in names]


def _ask(kind: str, object_id: str, names: Mapping[str, str]) -> bool:
    from ..clean import clean_line

    label = clean_line(names[object_id])[:80]
    shown = clean_line(_shown_id(object_id))
    answer = ask(f"Delete {kind} {shown} ({label})? [y/N] ", "delete")
    if answer is None:  # ctrl+d: no answer to any question, nothing deleted
        raise UsageError("delete: no answer given (end of input); nothing was deleted")
    if answer.strip().lower() not in ("y", "yes"):
        say(f"{kind} {shown}: kept")
        return False
    return True


# --- payouts ----------------------------------------------------------------------------

_DETAIL_FLAGS = {
    "provider": "provider",
    "paymentProviderId": "payment_provider_id",
    "blockchainId": "blockchain",
    "tokenId": "token_id",
    "spender": "spender",
}


_PAYOUT_ATTRIBUTES = {
    "name": "name",
    "type": "type",
    **{f"detail-{wire}": attribute for wire, attribute in _DETAIL_FLAGS.items()},
}
"""The argument behind each field a payout's problems name."""


async def add_payout(context: Context) -> int:
    """``add payout --name N --type T [details]`` or ``--from-file F``."""
    args = context.args
    context.refuse_if_read_only("add payout")
    given = _payout_file(args.from_file) if args.from_file else {}
    # A value is named by where it came from: the flag, else the file's key.
    names = dict(PAYOUT_FLAGS)
    if args.from_file:
        names |= {
            field: f"--from-file: {field.removeprefix('detail-')}"
            for field, attribute in _PAYOUT_ATTRIBUTES.items()
            if getattr(args, attribute) is None
        }
    name = _text(args.name if args.name is not None else given.get("name", ""), "name")
    name = trimmed(name, names["name"])
    typed = _text(args.type if args.type is not None else given.get("type", ""), "type")
    typed = trimmed(typed, names["type"])
    kind = typed.lower() if typed.lower() in PAYOUT_TYPES else typed
    wanted = [wire for wire, _label in detail_fields(kind)]
    # Its details, in an object of their own or beside the name; a type without details
    # reads no such object, which is then a key left out.
    at: Path_ = (f"{kind}Details",) if wanted and f"{kind}Details" in given else ()
    filed = _object(given, at, "--from-file", wanted) if at else given
    details: dict[str, str] = {}
    taken: set[Path_] = {("name",), ("type",)} | {(*at, wire) for wire in wanted}
    for wire, attribute in _DETAIL_FLAGS.items():
        flag = getattr(args, attribute)
        if wire not in wanted:
            if flag is not None:
                say(
                    f"warning: --{attribute.replace('_', '-')} is not part of a {kind} payout; left out"
                )
            continue
        value = flag if flag is not None else filed.get(wire, "")
        details[wire] = trimmed(_text(value, wire), names[f"detail-{wire}"])
    # Said first: a key misspelt in the file is why a value it was to give is missing.
    say_left_out(given, taken, f"a {kind} payout", "--from-file")
    judge(payout_problems(name, kind, details), names)
    body = PayoutDefinition.build(type=kind, name=name, details=details)
    if args.dry_run:
        return preview(context, (ADD_PAYOUT, body))
    if context.session.demo:  # its service, and so its record, ends with the command
        with unknown_if_interrupted(
            f"add payout definition {body.name}", "check in the service's console"
        ):
            done = await context.client.add_payout(body)
        say(done.said(f"added payout definition {body.name}", body.type))
        return EXIT_OK
    return await _add_recorded_payout(context, body)


async def _add_recorded_payout(context: Context, body: PayoutDefinition) -> int:
    """Add ``body`` and record it for the Payouts tab (the service lists none).

    The record is made ready first (locked, read, its room and its temp file checked):
    one that could not take the definition refuses before anything is sent. A signal
    that comes once the service has answered waits for the record to be written.
    """
    from ..payouts import PayoutRecord, PayoutRecordError

    what = f"add payout definition {body.name}"

    def waiting(lock: Path) -> None:
        say(f"waiting for the payout record's lock {lock}, held by another process")

    added = False
    with answered_then_finished() as answered:
        record = PayoutRecord.for_session(context.session)
        try:
            with record.adding(msgspec.to_builtins(body), waiting=waiting) as keep:
                with unknown_if_interrupted(what, "check in the service's console"):
                    done = await answered.answer(context.client.add_payout(body))
                added = True
                say(done.said(f"added payout definition {body.name}", body.type))
                keep(None)
        except PayoutRecordError as error:
            if not added:
                say(f"{error}; nothing was sent")
                return EXIT_FAILURE if error.busy else EXIT_USAGE
            say(f"added payout definition {body.name}, but not recorded for the Payouts tab:")
            say(f"  {error}")
            return EXIT_NOT_RECORDED
    return EXIT_OK


def _payout_file(path: str) -> dict[str, Any]:
    value = read_json_file(path, "--from-file")
    if not isinstance(value, dict):
        raise UsageError(f"--from-file: {path} must hold one JSON object (type, name, details)")
    return value


def trimmed(value: str, where: str) -> str:
    """``value`` without the white space around it, as it is judged and sent; a value so
    changed is said, named by ``where`` it came from (a name ``"\\t=1"`` in a file was sent
    as ``=1`` without a word)."""
    kept = value.strip()
    if kept != value:
        shown = encode_json(value).decode()[:100]
        say(
            f"warning: {where}: {shown} is sent as {encode_json(kept).decode()[:100]}"
            " (the white space around it left out)"
        )
    return kept


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UsageError(f"--from-file: {what} must be text, not {type(value).__name__}")
    return value


# --- collections ------------------------------------------------------------------------


async def add_collections(context: Context) -> int:
    """``add collections --from-file F`` (JSON) or one collection from flags."""
    args = context.args
    context.refuse_if_read_only("add collections")
    if args.from_file:
        given = ("name", "blockchain", "contract", "whitelisted", "wallets_file", "emails_file")
        if any(getattr(args, flag) for flag in given):
            raise UsageError("--from-file: give the collections in the file or by flags, not both")
        filed, collections = _collections_file(args.from_file)
        where = [f"collection {number}: " for number in range(1, len(collections) + 1)]
    else:
        filed, collections = [], [_collection_flags(args)]
        where = [""]
    names: dict[str, int] = {}
    body: list[NewCollection] = []
    flags = COLLECTION_FLAGS if not args.from_file else _FILE_KEYS
    for number, (fields, lists) in enumerate(collections, start=1):
        said = {
            key: f"{where[number - 1]}{flags[key]}" for key in ("name", "blockchain", "contract")
        }
        if args.from_file:
            said = {key: f"--from-file: {name}" for key, name in said.items()}
        name = trimmed(fields["name"], said["name"])
        chain = trimmed(fields["blockchain"], said["blockchain"])
        contract = trimmed(fields["contract"], said["contract"])
        reports = {
            kind: _check_list(values, kind, chain, numbers)
            for kind, (values, numbers) in lists.items()
        }
        problems = collection_problems(
            name, chain, contract, reports, earlier_names=names, number=number
        )
        if filed:  # said first: a key misspelt is why a value it was to give is missing
            row, taken = filed[number - 1]
            say_left_out(row, taken, "a collection", f"--from-file: collection {number}")
        judge(problems, flags, where[number - 1])
        body.append(
            NewCollection.build(
                name=name,
                blockchain=chain,
                contract_address=contract,
                whitelisted=fields["whitelisted"] == "true",
                wallets=reports["wallets"].valid,
                emails=reports["emails"].valid,
            )
        )
    if args.dry_run:
        return preview(context, (ADD_COLLECTIONS, body))
    with unknown_if_interrupted("add collections"):
        created = await context.client.add_collections(body)
    count = len(body)
    listed = ", ".join(c.name for c in body)
    unprinted = ["the ids it gave are not printed"] if created.unread else []
    made = f"created {'collection' if count == 1 else f'{count} collections'}: {listed}"
    say(created.said(made, *unprinted))
    if created.answer is not None:
        sys.stdout.buffer.write(encode_json(created.answer) + b"\n")
        sys.stdout.flush()
    return EXIT_OK


_FILE_KEYS = {
    "name": "name",
    "blockchain": "blockchain",
    "contract": "contractAddress",
    "wallets": "wallets",
    "emails": "emails",
}

ListValues = tuple[list[str], list[int] | None]
"""A list's entries and the line each came from (``None``: its position)."""


def _check_list(values: list[str], kind: str, chain: str, numbers: list[int] | None) -> ListReport:
    check = (lambda value: check_address(value, chain)) if kind == "wallets" else check_email
    return check_list(values, check, line_numbers=numbers)


def _collection_flags(args: Any) -> tuple[dict[str, str], dict[str, ListValues]]:
    fields = {
        "name": args.name or "",
        "blockchain": args.blockchain or "",
        "contract": args.contract or "",
        "whitelisted": "true" if args.whitelisted else "false",
    }
    lists: dict[str, ListValues] = {}
    if args.wallets_file == args.emails_file == "-":
        raise UsageError("--wallets-file - and --emails-file -: stdin holds one list; give a file")
    for kind, path, hint in (
        ("wallets", args.wallets_file, "wallet"),
        ("emails", args.emails_file, "email"),
    ):
        if not path:
            lists[kind] = ([], None)
            continue
        # "-" is stdin, as for every file a command reads.
        data = read_input("-", f"--{kind}-file", limit=MAX_LIST_FILE_BYTES) if path == "-" else None
        try:
            imported = load_list_file(
                path if data is None else "stdin", column_hint=hint, data=data
            )
        except ListFileError as error:
            raise UsageError(f"--{kind}-file: {error}") from None
        if imported.warning:
            say(f"warning: --{kind}-file: {imported.warning}")
        if imported.missing_lines:
            shown = ", ".join(map(str, imported.missing_lines[:5]))
            say(
                f"warning: --{kind}-file: {len(imported.missing_lines):,} rows had no value (line {shown})"
            )
        lists[kind] = (imported.values, imported.line_numbers)
    return fields, lists


FiledCollection = tuple[dict[str, str], dict[str, ListValues]]
"""A collection's fields and lists as read from a file."""


def _collections_file(
    path: str,
) -> tuple[list[tuple[dict[str, Any], set[Path_]]], list[FiledCollection]]:
    """The file's collections, and each object with the paths of the keys read from it."""
    value = read_json_file(path, "--from-file")
    rows = value if isinstance(value, list) else [value]
    if not rows:
        raise UsageError(f"--from-file: {path} holds an empty array: give one collection at least")
    if not all(isinstance(row, dict) for row in rows):
        raise UsageError(f"--from-file: {path} must hold a JSON array of collection objects")
    out: list[FiledCollection] = []
    read: list[tuple[dict[str, Any], set[Path_]]] = []
    for number, row in enumerate(rows, start=1):
        where = f"--from-file: collection {number}"
        info = _object(row, ("whitelistingInfo",), where, ["list", "emails"])
        wallet_list = _object(info, ("whitelistingInfo", "list"), where, ["wallets"])
        whitelisted = row.get("whitelisted", False)
        # ``1 in (True, False)`` holds in Python: the type is asked first.
        if not isinstance(whitelisted, bool) and whitelisted not in ("true", "false"):
            raise UsageError(f"{where}: whitelisted is true or false")
        taken: set[Path_] = {("whitelisted",)}
        fields = {
            "name": _field(row, ("name",), where, taken),
            "blockchain": _field(row, ("blockchain", "blockchainId"), where, taken),
            "contract": _field(row, ("contractAddress", "contract"), where, taken),
            "whitelisted": "true" if whitelisted in (True, "true") else "false",
        }
        wallets = ("wallets",) if "wallets" in row else ("whitelistingInfo", "list", "wallets")
        emails = ("emails",) if "emails" in row else ("whitelistingInfo", "emails")
        taken |= {wallets, emails}
        lists: dict[str, ListValues] = {
            "wallets": (_strings(row.get("wallets", wallet_list.get("wallets", [])), where), None),
            "emails": (_strings(row.get("emails", info.get("emails", [])), where), None),
        }
        out.append((fields, lists))
        read.append((row, taken))
    return read, out


def _object(given: Mapping[str, Any], path: Path_, where: str, holds: list[str]) -> dict[str, Any]:
    """The object at ``path`` (the last key of which is in ``given``), ``{}`` without the
    key. A value of another shape is an error naming the path: read as empty, or as a key
    left out, ``"list": ["0x…"]`` made a collection with no whitelisted wallet."""
    value = given.get(path[-1], {})
    if not isinstance(value, dict):
        shape = f"an object ({', '.join(holds)}), not {_json_shape(value)}"
        raise UsageError(f"{where}: {'.'.join(path)} must be {shape}")
    return value


def _json_shape(value: Any) -> str:
    """What ``value`` is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array"


def _field(row: Mapping[str, Any], keys: Sequence[str], where: str, taken: set[Path_]) -> str:
    """The first of ``keys`` in ``row`` (noted in ``taken``); "" when none is there."""
    for key in keys:
        if key in row:
            if not isinstance(row[key], str):
                raise UsageError(f"{where}: {key} must be text")
            taken.add((key,))
            return str(row[key])
    return ""


# --- keys of a file left out ------------------------------------------------------------

Path_ = tuple[str, ...]
"""Where a key sits in a file's object: the keys leading to it."""

LEFT_OUT_SHOWN = 20
"""Keys left out that are named one by one; the rest are counted."""


def say_left_out(given: Mapping[str, Any], taken: set[Path_], what: str, where: str) -> None:
    """Warn of each key of ``given`` that nothing of the request was read from.

    A request is built from the keys it knows: any other key of the file (a typo, a field
    of another type, one the interface does not have) would be dropped without a word.
    ``taken`` holds the paths read; the objects on the way to them are looked into. Each
    key is named by its path, cleaned of control characters, in the words said of a flag
    that is not part of the request.
    """
    inside = {path[:end] for path in taken for end in range(1, len(path))}
    left = list(_left_out(given, taken, inside, ()))
    for path in left[:LEFT_OUT_SHOWN]:
        say(f"warning: {where}: {'.'.join(path)} is not part of {what}; left out")  # say cleans
    if len(left) > LEFT_OUT_SHOWN:
        say(f"warning: {where}: {len(left) - LEFT_OUT_SHOWN:,} more keys left out")


def _left_out(
    value: Mapping[str, Any], taken: set[Path_], inside: set[Path_], path: Path_
) -> Iterator[Path_]:
    for key, inner in value.items():
        here = (*path, key)
        if here in taken:
            continue
        if here in inside and isinstance(inner, dict):
            yield from _left_out(inner, taken, inside, here)
        else:
            yield here


def _strings(values: Any, where: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise UsageError(f"{where}: wallets and emails are arrays of text")
    return list(values)
