"""Every local file the app reads or writes goes through here: bounded reads, atomic writes, locks.

A path typed or pasted in the app becomes a :class:`~pathlib.Path` through
:func:`typed_path`, which refuses, as an ``OSError`` like any other a file gives, a name
no file can have here: one with a NUL or a character the file system's encoding has no
bytes for (given to the system, they raised ``ValueError``, which no ``except OSError``
took: the app ended).

Reading: :func:`read_local_file` accepts only a regular file (following a symbolic link
to one) under a size limit, and never blocks on a FIFO or a device. Nor does it wait
without end for a file system that does not answer (a network home gone away, a hung
mount): it reads in a thread of its own, and gives up once a step of the read (opening
the file, a look at it, a piece of its bytes) takes longer than :data:`FILE_WAIT`
(:class:`Stalled`). :func:`answered` runs any other look at a file (a ``stat``) under
the same bound.

Writing: :func:`atomic_write` replaces a file so that readers see the old bytes or the
new, never half, as mode 0600; :func:`locked` serialises writers, between processes too,
on a lock file in the user's cache folder, so that the folders of the files it guards
hold only those files. POSIX only (``fcntl``). Neither waits without end for a file
system that does not answer: each call of the system they make (making the temp file, a
piece of its bytes, its fsync, the rename, opening a lock file) runs in a daemon thread
of the write's own, and one left unanswered for :data:`FILE_WAIT` is given up
(:class:`Stalled`; :class:`OutcomeUnknown` for the rename, which may have happened).
The bound is per call: a big file written steadily is never cut off. The caller's
thread (an executor's, which the end of the process waits for) is back within the
bound, and the daemon thread, stuck in the system, holds nothing: the process ends
without it. :func:`writes_under_way` and :func:`unknown_writes` say, at the end, what
was being written and what was left unknown.

Locks: every wait for one is bounded (:data:`LOCK_WAIT`), said once it lasts
(:data:`LOCK_NOTICE`) and can be stopped, so a process that holds one for good (a hung
writer, ``flock FILE sleep 1000``) never hangs another unsaid. A lock that cannot be
taken is a :class:`LockError` naming its lock file: :class:`LockBusy` (held past the
wait), :class:`LockWaitStopped` (the wait was stopped), or the lock file itself cannot
be made or opened.

Rules every write keeps:

- **Limits.** A writer is given the limit its reader applies (one constant per kind of
  file, passed to both): content over it is refused before the old file is touched,
  so nothing is written that the next read would refuse.
- **Ownership.** A file is written only where it is the current user's: an existing file
  of another user is not replaced, and a symbolic link anywhere on the path (the file
  itself, a folder above it, a link's own target) is followed only when it is the current
  user's or root's (root, run with another user's home, would otherwise replace that
  user's file, or one a link of theirs names, and take it over as root's 0600). Lock
  files are never opened through a link.
- **Folders** the app creates are 0700, each missing one up the path (XDG's rule); the
  mode is set on the folder made, never through a link put in its place.
- **Leftovers.** A writer killed mid-write (``kill -9``) leaves its temp file
  (``.NAME.XXXX.tmp``, which may hold secrets). Taking a lock removes those of the
  folder that are older than :data:`STALE_TEMP_SECONDS` and whose file's lock is free,
  so no live writer loses its temp file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import queue
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final, TypeVar, cast

import platformdirs

__all__ = [
    "FILE_WAIT",
    "LOCK_NOTICE",
    "LOCK_WAIT",
    "STALE_TEMP_SECONDS",
    "LocalFileError",
    "LockBusy",
    "LockError",
    "LockWaitStopped",
    "NotRegular",
    "OutcomeUnknown",
    "Stalled",
    "TooLarge",
    "WriteStop",
    "answered",
    "atomic_write",
    "atomic_writer",
    "check_regular",
    "check_size",
    "lock_path",
    "locked",
    "read_local_file",
    "refused_by_system",
    "said",
    "typed_path",
    "unknown_writes",
    "writable_target",
    "writes_under_way",
]


FILE_WAIT: Final = 5.0
"""Seconds a file system may take over one step of a read (opening the file, a look at
it, a piece of its bytes) before the file counts as stalled. A local disk answers in
milliseconds; a network mount whose server has gone away, never."""

Result = TypeVar("Result")

STALE_TEMP_SECONDS: Final = 600
"""Age past which a temp file whose file's lock is free is a dead writer's leftover."""

LOCK_WAIT: Final = 10.0
"""Seconds :func:`locked` waits for a lock another process holds. Writers hold one for a
few milliseconds: one held this long is held by something stuck."""

LOCK_NOTICE: Final = 0.5
"""Seconds of waiting for a lock after which :func:`locked` says that it waits."""

_LOCK_POLL: Final = 0.1
"""Longest pause between two tries of a lock."""

_TEMP_SUFFIX: Final = ".tmp"


class LocalFileError(OSError):
    """A local file that cannot be used; ``str()`` says why in a few words, without the path."""


class NotRegular(LocalFileError):
    """A folder, a FIFO, a device or a socket where a regular file is read."""


class Stalled(LocalFileError):
    """The file's system did not answer within :data:`FILE_WAIT`; the read or write was
    given up (its thread left to end whenever the system answers). A write given up so
    wrote nothing: the old file is as it was."""

    def __init__(self, waited: float, doing: str = "") -> None:
        super().__init__(
            f"its file system did not answer within {waited:g} s{doing}"
            " (a network mount gone away?)"
        )


class OutcomeUnknown(Stalled):
    """The file's system did not answer within :data:`FILE_WAIT` while the new file was
    put in the old one's place: it may hold the new bytes or the old (``path``). Its path
    stays in :func:`unknown_writes`."""

    def __init__(self, waited: float, path: Path) -> None:
        super().__init__(
            waited, " as it was being replaced: it may or may not hold what was written"
        )
        self.path = path


class TooLarge(LocalFileError):
    """Content over the limit its file's reader applies; nothing was written."""


