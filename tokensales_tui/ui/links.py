"""Opening addresses that came from the server, carefully.

Only ``http``/``https`` addresses are ever opened. The full address is shown
before anything happens, and where no browser can appear (an SSH session, no
display) the address is copied instead of launched.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from ..web_urls import UnclearAddress, split_web_url


def link_problem(url: str) -> str | None:
    """Why ``url`` must not be opened, or None when it is an http(s) address with a host.

    The host is read as the browser will read it (:func:`.web_urls.split_web_url`): an
    address the two could read differently is refused, so the host the question names is
    the one visited.
    """
    try:
        parts = split_web_url(url)
    except UnclearAddress as error:
        return str(error)
    if parts.scheme.lower() not in {"http", "https"}:
        scheme = parts.scheme or "no scheme"
        return f"only http and https addresses are opened, not {scheme}"
    if not parts.hostname:
        return "the address has no host"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return "the address contains control characters"
    return None


def can_launch_browser(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a browser started here would appear in front of the user.

    Over SSH the browser would open on the remote machine, out of sight; on Linux
    without ``DISPLAY``/``WAYLAND_DISPLAY`` there is no screen at all.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"):
        return False
    if platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
