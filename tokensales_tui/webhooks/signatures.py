"""Signing a webhook delivery and judging a received one.

The interface leaves the signature scheme "not shown", so a receiver checks the schemes a
service is likely to use:

- **Standard Webhooks** — ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature:
  v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` (several signatures, space-separated).
- **Stripe-style** — ``Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body">``
  (any header whose value has that shape).
- **GitHub-style** — ``X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>``; it
  carries no time, so no tolerance applies.

A secret is tried as its raw text, and, when it starts with ``whsec_`` (or is base64 as a
whole), as the bytes that base64 decodes to. Every comparison is constant-time
(:func:`hmac.compare_digest`). Nothing here does IO.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..digits import ascii_int
from .headers import Headers, Repeated, header_bytes

DEFAULT_TOLERANCE = 300.0
"""Seconds a signed timestamp may differ from the receiver's clock (5 minutes)."""

STANDARD = "Standard Webhooks"
STRIPE = "Stripe-style"
GITHUB = "GitHub-style"

_STRIPE_SHAPE = re.compile(r"^\s*t=\d+\s*,.*\bv1=", re.ASCII)
_GITHUB_HEADER = "x-hub-signature-256"
_TIMESTAMP_DIGITS = 15
"""Longest timestamp read, in digits: thirty million years of seconds is plenty."""
_STANDARD_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
_ID_HEADERS = ("webhook-id", "x-github-delivery", "x-request-id", "idempotency-key")


def secret_keys(secret: str) -> list[tuple[str, bytes]]:
    """The keys a secret may stand for, each with how it was read.

    The raw text always; the base64 bytes after a ``whsec_`` prefix, or of the whole
    secret when it is valid base64.
    """
    keys = [("raw text", secret.encode("utf-8", "surrogatepass"))]
    encoded = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    how = "base64 after whsec_" if encoded is not secret else "base64"
    try:
        decoded = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        decoded = b""
    if decoded and decoded != keys[0][1]:
        keys.append((how, decoded))
    return keys


def signing_key(secret: str) -> bytes:
    """The key a sender uses: base64 after ``whsec_``, else the raw text."""
    keys = secret_keys(secret)
    if secret.startswith("whsec_") and len(keys) > 1:
        return keys[1][1]
    return keys[0][1]