class LockError(OSError):
    """The lock of a file could not be taken: ``lock`` is the lock file (``filename`` too).

    This class itself: the lock file cannot be made or opened; see its subclasses for
    the others."""

    def __init__(self, lock: Path, why: str, *, err: int = 0) -> None:
        super().__init__(err, why, str(lock))
        self.lock = lock

    def __str__(self) -> str:
        return f"its lock {self.lock}: {self.strerror}"


class LockBusy(LockError):
    """Another process held the lock for ``waited`` seconds, as long as the caller would wait."""

    def __init__(self, lock: Path, waited: float) -> None:
        super().__init__(lock, f"held by another process for {waited:g} s", err=errno.EWOULDBLOCK)
        self.waited = waited


class LockWaitStopped(LockError):
    """The wait for the lock was stopped (its ``stop`` event set) before the lock was free."""

    def __init__(self, lock: Path) -> None:
        super().__init__(lock, "stopped waiting for it", err=errno.ECANCELED)


class WriteStop:
    """A stop for a write, honoured only before the write's point of no return.

    Given as ``stop`` to :func:`locked` it ends the wait for the lock, as an event
    would; the writer calls :meth:`pass_point` right before it writes. From then on
    :meth:`stop` refuses: the write goes on to its end, and whoever stopped it learns
    so, to wait for its real outcome instead of saying "not saved" of a file written.
    Safe between threads: the writer's and the stopper's calls take one lock.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._guard = threading.Lock()
        self._passed = False

    def stop(self) -> bool:
        """Stop the write: True when it will write nothing; False when it is past its
        point of no return (it goes on, and ends as it ends)."""
        with self._guard:
            if self._passed:
                return False
            self._event.set()
            return True

    def pass_point(self) -> bool:
        """For the writer, right before it writes: True to go on (no stop can come
        between), False when stopped (it must write nothing)."""
        with self._guard:
            if self._event.is_set():
                return False
            self._passed = True
            return True

    @property
    def passed(self) -> bool:
        """Whether the writer has passed its point of no return."""
        return self._passed

    def is_set(self) -> bool:
        """Whether the write was stopped (as a ``threading.Event``, for a lock's wait)."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Sleep until stopped, ``timeout`` seconds at most (as ``threading.Event``)."""
        return self._event.wait(timeout)


def refused_by_system(error: OSError | ValueError) -> str:
    """A few words on why the system refused a name (a path, an address handed to a
    program), for a message that names it apart."""
    if isinstance(error, UnicodeError):
        return f"it holds a character this system's names ({sys.getfilesystemencoding()}) cannot"
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)  # "embedded null byte"


