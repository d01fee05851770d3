"""A list's temporary file and its writing thread end with the load that made them,
whichever way it ends, never left to the garbage collector; a full temporary folder
keeps the list in memory, or says so.

The collector is off in these tests: what they count must come back without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import json
import os
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tokensales_tui.api import ApiClient, ApiError, UnexpectedResponse
from tokensales_tui.api import spool as spool_module
from tokensales_tui.api.decode import ListParser
from tokensales_tui.api.listing import StreamedList
from tokensales_tui.api.models import Item
from tokensales_tui.api.spool import Spool, Spooled
from tokensales_tui.emulator.app import TOKEN_PATH

from .test_reliability_network import LOOPBACK, bounded, connection, make_jwt, wait_until
from .test_spool import item

ITEMS = [item(n, note="n" * 200) for n in range(12_000)]
BODY = json.dumps(ITEMS).encode()  # about 5 MB: the spool's thread writes it
HALF = len(BODY) // 2


class Scripted:
    """A server on 127.0.0.1 answering each GET of the items with the next script entry:
    ``"close"`` (half the body, then the connection closed), ``"stall"`` (half the body,
    then nothing) or ``"whole"`` (the last entry answers the rest)."""

    def __init__(self, *script: str) -> None:
        self.script = list(script)
        self.listener = socket.create_server((LOOPBACK, 0))
        self.listener.settimeout(0.05)  # accept looks at stop this often
        self.stop = threading.Event()
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.listener.getsockname()[1]}"

    def __enter__(self) -> Scripted:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)
        self.listener.close()
        for conn in self.connections:
            conn.close()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            self.connections.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with contextlib_suppress():
            reader = conn.makefile("rb")
            while line := reader.readline():
                path = line.split(b" ")[1].decode()
                length = 0
                while (header := reader.readline()).strip():
                    name, _, value = header.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                reader.read(length)
                if path.startswith(TOKEN_PATH):
                    token = json.dumps({"accessToken": make_jwt(lifetime=3600)}).encode()
                    conn.sendall(head(len(token)) + token)
                    continue
                how = self.script.pop(0) if len(self.script) > 1 else self.script[0]
                conn.sendall(head(len(BODY)) + (BODY if how == "whole" else BODY[:HALF]))
                if how == "close":
                    conn.shutdown(socket.SHUT_RDWR)
                    return
                if how == "stall":
                    self.stop.wait()
                    return


def contextlib_suppress() -> contextlib.suppress:
    return contextlib.suppress(OSError, ValueError, IndexError)


def head(length: int) -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary folder of the test's own, and the collector off."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield tmp_path
    finally:
        if enabled:
            gc.enable()


def in_folder(folder: Path) -> list[str]:
    """The descriptors of this process open on a file of ``folder`` (deleted or not)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib_suppress():
            if os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder)):
                found.append(fd)
    return found


def spool_threads_end() -> int:
    """Wait for the spools' writing threads to end (each one is told to, when its spool
    is closed); how many there were."""
    threads = [t for t in threading.enumerate() if t.name == "list-spool"]
    for thread in threads:
        thread.join(10)
    assert not [t for t in threads if t.is_alive()], "a spool's thread goes on"
    return len(threads)


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def fast_client(url: str, arrivals: list[StreamedList] | None = None, **kwargs: Any) -> ApiClient:
    kept = arrivals if arrivals is not None else []
    return ApiClient(
        connection(url),
        timeout=httpx.Timeout(connect=2, read=0.5, write=2, pool=2),
        backoff=0.01,
        # As a tab does: it keeps the list arriving while it shows its rows.
        watch_rows=lambda _what, arrival: kept.append(arrival),
        **kwargs,
    )


@pytest.mark.parametrize("how", ["close", "stall"])
async def test_a_load_failing_mid_body_gives_back_its_spools_at_once(
    folder: Path, how: str
) -> None:
    before = descriptors()
    arrivals: list[StreamedList] = []
    with Scripted(how) as server:
        client = fast_client(server.url, arrivals, deadline=3)
        async with client:
            with pytest.raises(ApiError) as caught:
                await bounded(client.list_items())
    assert arrivals, "no rows arrived before the body broke"
    # The error and the tab's last look at the list are still held: no file with them.
    assert caught.value is not None and arrivals[-1].spool is not None
    spool_threads_end()
    assert in_folder(folder) == []
    assert descriptors() == before


async def test_a_cancelled_load_and_loads_superseding_it_give_back_their_spools(
    folder: Path,
) -> None:
    before = descriptors()
    arrivals: list[StreamedList] = []
    with Scripted("stall", "stall", "stall", "whole") as server:
        async with fast_client(server.url, arrivals, deadline=30) as client:
            for count in range(1, 4):  # r pressed again and again while the list arrives
                load = asyncio.ensure_future(client.list_items())
                await wait_until(lambda n=count: len(arrivals) >= n)
                await wait_until(lambda: arrivals[-1].length >= HALF, 10)
                load.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await load
            rows = await bounded(client.list_items())
    assert [row.id for row in rows] == [entry["id"] for entry in ITEMS]
    assert rows[5].raw == ITEMS[5]
    spool_threads_end()
    assert len(in_folder(folder)) == 1  # the rows shown read their text from it
    del rows
    arrivals.clear()
    assert in_folder(folder) == []  # freed with its last row, not by the collector
    assert descriptors() == before


