"""Checks and parsers for what people type into the forms: URLs, events, addresses, lists.

Everything here is pure and free of Textual (only :func:`load_list_file` reads a file), so the
forms, a command line and the tests share one set of rules. One module per subject:
:mod:`.text`, :mod:`.urls` (and event names), :mod:`.addresses` (chains and wallets),
:mod:`.emails`, :mod:`.lists` (typed or imported), :mod:`.payouts`.

Conventions:

* A ``check_*`` function returns ``None`` when the value is fine, else one message a person can act
  on: what is wrong and what is expected. Messages start in lower case so that a form can put the
  field's label in front. They never repeat a secret, and never repeat a URL (it may hold a token).
* Checks judge the value without surrounding whitespace; forms should send ``value.strip()``.
  A secret is the exception: its spaces are its own (:func:`secret_as_given`).
* Positions in messages count characters from 1, as a person counts.
* Parsers return lists or small dataclasses. :func:`load_list_file` raises :class:`ListFileError`,
  whose ``str()`` is the message to show.
"""

from .addresses import (
    KNOWN_CHAINS,
    b58decode,
    canonical_chain,
    chain_family,
    check_address,
    to_checksum_address,
)
from .emails import check_email
from .lists import (
    ImportedList,
    ListFileError,
    ListReport,
    check_list,
    find_duplicates,
    load_list_file,
    parse_lines,
)
from .payouts import DETAIL_FIELDS, PAYOUT_TYPES, check_payout_type, detail_fields
from .text import check_collection_name, check_text, secret_as_given, split_lines, split_list
from .urls import check_events, check_http_url, look_alike_host, parse_events, suggest_events

__all__ = [
    "DETAIL_FIELDS",
    "KNOWN_CHAINS",
    "PAYOUT_TYPES",
    "ImportedList",
    "ListFileError",
    "ListReport",
    "b58decode",
    "canonical_chain",
    "chain_family",
    "check_address",
    "check_collection_name",
    "check_email",
    "check_events",
    "check_http_url",
    "check_list",
    "check_payout_type",
    "check_text",
    "detail_fields",
    "find_duplicates",
    "load_list_file",
    "look_alike_host",
    "parse_events",
    "parse_lines",
    "secret_as_given",
    "split_lines",
    "split_list",
    "suggest_events",
    "to_checksum_address",
]