def typed_path(text: str, *, home: bool = True) -> Path:
    """``text``, as typed (any characters), as a path the system can be given, ``~``
    expanded (unless not ``home``).

    Raises:
        LocalFileError: It holds a NUL, or a character the file system's encoding has no
            bytes for (a lone surrogate; under a locale of another charset than UTF-8,
            which the command line leaves for UTF-8 mode, any character outside it).
    """
    for position, char in enumerate(text, 1):
        try:
            unusable = os.fsencode(char) == b"\0"
        except UnicodeEncodeError:
            unusable = True
        if unusable:
            raise LocalFileError(
                f"a file name here cannot hold the character U+{ord(char):04X}"
                f" (position {position})"
            )
    return Path(os.path.expanduser(text) if home else text)


def read_local_file(path: Path, *, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    Raises:
        FileNotFoundError: There is no such file.
        LocalFileError: It is a folder, a FIFO, a device or a socket, or it is larger
            than ``limit``; :class:`Stalled`: its file system left a step of the read
            unanswered for :data:`FILE_WAIT`.
        OSError: It cannot be read (permissions, I/O).
    """
    return _in_steps(lambda step: _read_regular(path, limit, step), FILE_WAIT)


def answered(look: Callable[[], Result], wait: float | None = None) -> Result:
    """``look()`` (a ``stat``, a ``realpath``: one step of a file system), or
    :class:`Stalled` once it has taken ``wait`` seconds (:data:`FILE_WAIT`)."""
    return _in_steps(lambda step: look(), FILE_WAIT if wait is None else wait)


class _GivenUp(Exception):
    """Raised in a read's thread at its next step once its caller has stopped waiting."""


def _in_steps(work: Callable[[Callable[[], None]], Result], wait: float) -> Result:
    """``work(step)`` in a daemon thread, waited for as long as each of its steps (the
    time between two calls of ``step``, its start and its end) takes ``wait`` seconds at
    most; then :class:`Stalled`, and its next ``step`` ends it.

    A daemon thread, not an executor's: one stuck in the system for good must hold
    neither the caller nor the end of the process.
    """
    changed = threading.Condition()
    steps = 0
    given_up = False
    outcome: list[tuple[Result | None, BaseException | None]] = []

    def step() -> None:
        nonlocal steps
        with changed:
            if given_up:
                raise _GivenUp
            steps += 1
            changed.notify_all()

    def run() -> None:
        try:
            ended: tuple[Result | None, BaseException | None] = (work(step), None)
        except BaseException as error:  # handed to the caller, who raises it
            ended = (None, error)
        with changed:
            outcome.append(ended)
            changed.notify_all()

    threading.Thread(target=run, name="file-read", daemon=True).start()

    def moved(seen: int) -> Callable[[], bool]:
        return lambda: bool(outcome) or steps != seen

    with changed:
        while not outcome:
            if not changed.wait_for(moved(steps), wait):
                given_up = True
                raise Stalled(wait)
    result, error = outcome[0]
    if error is not None:
        raise error
    return result  # type: ignore[return-value]  # None only when ``work`` returned it


class _Call:
    """One call of the system handed to a write's thread, and what it gave."""

    def __init__(self, call: Callable[[], object], undo: Callable[[object], object] | None) -> None:
        self.call = call
        self.undo = undo
        self.ended = threading.Event()
        self.result: object = None
        self.error: BaseException | None = None
        self.waited_for = True


class _Steps:
    """The calls of the system of one write, run one after another in a daemon thread
    of the write's own; the caller waits for each :data:`FILE_WAIT` at most.

    Once a call was given up (:class:`Stalled`) the thread is left stuck in it: every
    later call is refused at once, and what :meth:`later` hands over (closing the temp
    file, removing it) runs once the system answers, if ever. A daemon thread: the end
    of the process never waits for it.
    """

    def __init__(self, target: Path) -> None:
        self.target = target
        self.wait = FILE_WAIT
        self.stalled = False
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._guard = threading.Lock()
        self._finished = False
        """The thread has run every call handed to it and ended."""
        threading.Thread(target=self._run, name="file-write", daemon=True).start()
        with _WRITES_GUARD:
            _under_way.append(target)

    def __call__(
        self, call: Callable[[], Result], *, undo: Callable[[Result], object] | None = None
    ) -> Result:
        """``call()`` in the write's thread, waited for :data:`FILE_WAIT` at most.

        ``undo``: run in that thread with what a call given up returned, once it does
        (a temp file made too late is closed and removed)."""
        if self.stalled:
            raise Stalled(self.wait)
        job = _Call(call, undo)  # type: ignore[arg-type]
        self._calls.put(job)
        if not job.ended.wait(self.wait):
            with self._guard:
                if not job.ended.is_set():
                    job.waited_for = False
                    self.stalled = True
                    raise Stalled(self.wait)
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def later(self, call: Callable[[], object]) -> None:
        """``call()`` in the write's thread after the calls before it, not waited for;
        its failure is dropped (a clean-up). Handed over after :meth:`end` too: run
        there before the thread ends, or here once it has (every call before it over)."""
        with self._guard:
            if not self._finished:
                job = _Call(call, None)
                job.waited_for = False
                self._calls.put(job)
                return
        with contextlib.suppress(Exception):
            call()

    def tidy(self, call: Callable[[], object]) -> None:
        """``call()`` (a clean-up) waited for when the file system answers, else left to
        run whenever it does; its failure is dropped."""
        if self.stalled:
            self.later(call)
            return
        with contextlib.suppress(OSError):
            self(call)

    def end(self) -> None:
        """No more calls: the thread ends after those handed over."""
        self._calls.put(None)
        with _WRITES_GUARD, contextlib.suppress(ValueError):
            _under_way.remove(self.target)

    def _run(self) -> None:
        ending = False
        while True:
            if ending:  # past the end: only the clean-ups handed over after it (later)
                with self._guard:
                    if self._calls.empty():
                        self._finished = True
                        return
            job = self._calls.get()
            if job is None:
                ending = True
                continue
            try:
                job.result = job.call()
            except BaseException as error:  # handed to the caller, who raises it
                job.error = error
            with self._guard:
                job.ended.set()
                given_up = not job.waited_for
            if given_up and job.undo is not None and job.error is None:
                with contextlib.suppress(OSError):
                    job.undo(job.result)


_WRITES_GUARD: Final = threading.Lock()
_under_way: list[Path] = []
_unknown: list[Path] = []


def writes_under_way() -> list[Path]:
    """The files being written now (by :func:`atomic_writer` or under :func:`locked`)."""
    with _WRITES_GUARD:
        return list(dict.fromkeys(_under_way))


def unknown_writes() -> list[Path]:
    """The files whose replacement was given up with its outcome unknown
    (:class:`OutcomeUnknown`), in this process, first given up first."""
    with _WRITES_GUARD:
        return list(dict.fromkeys(_unknown))


def _outcome_unknown(steps: _Steps, target: Path) -> OutcomeUnknown:
    with _WRITES_GUARD:
        _unknown.append(target)
    steps.later(lambda: _resolved(target))  # once the rename has ended, however
    return OutcomeUnknown(steps.wait, target)


def _resolved(target: Path) -> None:
    """The rename of ``target`` given up on has ended, at last: no longer unknown to
    this process (the file is what it holds now)."""
    with _WRITES_GUARD, contextlib.suppress(ValueError):
        _unknown.remove(target)


_locks_held: dict[Path, list[_Steps]] = {}
"""For each path whose lock this process holds (:func:`locked`), the writes made to it
meanwhile, whatever thread makes them (under :data:`_WRITES_GUARD`)."""


class _StepsFile(io.RawIOBase):
    """The temp file of a write: each piece written is one call of the write's thread."""

    def __init__(self, handle: int, steps: _Steps) -> None:
        super().__init__()
        self._handle = handle
        self._steps = steps
        self._abandoned = False
        self.written = 0

    def writable(self) -> bool:
        return True

    def abandon(self) -> None:
        """Write nothing more: what is still buffered is dropped."""
        self._abandoned = True

    def fileno(self) -> int:
        return self._handle

    def write(self, data: Any) -> int:
        if self._abandoned:
            return len(data)
        # A copy (a call given up may read it after this returns), handed over a piece
        # at a time: a buffered file passes a write larger than its buffer on whole, and
        # 16 MB in one call would be one step, cut off on a disk slow but steady.
        data = bytes(data)
        count = 0
        for start in range(0, len(data), _PIECE):
            piece = data[start : start + _PIECE]
            wrote = self._steps(lambda piece=piece: os.write(self._handle, piece))  # type: ignore[misc]
            count += wrote
            self.written += wrote
            if wrote < len(piece):  # a short write: the buffered file writes the rest
                break
        return count

    def close(self) -> None:
        # The write's own code closes the handle, in the write's thread.
        super().close()


_PIECE: Final = 1024 * 1024
"""Bytes gathered before a piece is handed to the write's thread."""


def _read_regular(path: Path, limit: int, step: Callable[[], None]) -> bytes:
    """:func:`read_local_file`'s read, calling ``step`` after each call of the system."""
    # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        step()
        info = os.fstat(handle)
        step()
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular("not a regular file")
        if info.st_size > limit:
            raise LocalFileError(f"larger than {_size(limit)}")
        os.set_blocking(handle, True)
        chunks: list[bytes] = []
        left = limit + 1  # the file may grow while it is read
        while left > 0 and (chunk := os.read(handle, min(left, 1024 * 1024))):
            step()
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(handle)
    if len(data) > limit:
        raise LocalFileError(f"larger than {_size(limit)}")
    return data


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit:,} bytes"


