"""Blockchain address formats: EIP-55 checksums for EVM chains, base58 for Solana."""

from __future__ import annotations

import re

from eth_hash.auto import keccak

_EVM = re.compile(r"0x[0-9a-fA-F]{40}")
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_SOLANA = re.compile(f"[{_BASE58}]{{32,44}}")


def checksum(address: str) -> str:
    """``address`` (0x + 40 hex digits) with EIP-55 mixed-case checksum."""
    digits = address[2:].lower()
    hashed = keccak(digits.encode("ascii")).hex()
    return "0x" + "".join(
        c.upper() if c.isalpha() and int(h, 16) >= 8 else c
        for c, h in zip(digits, hashed[:40], strict=True)
    )


def evm_from_bytes(raw: bytes) -> str:
    """The checksummed EVM address made of 20 bytes."""
    return checksum("0x" + raw.hex())


def solana_from_bytes(raw: bytes) -> str:
    """The base58 encoding of a 32-byte Solana public key."""
    number = int.from_bytes(raw, "big")
    out = ""
    while number:
        number, rest = divmod(number, 58)
        out = _BASE58[rest] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def address_problem(value: str, blockchain: str) -> str | None:
    """Why ``value`` is not an address on ``blockchain``, or None when it is one.

    Solana takes base58 keys; every other chain is taken to be EVM. An all-lower or
    all-upper EVM address carries no checksum; a mixed-case one must match EIP-55.
    """
    if blockchain.strip().lower() == "solana":
        return None if _SOLANA.fullmatch(value) else "must be a base58 Solana address"
    if not _EVM.fullmatch(value):
        return "must be an address of 0x and 40 hex digits"
    body = value[2:]
    if body != body.lower() and body != body.upper() and checksum(value) != value:
        return "has an invalid EIP-55 checksum"
    return None
