"""Host names are looked up where a resolver that never answers holds nothing up."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import pytest

from tokensales_tui.api import ApiClient, Connection, NetworkError, Secret
from tokensales_tui.api.names import MAX_LOOK_UPS, look_up_in_own_threads

HUNG = "hung.example"


@pytest.fixture
def hung_resolver(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A resolver that never answers for :data:`HUNG` and the names under it (30 s: the
    test failed long before)."""
    released = threading.Event()
    real = socket.getaddrinfo

    def look_up(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name == HUNG or name.endswith(f".{HUNG}"):
            released.wait(30)
            raise socket.gaierror(socket.EAI_AGAIN, "temporary failure")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", look_up)
    yield released
    released.set()


def ended_within(seconds: float, main: Any) -> bool:
    """Whether ``asyncio.run(main())``, in a thread, ended within ``seconds``."""
    runner = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    runner.start()
    runner.join(seconds)
    return not runner.is_alive()


def test_a_look_up_given_up_is_not_waited_for_at_the_end_of_the_loop(
    hung_resolver: threading.Event,
) -> None:
    # asyncio.run waited for its default executor's threads as it ended: one stuck in
    # the resolver kept it (a command that had said "timed out connecting" stayed).
    look_up_in_own_threads()
    timed_out: list[bool] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.getaddrinfo(HUNG, 443), 0.2)
        except TimeoutError:
            timed_out.append(True)

    assert ended_within(10, main)
    assert timed_out == [True]
    assert not hung_resolver.is_set()  # the look-up still hangs


def test_a_look_up_answered_is_handed_back_and_its_failure_too() -> None:
    look_up_in_own_threads()

    async def main() -> tuple[Any, Exception]:
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo("127.0.0.1", 80, type=socket.SOCK_STREAM)
        try:
            await loop.getaddrinfo("name.invalid", 80)
        except socket.gaierror as error:
            return found, error
        raise AssertionError("name.invalid was found")

    found, error = asyncio.run(main())
    assert found[0][4] == ("127.0.0.1", 80)
    assert isinstance(error, socket.gaierror)


def hung_connection(host: str) -> Connection:
    """A connection whose every URL is on ``host``."""
    return Connection(
        profile="p",
        base_url=f"https://{host}/v1",
        auth_url=f"https://{host}/token",
        console_url=f"https://{host}/c",
        api_key=Secret("k"),
        api_secret=Secret("s"),
    )


def test_a_command_whose_host_name_is_never_resolved_ends_with_its_error(
    hung_resolver: threading.Event,
) -> None:
    connection = hung_connection(f"{HUNG}")
    failures: list[Exception] = []

    async def main() -> None:
        timeout = httpx.Timeout(connect=0.2, read=1, write=1, pool=1)
        async with ApiClient(connection, timeout=timeout, max_attempts=1) as client:
            try:
                await client.list_webhooks()
            except NetworkError as error:
                failures.append(error)

    assert ended_within(15, main)
    assert "timed out connecting" in str(failures[0])
    assert not hung_resolver.is_set()


def look_up_threads() -> int:
    return sum(thread.name == "getaddrinfo" for thread in threading.enumerate())


def test_a_name_never_resolved_asked_again_and_again_keeps_one_thread(
    hung_resolver: threading.Event,
) -> None:
    # Each attempt started a thread that the resolver kept for good: a watched tab
    # reloading left 20 of them in 4.5 s.
    look_up_in_own_threads()
    before = look_up_threads()
    connection = hung_connection(f"again.{HUNG}")

    async def main() -> None:
        timeout = httpx.Timeout(connect=0.1, read=1, write=1, pool=1)
        async with ApiClient(connection, timeout=timeout, max_attempts=1) as client:
            for _attempt in range(5):
                with pytest.raises(NetworkError):
                    await client.list_webhooks()

    assert ended_within(30, main)
    assert look_up_threads() - before <= 1


def test_past_the_cap_a_look_up_fails_at_once_saying_why(
    hung_resolver: threading.Event,
) -> None:
    look_up_in_own_threads()
    before = look_up_threads()
    names = [f"n{number}.{HUNG}" for number in range(MAX_LOOK_UPS + 3)]

    async def main() -> list[BaseException]:
        loop = asyncio.get_running_loop()

        async def one(name: str) -> Any:
            return await asyncio.wait_for(loop.getaddrinfo(name, 443), 0.5)

        return await asyncio.gather(*map(one, names), return_exceptions=True)

    outcomes: list[BaseException] = []
    runner = threading.Thread(target=lambda: outcomes.extend(asyncio.run(main())), daemon=True)
    runner.start()
    runner.join(15)
    assert len(outcomes) == len(names)
    refused = [error for error in outcomes if isinstance(error, socket.gaierror)]
    assert len(refused) >= 3
    assert all(error.errno == socket.EAI_AGAIN for error in refused)
    assert "look-ups already wait for the resolver" in str(refused[0])
    assert all(isinstance(error, TimeoutError | socket.gaierror) for error in outcomes)
    assert look_up_threads() - before <= MAX_LOOK_UPS
