"""Webhook URLs and event names."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from ..web_urls import UnclearAddress, split_web_url
from .text import check_text, clip, split_list


def check_http_url(value: str) -> str | None:
    """Check for an absolute ``http://`` or ``https://`` address with a host.

    The host is the one the service's HTTP client will read (:mod:`.web_urls`): an address
    parsers read differently is refused, so the host judged here is the one delivered to.
    The message never repeats the address, which may carry credentials or a token.
    """
    text = value.strip()
    if not text:
        return "enter an address starting with https:// (or http://)"
    if problem := check_text(text, "the address"):
        return problem
    if any(ch.isspace() for ch in text):
        return "the address contains a space — remove it, or write it as %20"
    scheme, sep, _ = text.partition("://")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return "enter a full address starting with https:// (or http://)"
    if scheme.lower() not in ("http", "https"):
        return f"the address starts with {clip(scheme, 12)}:// — use https:// (or http://)"
    try:
        parts = split_web_url(text)
    except UnclearAddress as error:  # an unclosed [ of an IPv6 host among them
        return str(error)
    host = parts.hostname
    if not host:
        return "the address has no host — expected something like https://example.com/hook"
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return "the port must be a number from 1 to 65535"
    if not host.startswith("[") and ":" not in host and ".." in host.strip("."):
        return "the host has two dots in a row — check for a typo"
    return look_alike_host(host)


def look_alike_host(host: str) -> str | None:
    """Why ``host`` may pose as another (letters of several scripts in one name), or None.

    ``аpple.com`` with a Cyrillic ``а`` reads as apple.com; the message names the scripts
    and gives the form the address really has (punycode, ``xn--pple-43d.com``).
    """
    if host.isascii():
        return None
    for label in host.split("."):
        scripts = sorted({_script(ch) for ch in label if ch.isalpha()} - {""})
        if len(scripts) > 1:
            return (
                f"the host mixes {' and '.join(scripts)} letters, so it can pass for another"
                f" name; it is really {punycode(host)}"
            )
    return None


def punycode(host: str) -> str:
    """``host`` as DNS sees it: each non-ASCII label as ``xn--…``."""
    labels = []
    for label in host.split("."):
        if label.isascii():
            labels.append(label)
            continue
        try:
            labels.append("xn--" + label.encode("punycode").decode("ascii"))
        except UnicodeError:
            labels.append(label.encode("ascii", "backslashreplace").decode("ascii"))
    return ".".join(labels)


_EAST_ASIAN = frozenset({"Cjk", "Hiragana", "Katakana", "Hangul"})
"""Scripts one name mixes as a matter of course (日本語テスト): counted as one."""


def _script(char: str) -> str:
    # The first word of a letter's Unicode name is its script, near enough for names
    # that pose as others: LATIN, CYRILLIC, GREEK, ARMENIAN…
    name = unicodedata.name(char, "")
    script = name.split(" ", 1)[0].capitalize() if name else ""
    return "East Asian" if script in _EAST_ASIAN else script


# --------------------------------------------------------------------------- events


def parse_events(text: str) -> list[str]:
    """Split event names on commas and line breaks (:func:`.text.split_list`).

    Names are trimmed, empty ones dropped, and repeats removed keeping the first occurrence.
    """
    names: dict[str, None] = {}
    for part in split_list(text):
        name = part.strip()
        if name:
            names.setdefault(name, None)
    return list(names)


def check_events(text: str) -> str | None:
    """Require at least one event name, with no whitespace or control characters inside."""
    if problem := check_text(text, "the event list", multiline=True):
        return problem
    events = parse_events(text)
    if not events:
        return "enter at least one event name — separate several with commas or new lines"
    for name in events:
        if any(ch.isspace() for ch in name):
            return f"event names have no spaces: '{clip(name)}'"
    return None


def suggest_events(
    prefix_text: str, known: Iterable[str], *, limit: int | None = None
) -> list[str]:
    """Suggest known event names for the one being typed.

    The event being typed is the text after the last comma or line break. Names that start with
    it (ignoring case) come first, then names that contain it, each group in the order of
    ``known``. Names already entered earlier in ``prefix_text`` are left out.
    """
    parts = split_list(prefix_text)
    fragment = parts[-1].strip().casefold()
    taken = {part.strip().casefold() for part in parts[:-1]}
    starts: list[str] = []
    contains: list[str] = []
    for name in known:
        key = name.casefold()
        if not key or key in taken:
            continue
        taken.add(key)
        if key.startswith(fragment):
            starts.append(name)
        elif fragment in key:
            contains.append(name)
    suggestions = starts + contains
    return suggestions if limit is None else suggestions[:limit]
