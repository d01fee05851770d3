"""A file on a file system that does not answer (a network mount whose server has gone
away), for tests: the calls of the system named on its path wait until released."""

from __future__ import annotations

import os
import threading
import time
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
    ``path`` waits until the event yielded is set (at the block's end at the latest).

    A call given two paths (``replace``) waits when either is ``path``. A call given a
    file descriptor (``write``, ``fsync``) waits when its file is ``path``
    or, ``path`` being a folder, a file in it (a temp file of a write there)."""
    released = threading.Event()

    def on_path(target: Any) -> bool:
        if isinstance(target, int):
            try:
                named = os.readlink(f"/proc/self/fd/{target}")
            except OSError:
                return False
            return named == str(path) or os.path.dirname(named) == str(path)
        return isinstance(target, str | bytes | os.PathLike) and os.fsdecode(target) == str(path)

    def stuck(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(target: Any, *args: Any, **kwargs: Any) -> Any:
            named = [each for each in args if isinstance(each, str | os.PathLike)]
            if on_path(target) or any(map(on_path, named)):  # a rename's target too
                released.wait(HUNG_FOR)
            return real(target, *args, **kwargs)

        return call

    for name in calls or ("open",):
        monkeypatch.setattr(os, name, stuck(getattr(os, name)))
    try:
        yield released
    finally:
        released.set()


def slowed(
    monkeypatch: pytest.MonkeyPatch, call: str, seconds: Callable[[int], float]
) -> list[int]:
    """``os.<call>`` (``read`` or ``write``), made in a thread the files module names for it
    (``file-read``, ``file-write``), takes ``seconds(size)`` more, ``size`` the bytes asked
    for or handed over: a disk slow but steady. The sizes, as they come."""
    real = getattr(os, call)
    sizes: list[int] = []

    def slow(handle: int, size_or_data: Any) -> Any:
        if threading.current_thread().name == f"file-{call}":
            size = size_or_data if isinstance(size_or_data, int) else len(size_or_data)
            sizes.append(size)
            time.sleep(seconds(size))
        return real(handle, size_or_data)

    monkeypatch.setattr(os, call, slow)
    return sizes
