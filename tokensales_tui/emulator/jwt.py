"""HS256 JSON Web Tokens with the standard library: just what the emulator issues and checks."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

_HEADER = msgspec.json.encode({"alg": "HS256", "typ": "JWT"})


class TokenError(Exception):
    """A bearer token was refused; ``reason`` says whether it is invalid or expired."""

    def __init__(self, reason: Literal["invalid", "expired"], detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def sign(claims: Mapping[str, Any], key: bytes) -> str:
    """Encode ``claims`` as a compact JWT signed with HMAC-SHA256 under ``key``."""
    signing_input = _b64encode(_HEADER) + "." + _b64encode(msgspec.json.encode(claims))
    signature = hmac.new(key, signing_input.encode("ascii"), hashlib.sha256).digest()
    return signing_input + "." + _b64encode(signature)


def verify(token: str, key: bytes, *, now: float) -> dict[str, Any]:
    """Return the claims of ``token`` if it is signed under ``key`` and unexpired at ``now``.

    Raises:
        TokenError: the token is malformed, signed otherwise, not HS256, or expired.
    """
    parts = token.split(".")
    if len(parts) != 3:
        raise TokenError("invalid", "bearer token is not a JWT")
    header_b64, claims_b64, signature_b64 = parts
    try:
        header = msgspec.json.decode(_b64decode(header_b64))
        signature = _b64decode(signature_b64)
    except (ValueError, msgspec.DecodeError):
        raise TokenError("invalid", "bearer token is not a JWT") from None
    # Checking alg before the signature refuses "none" and algorithm-confusion tokens.
    if not isinstance(header, dict) or header.get("alg") != "HS256":
        raise TokenError("invalid", "bearer token is not signed with HS256")
    expected = hmac.new(key, f"{header_b64}.{claims_b64}".encode("ascii"), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise TokenError("invalid", "bearer token signature is invalid")
    try:
        claims = msgspec.json.decode(_b64decode(claims_b64))
    except (ValueError, msgspec.DecodeError):
        raise TokenError("invalid", "bearer token claims are not JSON") from None
    if not isinstance(claims, dict):
        raise TokenError("invalid", "bearer token claims are not an object")
    exp = claims.get("exp")
    if not isinstance(exp, int | float) or isinstance(exp, bool):
        raise TokenError("invalid", "bearer token has no expiry")
    if now >= exp:
        raise TokenError("expired", "bearer token has expired")
    verified: dict[str, Any] = claims
    return verified


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    try:
        raw = text.encode("ascii")
        return base64.urlsafe_b64decode(raw + b"=" * (-len(raw) % 4))
    except (UnicodeEncodeError, binascii.Error) as exc:
        raise ValueError("not base64url") from exc
