"""Checks and parsers for what people type into the forms: URLs, events, addresses, lists.

Everything here is pure and free of Textual (only :func:`load_list_file` reads a file), so the
forms, a command line and the tests share one set of rules.

Conventions:

* A ``check_*`` function returns ``None`` when the value is fine, else one message a person can act
  on: what is wrong and what is expected. Messages start in lower case so that a form can put the
  field's label in front. They never repeat a secret, and never repeat a URL (it may hold a token).
* Checks judge the value without surrounding whitespace; forms should send ``value.strip()``.
* Positions in messages count characters from 1, as a person counts.
* Parsers return lists or small dataclasses. :func:`load_list_file` raises :class:`ListFileError`,
  whose ``str()`` is the message to show.
"""

from __future__ import annotations

import codecs
import csv
import functools
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal
from urllib.parse import urlsplit

from email_validator import EmailNotValidError, validate_email
from eth_hash.auto import keccak

# --------------------------------------------------------------------------- text


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_MULTILINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _describe_char(ch: str) -> str:
    """Name a character for a message without letting it disturb the terminal."""
    if ch == " ":
        return "a space"
    if ch.isprintable():
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"


def _clip(text: str, limit: int = 40) -> str:
    """Shorten ``text`` for a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_text(value: str, field: str, *, multiline: bool = False) -> str | None:
    """Flag characters that cannot be sent or that would corrupt the display.

    Args:
        value: the text as typed or pasted.
        field: how the message names the field, e.g. ``"the name"``.
        multiline: allow tab and line breaks (CR, LF), as in a text area.

    Returns:
        ``None`` when the text is fine; otherwise a message giving the 1-based position. A lone
        surrogate (what a broken paste or a bad file name can produce) cannot be encoded as UTF-8.
        C0 controls, DEL and C1 controls (ESC among them) are refused too. The message never
        repeats the character, so it is safe for secrets.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"{field} contains a character that cannot be sent (position {exc.start + 1}) "
            "— delete it and type it again"
        )
    found = (_CONTROL_MULTILINE if multiline else _CONTROL).search(value)
    if found is None:
        return None
    what = {"\t": "a tab", "\n": "a line break", "\r": "a line break"}.get(
        found.group(), "a control character"
    )
    return f"{field} contains {what} (position {found.start() + 1}) — remove it"


# --------------------------------------------------------------------------- URLs


def check_http_url(value: str) -> str | None:
    """Check for an absolute ``http://`` or ``https://`` address with a host.

    The message never repeats the address, which may carry credentials or a token.
    """
    text = value.strip()
    if not text:
        return "enter an address starting with https://"
    if problem := check_text(text, "the address"):
        return problem
    if any(ch.isspace() for ch in text):
        return "the address contains a space — remove it, or write it as %20"
    scheme, sep, _ = text.partition("://")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return "enter a full address starting with https://"
    if scheme.lower() not in ("http", "https"):
        return f"the address starts with {_clip(scheme, 12)}:// — use https:// (or http://)"
    try:
        parts = urlsplit(text)
    except ValueError:  # an unclosed [ of an IPv6 host
        return "the host of the address is not valid — expected https://host[:port]/path"
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
    return None


# --------------------------------------------------------------------------- events


_EVENT_SEPARATOR = re.compile(r"[,\r\n]")


def parse_events(text: str) -> list[str]:
    """Split event names on commas and line breaks.

    Names are trimmed, empty ones dropped, and repeats removed keeping the first occurrence.
    """
    names: dict[str, None] = {}
    for part in _EVENT_SEPARATOR.split(text):
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
            return f"event names have no spaces: '{_clip(name)}'"
    return None


def suggest_events(
    prefix_text: str, known: Iterable[str], *, limit: int | None = None
) -> list[str]:
    """Suggest known event names for the one being typed.

    The event being typed is the text after the last comma or line break. Names that start with
    it (ignoring case) come first, then names that contain it, each group in the order of
    ``known``. Names already entered earlier in ``prefix_text`` are left out.
    """
    parts = _EVENT_SEPARATOR.split(prefix_text)
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


