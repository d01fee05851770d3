"""The signals that end a program of this package, one set for all of them."""

from __future__ import annotations

import signal

__all__ = ["APP_ENDING_SIGNALS", "ENDING_SIGNALS", "STOP_SIGNALS"]

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""``kill``, and the terminal closed: an app quits, a command ends, as on ``q`` or ctrl+c
(their default ends the process on the spot, its cleanup not run)."""

STOP_SIGNALS = (signal.SIGINT, *ENDING_SIGNALS)
"""What stops a server of the package (``serve``, ``listen``): ctrl+c too."""

_OTHER_NAMES = (
    *("SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGIO"),
    *("SIGPWR", "SIGXCPU", "SIGSTKFLT"),
)

APP_ENDING_SIGNALS = (
    *STOP_SIGNALS,
    *(getattr(signal, name) for name in _OTHER_NAMES if hasattr(signal, name)),
    *range(getattr(signal, "SIGRTMIN", 0), getattr(signal, "SIGRTMAX", -1) + 1),
)
"""Every signal another process may send whose default ends the process: an app quits on
each as on ``q``, the terminal put back (raw mode, the alternate screen, mouse reporting
and the kitty keyboard mode stayed on), with status 128 + its number. SIGINT comes only
from outside: ctrl+c typed in the app is a key. Left to their default: SIGKILL, which
cannot be caught, and the faults of the process itself (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
SIGABRT, SIGTRAP, SIGSYS), after which no Python code can be trusted to run; SIGPIPE and
SIGXFSZ, which Python ignores."""
