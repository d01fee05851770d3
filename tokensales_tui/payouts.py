"""Payout definitions: the local record of those added from here, and the Payouts tab's rows.

The record keeps the payout definitions added from this app, one file per profile.

The interface can add a payout definition but not list them, so the Payouts tab shows
the ones added from here from this record. It lives in the platform data folder as
``payouts/<profile>.json``::

    {"version": 1, "definitions": [{"type": ..., "name": ..., ..., "addedAt": ...}]}

Adding takes the file's lock, reads the file again and replaces it atomically, so two
instances adding at once both keep their definition. A file that does not parse is
reported (:class:`PayoutRecordError`) and never overwritten.

The Payouts tab lists those definitions and, grouped, the payout settings the items
use (:func:`payout_rows`).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import Any, Final

import msgspec

from . import config
from .api.models import Item, ItemPayout
from .files import atomic_write, locked, read_local_file

__all__ = ["PayoutRecord", "PayoutRecordError", "record_path", "safe_profile_name"]

VERSION: Final = 1
MAX_RECORD_BYTES: Final = 16 * 1024 * 1024
"""Largest record read; a bigger file is reported, not read."""
_SAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


class PayoutRecordError(Exception):
    """The record cannot be read or written; ``str(error)`` says what to do."""


class _File(msgspec.Struct):
    version: int
    definitions: list[dict[str, Any]]


def safe_profile_name(profile: str) -> str:
    """A file name for ``profile``: itself when it is letters, digits, ``-`` and ``_``.

    Any other name keeps its safe characters and gains a short hash of the whole name,
    so two names never share a file.
    """
    safe = _SAFE.sub("_", profile)[:48]
    if safe == profile and profile:
        return profile
    digest = hashlib.sha256(profile.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{safe}-{digest}"


def record_path(profile: str) -> Path:
    """Where the record of ``profile`` lives."""
    return config.data_dir() / "payouts" / f"{safe_profile_name(profile)}.json"


class PayoutRecord:
    """The definitions added from this app for one profile, oldest first.

    Args:
        path: the record's file; ``None`` keeps the record in memory only (the demo,
            whose service forgets everything when the app ends, uses that).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: list[dict[str, Any]] = []

    @classmethod
    def for_profile(cls, profile: str) -> PayoutRecord:
        """The record of a configured profile, in the data folder."""
        return cls(record_path(profile))

    @classmethod
    def in_memory(cls) -> PayoutRecord:
        """A record that lasts as long as the object."""
        return cls(None)

    def load(self) -> list[dict[str, Any]]:
        """Every definition recorded, oldest first.

        Raises:
            PayoutRecordError: the file cannot be read or does not parse.
        """
        if self.path is None:
            return list(self._memory)
        return self._read(self.path)

    def add(self, definition: dict[str, Any], *, added_at: str | None = None) -> dict[str, Any]:
        """Record ``definition`` (the body sent) with the time it was added; returns the entry.

        Raises:
            PayoutRecordError: the file does not parse (it is left as it was), or it
                cannot be locked or written.
        """
        entry = {**definition, "addedAt": added_at or _now()}
        if self.path is None:
            self._memory.append(entry)
            return entry
        path = self.path
        try:
            with locked(path):
                definitions = self._read(path)  # again, under the lock
                definitions.append(entry)
                data = msgspec.json.format(
                    msgspec.json.encode(_File(VERSION, definitions)), indent=2
                )
                atomic_write(path, data + b"\n")
        except OSError as error:
            raise PayoutRecordError(
                f"the payout record {path} could not be written: {error.strerror or error}"
            ) from None
        return entry

    @staticmethod
    def _read(path: Path) -> list[dict[str, Any]]:
        try:
            data = read_local_file(path, limit=MAX_RECORD_BYTES)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise PayoutRecordError(
                f"the payout record {path} cannot be read: {error.strerror or error}"
            ) from None
        try:
            stored = msgspec.json.decode(data, type=_File)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError) as error:
            raise PayoutRecordError(
                f"the payout record {path} is damaged ({error}) — fix or move it;"
                " it is not overwritten"
            ) from None
        if stored.version != VERSION:
            raise PayoutRecordError(
                f"the payout record {path} has version {stored.version}, which this version"
                " of tokensales-tui cannot read — it is not overwritten"
            )
        return stored.definitions


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the Payouts tab's rows ---------------------------------------------------------