def refusing_writes(folder: Path, allowed: int, error: int = errno.ENOSPC) -> Callable[..., int]:
    """``os.write`` that takes ``allowed`` bytes in ``folder``, then fails with ``error``
    there (elsewhere it writes)."""
    write = os.write
    room = [allowed]

    def refusing(fd: int, data: Any) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if not target.startswith(str(folder)):
            return write(fd, data)
        if room[0] <= 0:
            raise OSError(error, os.strerror(error))
        taken = write(fd, bytes(memoryview(data)[: room[0]]))
        room[0] -= taken
        return taken

    return refusing


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES])
async def test_a_full_temporary_folder_keeps_the_list_in_memory_and_gives_back_its_space(
    folder: Path, monkeypatch: pytest.MonkeyPatch, error: int
) -> None:
    monkeypatch.setattr(os, "write", refusing_writes(folder, 2 * 1024 * 1024, error))
    before = descriptors()
    arrivals: list[StreamedList] = []
    with Scripted("whole") as server:
        async with fast_client(server.url, arrivals) as client:
            rows = await bounded(client.list_items())
    assert [row.id for row in rows] == [entry["id"] for entry in ITEMS]
    assert rows[-1].raw == ITEMS[-1] and rows[0].raw == ITEMS[0]
    spool = arrivals[-1].spool
    assert spool.in_memory is not None and spool.in_memory.errno == error
    with pytest.raises(OSError):
        spool.fileno()  # no index process can read it: the tab indexes the rows itself
    spool_threads_end()
    assert in_folder(folder) == []  # the space is given back at once
    assert descriptors() == before


async def test_without_room_in_memory_either_the_load_names_the_folder_and_its_room(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "write", refusing_writes(folder, 2 * 1024 * 1024))
    monkeypatch.setattr(spool_module, "_memory_has_room", lambda _size: False)
    before = descriptors()
    with Scripted("whole") as server:
        async with fast_client(server.url) as client:
            for _ in range(3):  # each r again: no descriptor or thread more
                with pytest.raises(UnexpectedResponse) as caught:
                    await bounded(client.list_items())
                message = caught.value.one_line
                assert f"no space left in the temporary folder {folder} (" in message
                assert "MB free)" in message and "unexpectedly" not in message
                spool_threads_end()
                assert in_folder(folder) == []
    assert descriptors() == before


def test_every_way_of_writing_a_spool_keeps_the_text_when_the_disk_is_full(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "write", refusing_writes(folder, 10))
    added = Spool()
    marks = added.add([b'{"a":1}', b'{"b":22}'])  # the second one does not fit
    added.append(b'{"c":3}')
    assert [mark.text() for mark in marks] == [b'{"a":1}', b'{"b":22}']
    assert added.read(15, 7) == b'{"c":3}' and added.in_memory is not None
    streamed = Spool()  # through the spool's thread, as a list arrives
    streamed.append_soon(b'{"d":4}' * 300_000)
    streamed.settle()
    assert bytes(streamed.whole()[7:14]) == b'{"d":4}' and streamed.in_memory is not None
    assert streamed.read_array(0, 7) == b'[{"d":4}]'
    # Rows read whole from a body: their spool keeps their text in memory as well.
    rows = ListParser(Item, "items", 200, "application/json")(json.dumps(ITEMS[:50]).encode())
    assert all(isinstance(row._source, Spooled) for row in rows)
    assert rows[49].raw == ITEMS[49]
    streamed.close()
    spool_threads_end()


def test_a_closed_spool_reads_nothing_and_ends_its_thread_at_once(folder: Path) -> None:
    spool = Spool()
    spool.append_soon(b"x" * (3 * spool_module.WRITE_BYTES))
    spool.close()
    spool.close()  # again: nothing
    assert spool_threads_end() == 1
    assert in_folder(folder) == []
    with pytest.raises(OSError, match="closed"):
        spool.read(0, 1)
    with pytest.raises(OSError, match="closed"):
        spool.fileno()  # an index process is not started on it


def test_a_spool_the_disk_and_memory_both_refused_reads_as_closed(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its file was closed without the spool knowing: a read raised ValueError ("I/O
    # operation on closed file"), which no reader of a row expects.
    monkeypatch.setattr(os, "write", refusing_writes(folder, 10))
    monkeypatch.setattr(spool_module, "_memory_has_room", lambda length: False)
    spool = Spool()
    marks = spool.add([b"[1]"])  # a row's text, read after the load failed
    with pytest.raises(OSError, match="no space left in the temporary folder"):
        spool.append(b'{"a":1}' * 4)
    for read in (marks[0].text, lambda: spool.read(0, 1), spool.fileno, spool.whole):
        with pytest.raises(OSError, match="closed"):
            read()
    spool.close()
    assert in_folder(folder) == []
