"""A file on a file system that does not answer (a network mount whose server has gone
away), for tests: the calls of the system named on its path wait until released."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

HUNG_FOR = 30.0
"""The longest a call on a hung path waits (the test has failed long before)."""


@contextmanager
def hung(monkeypatch: pytest.MonkeyPatch, path: Path, *calls: str) -> Iterator[threading.Event]:
    """Within the block, each of ``calls`` (names in :mod:`os`: ``open`` unless given) on
    ``path`` waits until the event yielded is set (at the block's end at the latest)."""
    released = threading.Event()

    def stuck(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(target: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(target, str | bytes | os.PathLike) and os.fsdecode(target) == str(path):
                released.wait(HUNG_FOR)
            return real(target, *args, **kwargs)

        return call

    for name in calls or ("open",):
        monkeypatch.setattr(os, name, stuck(getattr(os, name)))
    try:
        yield released
    finally:
        released.set()
