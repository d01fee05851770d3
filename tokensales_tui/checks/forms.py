"""The checks of each create/edit request as a whole: which field is wrong, and why.

The forms of the terminal app and the scripting commands ask these functions, so one
set of rules and one wording serve both. Each returns :data:`Problems`: a
:class:`Problem` per field id that is wrong (a warning does not stop the request).
Field ids are the forms' (``url``, ``events``, ``detail-spender``, ``name`` …); the
command line names the flag that holds each one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..clean import clean_line
from .addresses import chain_family, check_address
from .lists import ListReport
from .payouts import check_payout_type, detail_fields
from .text import check_collection_name, check_text
from .urls import check_events, check_http_url

__all__ = [
    "SHOWN_PROBLEMS",
    "Problem",
    "Problems",
    "collection_problems",
    "list_problem",
    "payout_problems",
    "webhook_problems",
]

SHOWN_PROBLEMS = 3
"""Invalid list lines named in a problem; the count says how many there are in all."""


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with one field; a warning does not stop the request."""

    message: str
    warning: bool = False


Problems = dict[str, Problem]
"""Problems by the id of the field they belong to."""


def webhook_problems(url: str | None, events: str | None, secret: str = "") -> Problems:
    """Check a webhook's URL, events (as typed: commas or new lines) and secret.

    ``None`` for the URL or the events means "left as it is" (an edit that does not
    change it): a stored value the service accepted is not ours to refuse. An empty
    secret is no secret (creating) or the stored one kept (editing).
    """
    problems: Problems = {}
    if url is not None and (problem := check_http_url(url)):
        problems["url"] = Problem(problem)
    if events is not None and (problem := check_events(events)):
        problems["events"] = Problem(problem)
    if secret and (problem := check_text(secret, "the secret")):
        problems["secret"] = Problem(problem)
    return problems


def payout_problems(
    name: str, payout_type: str, details: Mapping[str, str], *, type_field: str = "type"
) -> Problems:
    """Check a payout definition: its name, its type and the details of that type.

    Args:
        name: the name, trimmed.
        payout_type: the type as it will be sent.
        details: the detail fields of that type (:func:`~.payouts.detail_fields`) by wire
            name, trimmed; every one is required, and the spender must fit the chain.
        type_field: the field id the type's problem belongs to.
    """
    problems: Problems = {}
    if not name:
        problems["name"] = Problem("enter a name for the payout definition")
    elif problem := check_text(name, "the name"):
        problems["name"] = Problem(problem)
    if problem := check_payout_type(payout_type):
        problems[type_field] = Problem(problem)
    labels = dict(detail_fields(payout_type))
    for wire, label in labels.items():
        value = details.get(wire, "")
        if not value:
            problems[f"detail-{wire}"] = Problem(
                f"enter the {label.lower()} — a {payout_type} payout needs it"
            )
        elif problem := check_text(value, f"the {label.lower()}"):
            problems[f"detail-{wire}"] = Problem(problem)
    spender = details.get("spender")
    if (
        spender
        and "spender" in labels
        and "detail-spender" not in problems
        and (problem := check_address(spender, details.get("blockchainId", "")))
    ):
        problems["detail-spender"] = Problem(problem)
    return problems


def collection_problems(
    name: str,
    chain: str,
    contract: str,
    lists: Mapping[str, ListReport | None],
    *,
    earlier_names: dict[str, int],
    number: int,
    fixes: Mapping[str, str] | None = None,
) -> Problems:
    """Check one collection of a create request.

    Args:
        name, chain, contract: as typed, trimmed.
        lists: the checked ``wallets`` and ``emails`` (``None`` while a list is unchecked).
        earlier_names: the casefolded names of the collections before this one, with their
            numbers; this one's is added.
        number: this collection's position, from 1.
        fixes: how to mend invalid entries of a list, where that is not by editing them
            (see :func:`list_problem`).
    """
    problems: Problems = {}
    error, warning = check_collection_name(name)
    if error or warning:
        problems["name"] = Problem(error or warning or "", warning=not error)
    elif name.casefold() in earlier_names:
        problems["name"] = Problem(
            f"collection {earlier_names[name.casefold()]} has this name too", warning=True
        )
    earlier_names.setdefault(name.casefold(), number)
    if not chain:
        problems["blockchain"] = Problem("enter the blockchain, e.g. polygon")
    elif problem := check_text(chain, "the blockchain"):
        problems["blockchain"] = Problem(problem)
    elif chain_family(chain) == "other":
        problems["blockchain"] = Problem(
            "not a chain this form knows — addresses on it are only checked for being non-empty",
            warning=True,
        )
    if problem := check_address(contract, chain):
        problems["contract"] = Problem(problem)
    for kind, report in lists.items():
        if report is not None and (flagged := list_problem(report, kind, (fixes or {}).get(kind))):
            problems[kind] = flagged
    return problems


def list_problem(report: ListReport, kind: str, fix: str | None = None) -> Problem | None:
    """The problem of a checked list of ``wallets`` or ``emails``, if it has one.

    Invalid entries stop the request (the first few are named with their lines), with
    ``fix`` as what to do (by default, correct or delete them); repeated ones are a
    warning, since each is sent once.
    """
    noun = "wallet" if kind == "wallets" else "e-mail"
    if report.problems:
        count = len(report.problems)
        lines = [
            f"line {p.line_no}: {clean_line(p.value)[:48]} — {p.message}"
            for p in report.problems[:SHOWN_PROBLEMS]
        ]
        if count > SHOWN_PROBLEMS:
            lines.append(f"… and {count - SHOWN_PROBLEMS:,} more")
        fix = fix or f"correct or delete {'it' if count == 1 else 'them'}"
        head = f"{count:,} invalid {noun}{'' if count == 1 else 's'} — {fix}:"
        return Problem("\n".join([head, *lines]))
    if report.duplicates:
        count = len(report.duplicates)
        where = ", ".join(str(d.line_no) for d in report.duplicates[:5])
        more = ", …" if count > 5 else ""
        return Problem(
            f"{count:,} repeated {noun}{'' if count == 1 else 's'} (line {where}{more}) — each is sent once",
            warning=True,
        )
    return None
