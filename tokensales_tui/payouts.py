"""Payout definitions: the local record of those added from here, and the Payouts tab's rows.

The record keeps the payout definitions added from this app, one file per profile and
service.

The interface can add a payout definition but not list them, so the Payouts tab shows
the ones added from here from this record. It lives in the platform data folder as
``payouts/<profile>.<hash of the service's address>.json``::

    {"version": 1, "service": "https://api.example.com", "definitions": [{"type": ..., "name": ..., ..., "addedAt": ...}]}

so that two services never share one: a profile whose address a variable or a flag
changes (``TOKENSALES_BASE_URL=… --profile prod``) has a record of its own, and so has
a session from the environment alone, named ``default`` as a profile of that name would
be, unless it talks to the same service. A file whose ``service`` is not the session's is
reported, never written. The ``.`` is one character no profile's file name holds (see
:func:`safe_profile_name`), so no record's name is another's.

Records kept under an earlier name are read until the record has a file of its own, and
taken over, whole, at its first add (the old file removed once copied):

- ``payouts/<profile>--<hash>.json``, the same record under a name that a profile
  called ``<profile>--<hash>`` had for its record from before: taken over only when it
  names this service, left to that profile when it names none;
- ``payouts/<profile>.json``, from before records were per service (no ``service``):
  taken over by the profile's own service (its address not changed by a variable or
  flag) only, and only when it names none.

Adding (:meth:`PayoutRecord.adding`) takes the file's lock (waiting at most
:data:`~tokensales_tui.files.LOCK_WAIT`), reads the file again, checks that the record
with the new definition stays under :data:`MAX_RECORD_BYTES` and makes the temp file that
will replace it, all before the definition is sent; then the record is written
atomically. So two instances adding at once both keep their definition, and a record
that could not take the definition is found before the service has it. A file that does
not parse is reported (:class:`PayoutRecordError`) and never overwritten.

The Payouts tab lists those definitions and, grouped, the payout settings the items
use (:func:`payout_rows`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from . import config
from .api.models import Item, ItemPayout
from .clean import clean_line
from .config.schema import ENV_BASE_URL
from .files import (
    LockBusy,
    LockError,
    TooLarge,
    atomic_writer,
    check_size,
    locked,
    read_local_file,
    said,
)

if TYPE_CHECKING:
    from .session import Session

__all__ = [
    "PayoutAdd",
    "PayoutRecord",
    "PayoutRecordError",
    "legacy_record_path",
    "record_path",
    "safe_profile_name",
]

VERSION: Final = 1
MAX_RECORD_BYTES: Final = 16 * 1024 * 1024
"""Largest record: a bigger file is reported, not read, and an add that would make one
is refused before anything is sent."""
_SAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


class PayoutRecordError(Exception):
    """The record cannot be read or written; ``str(error)`` says what to do.

    ``busy``: another process held the record's lock for as long as an add waits
    (:data:`~tokensales_tui.files.LOCK_WAIT`).
    """

    def __init__(self, message: str, *, busy: bool = False) -> None:
        super().__init__(message)
        self.busy = busy


class _File(msgspec.Struct, kw_only=True, omit_defaults=True):
    version: int
    service: str | None = None
    definitions: list[dict[str, Any]]


class _Abandoned(Exception):
    """The block of :meth:`PayoutRecord.adding` ended without a definition to record."""


def safe_profile_name(profile: str) -> str:
    """A file name for ``profile``: itself when it is letters, digits, ``-`` and ``_``.

    Any other name keeps its safe characters and gains a short hash of the whole name,
    so two names never share a file.
    """
    safe = _SAFE.sub("_", profile)[:48]
    if safe == profile and profile:
        return profile
    digest = _sha256(profile)[:10]
    return f"{safe}-{digest}"


def service_of(base_url: str) -> str:
    """The service a record belongs to: its base address, without a trailing ``/``."""
    return base_url.rstrip("/")


def record_path(profile: str, base_url: str) -> Path:
    """Where the record of ``profile`` on the service at ``base_url`` lives."""
    return _payouts_dir() / f"{safe_profile_name(profile)}.{_service_hash(base_url)}.json"


def dashed_record_path(profile: str, base_url: str) -> Path:
    """Where :func:`record_path` was before: ``--`` parted the name from the hash, and
    the file of a profile called ``emu--<hash>`` (:func:`legacy_record_path`) was that of
    ``emu`` on the service hashed."""
    return _payouts_dir() / f"{safe_profile_name(profile)}--{_service_hash(base_url)}.json"


def legacy_record_path(profile: str) -> Path:
    """Where the record of ``profile`` lived before records were per service."""
    return _payouts_dir() / f"{safe_profile_name(profile)}.json"


def _payouts_dir() -> Path:
    return config.data_dir() / "payouts"


def _service_hash(base_url: str) -> str:
    return _sha256(service_of(base_url))[:12]


def _sha256(text: str) -> str:
    import hashlib  # OpenSSL's, 2 ms: when a record is first named, not at the app's start

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class PayoutRecord:
    """The definitions added from this app for one profile and service, oldest first.

    Args:
        path: the record's file; ``None`` keeps the record in memory only (the demo,
            whose service forgets everything when the app ends, uses that).
        service: the service it belongs to (:func:`service_of`); None: a file that
            names none.
        earlier: files of this record under an earlier name, each with the service its
            file names (None: none), which this one takes over, the first found, while
            it has no file of its own. A file there naming another service (or one, for
            None) is another record's, left alone.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        service: str | None = None,
        earlier: Sequence[tuple[Path, str | None]] = (),
    ) -> None:
        self.path = path
        self.service = service
        self.earlier = tuple(earlier)
        self._memory: list[dict[str, Any]] = []

    @classmethod
    def for_service(cls, profile: str, base_url: str, *, own: bool = True) -> PayoutRecord:
        """The record of ``profile`` on the service at ``base_url``, in the data folder.

        ``own``: the address is the profile's own, not one a variable or a flag put in
        its place; only then is the profile's record from before taken over.
        """
        service = service_of(base_url)
        earlier: list[tuple[Path, str | None]] = [(dashed_record_path(profile, base_url), service)]
        if own:
            earlier.append((legacy_record_path(profile), None))
        return cls(record_path(profile, base_url), service=service, earlier=earlier)

    @classmethod
    def for_session(cls, session: Session) -> PayoutRecord:
        """The record of a session on a configured profile (or the environment)."""
        changed = {ENV_BASE_URL, "--base-url"} & set(session.overridden)
        return cls.for_service(session.name, session.connection.base_url, own=not changed)

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
        return self._current()[0]

    def add(self, definition: dict[str, Any], *, added_at: str | None = None) -> dict[str, Any]:
        """Record ``definition`` (the body sent) with the time it was added; returns the entry.

        Raises:
            PayoutRecordError: the file does not parse (it is left as it was), or it
                cannot be locked or written.
        """
        with self.adding(definition) as keep:
            return keep(added_at)

    @contextlib.contextmanager
    def adding(
        self,
        definition: dict[str, Any],
        *,
        waiting: Callable[[Path], object] | None = None,
        stop: threading.Event | None = None,
    ) -> Iterator[Callable[[str | None], dict[str, Any]]]:
        """Make ready to record ``definition``, then yield the function that records it.

        On entry the lock is taken (waited for as :func:`~tokensales_tui.files.locked`
        waits, which calls ``waiting(lock)`` once the wait lasts, and gives up once
        ``stop`` is set), the record read
        again, its size with the definition checked and the temp file that will replace
        it made: whatever would keep the definition out of the record shows before it is
        sent. Call the function yielded (with the time it was added, or None for now)
        once the service has added it: the record is written as the block ends. A block
        that ends without calling it, or with an exception, leaves the record as it was.

        Raises:
            PayoutRecordError: on entry, the record cannot be read, locked, made or
                would be too large; as the block ends, it could not be written.
        """
        kept: list[dict[str, Any]] = []

        def keep(added_at: str | None) -> dict[str, Any]:
            kept.append({**definition, "addedAt": added_at or _now()})
            return kept[-1]

        if self.path is None:
            yield keep
            self._memory += kept
            return
        path = self.path
        with self._locked(waiting, stop):
            definitions, adopted = self._current()
            self._check_fits([*definitions, {**definition, "addedAt": _now()}])
            stage = "opening"
            try:
                with atomic_writer(path, limit=MAX_RECORD_BYTES) as file:
                    stage = "waiting"
                    yield keep
                    if not kept:
                        raise _Abandoned
                    stage = "writing"
                    file.write(self._encode([*definitions, *kept]))
            except _Abandoned:
                return
            except OSError as error:
                if stage == "waiting":
                    raise  # the block's own
                raise self._not_written(error) from None
            if adopted is not None:
                with contextlib.suppress(OSError):
                    os.unlink(adopted)  # copied whole into this one

    @contextlib.contextmanager
    def _locked(
        self, waiting: Callable[[Path], object] | None, stop: threading.Event | None
    ) -> Iterator[None]:
        """The locks of the record and of the files it may take over."""
        assert self.path is not None
        with contextlib.ExitStack() as stack:
            for path in (self.path, *(earlier for earlier, _service in self.earlier)):
                try:
                    stack.enter_context(locked(path, waiting=waiting, stop=stop))
                except LockBusy as error:
                    raise PayoutRecordError(
                        f"the payout record {self.path} is in use ({error})", busy=True
                    ) from None
                except LockError as error:
                    raise PayoutRecordError(
                        f"the payout record {self.path} cannot be locked: {error}"
                    ) from None
                except OSError as error:
                    raise self._not_written(error) from None
            yield

    def _not_written(self, error: OSError) -> PayoutRecordError:
        # The file or folder the system named, when another than the record (its folder).
        other = error.filename is not None and error.filename != str(self.path)
        why = said(error) if other else error.strerror or str(error)
        return PayoutRecordError(f"the payout record {self.path} could not be written: {why}")

    def _check_fits(self, definitions: list[dict[str, Any]]) -> None:
        try:
            check_size(len(self._encode(definitions)), MAX_RECORD_BYTES)
        except TooLarge as error:
            raise PayoutRecordError(
                f"the payout record {self.path} is full: with this definition it {error};"
                " move it aside to start a new one"
            ) from None

    def _encode(self, definitions: list[dict[str, Any]]) -> bytes:
        data = _File(version=VERSION, service=self.service, definitions=definitions)
        return msgspec.json.format(msgspec.json.encode(data), indent=2) + b"\n"

    def _current(self) -> tuple[list[dict[str, Any]], Path | None]:
        """The definitions recorded, and the earlier file they are taken over from."""
        assert self.path is not None
        found = self._read(self.path, self.service)
        if found is not None:
            return found, None
        for earlier, service in self.earlier:
            taken_over = self._read(earlier, service, kind_only=True)
            if taken_over is not None:
                return taken_over, earlier
        return [], None

    @staticmethod
    def _read(
        path: Path, service: str | None, *, kind_only: bool = False
    ) -> list[dict[str, Any]] | None:
        """The definitions of the file at ``path``; None when there is none.

        ``kind_only``: a file naming a service where ``service`` is None, or none where
        it is one, is another record's (an earlier name both had): None too."""
        try:
            data = read_local_file(path, limit=MAX_RECORD_BYTES)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise PayoutRecordError(
                f"the payout record {path} cannot be read: {error.strerror or error}"
            ) from None
        try:
            stored = msgspec.json.decode(data, type=_File)
        except Exception as error:  # any failure of the decoder on these bytes
            # Not only a mistake in the JSON: a value nested too deeply for the decoder
            # (a RecursionError), memory running out.
            why = clean_line(str(error))[:200] or type(error).__name__
            raise PayoutRecordError(
                f"the payout record {path} is damaged ({why}) — fix or move it;"
                " it is not overwritten"
            ) from None
        if stored.version != VERSION:
            raise PayoutRecordError(
                f"the payout record {path} has version {stored.version}, which this version"
                " of tokensales-tui cannot read — it is not overwritten"
            )
        if kind_only and (stored.service is None) != (service is None):
            return None
        if stored.service != service:
            raise PayoutRecordError(
                f"the payout record {path} belongs to the service {stored.service!r}, not"
                f" {service!r} — move it; it is not overwritten"
            )
        return stored.definitions


