"""listen's connections: each has a time for a complete request, at most a bound are open,
and running out of file descriptors is said once a second in the log, never on the terminal.

The tests that open many connections run listen in a process of its own, with a low limit
of open files, rather than spend the machine's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import sys
import time
from pathlib import Path

import httpx

from tokensales_tui.ui.screens.deliveries import delivery_detail
from tokensales_tui.ui.widgets.delivery_list import delivery_cells
from tokensales_tui.webhooks.receiver import KEEP_CUT_SHORT, Delivery, Receiver, ReceiverServer
from tokensales_tui.webhooks.signatures import standard_headers

from .webhookhelpers import post_in_process

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = b'{"type": "item.sold"}'


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def _closed(reader: asyncio.StreamReader) -> bytes:
    """What the server sent until it closed the connection (a close that meets bytes
    still on their way to it is a reset: closed all the same)."""
    said = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := await reader.read(65536):
            said += chunk
    return said


async def _deliver(url: str) -> int:
    headers = standard_headers(SECRET, f"msg_{time.monotonic_ns()}", int(time.time()), BODY)
    async with httpx.AsyncClient(trust_env=False, timeout=20) as client:
        return (await client.post(url, content=BODY, headers=headers)).status_code


async def test_a_connection_without_a_complete_request_is_closed_after_the_wait() -> None:
    # Idle connections were kept for ever, trickled headers 25 s and more, a body stalled
    # after 3 of 100 bytes 20 s and more: 2,001 of them made a real delivery get 503.
    receiver = Receiver(secret=SECRET)
    server = ReceiverServer(receiver, request_wait=1.0)
    await server.start()
    try:
        port = _port(server.url)
        idle, _ = await asyncio.open_connection("127.0.0.1", port)
        trickle, trickling = await asyncio.open_connection("127.0.0.1", port)
        stalled, stalling = await asyncio.open_connection("127.0.0.1", port)
        stalling.write(b"POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")

        async def trickle_headers() -> None:
            trickling.write(b"POST /in HTTP/1.1\r\nHost: x\r\n")
            with contextlib.suppress(ConnectionError):
                while not trickling.is_closing():
                    await asyncio.sleep(0.2)
                    trickling.write(b"X-Slow: 1\r\n")
                    await trickling.drain()

        writing = asyncio.create_task(trickle_headers())
        async with asyncio.timeout(15):
            await asyncio.gather(_closed(idle), _closed(trickle), _closed(stalled))
        writing.cancel()
        assert await _deliver(server.url + "/in") == 200  # still answers
    finally:
        await server.stop()
    stalled_delivery, delivered = receiver.deliveries
    assert stalled_delivery.cut_short and stalled_delivery.size == 3
    assert delivered.verdict.status == "valid"
    assert server.connections.open == 0


async def test_a_large_body_coming_at_a_fair_rate_has_the_time_it_needs() -> None:
    # A body of 40,000 bytes in 2 s: past the wait, but each byte adds to its time.
    body = b'{"type": "item.sold", "pad": "' + b"x" * 40_000 + b'"}'
    headers = standard_headers(SECRET, "msg_large", int(time.time()), body)
    receiver = Receiver(secret=SECRET)
    server = ReceiverServer(receiver, request_wait=1.0)
    await server.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", _port(server.url))
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        writer.write(
            f"POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{head}\r\n".encode()
        )
        for start in range(0, len(body), 1000):
            writer.write(body[start : start + 1000])
            await writer.drain()
            await asyncio.sleep(0.05)
        async with asyncio.timeout(15):
            answer = await reader.readline()
        writer.close()
    finally:
        await server.stop()
    assert answer.startswith(b"HTTP/1.1 200 ")
    [delivery] = receiver.deliveries
    assert delivery.verdict.status == "valid" and delivery.size == len(body)


async def test_past_the_connection_limit_the_oldest_unfinished_one_is_closed() -> None:
    receiver = Receiver(secret=SECRET)
    server = ReceiverServer(receiver, max_connections=5)
    await server.start()
    try:
        port = _port(server.url)
        opened = []
        for number in range(20):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if number % 2:  # a body that stopped half way counts as unfinished too
                writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
                await writer.drain()
            opened.append((reader, writer))
        assert await _deliver(server.url) == 200  # a real delivery is never refused
        async with asyncio.timeout(10):
            for reader, _writer in opened[:16]:  # room made for newer ones, oldest first
                await _closed(reader)
        assert not any(reader.at_eof() for reader, _writer in opened[17:])
        assert server.connections.open <= 5
        for _reader, writer in opened:
            writer.close()
    finally:
        await server.stop()


async def _done(receiver: Receiver, count: int) -> list[Delivery]:
    """The receiver's deliveries once ``count`` of them are done (15 s at most)."""
    async with asyncio.timeout(15):
        while sum(d.done for d in receiver.deliveries) < count:
            await asyncio.sleep(0.02)
    return receiver.deliveries


