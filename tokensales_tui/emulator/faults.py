"""Named faults the emulator can inject, to show how a client copes with a bad service.

A request that reaches a handler first meets ``hang`` and ``slow``, then ``token-down``
(token endpoint only), ``flaky`` and ``ratelimit``; these answer before authentication
and before any state changes. ``garbage`` spoils a GET response after the handler ran.
``expiring`` only shortens the lifetime of issued tokens. ``hostile`` (:mod:`.hostile`)
replaces the data with a hostile copy, issues tokens of extreme lifetimes, rewrites every
answer's headers and error bodies, and replaces a share of GET answers with hostile ones. A hung request stays unanswered
until :meth:`FaultInjector.release_hung` (a server shutting down) lets it answer 503. The shared faults (flaky,
ratelimit, garbage) each hit a request with probability ``rate``, drawn from a Random
of their own so that data generation and ids stay the same whatever faults are on.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import MappingProxyType

from starlette.responses import Response

from . import hostile
from .errors import ApiError

FAULTS: Mapping[str, str] = MappingProxyType(
    {
        "slow": "every request waits 0.3–1.5 s before it is answered",
        "flaky": "a share of requests answer 500, 502 or 503 with a JSON error body",
        "ratelimit": "a share of requests answer 429 with Retry-After: 2",
        "expiring": "issued access tokens live 5 s",
        "garbage": "a share of GET responses are truncated JSON or an HTML error page",
        "hang": "every request is received and then never answered",
        "token-down": "the token endpoint answers 503",
        "hostile": "every string carries terminal escapes, markup, bidi and surrogates; ids such"
        " as . .. a/b; extreme numbers and token lifetimes; a share of answers are hostile"
        " redirects, 304s, gzip bombs, capped error bodies or Retry-After: inf",
    }
)

EXPIRING_LIFETIME = 5.0
HANG_SECONDS = 24 * 3600.0

_HTML = (
    "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n"
    "<body><center><h1>{title}</h1></center><hr><center>nginx</center></body></html>\n"
)
_SERVER_ERRORS = {
    500: "internal server error",
    502: "bad gateway: upstream closed the connection",
    503: "service temporarily unavailable",
}


def check_names(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a frozenset, refusing unknown fault names with ValueError."""
    chosen = frozenset(names)
    if unknown := sorted(chosen - FAULTS.keys()):
        raise ValueError(f"unknown fault {', '.join(unknown)}; known faults: {', '.join(FAULTS)}")
    return chosen


class FaultInjector:
    """Applies the active faults to requests and responses.

    Attributes:
        active: names of the faults in effect.
        rate: probability that a shared fault hits one request (0.0–1.0).
        slow_range: bounds in seconds of the ``slow`` delay.
        sleep: the coroutine used to wait; tests may replace it to observe delays.
    """

    def __init__(self, seed: int) -> None:
        self.active: frozenset[str] = frozenset()
        self.rate = 0.3
        self.slow_range = (0.3, 1.5)
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        self._rng = random.Random(f"tokensales-emulator-faults:{seed}")
        self._release: asyncio.Event | None = None

    def _released(self) -> asyncio.Event:
        if self._release is None:
            self._release = asyncio.Event()
        return self._release

    def release_hung(self) -> None:
        """Let hung requests answer 503, so that a server can shut down without cancelling them.

        Call it on the event loop that serves the requests.
        """
        self._released().set()

    def _hits(self, name: str) -> bool:
        return name in self.active and self._rng.random() < self.rate

    async def before(self, *, token_endpoint: bool) -> None:
        """Wait or refuse as the active faults say, before the handler runs.

        Raises:
            ApiError: the injected failure to answer with.
        """
        if "hang" in self.active:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released().wait(), HANG_SECONDS)
            raise ApiError(503, "server is shutting down")
        if "slow" in self.active:
            await self.sleep(self._rng.uniform(*self.slow_range))
        if token_endpoint and "token-down" in self.active:
            raise ApiError(503, "token service unavailable", headers={"Retry-After": "30"})
        if self._hits("flaky"):
            status = self._rng.choice(list(_SERVER_ERRORS))
            raise ApiError(status, _SERVER_ERRORS[status])
        if self._hits("ratelimit"):
            raise ApiError(
                429, "rate limit exceeded; retry after 2 s", headers={"Retry-After": "2"}
            )

    def after(self, method: str, response: Response) -> Response:
        """``response``, or a spoilt one in its place when ``garbage`` hits a GET;
        made hostile when ``hostile`` is on."""
        if "hostile" in self.active:
            spoil = method == "GET" and self._hits("hostile")
            response = hostile.rewrite(response, self._rng, spoil=spoil)
        if method != "GET" or not self._hits("garbage"):
            return response
        kind = self._rng.randrange(3)
        if kind == 0:
            # A proper prefix of a JSON object or array never parses.
            body = bytes(response.body)
            return Response(body[: max(1, len(body) // 2)], 200, media_type="application/json")
        # A maintenance page sent as 200 by a proxy, or a proxy's own 502 page.
        status, title = (200, "Scheduled maintenance") if kind == 1 else (502, "502 Bad Gateway")
        return Response(_HTML.format(title=title), status, media_type="text/html")