def standard_signature(key: bytes, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value (``v1,<base64>``) of a Standard Webhooks delivery."""
    digest = hmac.new(key, _standard_signed(msg_id, timestamp, body), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def _standard_signed(msg_id: str, timestamp: int | str, body: bytes) -> bytes:
    """What a Standard Webhooks signature signs: the id as its bytes came (one that is not
    UTF-8 was read as Latin-1 text: :func:`.headers.header_text`), the timestamp, the body."""
    return header_bytes(msg_id) + f".{timestamp}.".encode("utf-8", "surrogatepass") + body


def standard_headers(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers signing ``body`` with ``secret``."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature(signing_key(secret), msg_id, timestamp, body),
    }


def stripe_signature(key: bytes, timestamp: int, body: bytes) -> str:
    """A Stripe-style header value ``t=…,v1=<hex>``."""
    digest = hmac.new(key, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def github_signature(key: bytes, body: bytes) -> str:
    """An ``X-Hub-Signature-256`` value ``sha256=<hex>``."""
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Verdict:
    """What a delivery's signature says.

    ``status`` is ``valid``, ``invalid``, ``unsigned`` (no signature header of a known
    scheme), ``unchecked`` (signed, but no secret to check it with) or ``error`` (listen
    failed before it could judge; the reason says how). ``scheme`` names the
    scheme found, ``reason`` says why it failed or how the secret was read; ``repeated``
    flags the id of a delivery whose signature held before (see :class:`SeenIds`).
    """

    status: str
    scheme: str | None
    reason: str
    repeated: bool = False
    delivery_id: str | None = None
    key_form: str | None = None
    """How the secret was read when the signature matched (``raw text``, ``base64`` …)."""
    repeat_unknown: bool = False
    """Its signature held, but its id could not be remembered (see :class:`SeenIds`):
    whether it repeats one that could not be remembered either is unknown."""

    @property
    def ok(self) -> bool:
        """Whether the signature matched and the delivery is known not to be a repeat."""
        return self.status == "valid" and not self.repeated and not self.repeat_unknown

    def label(self) -> str:
        """One short phrase for a list: ``valid · Standard Webhooks``, ``unsigned`` …"""
        if self.status == "valid":
            text = f"valid · {self.scheme}"
        elif self.status == "invalid":
            text = (
                f"invalid · {self.scheme}: {self.reason}"
                if self.scheme
                else f"invalid: {self.reason}"
            )
        elif self.status == "unchecked":
            text = f"unchecked · {self.scheme} (no secret)"
        elif self.status == "error":
            text = f"error: {self.reason}"
        else:
            text = "unsigned"
        if self.repeated:
            return f"repeated id · {text}"
        return f"repeat unknown · {text}" if self.repeat_unknown else text


class SeenIds:
    """The ids of deliveries whose signature held, to flag a copy of one.

    Only an id whose signature held is remembered: anyone may send unsigned deliveries
    with ids of their choosing, and 10,000 of them pushed out every id that mattered, so
    a signed delivery sent again (within the tolerance, still valid) was not flagged.
    Each id is kept at least ``keep`` seconds (twice the tolerance: a timestamp may be
    that far in the future, and its delivery valid for that long again); at most ``limit``
    ids are kept, the oldest past their time making room. When every one of them is still
    within its time, a new id is not remembered, and :meth:`remember` says so: its delivery
    is flagged (a copy of it would not be).
    """

    def __init__(self, limit: int = 10_000, keep: float = 2 * DEFAULT_TOLERANCE) -> None:
        self._ids: OrderedDict[str, float] = OrderedDict()
        """Each id, with the time until which it is kept, oldest first."""
        self.limit = limit
        self.keep = keep

    def __contains__(self, delivery_id: object) -> bool:
        return delivery_id in self._ids

    def remember(self, delivery_id: str, now: float) -> bool:
        """Remember ``delivery_id`` (a signature held) at ``now``; False when it could not
        be: ``limit`` ids are kept, none of them past its time."""
        until = now + self.keep
        if delivery_id in self._ids:
            self._ids[delivery_id] = max(until, self._ids[delivery_id])
            self._ids.move_to_end(delivery_id)
            return True
        while len(self._ids) >= self.limit:
            oldest, kept_until = next(iter(self._ids.items()))
            if kept_until > now:
                return False
            del self._ids[oldest]
        self._ids[delivery_id] = until
        return True


def verify(
    headers: Headers | Mapping[str, str] | Iterable[tuple[str, str]],
    body: bytes,
    secret: str | None,
    *,
    now: float,
    tolerance: float = DEFAULT_TOLERANCE,
    seen: SeenIds | None = None,
) -> Verdict:
    """Judge a delivery: which scheme signed it, and whether the signature holds.

    ``headers`` (pairs in the order received, or a mapping) may use any case. The first
    scheme whose header is present decides, unless the signature of another scheme
    present does not hold (then the delivery is invalid); a header a scheme signs with
    must come once, else the delivery is invalid (see :mod:`.headers`). With ``seen``, the
    delivery id (``webhook-id``, ``X-GitHub-Delivery`` …) of one whose signature holds is
    remembered, and any delivery carrying an id remembered is flagged as repeated, whatever
    its signature says.
    """
    given = Headers.of(headers)
    delivery_id = next((given.first(name) for name in _ID_HEADERS if given.first(name)), None)
    verdict = _judge(given, body, secret, now, tolerance)
    repeated = unremembered = False
    if seen is not None and delivery_id:
        repeated = delivery_id in seen
        if verdict.status == "valid":
            unremembered = not seen.remember(delivery_id, now)
    return Verdict(
        verdict.status,
        verdict.scheme,
        verdict.reason,
        repeated,
        delivery_id,
        verdict.key_form,
        repeat_unknown=unremembered and not repeated,
    )


def scheme_of(headers: Headers) -> str | None:
    """The scheme whose headers ``headers`` carry (the first of the three), if any."""
    return next(iter(schemes_of(headers)), None)


def schemes_of(headers: Headers) -> list[str]:
    """Every scheme whose headers ``headers`` carry, in the order they are judged."""
    found = []
    if "webhook-signature" in headers:
        found.append(STANDARD)
    if any(_STRIPE_SHAPE.match(value) for _, value in headers):
        found.append(STRIPE)
    if _GITHUB_HEADER in headers:
        found.append(GITHUB)
    return found


def _judge(
    headers: Headers, body: bytes, secret: str | None, now: float, tolerance: float
) -> Verdict:
    """The first scheme's verdict, unless another scheme the delivery also carries does
    not hold: a signature that fails is never outweighed by one that holds."""
    schemes = schemes_of(headers)
    if not schemes:
        # A sender that signs nothing may still send Standard Webhooks' id and timestamp
        # (the emulator does, for a webhook without a secret): unsigned, not invalid.
        came = [name for name in _STANDARD_HEADERS if name in headers]
        return Verdict(
            "unsigned",
            None,
            "no signature header (looked for webhook-signature, t=…,v1=… and X-Hub-Signature-256)"
            + (f"; {' and '.join(came)} came without one" if came else ""),
        )
    first = _judge_one(schemes[0], headers, body, secret, now, tolerance)
    if first.status != "valid":
        return first
    for scheme in schemes[1:]:
        if scheme == STRIPE and not any(
            "signature" in name.lower() and _STRIPE_SHAPE.match(value) for name, value in headers
        ):
            continue  # a t=…,v1=… value of a header that signs nothing (a trace context)
        other = _judge_one(scheme, headers, body, secret, now, tolerance)
        if other.status == "invalid":
            return Verdict("invalid", scheme, f"{other.reason} (while its {first.scheme} holds)")
    return first


def _judge_one(
    scheme: str, headers: Headers, body: bytes, secret: str | None, now: float, tolerance: float
) -> Verdict:
    try:
        if scheme == STANDARD:
            return _standard(headers, body, secret, now, tolerance)
        if scheme == STRIPE:
            return _stripe(_stripe_value(headers), body, secret, now, tolerance)
        return _github(headers.once(_GITHUB_HEADER) or "", body, secret)
    except Repeated as repeated:
        return Verdict("invalid", scheme, str(repeated))


def _stripe_value(headers: Headers) -> str:
    """The one header value shaped ``t=…,v1=…``; :class:`Repeated` if several are."""
    values = [value for _, value in headers if _STRIPE_SHAPE.match(value)]
    if len(values) > 1:
        raise Repeated("a t=…,v1=… signature", len(values))
    return values[0]


def _stale(timestamp: str, now: float, tolerance: float) -> str | None:
    """Why a signed timestamp is refused, or None when it is within the tolerance."""
    seconds = ascii_int(timestamp, _TIMESTAMP_DIGITS)
    if seconds is None:
        return f"timestamp {timestamp[:20]!r} is not a number of seconds"
    age = now - seconds
    if abs(age) <= tolerance:
        return None
    when = "old" if age > 0 else "in the future"
    return f"timestamp is {_duration(abs(age))} {when} (tolerance {_duration(tolerance)})"


def _duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _first_match(secret: str, given: list[bytes], compute: Callable[[bytes], bytes]) -> str | None:
    """How the secret was read when one of its keys signs to one of ``given``."""
    for how, key in secret_keys(secret):
        mine = compute(key)
        for candidate in given:
            if hmac.compare_digest(mine, candidate):
                return how
    return None


def _standard(
    headers: Headers, body: bytes, secret: str | None, now: float, tolerance: float
) -> Verdict:
    values = [headers.once(name) for name in _STANDARD_HEADERS]
    msg_id, timestamp, signature = values
    if not (msg_id and timestamp and signature):
        missing = [name for name, value in zip(_STANDARD_HEADERS, values, strict=True) if not value]
        return Verdict("invalid", STANDARD, "missing header " + ", ".join(missing))
    stale = _stale(timestamp, now, tolerance)
    if stale:
        return Verdict("invalid", STANDARD, stale)
    given = []
    for part in signature.split():
        version, _, value = part.partition(",")
        if version == "v1":
            try:
                given.append(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                continue
    if not given:
        return Verdict("invalid", STANDARD, "no v1 signature in webhook-signature")
    if not secret:
        return Verdict("unchecked", STANDARD, "no secret to check the signature with")
    signed = _standard_signed(msg_id, timestamp, body)
    how = _first_match(secret, given, lambda key: hmac.new(key, signed, hashlib.sha256).digest())
    if how is None:
        return Verdict(
            "invalid", STANDARD, "signature does not match (wrong secret or altered body)"
        )
    return Verdict("valid", STANDARD, f"secret read as {how}", key_form=how)


def _stripe(value: str, body: bytes, secret: str | None, now: float, tolerance: float) -> Verdict:
    fields: dict[str, list[str]] = {}
    for part in value.split(","):
        name, _, text = part.strip().partition("=")
        fields.setdefault(name, []).append(text)
    timestamp = fields.get("t", [""])[0]
    stale = _stale(timestamp, now, tolerance)
    if stale:
        return Verdict("invalid", STRIPE, stale)
    given = []
    for text in fields.get("v1", []):
        try:
            given.append(bytes.fromhex(text))
        except ValueError:
            continue
    if not given:
        return Verdict("invalid", STRIPE, "no hex v1 signature")
    if not secret:
        return Verdict("unchecked", STRIPE, "no secret to check the signature with")
    signed = f"{timestamp}.".encode() + body
    how = _first_match(secret, given, lambda key: hmac.new(key, signed, hashlib.sha256).digest())
    if how is None:
        return Verdict("invalid", STRIPE, "signature does not match (wrong secret or altered body)")
    return Verdict("valid", STRIPE, f"secret read as {how}", key_form=how)


def _github(value: str, body: bytes, secret: str | None) -> Verdict:
    algorithm, _, text = value.strip().partition("=")
    try:
        given = bytes.fromhex(text)
    except ValueError:
        given = b""
    if algorithm != "sha256" or not given:
        return Verdict("invalid", GITHUB, "X-Hub-Signature-256 is not sha256=<hex>")
    if not secret:
        return Verdict("unchecked", GITHUB, "no secret to check the signature with")
    how = _first_match(secret, [given], lambda key: hmac.new(key, body, hashlib.sha256).digest())
    if how is None:
        return Verdict("invalid", GITHUB, "signature does not match (wrong secret or altered body)")
    return Verdict("valid", GITHUB, f"secret read as {how}", key_form=how)


def resign(
    headers: list[tuple[str, str]],
    body: bytes,
    secret: str | None,
    verdict: Verdict,
    *,
    now: int,
) -> tuple[list[tuple[str, str]], bool]:
    """The headers of a delivery signed again at ``now``, and whether that was possible.

    Only a delivery whose signature matched ``secret`` is signed again, with the key form
    that matched; its id stays. Otherwise the headers come back as they were. The headers
    are read by the rule :func:`verify` judged them by (:mod:`.headers`), so the id signed
    is the one that was checked.
    """
    if verdict.status != "valid" or not secret or verdict.scheme is None:
        return list(headers), False
    key = dict(secret_keys(secret)).get(verdict.key_form or "", signing_key(secret))
    changed: list[tuple[str, str]] = []
    if verdict.scheme == STANDARD:
        try:
            msg_id = Headers(headers).once("webhook-id") or ""
        except Repeated:  # never judged valid: sent as received
            return list(headers), False
        for name, value in headers:
            if name.lower() == "webhook-timestamp":
                value = str(now)
            elif name.lower() == "webhook-signature":
                value = standard_signature(key, msg_id, now, body)
            changed.append((name, value))
    elif verdict.scheme == STRIPE:
        for name, value in headers:
            if _STRIPE_SHAPE.match(value):
                value = stripe_signature(key, now, body)
            changed.append((name, value))
    else:
        for name, value in headers:
            if name.lower() == _GITHUB_HEADER:
                value = github_signature(key, body)
            changed.append((name, value))
    return changed, True