class PayoutAdd:
    """:meth:`PayoutRecord.adding` for an event loop: each file step in a thread, never on it.

    Its steps, each called on the loop:

    * ``await ready()`` makes the record ready in a thread, the lock waited for there
      (``waiting(lock)`` is called on the loop when another process holds it). It
      raises :class:`PayoutRecordError` when the record cannot take the definition:
      nothing may be sent then.
    * :meth:`answered`, called the moment the service has added the definition, keeps it
      and starts the record's write in a thread, with no await between the two: nothing
      cancelled afterwards (a wait stopped, the app quitting) keeps it from the record.
      ``written(error)`` is called on the loop once the write ended (``None``: written).
    * :meth:`abandon`: nothing to record (the request failed, was stopped, or never went).
    * ``await over()`` waits until the add is done with: written or not, or abandoned.

    Args:
        record: the record the definition goes into.
        definition: the body sent.
        waiting: told the lock file's path when the lock must be waited for.
        written: told how the write ended.
    """

    def __init__(
        self,
        record: PayoutRecord,
        definition: dict[str, Any],
        *,
        waiting: Callable[[Path], object] | None = None,
        written: Callable[[PayoutRecordError | None], object] | None = None,
    ) -> None:
        self.record = record
        self.definition = definition
        self._waiting = waiting
        self._written = written
        self._guard = threading.Lock()  # between the thread that enters and the loop
        self._block: contextlib.AbstractContextManager[Any] | None = None
        self._keep: Callable[[str | None], dict[str, Any]] | None = None
        self._abandoned = False
        self._stop = threading.Event()  # set when abandoned: a wait for the lock gives up
        self._writing = False
        self._over = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.followed = False
        """Whether this add is followed as a change under way, its request included (the
        app's quit waits for it): its request is then no change of its own."""

    @property
    def in_flight(self) -> bool:
        """Whether the record is ready for the definition, or being written: its request
        may be out, or answered."""
        return (self._block is not None or self._writing) and not self._over.is_set()

    @property
    def done(self) -> bool:
        """Whether the add is done with: its write ended, or it was abandoned."""
        return self._over.is_set()

    async def ready(self) -> None:
        """Make the record ready to take the definition (see :meth:`PayoutRecord.adding`).

        Cancelled while it waits for the lock, the add is abandoned: the thread stops
        waiting (or lets the lock go, had it just taken it).

        Raises:
            PayoutRecordError: the record cannot take the definition; nothing may be sent.
        """
        loop = self._loop = asyncio.get_running_loop()
        block = self.record.adding(self.definition, waiting=self._announce, stop=self._stop)

        def enter() -> None:
            keep = block.__enter__()
            with self._guard:
                if not self._abandoned:
                    self._block, self._keep = block, keep
                    return
            block.__exit__(None, None, None)  # abandoned while the lock was waited for

        try:
            await loop.run_in_executor(None, enter)
        except BaseException:
            self.abandon()
            raise

    def answered(self, added_at: str | None = None) -> None:
        """The service added the definition: keep it, and write the record in a thread now.

        ``added_at``: when it was added; None for now. Does nothing unless ready.
        """
        with self._guard:
            block, keep = self._block, self._keep
            self._block = self._keep = None
        if block is None or keep is None or self._loop is None:
            return
        keep(added_at)
        self._writing = True
        ending = self._loop.run_in_executor(None, block.__exit__, None, None, None)
        ending.add_done_callback(self._ended)

    def abandon(self) -> None:
        """Record nothing: the record is left as it was and its lock let go, now, or, while
        the lock is still waited for, at once. Nothing once answered."""
        with self._guard:
            if self._writing:
                return
            self._abandoned = True
            self._stop.set()
            block, self._block, self._keep = self._block, None, None
        self._over.set()
        if block is not None and self._loop is not None:
            self._loop.run_in_executor(None, block.__exit__, None, None, None)

    async def over(self) -> None:
        """Wait until the add is done with: its write ended, or it was abandoned."""
        await self._over.wait()

    def _announce(self, lock: Path) -> None:
        """In the thread: the lock is held by another process; say so on the loop."""
        if self._waiting is None or self._loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: no one to tell
            self._loop.call_soon_threadsafe(self._say_waiting, lock)

    def _say_waiting(self, lock: Path) -> None:
        if self._waiting is not None and not self._abandoned:
            self._waiting(lock)

    def _ended(self, ending: asyncio.Future[Any]) -> None:
        self._over.set()
        if ending.cancelled():  # its loop shut down: the thread went on, unheard
            return
        error = ending.exception()
        if error is not None and not isinstance(error, PayoutRecordError):  # a bug: still said
            error = PayoutRecordError(
                f"the payout record {self.record.path} could not be written: {error!r}"
            )
        if self._written is not None:
            self._written(error)


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
