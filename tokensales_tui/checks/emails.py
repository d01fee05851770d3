"""E-mail addresses, checked for syntax only (no DNS lookup)."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

from .text import check_text, clip


def check_email(value: str) -> str | None:
    """Check the syntax of an e-mail address (no DNS lookup), with email-validator's reason."""
    text = value.strip()
    if not text:
        return "enter an e-mail address"
    if problem := check_text(text, "the e-mail address"):
        return problem
    try:
        validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        message = str(exc).strip().rstrip(".") or "this is not a valid e-mail address"
        return clip(message[:1].lower() + message[1:], 120)
    return None
