"""Every change under way — a request that changes something on the service, a local
record being written — known to one place, so that quitting can wait for it and say
what it could not wait for.

The session's :class:`~.worker.ApiWorker` adds each call the moment its first request
that changes something (any method but GET and HEAD, the token's aside) is handed to
the connection, and takes it off once the call has ended however it ended: a create,
an edit, a delete, each delete of a bulk delete. A call still waiting for a token, a
connection or a retry's back-off sent nothing yet and is not counted. A payout
definition's add into a record kept in a file is one change, the app's
(:class:`~tokensales_tui.payouts.PayoutAdd`), from the record made ready to its write
ended, its request and the record's files included: its call is not added again, nor
its files, and it stays under way while the record's replacement is left unanswered.
Each other local file being written (a config save, an export, a theme:
:func:`~tokensales_tui.files.writes_under_way`) is followed as quitting begins
(:meth:`InFlight.follow_files`), and so is each whose replacement its file system left
unanswered (:func:`~tokensales_tui.files.unknown_writes`).

Quitting waits for them, :data:`QUIT_WAIT` seconds at most, saying what it waits for;
each one not ended then is printed once the terminal is back, with "outcome unknown —
check it", and the app exits 1. Once quitting has begun no new change is sent
(:meth:`InFlight.close`): a bulk delete's next row, a form submitted during the wait.
A signal that ends the app (the terminal closed, the SSH session dropped, ``kill``)
waits for nothing: each change under way as it comes is said the same way, and the app
exits with the signal's status. Either way the same lines go to the ``--log`` file,
where a terminal gone leaves them to be read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Final, Protocol

from .. import files
from ..api.errors import ApiError
from ..clean import clean_line

__all__ = [
    "QUIT_WAIT",
    "Change",
    "FileWrite",
    "InFlight",
    "QuittingError",
    "Write",
    "unknown_outcomes",
]

QUIT_WAIT = 10.0
"""Most seconds quitting waits for the changes under way."""


class QuittingError(ApiError):
    """A change not sent because the app is quitting (see :meth:`InFlight.close`)."""


class Change(Protocol):
    """A change under way: what it is, whether it still is, and a wait for its end."""

    @property
    def what(self) -> str:
        """What the change is, in a person's words (cleaned: may hold server text)."""
        ...

    @property
    def in_flight(self) -> bool:
        """Whether it is under way now (what is waited for and said)."""
        ...

    @property
    def done(self) -> bool:
        """Whether it has ended for good (no longer followed)."""
        ...

    @property
    def paths(self) -> tuple[Path, ...]:
        """The local files whose writes are this change's own: never followed as changes
        of their own (:meth:`InFlight.follow_files`)."""
        ...

    async def over(self) -> None:
        """Wait until it has ended."""
        ...


class Write:
    """A change under way that its owner ends (:meth:`end`) when it is over."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._ended = asyncio.Event()

    @property
    def what(self) -> str:
        return self._what

    @property
    def in_flight(self) -> bool:
        return not self._ended.is_set()

    @property
    def done(self) -> bool:
        return self._ended.is_set()

    @property
    def paths(self) -> tuple[Path, ...]:
        return ()

    def end(self) -> None:
        """The change is over (done, failed or given up)."""
        self._ended.set()

    async def over(self) -> None:
        await self._ended.wait()


_FILE_POLL: Final = 0.05
"""Seconds between two looks at whether a file is still being written."""


class FileWrite:
    """A local file being written, as a change under way until its write ends; one
    whose file system left its replacement unanswered stays under way: it may or may
    not hold what was written (:class:`~tokensales_tui.files.OutcomeUnknown`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def paths(self) -> tuple[Path, ...]:
        return (self.path,)

    @property
    def what(self) -> str:
        return f"the file {clean_line(str(self.path))}"

    @property
    def in_flight(self) -> bool:
        return self._writing() or self.path in files.unknown_writes()

    @property
    def done(self) -> bool:
        return not self.in_flight

    def _writing(self) -> bool:
        return self.path in files.writes_under_way()

    async def over(self) -> None:
        # Each call of the system a write makes is bounded (files.FILE_WAIT): a write
        # ends, written or given up, within that much of its last progress.
        while self._writing():
            await asyncio.sleep(_FILE_POLL)


class InFlight:
    """The changes under way of one app (see the module)."""

    def __init__(self) -> None:
        self._changes: list[Change] = []
        self.closed = False
        """No new change may be sent (the app is quitting): see :meth:`close`."""

    def close(self) -> None:
        """From now on no new change is sent: each caller about to send one checks
        :attr:`closed` and sends nothing (those under way go on, and are waited for)."""
        self.closed = True

    def begin(self, what: str) -> Write:
        """A change that begins now; its owner ends it."""
        write = Write(what)
        self.follow(write)
        return write

    def follow(self, change: Change) -> None:
        """Count ``change`` while it is in flight, until it is done."""
        self._changes = [*(c for c in self._changes if not c.done), change]

    def follow_files(self) -> None:
        """Count each local file being written now, or left unknown, while it is; a file
        a change under way names as its own (its ``paths``: a payout definition's record)
        is that change's, not counted again: the change stays under way while the file
        is left unknown."""
        followed = {path for change in self._changes if not change.done for path in change.paths}
        for path in [*files.writes_under_way(), *files.unknown_writes()]:
            if path not in followed:
                followed.add(path)
                self.follow(FileWrite(path))

    def pending(self) -> list[Change]:
        """The changes still under way, oldest first."""
        return [change for change in self._changes if change.in_flight]

    async def settle(self, seconds: float) -> list[Change]:
        """Wait until no change is under way, ``seconds`` at most; those still under way.

        Changes that begin meanwhile are waited for too (within the same bound)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while (pending := self.pending()) and (left := deadline - loop.time()) > 0:
            waits = [asyncio.ensure_future(change.over()) for change in pending]
            try:
                await asyncio.wait(waits, timeout=left)
            finally:
                for wait in waits:
                    wait.cancel()
            if self.pending() == pending:  # each wait over, each still under way (a
                # file left unknown): only time tells, looked at now and then
                await asyncio.sleep(min(_FILE_POLL, max(deadline - loop.time(), 0)))
        return self.pending()


def unknown_outcomes(changes: Iterable[Change], ended: str = "quit") -> str:
    """What is said, once the app has ended (``ended``: "quit", "ended by SIGHUP"), of
    the changes it did not wait for."""
    lines = [f"  {change.what}: outcome unknown — check it" for change in changes]
    count = len(lines)
    head = (
        f"tokensales-tui {ended} with 1 change under way:"
        if count == 1
        else f"tokensales-tui {ended} with {count} changes under way:"
    )
    return "\n".join([head, *lines])
