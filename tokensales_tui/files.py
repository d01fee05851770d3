"""Every local file the app reads or writes goes through here: bounded reads, atomic writes, locks.

Reading: :func:`read_local_file` accepts only a regular file (following a symbolic link
to one) under a size limit, and never blocks on a FIFO or a device.

Writing: :func:`atomic_write` replaces a file so that readers see the old bytes or the
new, never half, as mode 0600; :func:`locked` serialises writers, between processes too,
on a lock file in the user's cache folder, so that the folders of the files it guards
hold only those files. POSIX only (``fcntl``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import platformdirs

__all__ = [
    "LocalFileError",
    "atomic_write",
    "atomic_writer",
    "lock_path",
    "locked",
    "read_local_file",
]


class LocalFileError(OSError):
    """A local file that cannot be used; ``str()`` says why in a few words, without the path."""


def read_local_file(path: Path, *, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    Raises:
        FileNotFoundError: There is no such file.
        LocalFileError: It is a folder, a FIFO, a device or a socket, or it is larger
            than ``limit``.
        OSError: It cannot be read (permissions, I/O).
    """
    # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise LocalFileError("not a regular file")
        if info.st_size > limit:
            raise LocalFileError(f"larger than {_size(limit)}")
        os.set_blocking(handle, True)
        chunks: list[bytes] = []
        left = limit + 1  # the file may grow while it is read
        while left > 0 and (chunk := os.read(handle, min(left, 1024 * 1024))):
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


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never half.

    Writes a temp file in the same folder, fsyncs it, sets ``mode`` (whatever the umask),
    renames it over the target and fsyncs the folder. A symlink keeps pointing where it did:
    its target is replaced. A missing folder is created as 0700. On failure the temp file is
    removed, the old file is untouched and the ``OSError`` propagates.
    """
    with atomic_writer(path, mode) as file:
        file.write(data)


@contextlib.contextmanager
def atomic_writer(path: Path, mode: int = 0o600, *, replace: bool = True) -> Iterator[BinaryIO]:
    """:func:`atomic_write` for data written a piece at a time: the file to write to.

    The file appears at ``path`` only when the block ends without an exception; an
    exception (a cancel, a full disk) leaves no temp file and the old file untouched.

    Args:
        path: The file to create or replace.
        mode: Its mode, whatever the umask.
        replace: False: never replace an existing file (``FileExistsError``), even
            one created while this was writing.
    """
    target = Path(os.path.realpath(path))
    _make_folder(target.parent)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            yield file
            file.flush()
            os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        if replace:
            os.replace(temp, target)
        else:
            os.link(temp, target)  # fails if the target exists, unlike a rename
            os.unlink(temp)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(target.parent)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` while in the block.

    Works between processes and between threads, each taking it through its own call.
    Not re-entrant: do not take it again inside the block. Raises ``OSError``.
    """
    _make_folder(path.parent)
    lock = lock_path(path)
    _make_folder(lock.parent)
    handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def lock_path(path: Path) -> Path:
    """The lock file for ``path``: in the cache folder, named by the path's real location.

    Lock files stay once made (removing one while another process waits on it would
    let two writers in); there they are out of the way and a cache cleaner may take them.
    """
    real = os.path.realpath(path.parent) + os.sep + path.name
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return platformdirs.user_cache_path("tokensales-tui") / "locks" / f"{digest}.lock"


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        if not folder.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder)
            ) from None
        return  # someone else's folder: permission_warnings reports a loose mode
    os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask


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