def atomic_write(path: Path, data: bytes, mode: int = 0o600, *, limit: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never half.

    Writes a temp file in the same folder, fsyncs it, sets ``mode`` (whatever the umask),
    renames it over the target and fsyncs the folder. A symlink of the current user's keeps
    pointing where it did: its target is replaced (see the module's rules on ownership). A
    missing folder is created as 0700. ``limit``: the most bytes the file's reader takes;
    more raises :class:`TooLarge` before anything is written. On failure the temp file is
    removed, the old file is untouched and the ``OSError`` propagates.
    """
    check_size(len(data), limit)
    with atomic_writer(path, mode, limit=limit) as file:
        file.write(data)


def check_size(size: int, limit: int | None) -> None:
    """Raise :class:`TooLarge` when ``size`` bytes are more than a file's reader takes."""
    if limit is not None and size > limit:
        raise TooLarge(f"would be larger than {_size(limit)}, the most it may hold")


@contextlib.contextmanager
def atomic_writer(
    path: Path, mode: int = 0o600, *, replace: bool = True, limit: int | None = None
) -> Iterator[BinaryIO]:
    """:func:`atomic_write` for data written a piece at a time: the file to write to.

    The file appears at ``path`` only when the block ends without an exception; an
    exception (a cancel, a full disk) leaves no temp file and the old file untouched.

    Args:
        path: The file to create or replace.
        mode: Its mode, whatever the umask.
        replace: False: never replace an existing file (``FileExistsError``), even
            one created while this was writing.
        limit: The most bytes the file's reader takes: more written raises
            :class:`TooLarge`, the old file kept.

    The temp file is made on entry, so a folder that takes no file fails before the
    block runs.

    Each call of the system (making the temp file, a piece of
    :data:`_PIECE` bytes, the fsync, the rename) is given :data:`FILE_WAIT`
    (see the module): :class:`Stalled` when one is left unanswered, nothing written;
    :class:`OutcomeUnknown` when it is the rename.
    """
    steps = _Steps(path)
    with _WRITES_GUARD:  # the lock held for the path is let go after this write
        if (writes := _locks_held.get(path)) is not None:
            writes.append(steps)
    try:
        target, handle, temp = steps(lambda: _made_temp(path), undo=_drop_temp)
        raw = _StepsFile(handle, steps)
        try:
            file = io.BufferedWriter(raw, _PIECE)
            try:
                yield cast(BinaryIO, file)
                file.flush()
            finally:
                raw.abandon()  # nothing more reaches the file, not a collector's flush
                with contextlib.suppress(Exception):
                    file.close()
            check_size(raw.written, limit)
            steps(lambda: os.fchmod(handle, mode))
            steps(lambda: os.fsync(handle))
            closing, handle = handle, -1
            steps(lambda: os.close(closing))
            try:
                steps(lambda: os.replace(temp, target) if replace else _link(temp, target))
            except Stalled:
                raise _outcome_unknown(steps, target) from None
        except BaseException:
            if handle >= 0:
                steps.tidy(lambda: os.close(handle))
            steps.tidy(lambda: os.unlink(temp))
            raise
        with contextlib.suppress(Stalled):  # written: only its lasting is not known
            steps(lambda: _fsync_folder(target.parent))
    finally:
        steps.end()


def _made_temp(path: Path) -> tuple[Path, int, str]:
    """The file a write to ``path`` replaces, and a temp file beside it (its handle, its
    name), its folder made."""
    target = writable_target(path)
    _make_folder(target.parent)
    try:
        handle, temp = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=_TEMP_SUFFIX
        )
    except OSError as error:  # the folder refused it: named, not the temp file
        raise _naming(error, target.parent) from None
    return target, handle, temp


def _drop_temp(made: tuple[Path, int, str]) -> None:
    """Undo :func:`_made_temp` done after its caller gave up."""
    _target, handle, temp = made
    os.close(handle)
    os.unlink(temp)


def _link(temp: str, target: Path) -> None:
    os.link(temp, target)  # fails if the target exists, unlike a rename
    os.unlink(temp)


def _naming(error: OSError, path: Path) -> OSError:
    """``error`` as the system would have given it about ``path``."""
    if error.errno is None:
        return error
    named = OSError(error.errno, error.strerror, str(path))  # the subclass of its errno
    return named


def writable_target(path: Path) -> Path:
    """The file a write to ``path`` replaces: ``path`` with each symbolic link on it
    followed (in its folders too), as an absolute path.

    Raises:
        LocalFileError: A link on the way is not the current user's nor root's, or
            ``path`` names a file that is not the current user's.
        OSError: A folder on the way cannot be searched, or links loop.
    """
    target = _followed(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular("not a regular file; not replaced")
    if info.st_uid != os.geteuid():
        raise LocalFileError(f"a file of another user (uid {info.st_uid}); not replaced")
    return target


def check_regular(path: Path | str) -> None:
    """Refuse a ``path`` given to write into that is there and not a regular file (a
    FIFO, a device, a folder, a socket), looked at (links followed) before it is opened:
    opening a FIFO to write fails without a reader ("No such device or address") and
    waits for one otherwise, and a device takes what is written.

    Raises:
        NotRegular: It is not a regular file.
        OSError: It cannot be looked at (:class:`Stalled`: not within :data:`FILE_WAIT`).
    """
    try:
        info = answered(lambda: os.stat(path))
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular("not a regular file")


def said(error: OSError, path: Path | str | None = None) -> str:
    """What went wrong with a file, on one line that names it: the file the system named
    (``error.filename``), else ``path``, cleaned as the data it is."""
    from .clean import clean_line

    name = error.filename if error.filename is not None else path
    why = error.strerror or str(error)
    return why if name is None else f"{clean_line(os.fsdecode(name))}: {why}"


_MAX_LINKS: Final = 40
"""Links followed for one path before it is taken for a loop (Linux's own limit)."""


def _followed(path: Path) -> Path:
    """``path`` resolved as :func:`os.path.realpath` resolves it, refusing a link of a user
    other than the current one or root anywhere on the way: in a folder of the path, in
    what a link names, or the last part.

    Such a link's owner decides where it leads: root, run with another user's home,
    would otherwise write through ``~/.config``, a link of theirs, into a folder of
    root's. The part from the first missing folder on is kept as written.
    """
    trusted = {os.geteuid(), 0}
    resolved = Path(os.sep)
    parts = list(reversed((path if path.is_absolute() else Path.cwd() / path).parts[1:]))
    links = 0
    while parts:
        part = parts.pop()
        if part == "..":
            resolved = resolved.parent
            continue
        step = resolved / part
        try:
            info = os.lstat(step)
        except FileNotFoundError:
            return step.joinpath(*reversed(parts))
        if not stat.S_ISLNK(info.st_mode):
            resolved = step
            continue
        if info.st_uid not in trusted:
            raise LocalFileError(
                f"a symbolic link of another user (uid {info.st_uid}) on its path; not followed"
            )
        links += 1
        if links > _MAX_LINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
        named = Path(os.readlink(step))
        if named.is_absolute():
            resolved = Path(os.sep)
        parts.extend(reversed(named.parts[1:] if named.is_absolute() else named.parts))
    return resolved


@contextlib.contextmanager
def locked(
    path: Path,
    *,
    wait: float | None = None,
    waiting: Callable[[Path], object] | None = None,
    stop: threading.Event | WriteStop | None = None,
) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` while in the block.

    Works between processes and between threads, each taking it through its own call.
    Not re-entrant: do not take it again inside the block. Once held, the folder's
    leftover temp files are removed (see the module's docstring).

    Args:
        path: The file the lock guards.
        wait: The most seconds to wait for another holder to let go (None:
            :data:`LOCK_WAIT`); there is no waiting for good.
        waiting: Called once, in the waiting thread, with the lock file's path when the
            lock has been held by another for :data:`LOCK_NOTICE` seconds: the place to
            say what is waited for.
        stop: Set, from another thread, to give up waiting.

    Raises:
        LockBusy: The lock stayed held past ``wait``.
        LockWaitStopped: ``stop`` was set before the lock was taken.
        LockError: The lock file cannot be made or opened.
        OSError: ``path``'s folder cannot be made.
    """
    steps = _Steps(path)
    writes: list[_Steps] = []
    try:
        lock = steps(lambda: _made_folder_lock(path))
        try:
            handle = steps(lambda: _open_lock(lock), undo=os.close)
        except OSError as error:
            raise LockError(lock, error.strerror or str(error), err=error.errno or 0) from None
        try:
            tried = lambda: _stepped(steps, lock, lambda: _try_flock(handle))  # noqa: E731
            _take(tried, lock, LOCK_WAIT if wait is None else wait, waiting, stop)
            with contextlib.suppress(Stalled):  # a clean-up: the write says what hangs
                steps(lambda: _remove_leftovers(path.parent, held=path.name))
            with _WRITES_GUARD:
                _locks_held[path] = writes
            try:
                yield
            finally:
                with _WRITES_GUARD:
                    if _locks_held.get(path) is writes:
                        del _locks_held[path]
        finally:
            # Closing releases the lock. A write made under it and left stuck in the
            # system (its rename, above all) may still replace the file: the lock is
            # let go only after it, in its thread, so that no later writer's file is
            # replaced by this older one.
            if stuck := next((write for write in writes if write.stalled), None):
                stuck.later(lambda: os.close(handle))
            else:
                steps.tidy(lambda: os.close(handle))
    finally:
        steps.end()


def _made_folder_lock(path: Path) -> Path:
    """The lock file of ``path``, its folder made."""
    _make_folder(path.parent)
    return lock_path(path)


def _open_lock(lock: Path) -> int:
    _make_folder(lock.parent)
    return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def _stepped(steps: _Steps, lock: Path, try_lock: Callable[[], bool]) -> bool:
    """A try of the lock as a call of ``steps``; given up on, a :class:`LockError`."""
    try:
        return steps(try_lock)
    except Stalled as stalled:
        raise LockError(lock, str(stalled), err=errno.ETIMEDOUT) from None


def _take(
    try_lock: Callable[[], bool],
    lock: Path,
    wait: float,
    waiting: Callable[[Path], object] | None,
    stop: threading.Event | WriteStop | None,
) -> None:
    # Tried without blocking, again and again: a blocking flock cannot be given up on.
    started = time.monotonic()
    told = waiting is None
    sleep: Callable[[float], object] = time.sleep if stop is None else stop.wait
    pause = 0.01
    while True:
        if stop is not None and stop.is_set():  # checked first: a stop means write nothing
            raise LockWaitStopped(lock)
        if try_lock():
            return
        waited = time.monotonic() - started
        if not told and waited >= LOCK_NOTICE:
            told = True  # said before a give-up too: a wait that long is said
            assert waiting is not None
            waiting(lock)
        if waited >= wait:
            raise LockBusy(lock, wait)
        sleep(min(pause, wait - waited))
        pause = min(pause * 2, _LOCK_POLL)


def _try_flock(handle: int) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _remove_leftovers(folder: Path, *, held: str) -> None:
    """Remove the temp files of dead writers in ``folder``: named as :func:`atomic_writer`
    names them, older than :data:`STALE_TEMP_SECONDS`, their file's lock free (every
    writer of the app's own files holds it while its temp file exists).

    ``held``: the name of the file whose lock the caller holds. Its temp files go on age
    alone: no other writer of it is alive, and a second look at its lock (a new open file,
    which ``flock`` treats as another holder) would find it taken, by the caller, and keep
    them for good (a folder holding only that file, as the config's does, never had one
    removed)."""
    now = time.time()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        file_name = _temp_of(name)
        if file_name is None:
            continue
        temp = folder / name
        try:
            info = os.lstat(temp)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            continue
        if now - info.st_mtime < STALE_TEMP_SECONDS:
            continue
        if file_name == held:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            continue
        with contextlib.suppress(OSError), _lock_if_free(folder / file_name) as free:
            if free:
                os.unlink(temp)


def _temp_of(name: str) -> str | None:
    """The file whose temp file ``name`` is (``.NAME.XXXXXXXX.tmp``), or None."""
    if not (name.startswith(".") and name.endswith(_TEMP_SUFFIX)):
        return None
    stem, dot, _random = name[1 : -len(_TEMP_SUFFIX)].rpartition(".")
    return stem if dot and stem else None


@contextlib.contextmanager
def _lock_if_free(path: Path) -> Iterator[bool]:
    lock = lock_path(path)
    try:
        handle = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        yield False
        return
    try:
        yield _try_flock(handle)
    finally:
        os.close(handle)


def lock_path(path: Path) -> Path:
    """The lock file for ``path``: in the cache folder, named by the path's real location.

    Lock files stay once made (removing one while another process waits on it would
    let two writers in); there they are out of the way and a cache cleaner may take them.
    """
    import hashlib  # OpenSSL's, 2 ms: on the first lock, not at the app's start

    real = os.path.realpath(path.parent) + os.sep + path.name
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return platformdirs.user_cache_path("tokensales-tui") / "locks" / f"{digest}.lock"


def _make_folder(folder: Path) -> None:
    """Make ``folder`` and each missing folder above it, as 0700 (whatever the umask)."""
    missing: list[Path] = []
    for above in (folder, *folder.parents):
        if os.path.lexists(above):
            break
        missing.append(above)
    for each in reversed(missing):
        try:
            each.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by another; not ours to change
        # mkdir's mode is filtered by the umask. Set through the folder itself, never a
        # link: the owner of the folder above could put one in its place meanwhile.
        handle = os.open(each, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchmod(handle, 0o700)
        finally:
            os.close(handle)
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    # An existing folder keeps its mode: permission_warnings reports a loose one.


def _fsync_folder(folder: Path) -> None:
    # Makes the rename durable. The new file is already in place, so a filesystem that
    # cannot fsync a folder is not a reason to report the save as failed.
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
