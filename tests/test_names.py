"""Host names are looked up where a resolver that never answers holds nothing up."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import pytest

from tokensales_tui.api import ApiClient, Connection, NetworkError, Secret
from tokensales_tui.api.names import look_up_in_own_threads

HUNG = "hung.example"


@pytest.fixture
def hung_resolver(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A resolver that never answers for :data:`HUNG` (30 s: the test failed long before)."""
    released = threading.Event()
    real = socket.getaddrinfo

    def look_up(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host in (HUNG, HUNG.encode()):
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


def test_a_command_whose_host_name_is_never_resolved_ends_with_its_error(
    hung_resolver: threading.Event,
) -> None:
    connection = Connection(
        profile="p",
        base_url=f"https://{HUNG}/v1",
        auth_url=f"https://{HUNG}/token",
        console_url=f"https://{HUNG}/c",
        api_key=Secret("k"),
        api_secret=Secret("s"),
    )
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