def _said_everywhere(delivery: Delivery) -> list[str]:
    """What the list, the detail view, --print and --save say of ``delivery``."""
    detail = dict(delivery_detail(delivery)._fields)
    return [
        delivery_cells(delivery)[4],
        f"{detail['Verdict']} {detail['Why']}",
        delivery.line(),
        json.dumps(delivery.to_json()),
    ]


async def test_a_body_listen_stopped_waiting_for_is_said_closed_by_listen_not_the_sender(
    tmp_path: Path,
) -> None:
    # It was listed "cut short: 3 bytes of 100 came before the sender closed the
    # connection": listen had closed it, when its time ran out.
    save = tmp_path / "deliveries.jsonl"
    receiver = Receiver(secret=SECRET, save=str(save))
    server = ReceiverServer(receiver, request_wait=1.0)
    await server.start()
    try:
        port = _port(server.url)
        stalled, stalling = await asyncio.open_connection("127.0.0.1", port)
        stalling.write(b"POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
        async with asyncio.timeout(15):
            await _closed(stalled)
        [by_listen] = await _done(receiver, 1)
        # The sender closing its own connection half way is still said so.
        _, leaving = await asyncio.open_connection("127.0.0.1", port)
        leaving.write(b"POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabcd")
        await leaving.drain()
        leaving.close()
        _, by_sender = await _done(receiver, 2)
    finally:
        await server.stop()
    why = "no complete request within 1 s"
    assert by_listen.cut_short and by_listen.closed_by_listen == why
    assert by_listen.verdict.reason == (
        f"listen closed the connection: {why}; 3 bytes of 100 came, not judged or relayed"
    )
    for said in _said_everywhere(by_listen):
        assert "listen closed the connection" in said and "sender" not in said
    assert f"by listen ({why})" in (receiver.replay_refusal(by_listen) or "")
    saved = [json.loads(line) for line in save.read_text().splitlines()]
    assert saved[0]["closed_by_listen"] == why and saved[0]["cut_short"] is True
    assert by_sender.cut_short and by_sender.closed_by_listen is None
    assert "4 bytes of 100 came before the sender closed the connection" in by_sender.verdict.reason
    assert "closed_by_listen" not in saved[1]
    assert receiver.cut_short == 2 and receiver.closed_by_listen == 1


async def test_a_body_closed_to_make_room_for_a_new_connection_is_said_so() -> None:
    receiver = Receiver(secret=SECRET)
    server = ReceiverServer(receiver, max_connections=3)
    await server.start()
    opened = []
    try:
        port = _port(server.url)
        for number in range(5):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
            await writer.drain()
            opened.append((reader, writer))
            async with asyncio.timeout(10):  # each request begun before the next comes
                while server.connections.open < min(number + 1, 3):
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.1)
        async with asyncio.timeout(10):
            for reader, _writer in opened[:2]:
                await _closed(reader)
        first, second = await _done(receiver, 2)
    finally:
        for _reader, writer in opened:
            writer.close()
        await server.stop()
    room = "to make room for a new connection (3 open, the most allowed)"
    for delivery in (first, second):
        assert delivery.closed_by_listen == room
        assert delivery.verdict.reason.startswith(f"listen closed the connection: {room}; ")


