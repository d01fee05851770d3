"""Every httpx client of the product is made here (:func:`new_client`), with one set of rules.

- **No cookies.** The API is spoken with a bearer token and needs none, and a cookie jar
  sends what one server set to every other port of its host (cookies ignore ports) and,
  through a ``Domain``, to the host's siblings: the token endpoint's cookie went to the
  API on another port. The jar of these clients keeps nothing and sends nothing.
- **The environment decides nothing** (``trust_env=False``): no proxy from ``HTTP_PROXY``,
  no credentials from ``.netrc``, no certificates from ``SSL_CERT_FILE``.
- **Redirects are never followed, and httpx never reads a ``Location``.** Even when it
  follows none, httpx builds the next request from the header, and raised for one that
  is no URL (``http:host:1/x``, ``ftp:x``) before the answer could be described. The
  header is set aside in the response's extensions before httpx looks: read it with
  :func:`location`.

A test refuses ``httpx.AsyncClient(`` and ``httpx.Client(`` anywhere else in the package.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

__all__ = ["location", "new_client"]

_LOCATION = "tokensales_location"
"""The response extension that holds a redirect's ``Location``, set aside."""


@functools.cache
def _no_cookies() -> type:
    """A cookie policy that accepts no cookie and returns none. Made when the first
    client is (``http.cookiejar`` loads ``urllib.request``, ``hashlib`` and ``email``,
    which the first frame does without)."""
    import http.cookiejar

    class NoCookies(http.cookiejar.DefaultCookiePolicy):
        def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
            return False

        def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
            return False

    return NoCookies


def new_client(**options: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` with ``options`` (``transport``, ``timeout``, ``headers``,
    ``proxy``, ``base_url``, ``limits`` …) that keeps the rules of this module."""
    import http.cookiejar

    import httpx

    return httpx.AsyncClient(
        **options,
        trust_env=False,
        follow_redirects=False,
        cookies=http.cookiejar.CookieJar(policy=_no_cookies()()),
        event_hooks={"response": [_set_location_aside]},
    )


async def _set_location_aside(response: httpx.Response) -> None:
    # What httpx checks before it reads the header (a 301, 302, 303, 307 or 308 with one).
    if response.has_redirect_location:
        response.extensions[_LOCATION] = response.headers["location"]
        del response.headers["location"]


def location(response: httpx.Response) -> str:
    """The ``Location`` of ``response`` as the server sent it (repeated ones joined by
    ", "); empty when it has none."""
    kept = response.extensions.get(_LOCATION)
    if isinstance(kept, str):
        return kept
    return str(response.headers.get("location", ""))
