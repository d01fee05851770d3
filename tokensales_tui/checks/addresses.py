"""Chains and wallet addresses: EVM (EIP-55 checksums) and Solana (base58)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from eth_hash.auto import keccak

from .text import check_text, describe_char

ChainFamily = Literal["evm", "solana", "other"]

CHAIN_FAMILIES: Final[Mapping[str, ChainFamily]] = MappingProxyType(
    {
        "ethereum": "evm",
        "polygon": "evm",
        "base": "evm",
        "arbitrum": "evm",
        "optimism": "evm",
        "avalanche": "evm",
        "bsc": "evm",
        "immutable-zkevm": "evm",
        "polygon-zkevm": "evm",
        "zksync": "evm",
        "linea": "evm",
        "scroll": "evm",
        "blast": "evm",
        "zora": "evm",
        "mantle": "evm",
        "gnosis": "evm",
        "celo": "evm",
        "fantom": "evm",
        "solana": "solana",
    }
)
"""Address family of each well-known chain, by canonical name."""

KNOWN_CHAINS: Final[tuple[str, ...]] = tuple(CHAIN_FAMILIES)
"""Canonical names of well-known chains, for suggestions in the chain field."""

_CHAIN_ALIASES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "eth": "ethereum",
        "ether": "ethereum",
        "sepolia": "ethereum",
        "holesky": "ethereum",
        "hoodi": "ethereum",
        "goerli": "ethereum",
        "matic": "polygon",
        "pol": "polygon",
        "amoy": "polygon",
        "mumbai": "polygon",
        "sol": "solana",
        "bnb": "bsc",
        "binance": "bsc",
        "avax": "avalanche",
        "fuji": "avalanche",
        "arb": "arbitrum",
        "op": "optimism",
        "imx": "immutable-zkevm",
        "immutable": "immutable-zkevm",
        "xdai": "gnosis",
        "ftm": "fantom",
    }
)


def canonical_chain(name: str) -> str | None:
    """Map a chain name or alias to its canonical name in :data:`KNOWN_CHAINS`, if any.

    Case, spaces and underscores do not matter. Aliases (``eth``, ``matic``, ``sol``, ``bnb``,
    ``avax``, ``arb``, ``op``) and test networks (``sepolia``, ``amoy``, ``fuji``) are known;
    a name made of a known chain and a suffix (``base-sepolia``, ``solana-devnet``,
    ``arbitrum-one``, ``bnb-smart-chain``) maps to that chain.
    """
    key = re.sub(r"[\s_-]+", "-", name.strip().casefold()).strip("-")
    words = key.split("-")
    for end in range(len(words), 0, -1):
        head = "-".join(words[:end])
        head = _CHAIN_ALIASES.get(head, head)
        if head in CHAIN_FAMILIES:
            return head
    return None


@functools.lru_cache(maxsize=256)
def chain_family(name: str) -> ChainFamily:
    """Say which kind of address a chain uses: ``"evm"``, ``"solana"`` or ``"other"``.

    Besides the names :func:`canonical_chain` knows, CAIP-2 ids are read: ``eip155:137`` is EVM,
    ``solana:…`` is Solana.
    """
    lowered = name.strip().casefold()
    if lowered.startswith("eip155:"):
        return "evm"
    if lowered.startswith("solana:"):
        return "solana"
    canonical = canonical_chain(name)
    return "other" if canonical is None else CHAIN_FAMILIES[canonical]


# --------------------------------------------------------------------------- addresses


_EVM_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
EVM_ANY_CASE = re.compile(r"0[xX][0-9a-fA-F]{40}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_VALUE = {ch: index for index, ch in enumerate(_B58_ALPHABET)}
SOLANA_LIKE = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")


def to_checksum_address(address: str) -> str:
    """Return the EIP-55 mixed-case form of an EVM address.

    Each hex letter is upper-cased where the matching nibble of Keccak-256 (not SHA3-256) of
    the lower-case hex digits is 8 or more.

    Raises:
        ValueError: ``address`` is not ``0x`` followed by 40 hex digits.
    """
    if not _EVM_ADDRESS.fullmatch(address):
        raise ValueError("expected 0x followed by 40 hex digits")
    digits = address[2:].lower()
    digest = keccak(digits.encode("ascii")).hex()
    # hex digits sort as 0-9 < a-f, so ``>= "8"`` picks the nibbles 8 to f
    return "0x" + "".join(
        [ch.upper() if nibble >= "8" else ch for ch, nibble in zip(digits, digest, strict=False)]
    )


class Base58Error(ValueError):
    """A character outside the base58 alphabet; ``position`` counts from 1."""

    def __init__(self, char: str, position: int) -> None:
        super().__init__(f"{describe_char(char)} at position {position} is not a base58 character")
        self.char = char
        self.position = position


def b58decode(text: str) -> bytes:
    """Decode Bitcoin-alphabet base58 (no ``0``, ``O``, ``I`` or ``l``); leading ``1``s are zero bytes.

    Raises:
        Base58Error: a character is outside the alphabet.
    """
    number = 0
    for index, ch in enumerate(text):
        digit = _B58_VALUE.get(ch)
        if digit is None:
            raise Base58Error(ch, index + 1)
        number = number * 58 + digit
    zeros = len(text) - len(text.lstrip("1"))
    return bytes(zeros) + number.to_bytes((number.bit_length() + 7) // 8, "big")


def _check_evm_address(text: str) -> str | None:
    if text.startswith("0X"):
        return "start the address with a lower-case 0x"
    if not text.startswith("0x"):
        if len(text) == 40 and set(text) <= _HEX_DIGITS:
            return "the address is missing the 0x prefix — add 0x before the 40 hex digits"
        if SOLANA_LIKE.fullmatch(text):
            return (
                "this looks like a Solana address — this chain expects 0x followed by 40 hex digits"
            )
        return "the address must start with 0x, followed by 40 hex digits"
    digits = text[2:]
    for index, ch in enumerate("" if _EVM_ADDRESS.fullmatch(text) else digits):
        if ch not in _HEX_DIGITS:
            return (
                f"{describe_char(ch)} (position {index + 3}) is not a hex digit "
                "— after 0x an address uses only 0-9 and a-f"
            )
    if len(digits) != 40:
        return f"the address has {len(digits)} characters after 0x, expected 40 hex digits"
    if digits in (digits.lower(), digits.upper()):
        return None  # no checksum to verify in single-case form
    checksummed = to_checksum_address(text)
    if text != checksummed:
        return f"checksum does not match — check for a typo; the checksummed form is {checksummed}"
    return None


def _check_solana_address(text: str) -> str | None:
    if EVM_ANY_CASE.fullmatch(text):
        return "this looks like an EVM (0x) address — a Solana address is base58 text of 32–44 characters"
    try:
        decoded = b58decode(text)
    except Base58Error as exc:
        if exc.char in "0OIl":
            return (
                f"'{exc.char}' (position {exc.position}) cannot appear in a Solana address "
                "— base58 has no 0, O, I or l; check for a typo"
            )
        return (
            f"{describe_char(exc.char)} (position {exc.position}) is not allowed in a Solana "
            "address — it uses only letters and digits except 0, O, I and l"
        )
    if len(decoded) != 32:
        return (
            f"the address decodes to {len(decoded)} bytes, expected 32 — check for missing or extra "
            "characters "
            f"(it has {len(text)} characters; Solana addresses have 32–44)"
        )
    return None


def check_address(value: str, chain: str) -> str | None:
    """Check a wallet or contract address against the format of ``chain``'s family.

    EVM: ``0x`` and 40 hex digits; all-lower or all-upper case is accepted, mixed case must carry a
    valid EIP-55 checksum. Solana: base58 that decodes to 32 bytes. Other chains: not empty.
    """
    text = value.strip()
    if not text:
        return "enter an address"
    family = chain_family(chain)
    if family == "evm":
        return _check_evm_address(text)
    if family == "solana":
        return _check_solana_address(text)
    return check_text(text, "the address")
