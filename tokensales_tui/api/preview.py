"""What a form is about to send, shown before it is sent: method, full URL, JSON body, curl.

A :class:`RequestPreview` is built from the operation's :class:`~.client.Endpoint`, the
profile's :class:`~.connection.Connection` and the request struct. The body is the struct as
plain JSON values (:func:`~.models.to_builtins`): the same fields in the same order as the
bytes :func:`~.models.encode` sends, except that every :class:`~.secret.Secret` is masked.
A body written by hand (:class:`~.written.WrittenBody`) is sent as written, so it is shown
as written: its text, each secret value masked in place.
Nothing here ever reveals a secret or the access token.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

import msgspec

from .connection import Connection
from .endpoints import Endpoint, url_of
from .models import to_builtins
from .written import WrittenBody

__all__ = ["Change", "RequestPreview", "shell_quote"]

PRETTY_WIDTH = 88
"""Columns a preview line may use before a container is spread over several lines."""

TOKEN_VARIABLE = "TOKENSALES_TOKEN"
"""The shell variable a copied curl command reads the access token from."""


def shell_quote(text: str) -> str:
    """``text`` as one POSIX shell word: single quotes, an inner ``'`` written ``'\\''``."""
    return "'" + text.replace("'", "'\\''") + "'"


@dataclass(frozen=True, slots=True)
class Change:
    """One field an update changes, for the before/after view of an edit.

    ``before`` and ``after`` are plain JSON values; a secret's are masked.
    """

    field: str
    before: Any
    after: Any
    secret: bool = False

    def describe(self) -> str:
        """One line such as ``events: + item.sold − item.created``."""
        if self.secret:
            return f"{self.field}: replaced (the new value is not shown)"
        if isinstance(self.before, list) and isinstance(self.after, list):
            added = [value for value in self.after if value not in self.before]
            removed = [value for value in self.before if value not in self.after]
            parts = [f"+ {value}" for value in added] + [f"− {value}" for value in removed]
            return f"{self.field}: " + ("  ".join(parts) if parts else "same names, new order")
        return f"{self.field}: {_show(self.before)} → {_show(self.after)}"


def _pretty(value: Any, indent: int, width: int, used: int = 0) -> Iterator[str]:
    """``value`` as JSON lines indented by ``indent``; ``used`` columns precede its first line.

    The outermost container is always spread out; an inner one stays on one line when
    it fits in ``width``. Lines are made as they are asked for, so showing the start of
    a body with 100,000 wallets costs no more than a short one.
    """
    if not isinstance(value, dict | list):
        # json, not msgspec: a lone surrogate typed into a field must not break the preview
        # (the form refuses to send it and says which field holds it).
        yield json.dumps(value, ensure_ascii=False)
        return
    if not value:
        yield "{}" if isinstance(value, dict) else "[]"
        return
    if (indent or used) and _room(value, width - indent - used) >= 0:
        inline = json.dumps(value, ensure_ascii=False)
        if indent + used + len(inline) <= width:
            yield inline
            return
    pad = " " * (indent + 2)
    entries = value.items() if isinstance(value, dict) else ((None, item) for item in value)
    last = len(value) - 1
    yield "{" if isinstance(value, dict) else "["
    for index, (key, item) in enumerate(entries):
        prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        lines = _pretty(item, indent + 2, width, len(prefix))
        previous = pad + prefix + next(lines)
        for line in lines:
            yield previous
            previous = line
        yield previous + ("," if index < last else "")
    yield " " * indent + ("}" if isinstance(value, dict) else "]")


def _room(value: Any, budget: int) -> int:
    """Roughly the columns left after ``value`` on one line; negative (early) when it is too long.

    Lets a huge list be spread out without first writing it out whole on one line.
    """
    if isinstance(value, dict):
        budget -= 2
        for key, item in value.items():
            budget = _room(item, budget - len(key) - 6)
            if budget < 0:
                break
        return budget
    if isinstance(value, list):
        budget -= 2
        for item in value:
            budget = _room(item, budget - 2)
            if budget < 0:
                break
        return budget
    return budget - len(str(value)) - 2


def _show(value: Any) -> str:
    return "(none)" if value in (None, "") else str(value)


@dataclass(frozen=True, slots=True)
class RequestPreview:
    """A request as it will be sent, with secrets masked.

    Attributes:
        method: the HTTP method.
        url: the full URL.
        body: the JSON body as plain values, or ``None`` for a request without one.
        changes: for an update, the fields it changes (shown as a before/after diff).
        written: the text of a body sent as written, secret values masked; shown
            instead of ``body``, which is then ``None``.
    """

    method: str
    url: str
    body: Any = None
    changes: tuple[Change, ...] = ()
    written: str | None = None

    @classmethod
    def build(
        cls,
        endpoint: Endpoint,
        connection: Connection,
        body: Any = None,
        *,
        changes: Iterable[Change] = (),
    ) -> RequestPreview:
        """The preview of sending ``body`` (a request struct, a list of them, or a body
        written by hand) to ``endpoint``."""
        url = url_of(connection, endpoint)
        if isinstance(body, WrittenBody):
            return cls(endpoint.method, url, changes=tuple(changes), written=body.masked())
        return cls(
            endpoint.method, url, None if body is None else to_builtins(body), tuple(changes)
        )

    @property
    def request_line(self) -> str:
        """``POST https://host/path``."""
        return f"{self.method} {self.url}"

    def body_json(self, width: int = PRETTY_WIDTH) -> str:
        """The body as indented JSON, short arrays and objects on one line (empty without
        one); a body sent as written as its text."""
        if self.written is not None:
            return self.written
        if self.body is None:
            return ""
        return "\n".join(_pretty(self.body, 0, width))

    def body_start(self, lines: int, width: int = PRETTY_WIDTH) -> tuple[str, bool]:
        """The first ``lines`` lines of :meth:`body_json`, and whether more follow."""
        if self.written is not None:
            shown = self.written.split("\n")
            return "\n".join(shown[:lines]), len(shown) > lines
        if self.body is None:
            return "", False
        shown = list(islice(_pretty(self.body, 0, width), lines + 1))
        return "\n".join(shown[:lines]), len(shown) > lines

    def as_text(self) -> str:
        """The request line, the changes of an update, then the body."""
        parts = [self.request_line]
        if self.changes:
            parts.append("\n".join(change.describe() for change in self.changes))
        if self.body is not None or self.written is not None:
            parts.append(self.body_json())
        return "\n\n".join(parts)

    def as_curl(self) -> str:
        """The request as a one-line curl command.

        The access token is read from ``$TOKENSALES_TOKEN`` (in double quotes, so the shell
        expands it); nothing in the command is a credential. Secret values in the body stay
        masked as in the preview: the user types the secret in themselves, so a copied
        command never carries it to the clipboard, a terminal's scrollback or a chat.
        """
        words = [
            "curl",
            "-X",
            self.method,
            shell_quote(self.url),
            "-H",
            f'"Authorization: Bearer ${TOKEN_VARIABLE}"',
        ]
        if self.body is not None or self.written is not None:
            compact = (
                self.written
                if self.written is not None
                else msgspec.json.encode(self.body).decode()
            )
            words += ["-H", shell_quote("Content-Type: application/json")]
            words += ["--data", shell_quote(compact)]
        return " ".join(words)
