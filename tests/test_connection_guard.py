"""The connection guard that listen and serve share: its bounds hold whatever a peer does."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket

import pytest

from tokensales_tui import signals
from tokensales_tui.connections import ConnectionGuard


class _AnswersBig(asyncio.Protocol):
    """Writes an answer far larger than any socket buffer the moment a peer connects."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(b"x" * (8 << 20))


async def test_a_peer_that_never_reads_its_answer_is_closed_all_the_same() -> None:
    # A close that waits for unsent bytes to go waits for good when the peer never reads:
    # the connection stayed open past its time and past the limit, one socket a peer.
    guard = ConnectionGuard(
        _AnswersBig,
        limit=2,
        log=logging.getLogger("test.guard"),
        request_wait=0.3,
        close_wait=0.3,
    )
    server = await asyncio.get_running_loop().create_server(guard, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    clients: list[socket.socket] = []
    try:
        for _ in range(5):
            client = socket.socket()
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            client.connect(("127.0.0.1", port))
            clients.append(client)
            await asyncio.sleep(0.1)
            assert guard.open <= 2
        for _ in range(60):  # each one's time is 0.3 s, then 0.3 s to take its answer
            if guard.open == 0:
                break
            await asyncio.sleep(0.05)
        assert guard.open == 0
    finally:
        for client in clients:
            client.close()
        server.close()
        await server.wait_closed()


async def test_a_peer_closed_for_its_time_still_gets_what_was_sent_while_it_reads() -> None:
    # Cut off at once, a slow reader lost the end of an answer already sent (a download
    # in serve whose last bytes were still on their way when its time ran out).
    guard = ConnectionGuard(
        _AnswersBig, limit=4, log=logging.getLogger("test.guard"), request_wait=0.2
    )
    server = await asyncio.get_running_loop().create_server(guard, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await asyncio.sleep(0.6)  # past its time, most of the answer not yet taken
        assert guard.open == 1
        received = 0
        async with asyncio.timeout(10):
            while chunk := await reader.read(1 << 16):
                received += len(chunk)
        assert received == 8 << 20
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


def test_a_signal_while_the_handlers_are_put_aside_leaves_none_at_its_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A signal that comes while the handlers are being set to their defaults is raised by
    # its handler there; every handler must be the command's again after the block.
    real = signal.signal
    raised: list[int] = []

    def arriving(signum: int, handler: object) -> object:
        before = real(signum, handler)  # type: ignore[arg-type]
        if handler is signal.SIG_DFL and signum == signal.SIGTERM and not raised:
            raised.append(signum)
            raise signals.SignalEnded(signum)
        return before

    watched = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    with signals.raising_on(watched):
        ours = {signum: signal.getsignal(signum) for signum in watched}
        monkeypatch.setattr(signal, "signal", arriving)
        with pytest.raises(signals.SignalEnded), signals.left_to_default():
            pass
        monkeypatch.setattr(signal, "signal", real)
        assert raised == [signal.SIGTERM]
        assert {signum: signal.getsignal(signum) for signum in watched} == ours
