"""The host of an http(s) address, as a browser or another server would read it — or why
the address is refused.

Python's ``urlsplit`` follows RFC 3986; browsers follow the WHATWG URL rules, and so do
many servers' HTTP clients. Where the two disagree, a host named to the user (the open-link
question, a look-alike warning) or judged by a check (a webhook URL, a profile's address,
whether a relay target is this machine) can differ from the host that is visited:
``https://evil.example\\@bank.example.com/`` is ``bank.example.com`` to ``urlsplit`` and
``evil.example`` to a browser, which reads ``\\`` as ``/``. Rather than copy a browser's
parser, every place that takes a host out of an address goes through :func:`split_web_url`,
which refuses the addresses the two read differently, saying why. Nothing here imports
Textual or loads a library.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import SplitResult, urlsplit

_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
"""What the WHATWG parser strips from both ends of an address without a word."""

_REMOVED_INSIDE = frozenset("\t\n\r")
"""What the WHATWG parser removes anywhere in an address: ``ht\\ttps://a\\n.example``
is ``https://a.example``."""

_DOTS = frozenset("\u3002\uff0e\uff61")
"""Full stops a browser maps to ``.`` in a host (IDNA): ``evil。example`` is evil.example."""

_NUMBER = re.compile(r"(?:0[xX][0-9A-Fa-f]*|[0-9]+)")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")


class UnclearAddress(ValueError):
    """An address whose host cannot be named with certainty; the message says why, and
    never repeats the address (it may hold a password or a token)."""

    def __init__(self, message: str, *, unmatched_bracket: bool = False) -> None:
        super().__init__(message)
        self.unmatched_bracket = unmatched_bracket
        """Whether ``urlsplit`` itself refused it (IPv6 written halfway), which callers
        name in words of their own."""


def split_web_url(url: str) -> SplitResult:
    """``url`` split as ``urlsplit`` does, once it is sure a browser reads the same host.

    Raises :class:`UnclearAddress` for an address a browser would read otherwise: one with
    a tab or line break anywhere, or a control character or space at either end (the WHATWG
    parser drops them silently); an http(s) address with a ``\\`` before its query or
    fragment (a browser's path separator, part of the user name to ``urlsplit``); a host
    holding ``%`` (decoded by a browser), a full stop of another script, characters
    NFKC maps to others (fullwidth letters, a small full stop), or a number
    written other than as four decimals (``0x7f.1`` and ``2130706433`` are 127.0.0.1 to a
    browser); an unmatched ``[`` or ``]``.
    """
    if url != url.strip(_C0_AND_SPACE):
        raise UnclearAddress("the address has spaces or control characters around it")
    if any(char in _REMOVED_INSIDE for char in url):
        raise UnclearAddress("the address holds a tab or line break, which browsers drop")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise UnclearAddress(
            "it is not a valid address (an unmatched [ or ])", unmatched_bracket=True
        ) from None
    if parts.scheme.lower() in ("http", "https"):
        before_query = re.split(r"[?#]", url, maxsplit=1)[0]
        if "\\" in before_query:
            raise UnclearAddress(
                "the address holds a \\ before its query, which browsers read as / —"
                " so the host they visit is not the one it seems to name"
            )
    host = parts.hostname or ""
    if "%" in host:
        raise UnclearAddress("the host holds %, which browsers decode into another name")
    if any(char in _DOTS for char in host):
        raise UnclearAddress(
            "the host holds a full stop of another script, which browsers read as '.'"
        )
    if not host.isascii() and unicodedata.normalize("NFKC", host) != host:
        # Fullwidth letters, a small full stop: a browser's IDNA mapping reads them as
        # the plain characters, so the name shown is not the name visited.
        raise UnclearAddress(
            "the host holds characters browsers map to others (fullwidth, compatibility forms)"
        )
    name = host.rstrip(".")
    last = name.rsplit(".", 1)[-1]
    if ":" not in host and _NUMBER.fullmatch(last) and not _DOTTED_QUAD.fullmatch(name):
        raise UnclearAddress(
            "the host is a number written in a form browsers read as another address"
        )
    return parts


def web_host(url: str) -> str:
    """The host ``url`` names (lower case, no port), as a browser reads it; "" for none.

    Raises :class:`UnclearAddress` as :func:`split_web_url` does.
    """
    return split_web_url(url).hostname or ""
