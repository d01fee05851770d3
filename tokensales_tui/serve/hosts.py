"""The addresses ``serve`` answers at, and the pages whose websocket it accepts.

A browser sends ``Host`` (the name and port it connected to) with every request, and
``Origin`` (the scheme, name and port of the page) with every websocket. The page is
answered at the address the browser used: its URLs are built from ``Host``. A websocket
is accepted only from a page of that same address, ``http://`` + ``Host``: another
site's page (cross-site websocket hijacking) has an Origin of its own and is refused.

Bound to a loopback address, the server answers only to this machine's own names with
the bound port: ``127.0.0.1``, ``localhost``, ``[::1]`` and the bound address. A page
whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends that name as ``Host``
and is refused before the token is looked at. Bound to any other address, any
well-formed ``Host`` is answered: the machine may be reached by any of its names and
addresses, through port forwarding too; the access token keeps others out.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from ..local import is_loopback_host

__all__ = ["Address", "HostRule", "parse_address"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

_ADDRESS = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")
"""A name or an IP address (IPv6 in brackets), then perhaps a port: nothing else."""


@dataclass(frozen=True)
class Address:
    """A name (lower-case; IPv6 in brackets, shortest form) and a port, as in a URL."""

    host: str
    port: int

    def __str__(self) -> str:
        return self.host if self.port == 80 else f"{self.host}:{self.port}"


def parse_address(text: str) -> Address | None:
    """``text`` (a ``Host`` header, or an origin without its scheme) as an Address.

    None unless it is a name or an IP address and perhaps a port; the port is 80 when
    none is written, as for ``http://``.
    """
    found = _ADDRESS.fullmatch(text)
    if found is None:
        return None
    host, port = found[1].lower(), int(found[2] or 80)
    if host.startswith("["):
        try:
            host = f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            return None
    if not 0 < port < 65536:
        return None
    return Address(host, port)


@dataclass(frozen=True)
class HostRule:
    """Which ``Host`` a server bound to one address answers, and which ``Origin`` it accepts.

    Args:
        names: The names answered, with ``port``; None: any name, any port.
        port: The bound port.
        bound: The bound address, as in a URL.
    """

    names: frozenset[str] | None
    port: int
    bound: str

    @classmethod
    def for_bind(cls, host: str, port: int) -> HostRule:
        """The rule for a socket bound to ``host`` (as ``getsockname`` gives it) and ``port``."""
        address = parse_address(f"[{host}]" if ":" in host else host)
        bound = address.host if address else host
        if not is_loopback_host(host):
            return cls(None, port, bound)
        return cls(frozenset({*LOOPBACK_NAMES, bound}), port, bound)

    def page_address(self, host: str | None) -> Address | None:
        """The address the browser used (its ``Host`` header), if this server answers at it."""
        address = parse_address(host or "")
        if address is None or self.names is None:
            return address
        if address.host in self.names and address.port == self.port:
            return address
        return None

    @staticmethod
    def same_origin(origin: str, address: Address) -> bool:
        """Whether ``origin`` is that of a page loaded from ``address`` (over http)."""
        scheme, separator, rest = origin.partition("://")
        return scheme.lower() == "http" and bool(separator) and parse_address(rest) == address

    def describe(self) -> str:
        """Where to open the app instead, for a refusal's text (names that reach the socket)."""
        return (
            f"http://{Address(self.bound, self.port)} or http://{Address('localhost', self.port)}"
        )
