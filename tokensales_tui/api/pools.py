"""Which connection a request goes on: a kept-alive one, or one opened for it alone.

A server (or the load balancer before it) may close a kept-alive connection while it is
idle, at any moment after its last answer, and say nothing: no ``Connection: close``,
just the socket closed, after a 60 s idle time-out or right after the answer. A request
the client sends on it in the instant before the close is seen is lost, and the client
cannot tell that loss from a server that took the request, acted on it and broke. A
request that can be repeated (a read, a PUT, a DELETE, the token's) is then simply
repeated; one that cannot (a POST creating a webhook, a payout definition, collections)
would be "outcome unknown" though the server never had it.

So such a request never goes on a connection that has been idle: it goes on one opened
for it alone (:data:`OWN_CONNECTION` in its extensions), closed after its answer. A
broken connection under it then means the server had the request: "outcome unknown"
is what it is. Everything else shares the kept-alive pool, so reads and bulk deletes
keep their connections; a write costs one connection (and TLS handshake) of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import httpx

__all__ = ["OWN_CONNECTION", "Pools", "own_connection", "pools"]

OWN_CONNECTION = "tokensales_own_connection"
"""The request extension that sends a request on a connection opened for it alone."""


def own_connection() -> dict[str, bool]:
    """The extensions of a request that must go on a connection of its own."""
    return {OWN_CONNECTION: True}


def pools(proxy: str | None) -> httpx.AsyncBaseTransport:
    """The transport of an API client: :class:`Pools` through ``proxy`` (or none)."""
    import httpx

    # One TLS context for both (the system's certificates are read once, not from the
    # environment: trust_env=False everywhere).
    context = httpx.create_ssl_context(trust_env=False)

    def transport(keep_alive: int) -> httpx.AsyncHTTPTransport:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=keep_alive)
        return httpx.AsyncHTTPTransport(verify=context, trust_env=False, proxy=proxy, limits=limits)

    return cast("httpx.AsyncBaseTransport", Pools(shared=transport(20), own=transport(0)))


class Pools:
    """Sends a request marked :data:`OWN_CONNECTION` through ``own`` (a pool that keeps
    no idle connection: each request opens its own, closed after the answer), any
    other through ``shared``. An ``httpx.AsyncBaseTransport`` in all but name: httpx
    is imported only once a client is made."""

    def __init__(self, shared: httpx.AsyncBaseTransport, own: httpx.AsyncBaseTransport) -> None:
        self.shared = shared
        self.own = own

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        chosen = self.own if request.extensions.get(OWN_CONNECTION) else self.shared
        return await chosen.handle_async_request(request)

    async def aclose(self) -> None:
        try:
            await self.shared.aclose()
        finally:
            await self.own.aclose()

    async def __aenter__(self) -> Pools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
