"""The name a browser saves a download under: how ``serve`` sends it, and which names
a browser would change.

``Content-Disposition: attachment; filename=Q3; final.csv`` is saved as ``Q3``: a name
sent unquoted ends at its first ``;``. :func:`content_disposition` sends it as RFC 6266
says, quoted (for the oldest readers) and as UTF-8 (RFC 8187, which every browser reads
first), so every character arrives.

A browser still saves some names under another one, whatever the header says: Chromium
writes ``a"b.csv`` as ``a_b.csv`` and ``.notes.csv`` as ``notes.csv`` (characters Windows
refuses in a name, invisible ones, a space, a dot or ``~`` at either end of a name), and other browsers do the like. :func:`browser_change` says why a name is
one of those, so that a message about a download names the file the person will find.
Nothing here imports Textual or a web library.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

__all__ = ["REPLACED", "browser_change", "content_disposition"]

REPLACED = '"*:<>?|/\\'
"""Characters a browser replaces in a download's name (Windows refuses them in one)."""

_INVISIBLE = frozenset({"Cc", "Cf"})
"""Unicode categories of control and format (bidi, zero-width) characters, which a
browser replaces too."""


def browser_change(name: str) -> str | None:
    """Why a browser would save a download named ``name`` under another name, as a
    clause; None when it keeps the name."""
    replaced = sorted({char for char in name if char in REPLACED})
    if replaced:
        return f"a browser puts _ in place of {' '.join(replaced)} in a file name"
    if any(unicodedata.category(char) in _INVISIBLE for char in name):
        return "a browser puts _ in place of invisible characters in a file name"
    for end in {name[:1], name[-1:]}:
        if end.isspace() or end in (".", "~"):
            return "a browser changes a file name that starts or ends with a space, a dot or ~"
    return None


def content_disposition(disposition: str, name: str) -> str:
    """A ``Content-Disposition`` header's value that gives ``name`` whole.

    ``filename*`` holds the name as UTF-8, percent-encoded (RFC 8187), and browsers take
    it; ``filename`` holds it quoted, with ``"`` and ``\\`` escaped and what is not
    printable ASCII as ``_``, for a reader that knows only that.
    """
    fallback = "".join(char if " " <= char <= "~" else "_" for char in name)
    quoted = fallback.replace("\\", "\\\\").replace('"', '\\"')
    encoded = quote(name, safe="", errors="replace")
    return f"{disposition}; filename=\"{quoted}\"; filename*=UTF-8''{encoded}"
