"""Whether an address is on this machine, decided without any name look-up."""

from __future__ import annotations

import errno
import ipaddress
import re
import socket
from urllib.parse import urlsplit, urlunsplit

from .web_urls import split_web_url

_IPV4_FORMS = re.compile(r"[0-9A-Fa-fXx.]+")
"""What an IPv4 address may be written with besides dotted decimal: 127.1, 0x7f.0.0.1,
2130706433, 0177.1 (the forms ``inet_aton`` reads, as the resolver does for ``bind``)."""


def ip_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address ``host`` names, in any form a socket takes it in; None for a name.

    Besides the usual forms (IPv6 in brackets too), the short and numeric forms of IPv4
    the resolver reads (``127.1``, ``0x7f.1``, ``2130706433``): a check of an address
    must read it as ``bind`` and ``connect`` will, or ``127.1`` passes for another machine.
    """
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if not _IPV4_FORMS.fullmatch(text):  # inet_aton would read "127.0.0.1 x" as 127.0.0.1
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


def without_root_dot(host: str) -> str:
    """``host`` without the one dot a fully qualified name may end with (``localhost.``,
    ``127.0.0.1.``): the same host, as browsers and resolvers read it."""
    return host[:-1] if host.endswith(".") and not host.endswith("..") else host


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback IP address (127.0.0.0/8, ::1, and
    127.0.0.0/8 mapped into IPv6), in any form :func:`ip_address` reads, with or without
    the dot of a fully qualified name (:func:`without_root_dot`)."""
    host = without_root_dot(host)
    if host.lower() == "localhost":
        return True
    address = ip_address(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address is not None and address.is_loopback


def is_every_address(host: str) -> bool:
    """Whether ``host`` is 0.0.0.0 or ``::`` (in any form :func:`ip_address` reads): a
    socket bound to it listens on every address."""
    address = ip_address(host)
    return address is not None and address.is_unspecified


def reachable_url(url: str) -> str:
    """``url`` of a socket from :func:`bind`, with this machine's loopback address in place
    of 0.0.0.0 or ``::``, which name no machine to connect to."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not is_every_address(host):
        return url
    loopback = "[::1]" if ":" in host else "127.0.0.1"
    return urlunsplit(parts._replace(netloc=f"{loopback}:{parts.port}"))


def local_target(url: str) -> str | None:
    """The URL to connect to when ``url`` is http(s) on this machine, else None.

    ``localhost`` becomes ``127.0.0.1``, so that no name is ever looked up (and the dot
    of a fully qualified name goes: ``127.0.0.1.`` is ``127.0.0.1``).
    """
    try:
        parts = split_web_url(url)  # a host other parsers read otherwise is not local
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # an UnclearAddress, or a port that is no number in range
        return None
    if parts.scheme not in ("http", "https") or not is_loopback_host(host):
        return None
    plain = without_root_dot(host)  # the name judged, never the dotted one looked up
    if plain.lower() == "localhost":
        plain = "127.0.0.1"
    if plain != host:
        netloc = plain + (f":{port}" if port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def reaches(url: str, sock: socket.socket) -> bool:
    """Whether a relay to ``url`` (connecting as :func:`local_target` says) arrives at the
    listening socket ``sock``.

    A socket bound to one address receives only what is sent to that address, in its
    family (127.0.0.1 receives nothing sent to 127.0.0.2 or ``::1``); one bound to 0.0.0.0
    what is sent to any IPv4 address of this machine; one bound to ``::`` what is sent to
    any address of this machine, IPv4 ones too unless it is IPv6-only. An IPv4 address
    written as IPv6 (``::ffff:127.0.0.1``) is the IPv4 one.
    """
    connect = local_target(url)
    if connect is None:
        return False  # never relayed to
    parts = split_web_url(connect)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    bound_host, bound_port = sock.getsockname()[:2]
    target = _ip(parts.hostname or "")
    bound = _ip(bound_host)
    if port != bound_port or target is None or bound is None:
        return False
    if not bound.is_unspecified:
        return target == bound
    if sock.family == socket.AF_INET6 and not sock.getsockopt(
        socket.IPPROTO_IPV6, socket.IPV6_V6ONLY
    ):
        return _is_own(target)  # both families
    return target.version == bound.version and _is_own(target)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address (an IPv4 one written as IPv6 as IPv4), if it is one."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_own(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``address`` is one of this machine's: a loopback one, or one a socket can
    be bound to (no other machine's can be)."""
    if address.is_loopback:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def bind(host: str, port: int) -> tuple[socket.socket, str]:
    """A TCP socket bound to ``host``:``port`` (0: a free port) and its ``http://`` URL.

    Raises OSError when the address cannot be had, a port outside 0–65535 and a host no
    socket takes (a NUL in it) among them; the socket is closed then.
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise OSError(errno.EINVAL, f"port {port}: choose 0 (a free port) to 65535")
    host = without_root_dot(host.strip("[]"))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    except (ValueError, TypeError, OverflowError) as error:  # what bind() says of odd values
        sock.close()
        raise OSError(errno.EINVAL, str(error)) from None
    bound = sock.getsockname()[1]
    url = f"http://[{host}]:{bound}" if family == socket.AF_INET6 else f"http://{host}:{bound}"
    return sock, url
