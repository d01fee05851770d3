"""The Python interpreter running the app, for what the app starts with it."""

from __future__ import annotations

import sys

__all__ = ["python"]


def python() -> str | None:
    """The interpreter running the app, to start again or to run a module of the app's
    with; None where there is none: embedded (no ``sys.executable``), or a frozen
    executable (PyInstaller and the like), whose ``sys.executable`` is the app itself,
    which takes none of Python's options (``-X utf8``, ``-m``, ``-c``)."""
    if getattr(sys, "frozen", False) or not sys.executable:
        return None
    return sys.executable