# --------------------------------------------------------------------------- chains


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
_EVM_ANY_CASE = re.compile(r"0[xX][0-9a-fA-F]{40}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_VALUE = {ch: index for index, ch in enumerate(_B58_ALPHABET)}
_SOLANA_LIKE = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")


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
        super().__init__(f"{_describe_char(char)} at position {position} is not a base58 character")
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
        if _SOLANA_LIKE.fullmatch(text):
            return (
                "this looks like a Solana address — this chain expects 0x followed by 40 hex digits"
            )
        return "the address must start with 0x, followed by 40 hex digits"
    digits = text[2:]
    for index, ch in enumerate("" if _EVM_ADDRESS.fullmatch(text) else digits):
        if ch not in _HEX_DIGITS:
            return (
                f"{_describe_char(ch)} (position {index + 3}) is not a hex digit "
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
    if _EVM_ANY_CASE.fullmatch(text):
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
            f"{_describe_char(exc.char)} (position {exc.position}) is not allowed in a Solana "
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


# --------------------------------------------------------------------------- e-mail, names


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
        return _clip(message[:1].lower() + message[1:], 120)
    return None


COLLECTION_NAME_LIMIT: Final = 24
"""Longest collection name that checkout modals show in full."""


def check_collection_name(value: str) -> tuple[str | None, str | None]:
    """Check a collection name; returns ``(error, warning)``.

    A name is required. Past :data:`COLLECTION_NAME_LIMIT` characters it is accepted with a
    warning, since checkout modals cut it off.
    """
    name = value.strip()
    if not name:
        return "enter a name for the collection", None
    if problem := check_text(name, "the name"):
        return problem, None
    if len(name) > COLLECTION_NAME_LIMIT:
        return None, (
            "long names are cut off in checkout modals — keep it to "
            f"{COLLECTION_NAME_LIMIT} characters or fewer (now {len(name)})"
        )
    return None, None


# --------------------------------------------------------------------------- lists


def _split_lines(text: str) -> list[str]:
    """Split on CRLF, CR or LF only, so numbers match what an editor shows."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def parse_lines(text: str) -> list[str]:
    """One value per line, trimmed; blank lines are skipped."""
    return [stripped for line in _split_lines(text) if (stripped := line.strip())]


def dedupe_key(value: str) -> str:
    """The key under which two list entries count as the same.

    EVM addresses and e-mail addresses compare ignoring case; anything else (a base58 Solana
    address, say) compares exactly.
    """
    text = value.strip()
    if "@" in text or _EVM_ANY_CASE.fullmatch(text):
        return text.casefold()
    return text


def find_duplicates(values: Iterable[str]) -> list[str]:
    """Return every entry that repeats an earlier one (by :func:`dedupe_key`), in order."""
    seen: set[str] = set()
    repeats: list[str] = []
    for value in values:
        key = dedupe_key(value)
        if key in seen:
            repeats.append(value)
        else:
            seen.add(key)
    return repeats


@dataclass(frozen=True, slots=True)
class LineProblem:
    """One list entry that was refused, with its line number (from 1)."""

    line_no: int
    value: str
    message: str


@dataclass(frozen=True, slots=True)
class ListReport:
    """The outcome of checking a list.

    Attributes:
        valid: the valid entries to send, trimmed, first occurrences only.
        problems: invalid entries with the reason.
        duplicates: valid entries that repeat an earlier one; the message names that line.
    """

    valid: list[str]
    problems: list[LineProblem]
    duplicates: list[LineProblem]

    @property
    def summary(self) -> str:
        """One line such as ``1,204 valid, 3 invalid, 2 duplicates``."""
        repeats = len(self.duplicates)
        return (
            f"{len(self.valid):,} valid, {len(self.problems):,} invalid, "
            f"{repeats:,} duplicate{'' if repeats == 1 else 's'}"
        )


def check_list(
    values: Sequence[str],
    check: Callable[[str], str | None],
    *,
    line_numbers: Sequence[int] | None = None,
) -> ListReport:
    """Check each entry with ``check`` and find repeats among the valid ones.

    Args:
        values: the entries, e.g. from :func:`parse_lines` or :func:`load_list_file`.
        check: a validator such as ``check_email`` or ``lambda v: check_address(v, chain)``.
        line_numbers: the source line of each entry; by default its position from 1.
    """
    if line_numbers is not None and len(line_numbers) != len(values):
        raise ValueError("line_numbers must have one number per value")
    valid: list[str] = []
    problems: list[LineProblem] = []
    duplicates: list[LineProblem] = []
    first_line: dict[str, int] = {}
    for index, raw in enumerate(values):
        line_no = index + 1 if line_numbers is None else line_numbers[index]
        value = raw.strip()
        message = check(value)
        if message is not None:
            problems.append(LineProblem(line_no, value, message))
            continue
        key = dedupe_key(value)
        first = first_line.get(key)
        if first is not None:
            duplicates.append(LineProblem(line_no, value, f"already listed on line {first}"))
            continue
        first_line[key] = line_no
        valid.append(value)
    return ListReport(valid, problems, duplicates)


# --------------------------------------------------------------------------- list files


MAX_LIST_FILE_BYTES: Final = 50 * 1024 * 1024
"""Largest list file :func:`load_list_file` reads."""

_HEADER_NAMES: Final[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = (
    # (exact header names, words a header may contain), normalised: lower case, letters/digits
    (
        ("wallet", "wallets", "walletaddress", "walletaddresses", "address", "addresses"),
        ("wallet",),
    ),
    (("email", "emails", "emailaddress", "emailaddresses", "mail"), ("email", "mail")),
)


def _normalise_header(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _header_names(column_hint: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    hint = _normalise_header(column_hint)
    if not hint:
        return (), ()
    for exact, words in _HEADER_NAMES:
        if hint in exact or hint.removesuffix("s") in exact:
            return exact, words
    return (hint, hint + "s"), (hint,)


def _header_rank(cell: str, names: tuple[tuple[str, ...], tuple[str, ...]]) -> int | None:
    """How well a header cell matches the hint: lower is better, ``None`` is no match."""
    exact, words = names
    key = _normalise_header(cell)
    if not key:
        return None
    if key in exact:
        return exact.index(key)
    return len(exact) if any(word in key for word in words) else None


def _looks_like_value(cell: str) -> bool:
    text = cell.strip()
    return "@" in text or text[:2] in ("0x", "0X") or bool(_SOLANA_LIKE.fullmatch(text))


def _unquote(cell: str) -> str:
    if len(cell) >= 2 and cell[0] == cell[-1] == '"':
        return cell[1:-1].replace('""', '"').strip()
    return cell


def _guess_delimiter(line: str) -> str | None:
    """The most frequent of comma, tab and semicolon on the first line, if any."""
    counts = {sep: line.count(sep) for sep in (",", "\t", ";")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else None


class ListFileError(Exception):
    """A list file could not be read; ``str(error)`` is the message to show."""


@dataclass(frozen=True, slots=True)
class ImportedList:
    """Values read from a list file, each with the line it came from (counting from 1).

    Attributes:
        path: the file read, with ``~`` expanded.
        values: the non-blank values, trimmed.
        line_numbers: the source line of each value.
        column: the header of the column read, or ``None`` when there was no header.
        warning: something the person should know, such as which column was read when none
            matched the hint.
        missing_lines: CSV rows with other content but an empty cell in the column read.
    """

    path: Path
    values: list[str]
    line_numbers: list[int]
    column: str | None = None
    warning: str | None = None
    missing_lines: list[int] = field(default_factory=list)

    def check(self, check: Callable[[str], str | None]) -> ListReport:
        """Run :func:`check_list` over the values with their source line numbers."""
        return check_list(self.values, check, line_numbers=self.line_numbers)


def _read_text(path: Path) -> str:
    shown = str(path)
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise ListFileError(f"there is no file at {shown} — check the path") from None
    except PermissionError:
        raise ListFileError(f"cannot open {shown}: permission denied") from None
    except OSError as exc:
        raise ListFileError(f"cannot open {shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ListFileError(f"{shown} is a folder — choose a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise ListFileError(f"{shown} is not a regular file — choose a text or CSV file")
    too_big = ListFileError(
        f"{shown} is larger than {MAX_LIST_FILE_BYTES // 2**20} MB — split the list into smaller files"
    )
    if info.st_size > MAX_LIST_FILE_BYTES:
        raise too_big
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_LIST_FILE_BYTES + 1)
    except PermissionError:
        raise ListFileError(f"cannot read {shown}: permission denied") from None
    except OSError as exc:
        raise ListFileError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if len(data) > MAX_LIST_FILE_BYTES:
        raise too_big

    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ListFileError(
            f"{shown} is saved as UTF-16 — save it as UTF-8 (CSV UTF-8) and try again"
        )
    if data.startswith(b"PK\x03\x04"):
        raise ListFileError(f"{shown} is a spreadsheet or archive — export it as CSV (UTF-8) first")
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[skipped:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = skipped + exc.start
        line = data.count(b"\n", 0, offset) + 1
        raise ListFileError(
            f"{shown} is not UTF-8 text: byte 0x{data[offset]:02X} at offset {offset} "
            f"(line {line}) cannot be read — save the file as UTF-8 (CSV UTF-8) and try again"
        ) from None
    if "\x00" in text:
        raise ListFileError(
            f"{shown} contains NUL bytes, so it is not a text list — choose a text or CSV file"
        )
    return text


def load_list_file(path: str | Path, *, column_hint: str) -> ImportedList:
    """Read a list of wallets or e-mails from a text or CSV file.

    The file is UTF-8 (a BOM is ignored), at most :data:`MAX_LIST_FILE_BYTES`, with any line
    endings. If its first non-blank line holds a comma, tab or semicolon it is read as CSV with
    that delimiter; otherwise it is one value per line. A first row counts as a header when a cell
    matches ``column_hint`` (``"wallet"`` also matches wallets/address/Wallet Address, ``"email"``
    also e-mail/emails/Email Address) or, for CSV, when none of its cells looks like an address or
    e-mail. The column whose header matches best is read; failing that, the first column whose
    first cell looks like a value, else the first column. Values are not validated here: pass the
    result to :meth:`ImportedList.check`.

    Raises:
        ListFileError: the file is missing, a folder, unreadable, too large, or not UTF-8 text.
    """
    resolved = Path(path).expanduser()
    lines = _split_lines(_read_text(resolved))
    names = _header_names(column_hint)
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start == len(lines):
        return ImportedList(resolved, [], [])
    first = lines[start]
    delimiter = _guess_delimiter(first)

    if delimiter is None:
        header = _unquote(first.strip())
        has_header = _header_rank(header, names) is not None
        values: list[str] = []
        numbers: list[int] = []
        for index in range(start + 1 if has_header else start, len(lines)):
            value = _unquote(lines[index].strip())
            if value:
                values.append(value)
                numbers.append(index + 1)
        return ImportedList(resolved, values, numbers, header if has_header else None)

    reader = csv.reader(lines[start:], delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    consumed = 0
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((start + consumed + 1, row))
            consumed = reader.line_num
    except csv.Error as exc:
        raise ListFileError(
            f"{resolved} cannot be read as CSV at line {start + consumed + 1}: {exc}"
        ) from None
    if not rows:
        return ImportedList(resolved, [], [])
    head = [cell.strip() for cell in rows[0][1]]
    ranks = [
        (rank, i) for i, cell in enumerate(head) if (rank := _header_rank(cell, names)) is not None
    ]
    has_header = bool(ranks) or not any(_looks_like_value(cell) for cell in head)
    data_rows = rows[1:] if has_header else rows
    warning = None
    if ranks:
        column = min(ranks)[1]
    else:
        sample = data_rows[0][1] if data_rows else []
        column = next((i for i, cell in enumerate(sample) if _looks_like_value(cell)), 0)
        if has_header and column < len(head):
            unnamed = f"no column is named like '{_clip(column_hint.strip(), 20)}' — "
            warning = (
                f"{unnamed if column_hint.strip() else ''}"
                f"reading column {column + 1} ('{_clip(head[column], 30)}')"
            )
    values = []
    numbers = []
    missing: list[int] = []
    for line_no, row in data_rows:
        cell = row[column].strip() if column < len(row) else ""
        if cell:
            values.append(cell)
            numbers.append(line_no)
        else:
            missing.append(line_no)
    header_name = head[column] if has_header and column < len(head) else None
    return ImportedList(resolved, values, numbers, header_name, warning, missing)


# --------------------------------------------------------------------------- payouts


PAYOUT_TYPES: Final[tuple[str, ...]] = ("free", "fiat", "stablecoin", "native")
"""Payout types offered in the form; the interface names only ``free``, others are accepted."""

DETAIL_FIELDS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = MappingProxyType(
    {
        "free": (),
        "fiat": (("provider", "Provider"), ("paymentProviderId", "Payment provider ID")),
        "stablecoin": (
            ("blockchainId", "Blockchain"),
            ("tokenId", "Token ID"),
            ("spender", "Spender address"),
        ),
        "native": (("blockchainId", "Blockchain"),),
    }
)
"""``(wire name, label)`` of the detail fields for each payout type.

The interface lists the detail objects but not which type uses which; this pairing is read from
their names (``fiatDetails`` for ``fiat`` and so on).
"""

DETAILS_KEYS: Final[Mapping[str, str]] = MappingProxyType(
    {"fiat": "fiatDetails", "stablecoin": "stablecoinDetails", "native": "nativeDetails"}
)
"""The request-body key that holds each payout type's details."""


def detail_fields(payout_type: str) -> tuple[tuple[str, str], ...]:
    """The detail fields for ``payout_type`` (case-insensitive); none for unknown types."""
    return DETAIL_FIELDS.get(payout_type.strip().lower(), ())


def check_payout_type(value: str) -> str | None:
    """Require a payout type; values beyond :data:`PAYOUT_TYPES` may use letters, digits, ``_``, ``-``."""
    text = value.strip()
    if not text:
        return "choose a payout type: " + ", ".join(PAYOUT_TYPES[:-1]) + f" or {PAYOUT_TYPES[-1]}"
    bad = re.search(r"[^A-Za-z0-9_-]", text)
    if bad:
        return (
            f"{_describe_char(bad.group())} (position {bad.start() + 1}) is not allowed "
            "— a payout type uses only letters a-z, digits, _ and -"
        )
    return None