@dataclass
class PayoutRow:
    """One payout setting: used by items, or a definition added from this app."""

    id: str
    type: str
    name: str
    chain: str
    account: str
    spender: str
    used_by: int
    source: str
    raw: dict[str, Any]
    key: tuple[str | None, ...] | None = None
    """The :func:`payout_key` of the items using it (None: a definition added from here)."""


def payout_key(payout: ItemPayout | None) -> tuple[str | None, ...] | None:
    """What makes two items' payout settings the same (None: the item has none)."""
    if payout is None:
        return None
    p = payout
    return (
        p.type,
        p.blockchain_id,
        p.payment_provider_connected_account_id,
        p.asset_id,
        p.spender,
    )


ITEMS_NAMED = 50
"""Items a payout setting in use names (the count says how many use it)."""

_PAYOUT = attrgetter("payout")


def _first_members(items: Sequence[Item], used: Counter[Any]) -> dict[tuple[Any, ...], list[Item]]:
    """The first :data:`ITEMS_NAMED` items of each payout setting in ``used``.

    Only these are kept, not a list of every item of each setting: 1,000,000 items in
    lists growing in a thread, each met by every young collection while it is new,
    held the event loop 110-180 ms a collection.
    """
    wanted = {key: min(count, ITEMS_NAMED) for key, count in used.items()}
    members: dict[tuple[Any, ...], list[Item]] = {key: [] for key in used}
    left = sum(wanted.values())
    for item in items:
        if not left:
            break
        key = payout_key(item.payout)
        if key is None:
            continue
        found = members[key]
        if len(found) < wanted[key]:
            found.append(item)
            left -= 1
    return members


def payout_rows(items: Sequence[Item], added: Sequence[dict[str, Any]] = ()) -> list[PayoutRow]:
    """Definitions added from here first, newest first, then the payout settings items use.

    ``added`` is the record as kept, oldest first: an added definition's id is its place
    there (``added-1`` is the first ever added), so adding another renumbers none.
    """
    rows: list[PayoutRow] = []
    for number, definition in reversed(list(enumerate(added, 1))):
        details: dict[str, Any] = next(
            (
                definition[k]
                for k in ("fiatDetails", "stablecoinDetails", "nativeDetails")
                if isinstance(definition.get(k), dict)
            ),
            {},
        )
        rows.append(
            PayoutRow(
                id=f"added-{number}",
                type=str(definition.get("type", "")),
                name=str(definition.get("name", "")),
                chain=str(details.get("blockchainId", "")),
                account=str(
                    details.get("paymentProviderId")
                    or details.get("tokenId")
                    or details.get("provider")
                    or ""
                ),
                spender=str(details.get("spender", "")),
                used_by=0,
                source="added from here",
                raw=definition,
            )
        )
    used = Counter(filter(None, map(payout_key, map(_PAYOUT, items))))
    members = _first_members(items, used)
    for index, (key, count) in enumerate(sorted(used.items(), key=lambda kc: -kc[1])):
        kind, chain, account, asset, spender = key
        payout = members[key][0].raw.get("payout", {})
        rows.append(
            PayoutRow(
                id=f"in-use-{index + 1}",
                type=kind or "",
                name="",
                chain=chain or "",
                account=account or asset or "",
                spender=spender or "",
                used_by=count,
                source="used by items",
                raw={
                    "payout": payout,
                    "usedBy": count,
                    "items": [m.id for m in members[key]],
                },
                key=key,
            )
        )
    return rows
