"""The ``--log FILE`` debug log: every request's method, URL, status and timing, never a secret.

The API layer logs to the ``tokensales_tui`` logger (with secrets and query values
already masked); this module only decides where those lines go.
"""

from __future__ import annotations

import logging
import os

LOGGER = "tokensales_tui"


def enable_debug_log(path: str) -> logging.Handler:
    """Log requests to ``path``, created with mode 0600.

    Returns the handler, for :func:`disable_debug_log`.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    handler = logging.StreamHandler(os.fdopen(fd, "a", encoding="utf-8"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def disable_debug_log(handler: logging.Handler) -> None:
    """Stop logging to the file of ``handler`` and close it."""
    logger = logging.getLogger(LOGGER)
    logger.removeHandler(handler)
    handler.close()
    if not logger.handlers:
        logger.setLevel(logging.NOTSET)
