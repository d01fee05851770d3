"""The signals that end a program of this package, one set for all of them."""

from __future__ import annotations

import signal

__all__ = ["ENDING_SIGNALS", "STOP_SIGNALS"]

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""``kill``, and the terminal closed: an app quits, a command ends, as on ``q`` or ctrl+c
(their default ends the process on the spot, its cleanup not run)."""

STOP_SIGNALS = (signal.SIGINT, *ENDING_SIGNALS)
"""What stops a server of the package (``serve``, ``listen``): ctrl+c too."""
