"""Token requests for 100 concurrent API calls on an expired token (figure 8).

Two ways a token expires, each against the standalone emulator on 127.0.0.1 with
tokens that live one second, counting token requests on the wire (a pass-through
transport) as well as in the client:

* ``expired``: the client's clock says the token has expired;
* ``rejected``: the client believes the token is still good (its clock is stopped)
  and the server answers each of the 100 calls with 401.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import EmulatorProcess

CALLS = 100
LIFETIME = 8.0
"""Seconds a token lives: long enough for the 100 calls to finish on the next one.

The renewed token must outlive every retry of the 100 calls, or a retry meets a second
401 (and the figure counts a failure). 3 s was too short on a machine busy with other
work; each run waits this long once per scenario.
"""
TOKEN_PATH = "/auth/getAccessToken"


class CountingTransport:
    """The default transport, counting the token requests it sends."""

    def __init__(self) -> None:
        import httpx

        self.inner = httpx.AsyncHTTPTransport()
        self.token_requests = 0

    async def handle_async_request(self, request: Any) -> Any:
        if request.url.path == TOKEN_PATH:
            self.token_requests += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def scenario(env: dict[str, str], kind: str) -> dict[str, Any]:
    import httpx

    from tokensales_tui.api import ApiClient, Connection, Secret

    counting = CountingTransport()

    class Transport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response: httpx.Response = await counting.handle_async_request(request)
            return response

        async def aclose(self) -> None:
            await counting.aclose()

    connection = Connection(
        base_url=env["TOKENSALES_BASE_URL"],
        auth_url=env["TOKENSALES_AUTH_URL"],
        console_url=env["TOKENSALES_CONSOLE_URL"],
        api_key=Secret(env["TOKENSALES_API_KEY"]),
        api_secret=Secret(env["TOKENSALES_API_SECRET"]),
        profile="benchmark",
    )
    options: dict[str, Any] = {"transport": Transport()}
    if kind == "rejected":
        options["clock"] = lambda: 0.0  # the token never looks old to the client
    async with ApiClient(connection, **options) as client:
        await client.list_webhooks()  # the first token
        await asyncio.sleep(LIFETIME + 0.3)  # expired on the server (and on the clock)
        wire_before, client_before = counting.token_requests, client.tokens.requests
        results = await asyncio.gather(*(client.list_webhooks() for _ in range(CALLS)))
        return {
            "calls": len(results),
            "token_requests_on_the_wire": counting.token_requests - wire_before,
            "token_requests_by_the_client": client.tokens.requests - client_before,
        }


def main() -> None:
    import json

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    out: dict[str, list[dict[str, Any]]] = {"expired": [], "rejected": []}
    with EmulatorProcess(0, token_lifetime=LIFETIME) as emulator:
        for _ in range(reps):
            for kind in out:
                out[kind].append(asyncio.run(scenario(emulator.env, kind)))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
