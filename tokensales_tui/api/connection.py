"""Where and as whom the client connects: the resolved settings of one profile."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .secret import Secret

DEFAULT_MAX_BODY = 1024 * 1024 * 1024
"""The largest decoded body accepted (1 GiB): 1,000,000 emulator items list in 644 MB."""


@dataclass(frozen=True, slots=True)
class Connection:
    """The three addresses and the credentials the client uses.

    ``base_url`` serves ``/v1/...``, ``auth_url`` serves ``/auth/getAccessToken`` and
    ``console_url`` serves ``/collections`` and ``/collection/{id}``. ``proxy`` is the
    only proxy requests go through (the environment's ``HTTP_PROXY`` and the like are
    ignored); ``max_body`` the largest decoded body, in bytes, a call accepts.
    """

    base_url: str
    auth_url: str
    console_url: str
    api_key: Secret = field(default_factory=lambda: Secret(""))
    api_secret: Secret = field(default_factory=lambda: Secret(""))
    profile: str = "default"
    proxy: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    credentials_from: tuple[str, ...] = ()
    """Where the key and the secret came from, when a variable or a flag gave one of them
    (``TOKENSALES_API_SECRET``): a refusal says to check those, not "the profile"."""

    @property
    def host(self) -> str:
        """The host of ``base_url``, for messages and the header."""
        return host_of(self.base_url)


def host_of(url: str) -> str:
    """The host (and port, when given) of ``url``; the URL itself when it has none."""
    parts = urlsplit(url)
    return parts.netloc.rsplit("@", 1)[-1] or url