async def test_a_flood_of_bodies_cut_short_never_pushes_out_a_delivery_that_came_whole() -> None:
    # Each stalled body becomes a delivery once listen closes it: hundreds of them pushed
    # the real deliveries out of the kept list before anyone saw them.
    receiver = Receiver(keep=4)
    await post_in_process(receiver, b'{"type": "real.one"}')
    await post_in_process(receiver, b'{"type": "real.two"}')
    for _ in range(300):
        await post_in_process(receiver, b"abc", announced=100, closed_by="no complete request")
    await post_in_process(receiver, b'{"type": "real.three"}')
    await post_in_process(receiver, b"abc", announced=100)  # the sender went away
    kept = receiver.deliveries
    assert [d.event_type for d in kept] == ["real.one", "real.two", "real.three", None]
    assert [d.number for d in kept] == [1, 2, 303, 304]  # the newest is always kept
    assert receiver.count == 304 and receiver.cut_short == 301
    assert receiver.closed_by_listen == 300
    # Once the list holds only whole ones, one cut short still shows: the oldest goes.
    await post_in_process(receiver, b'{"type": "real.four"}')
    await post_in_process(receiver, b'{"type": "real.five"}')
    await post_in_process(receiver, b"abc", announced=100, closed_by="no complete request")
    assert [d.number for d in receiver.deliveries] == [303, 305, 306, 307]
    # However many are kept, those cut short are a few rows: the rest stay in view.
    receiver = Receiver()
    await post_in_process(receiver, b'{"type": "real.one"}')
    for _ in range(300):
        await post_in_process(receiver, b"abc", announced=100, closed_by="no complete request")
    assert [d.number for d in receiver.deliveries] == [1, *range(292, 302)]
    assert receiver.cut_short_kept == KEEP_CUT_SHORT == 10


# --- listen --print in a process of its own, with few file descriptors -------------------


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp_path)}


async def _listen(tmp_path: Path, log: Path, files: int | None) -> asyncio.subprocess.Process:
    def lower() -> None:
        if files is not None:
            _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))

    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tokensales_tui", "--log", str(log),
        "listen", "--print", "--port", "0", "--secret-file", str(_secret(tmp_path)),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=lower, env=_env(tmp_path),
    )  # fmt: skip


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "hook.secret"
    path.write_text(SECRET)
    return path


async def _url(process: asyncio.subprocess.Process) -> str:
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while True:
            line = (await process.stderr.readline()).decode()
            assert line, "listen ended before it listened"
            if line.startswith("listening on "):
                return line.split()[-1]


async def _stop(process: asyncio.subprocess.Process) -> str:
    """Stop listen; what it wrote to stderr from then on (after its first lines)."""
    assert process.stderr is not None
    if process.returncode is None:
        process.send_signal(signal.SIGINT)
    async with asyncio.timeout(30):
        rest = await process.stderr.read()
        await process.wait()
    return rest.decode()


async def test_a_flood_of_idle_connections_under_a_low_file_limit_leaves_listen_answering(
    tmp_path: Path,
) -> None:
    # Under `ulimit -n 1024` 1,100 idle connections took every file descriptor: a real
    # delivery got no answer, and asyncio wrote a traceback a try to the terminal.
    log = tmp_path / "listen.log"
    process = await _listen(tmp_path, log, files=256)
    idle = []
    try:
        url = await _url(process)
        for _ in range(400):
            idle.append(await asyncio.open_connection("127.0.0.1", _port(url)))
        assert await _deliver(url + "/in") == 200
        async with asyncio.timeout(20):  # and each is closed in its time
            for reader, _writer in idle:
                await _closed(reader)
    finally:
        for _reader, writer in idle:
            writer.close()
        said = await _stop(process)
    assert said.splitlines() == ["stopping"]  # nothing more on the terminal


async def test_out_of_file_descriptors_listen_logs_once_a_second_and_answers_once_they_free_up(
    tmp_path: Path,
) -> None:
    # asyncio's accept() failed in a busy loop (40% of a processor), and each failure's
    # traceback went to the terminal: 2.3 million lines, none in the --log file.
    log = tmp_path / "listen.log"
    process = await _listen(tmp_path, log, files=None)
    try:
        url = await _url(process)
        soft, hard = resource.prlimit(process.pid, resource.RLIMIT_NOFILE)
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (3, hard))  # no new file
        delivery = asyncio.create_task(_deliver(url + "/in"))
        await asyncio.sleep(3.5)
        assert not delivery.done()
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (soft, hard))  # freed
        async with asyncio.timeout(20):
            assert await delivery == 200
    finally:
        said = await _stop(process)
    assert said.splitlines() == ["stopping"]  # nothing more on the terminal
    failed = [line for line in log.read_text().splitlines() if "accepting a connection" in line]
    assert failed and all("Too many open files" in line for line in failed)
    assert len(failed) <= 6  # once a second at most
