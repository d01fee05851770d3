"""The ``--log FILE`` debug log: every request's method, URL, status and timing, never a secret.

The API layer logs to the ``tokensales_tui`` logger (with secrets and query values
already masked); this module only decides where those lines go.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import time
from collections.abc import Iterator, Sequence

LOGGER = "tokensales_tui"


class DebugLogError(Exception):
    """The log file cannot be used; the message says why, in one line."""


def enable_debug_log(path: str) -> logging.Handler:
    """Log requests to ``path``: a new file created with mode 0600, or an existing regular
    file appended to, its mode left as it is (the log holds no secret).

    A symbolic link, a folder, a device or a FIFO is refused rather than followed or
    written into, and so is a path whose folder does not exist, and a file of the app's
    own folders (the config file, the records, the locks), which lines appended to
    would break.

    Returns:
        The handler, for :func:`disable_debug_log`.

    Raises:
        DebugLogError: the file cannot be opened for appending, is not a regular file or
            is one of the app's own.
    """
    _refuse_own(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
            created = True
        except FileExistsError:
            fd = os.open(path, flags)
            created = False
    except OSError as error:
        raise DebugLogError(_why(path, error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DebugLogError(f"{path}: not a regular file")
        _refuse_own(path, info)
        os.set_blocking(fd, True)
        if created:
            os.fchmod(fd, 0o600)  # the umask may have left it wider
        stream = os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")
    except BaseException:
        os.close(fd)
        raise
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def _refuse_own(path: str, opened: os.stat_result | None = None) -> None:
    """Refuse a path in one of the app's own folders, or (once opened) the config file
    reached another way (a link to it, a hard link)."""
    from . import config

    real = os.path.realpath(path)
    for folder in config.own_folders():
        inside = os.path.realpath(folder)
        if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
            raise DebugLogError(
                f"{path}: in {folder}, which holds tokensales-tui's own files"
                " (its config, records or locks); give a log file elsewhere"
            )
    if opened is None:
        return
    from .files import answered

    with contextlib.suppress(OSError):  # a config file not there (or stalled) is not this one
        if os.path.samestat(opened, answered(lambda: os.stat(config.config_path()))):
            raise DebugLogError(
                f"{path}: the config file of tokensales-tui; give a log file elsewhere"
            )


def _why(path: str, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path}: a symbolic link (give the file it points to)"
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return _why_not_in(path, os.path.dirname(path) or ".", error)
    if error.errno == errno.ENXIO:
        return f"{path}: not a regular file"
    return f"{path}: {error.strerror or error}"


def _why_not_in(path: str, folder: str, error: OSError) -> str:
    """Why ``path`` could not be created, its folder said to be missing: the folder is
    looked at, as ENOENT also comes from a folder that exists but makes no new files
    (``/proc/1``), which was said not to exist."""
    try:
        is_folder = stat.S_ISDIR(os.stat(folder).st_mode)
    except OSError as missing:
        if missing.errno == errno.ENOENT:
            return f"{path}: the folder {folder} does not exist"
        return f"{path}: {folder}: {missing.strerror or missing}"
    if not is_folder:
        return f"{path}: {folder} is not a folder"
    return f"{path}: no file can be created in the folder {folder} ({error.strerror or error})"


@contextlib.contextmanager
def logging_to(path: str | None) -> Iterator[None]:
    """Log to ``path`` (``--log FILE``) while the block runs; nothing without a path.

    Raises:
        DebugLogError: before the block, when the file cannot be used.
    """
    handler = enable_debug_log(path) if path else None
    try:
        yield
    finally:
        if handler is not None:
            disable_debug_log(handler)


def disable_debug_log(handler: logging.Handler) -> None:
    """Stop logging to the file of ``handler`` and close it."""
    logger = logging.getLogger(LOGGER)
    logger.removeHandler(handler)
    handler.close()
    if all(isinstance(other, logging.NullHandler) for other in logger.handlers):
        logger.setLevel(logging.NOTSET)


LOG_PERIOD = 1.0
"""Seconds between two records of one kind that could come in floods."""


class Throttle:
    """At most one record of a kind every :data:`LOG_PERIOD` seconds; the rest counted."""

    def __init__(self, period: float = LOG_PERIOD) -> None:
        self.period = period
        self._last: dict[str, float] = {}
        self._left_out: dict[str, int] = {}

    def allow(self, kind: str) -> int | None:
        """None: leave this one out; else log it, saying how many were left out before it."""
        now = time.monotonic()
        if now - self._last.get(kind, -self.period) < self.period:
            self._left_out[kind] = self._left_out.get(kind, 0) + 1
            return None
        self._last[kind] = now
        return self._left_out.pop(kind, 0)

    @staticmethod
    def more(left_out: int) -> str:
        """What to add to a record after ``left_out`` of its kind were left out."""
        return f" ({left_out} more since the last one logged)" if left_out else ""


SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
"""The loggers of uvicorn, which serves the emulator and the listen receiver."""


class _Into(logging.Handler):
    """Hands a record of a library's to another logger (``tokensales_tui.…``: only
    ``--log`` writes it): at most one of a kind a second, the rest counted. Anyone who
    reaches a server's port can make its library log a traceback with each request."""

    def __init__(self, into: logging.Logger) -> None:
        super().__init__()
        self._into = into
        self._throttle = Throttle()

    def emit(self, record: logging.LogRecord) -> None:
        left_out = self._throttle.allow(f"{record.name}: {record.msg}")
        if left_out is None:
            return
        record.msg = f"{record.msg}{Throttle.more(left_out)}"
        self._into.handle(record)


def route_server_logs(into: str) -> None:
    """Send what uvicorn logs to the logger ``into`` of the app instead of the terminal.

    uvicorn's loggers are global and its default configuration writes to stderr ("Exception
    in ASGI application" and its traceback), over a screen being drawn or among a
    command's lines. They are given one handler that passes each record on to ``into``
    (at most one of a kind a second) and propagate no further; the server last started in
    a process names where they go.
    """
    top = logging.getLogger(SERVER_LOGGERS[0])
    top.handlers = [_Into(logging.getLogger(into))]
    top.propagate = False
    for name in SERVER_LOGGERS[1:]:
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True


@contextlib.contextmanager
def foreign_logs_to(into: str, names: Sequence[str]) -> Iterator[None]:
    """While the block runs, what the loggers ``names`` (libraries': ``asyncio``,
    ``aiohttp`` …) log goes to the logger ``into`` (the ``--log`` file) only, at most one
    record of a kind a second.

    Without a handler of their own, their warnings and tracebacks would reach the
    terminal through Python's last resort.
    """
    saved = []
    for name in names:
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers, logger.propagate))
        logger.handlers = [_Into(logging.getLogger(into))]
        logger.propagate = False
    try:
        yield
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate
