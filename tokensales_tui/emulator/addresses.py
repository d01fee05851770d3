"""Blockchain addresses for the seed data and the emulator's checks.

The checks are the client's own (:mod:`tokensales_tui.checks`), so the emulator
rejects exactly what a careful form would, and reads chain names as the forms do
(``sol``, ``solana-devnet`` and ``solana:…`` are Solana); only one thing differs: a chain
the client does not know is taken to be EVM.
"""

from __future__ import annotations

from ..checks import chain_family, check_address, to_checksum_address

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

checksum = to_checksum_address


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
    """Why ``value`` is not an address on ``blockchain``, or None when it is one."""
    chain = "solana" if chain_family(blockchain) == "solana" else "ethereum"
    return check_address(value, chain)
