"""Reading the response bodies the interface does not fix.

The interface leaves several shapes open ("not shown"). Each function here accepts
the shapes real servers commonly send and raises :class:`UnexpectedResponse` for
anything else; the README lists the choices under "How the gaps in the interface
are handled".
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import msgspec
from msgspec.structs import astuple

from ..clean import shorten
from ..digits import ascii_int, ascii_number
from .body_text import data_body, describe_body, without_bom
from .errors import UnexpectedResponse

TOKEN_KEYS = ("accessToken", "access_token", "token", "jwt")
EXPIRY_KEYS = ("expiresIn", "expires_in")
LIST_KEYS = ("items", "data", "results", "assets", "collections")
COLLECTION_ID_KEYS = ("id", "_id", "tokenId", "token_id", "collectionId")
ASSET_ID_KEYS = ("id", "_id", "assetId", "asset_id")
MESSAGE_KEYS = ("message", "error", "detail", "title", "error_description")
MAX_MESSAGE = 300
ERROR_MARKS = ("success", "error", "errors")
"""Members that make a successful list body an error (:func:`carried_error`)."""
JSON_SPACE = b" \t\n\r"
"""The only white space JSON allows around a value (RFC 8259): nothing else may come
before or after a body's value, in any route that reads one."""

T = TypeVar("T")


class ErrorInBody(ValueError):
    """A successful answer whose body reports a failure (:func:`carried_error`)."""


def as_read(body: bytes) -> bytes:
    """``body`` as every route reads it: without a byte order mark, each escaped lone
    surrogate as U+FFFD (:func:`repair_surrogates`)."""
    body = without_bom(body)
    if body.find(b"\\u") < 0:
        return body
    return repair_surrogates(body) or body


# A \uXXXX escape of a surrogate, or a pair of them, not itself escaped (\\ud800 is text).
_SURROGATE_ESCAPES = re.compile(
    rb"(?<!\\)((?:\\\\)*)"
    rb"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)


def repair_surrogates(body: bytes) -> bytes | None:
    """``body`` with each escaped lone surrogate (``\\ud800``) written as U+FFFD, or None
    when it holds none.

    JSON allows such escapes and JavaScript servers send them; they are no text, so a
    strict decoder refuses the whole body for one of them.
    """
    found = False

    def replace(match: re.Match[bytes]) -> bytes:
        nonlocal found
        if len(match[2]) == 12:  # a high and a low surrogate: one character
            return match[0]
        found = True
        return match[1] + b"\\ufffd"

    repaired = _SURROGATE_ESCAPES.sub(replace, body)
    return repaired if found else None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(value: Any) -> Any:
    """``value`` (decoded JSON) with each lone surrogate of its strings and keys as
    U+FFFD, as every route reads one a server escapes (:func:`repair_surrogates`): no
    UTF-8 holds one, so no encoder writes it. For values that do not come from a
    server's JSON (an argument that is not UTF-8, a file a person wrote)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_surrogates(item) for item in value]
    return value


class Members(dict[str, Any]):
    """A decoded object that names members more than once: the last value of each, as
    every decoder here reads it, and in :attr:`twice` the names given more than once."""

    __slots__ = ("twice",)

    def __init__(self, pairs: list[tuple[str, Any]], twice: frozenset[str]) -> None:
        super().__init__(pairs)
        self.twice = twice


def twice_in(members: Mapping[str, Any]) -> frozenset[str]:
    """The names ``members`` gave more than once (:class:`Members`); none for a plain dict."""
    return getattr(members, "twice", frozenset())


def _noting_repeats(pairs: list[tuple[str, Any]]) -> Any:
    members = dict(pairs)
    if len(members) == len(pairs):
        return members
    return Members(pairs, _given_twice(key for key, _ in pairs))


def _given_twice(keys: Iterable[str]) -> frozenset[str]:
    seen: set[str] = set()
    twice: set[str] = set()
    for key in keys:
        (twice if key in seen else seen).add(key)
    return frozenset(twice)


class _Pairs(list[tuple[str, Any]]):
    """An object's members in order, repeats kept (:func:`repeated`)."""


# An escape, then the rest of its string to the end, and the colon that makes it a key
# when there is one: only a key holding an escape can hide one of the names looked for
# from a search for their plain text. Possessive, and each search starts past the string
# before, so a body is read once: a search from every escape read a string of many
# escapes again from each, for hours.
_ESCAPE = re.compile(rb"\\u[0-9a-fA-F]{4}")
_TO_STRING_END = re.compile(rb'(?:[^"\\]|\\.)*+"[ \t\n\r]*+(:)?')


def may_repeat(text: Any, names: Iterable[str]) -> bool:
    """Whether a JSON object in ``text`` may give one of ``names`` more than once: one of
    them written twice anywhere, or a key written with an escape. Never wrong when it
    says no; a yes is checked by decoding (:func:`repeated`, :func:`decode_json`)."""
    for name in dict.fromkeys(names):
        quoted = b'"' + name.encode() + b'"'
        first = text.find(quoted)
        if first >= 0 and text.find(quoted, first + 1) >= 0:
            return True
    return _escaped_key(text)


def _escaped_key(text: Any) -> bool:
    """Whether a key of the JSON text ``text`` holds an escape (a backslash and "u")."""
    at = text.find(b"\\u")
    while at >= 0:
        if _ESCAPE.match(text, at) is None:  # a backslash escaped, then a "u"
            at = text.find(b"\\u", at + 2)
            continue
        rest = _TO_STRING_END.match(text, at + 6)
        if rest is None:  # the string never ends: no key after it
            return False
        if rest.group(1) is not None:
            return True
        at = text.find(b"\\u", rest.end())
    return False


def repeated(text: Any, names: Iterable[str]) -> frozenset[str]:
    """Which of ``names`` the JSON object ``text`` gives more than once among its own
    members (its nested objects aside): the same for every route that reads a body, so
    that a name given twice is refused alike (:func:`list_key`)."""
    names = tuple(names)
    if not may_repeat(text, names):
        return frozenset()
    try:
        members = json.loads(
            bytes(text),
            object_pairs_hook=_Pairs,
            parse_int=_int_or_infinite,
            parse_constant=_no_constant,
        )
    except (ValueError, RecursionError):
        return frozenset()  # no JSON a decoder here reads: refused as such elsewhere
    if not isinstance(members, _Pairs):
        return frozenset()
    return _given_twice(key for key, _ in members if key in names)


def decode_json(
    body: bytes | memoryview,
    *,
    status: int,
    content_type: str,
    what: str,
    noting: Iterable[str] = (),
) -> Any:
    """Decode a JSON body, or raise :class:`UnexpectedResponse` naming what arrived.

    A body that is not UTF-8 (:func:`.body_text.data_body`), HTML, truncated documents
    and absurd nesting all end here. Lone
    surrogates are read as U+FFFD (:func:`repair_surrogates`). An object that gives one
    of ``noting`` more than once is a :class:`Members` saying so (the values are the
    last of each, as without ``noting``).
    """
    body = bytes(body)
    payload = _decode_json(body, status=status, content_type=content_type, what=what)
    noting = tuple(noting)
    if noting and may_repeat(body, noting):
        with contextlib.suppress(ValueError, RecursionError):
            text = without_bom(body)
            payload = json.loads(
                repair_surrogates(text) or text,
                object_pairs_hook=_noting_repeats,
                parse_int=_int_or_infinite,
                parse_constant=_no_constant,
            )
    return payload


def _decode_json(body: bytes, *, status: int, content_type: str, what: str) -> Any:
    body = data_body(body, what=what, status=status, content_type=content_type)
    if not body.strip(JSON_SPACE):
        raise UnexpectedResponse(
            f"{what}: expected JSON, got an empty body ({describe_body(status, content_type, 0)})",
            status=status,
        )
    try:
        return msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError, ValueError) as error:
        repaired = repair_surrogates(body) if b"\\u" in body else None
        if repaired is not None:
            return _decode_json(repaired, status=status, content_type=content_type, what=what)
        if out_of_range(error):
            with contextlib.suppress(ValueError, RecursionError):
                return unbounded_json(body)
        # Valid JSON may still nest deeper than the decoder goes: said as such.
        problem = (
            "is nested too deeply to read"
            if isinstance(error, RecursionError)
            else "is not valid JSON"
        )
        raise UnexpectedResponse(
            f"{what}: the body {problem} ({describe_body(status, content_type, len(body))})",
            status=status,
        ) from None


def out_of_range(error: Exception) -> bool:
    """Whether msgspec refused a JSON text for a number beyond a float (``1e400``)."""
    return isinstance(error, msgspec.DecodeError) and "out of range" in str(error)


def unbounded_json(text: bytes) -> Any:
    """``text`` decoded where a number lies beyond a float: JSON sets no bound on
    numbers, and one beyond a float is read as infinite, which every consumer clamps (a
    token's lifetime to a day). Raises ``ValueError`` for text that is no JSON."""
    return json.loads(
        text, parse_float=float, parse_int=_int_or_infinite, parse_constant=_no_constant
    )


def decode_as_sent(text: bytes) -> Any:
    """The JSON text ``text`` decoded for writing out again (copied, shown as JSON,
    exported): each number is the JSON text the server wrote, as :class:`msgspec.Raw`
    (``1.10``, ``-0``, ``1e400``, ``0.1000000000000000000001``), never the float or
    int it reads as, which writes another number (``1.1``, ``0``, ``Infinity``,
    ``0.1``). Strings are read as every route reads them (:func:`as_read`; bytes that
    are not UTF-8 as U+FFFD). Costs about twice a decode into floats: for one object
    at a time, never for a list as it loads. Raises ``ValueError`` for text that is
    no JSON, ``RecursionError`` for JSON nested too deeply."""
    return json.loads(
        as_read(text).decode("utf-8", "replace"),
        parse_float=_number_text,
        parse_int=_number_text,
        parse_constant=_no_constant,
    )


def _number_text(text: str) -> msgspec.Raw:
    return msgspec.Raw(text.encode("ascii"))  # JSON numbers are ASCII


def _int_or_infinite(text: str) -> int | float:
    """A JSON integer; one of more digits than Python reads (4,300) as infinite. The bound
    is Python's own, as msgspec's is: a cut of 4,000 read an integer of 4,299 digits as
    infinite here and as itself in every other decode, a row's value changing with
    whether another row of its body held a number beyond a float."""
    try:
        return int(text)
    except ValueError:  # more digits than int() converts
        return -math.inf if text.startswith("-") else math.inf


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")  # NaN, Infinity: Python's own, not JSON's


def extract_token(payload: Any) -> tuple[str, float | None]:
    """The access token and its advertised lifetime (seconds) from a token response.

    Accepts ``accessToken``/``access_token``/``token``/``jwt``, any of them nested
    under ``data``, or a bare JSON string; ``expiresIn``/``expires_in`` when present.
    A token given with its scheme (``"Bearer eyJ…"``, as some servers write it for
    pasting into a header) is the token without it: the client adds ``Bearer`` itself.
    """
    if isinstance(payload, str) and payload.strip():
        return _without_bearer(payload.strip()), None
    for candidate in (payload, payload.get("data") if isinstance(payload, dict) else None):
        if not isinstance(candidate, dict):
            continue
        for key in TOKEN_KEYS:
            token = candidate.get(key)
            if isinstance(token, str) and token.strip():
                return _without_bearer(token.strip()), _expiry(candidate) or _expiry(payload)
    raise ValueError("no access token in the response")


_BEARER = re.compile(r"bearer[ \t]+(?=\S)", re.IGNORECASE | re.ASCII)


def _without_bearer(token: str) -> str:
    """``token`` without one leading ``Bearer `` (in any case), when a token follows it."""
    scheme = _BEARER.match(token)
    return token[scheme.end() :] if scheme else token


def _expiry(obj: Any) -> float | None:
    if not isinstance(obj, dict):
        return None
    for key in EXPIRY_KEYS:
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            try:
                return float(value)
            except OverflowError:  # hundreds of digits: forever, as far as a float goes
                return math.inf
        if isinstance(value, float) and value > 0:
            return value
        if isinstance(value, str):
            number = ascii_number(value[:64])  # "3600"; not "٣٦٠٠"
            if number is not None and number > 0:
                return number
    return None


def extract_list(payload: Any, preferred: Iterable[str] = LIST_KEYS) -> list[Any]:
    """The list in a list response.

    Accepts a bare array, an object holding the list under one of ``preferred``
    (``items``/``data``/``results``/``assets``/``collections``), ``data`` holding such an
    object, or an object whose only list-valued field is the list. Raises
    :class:`ErrorInBody` for an object that reports a failure (:func:`carried_error`),
    and ``ValueError`` for one holding lists under two of ``preferred``
    (:func:`list_key`): the list read as a body arrives is the first member, so no
    preference among them could be honoured alike by both routes.
    """
    if isinstance(payload, list):
        return payload
    if not isinstance(payload, dict):
        raise ValueError(f"expected a list, got {_json_kind(payload)}")
    keys = tuple(preferred)
    key = list_key(payload, keys)
    if key is not None:
        return payload[key]  # type: ignore[no-any-return]
    data = payload.get("data")
    if isinstance(data, dict):
        key = list_key(data, keys)
        if key is not None:
            return data[key]  # type: ignore[no-any-return]
    lists = [value for value in payload.values() if isinstance(value, list)]
    if len(lists) == 1:
        return lists[0]
    if not lists:
        raise ValueError("expected a list, got an object with no list in it")
    raise ValueError("expected a list, got an object with several lists")


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def list_key(
    members: Mapping[str, T],
    keys: Iterable[str],
    is_list: Callable[[T], bool] = _is_list,
    twice: frozenset[str] | None = None,
) -> str | None:
    """Which of ``keys`` holds the list among an object's ``members``, or None.

    The one rule of every route that reads a list body (whole, or as it arrives), so
    that the order of the members never changes the answer: ``members`` that report a
    failure raise :class:`ErrorInBody` (:func:`carried_error`); one of ``keys`` given
    twice (``{"items": [...], "items": [...]}``: decoders keep the first or the last),
    or lists under two of them (``{"data": [], "items": [...]}``), raise ``ValueError``
    naming them. ``is_list`` tells a list among ``members`` (decoded values, or their
    JSON text); ``twice``, the names given more than once (by default
    :func:`twice_in`).
    """
    if problem := carried_error(members):
        raise ErrorInBody(reported_in_success(problem))
    keys = tuple(dict.fromkeys(keys))
    twice = twice_in(members) if twice is None else twice
    if repeats := [key for key in keys if key in twice]:
        raise ValueError(
            f"the body holds the list “{repeats[0]}” twice, so which one is the list is unclear"
        )
    found = [key for key in keys if key in members and is_list(members[key])]
    if len(found) > 1:
        raise ValueError(
            f"the body holds a list under both “{found[0]}” and “{found[1]}”, so which one"
            " is the list is unclear"
        )
    return found[0] if found else None


def carried_error(members: Mapping[str, Any]) -> str | None:
    """The failure an object reports in itself (in one line), or None.

    Some servers answer 200 with an error envelope around an empty list (``{"success":
    false, "error": {…}, "data": []}``); shown as a list, it reads as "no items". Only an
    unmistakable mark counts, so a list is never refused for a member it merely has:
    ``success`` exactly false, ``error`` a text or object that is not empty, ``errors`` a
    list or object that is not empty. ``success: true``, ``error: null``, ``""`` or
    ``{}``, ``errors: []`` beside a list are a list. Members that are JSON text
    (``msgspec.Raw``) are decoded first.
    """
    marks = {key: _decoded(members[key]) for key in ERROR_MARKS if key in members}
    error, errors = marks.get("error"), marks.get("errors")
    if not (
        marks.get("success") is False
        or (isinstance(error, str) and error.strip())
        or (isinstance(error, dict) and error)
        or (isinstance(errors, list | dict) and errors)
    ):
        return None
    said = {key: _decoded(members[key]) for key in _SAYING if key in members}
    return error_message(said) or "it says success: false, without a message"


_SAYING = (*MESSAGE_KEYS, "errors", "validation", "field")
"""The members :func:`error_message` reads."""


def reported_in_success(problem: str) -> str:
    """How a failure a successful answer reports in itself is said, a list's or a write's."""
    return f"the server reported an error in a successful answer: {problem}"


def written_refusal(body: bytes) -> tuple[str, dict[str, Any]] | None:
    """The failure a write's successful answer reports in itself, and the body saying it
    (for :func:`error_place`); None when it reports none.

    The rule a list's answer is read by (:func:`carried_error`), so that ``200
    {"success": false, "error": "quota exceeded"}`` is a refusal wherever it answers:
    only a JSON object can report one; an empty body, a list or text reports none.
    """
    payload = _decoded_text(msgspec.json.decode, as_read(bytes(body)))
    if not isinstance(payload, dict):
        return None
    problem = carried_error(payload)
    return None if problem is None else (problem, payload)


def _decoded(value: Any) -> Any:
    if isinstance(value, msgspec.Raw):
        try:
            return msgspec.json.decode(value)
        except (msgspec.DecodeError, RecursionError):
            return None
    return value


def list_problem(
    what: str, why: str | ValueError, *, status: int, content_type: str, size: int
) -> UnexpectedResponse:
    """The error of a list body that is no list: ``why`` (a ``ValueError`` of
    :func:`extract_list`) headed by the resource and followed by what arrived."""
    return UnexpectedResponse(
        f"{what}: {why} ({describe_body(status, content_type, size)})",
        status=status,
        hint="the server said the request failed, though with a success status"
        if isinstance(why, ErrorInBody)
        else None,
    )


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


class IdReader:
    """Reads an object's id from its JSON text: the one rule of every route that reads an
    id the interface does not type (a collection's, an asset's), in the app and ``get``.

    The id is the first of ``keys`` the object holds an id under: a text, decoded; a
    number exactly as the server wrote it (``1e+20``, ``0.1000000000000000000001``,
    ``-0``, ``1e400``), never a decoded number written again (``1e20``, ``0.1``, ``0``,
    nothing), which would address another object or none. An empty text, a boolean,
    null, an object or a list is no id, and the next key is read.

    Only the members named ``keys`` are taken from the text (as JSON text,
    :class:`msgspec.Raw`); the rest is skipped unread, so reading the ids of a long list
    costs little beside decoding it.
    """

    __slots__ = ("_each", "_fields", "_one", "keys")

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = tuple(dict.fromkeys(keys))
        self._fields = tuple(f"m{place}" for place in range(len(self.keys)))
        members = msgspec.defstruct(
            "IdMembers",
            [
                (field, msgspec.Raw, msgspec.field(default=_ABSENT, name=key))
                for field, key in zip(self._fields, self.keys, strict=True)
            ],
        )
        self._one = msgspec.json.Decoder(members).decode
        self._each = msgspec.json.Decoder(list[members]).decode  # type: ignore[valid-type]

    def __call__(self, text: Any) -> str | None:
        """The id of the JSON object ``text`` (None: it has none, or is no object)."""
        members = _decoded_text(self._one, text)
        return None if members is None else self._first(members)

    def each(self, text: Any) -> list[str | None] | None:
        """The id of each object of the JSON array ``text``, in one pass; None when
        ``text`` is no array of objects."""
        found = _decoded_text(self._each, text)
        return None if found is None else list(map(self._first, found))

    def numbers(self, text: Any) -> dict[str, msgspec.Raw]:
        """The members named ``keys`` of the JSON object ``text`` that hold a number, as
        the server wrote it (a copy, not a slice of ``text``)."""
        members = _decoded_text(self._one, text)
        if members is None:
            return {}
        found = {}
        for field, key in zip(self._fields, self.keys, strict=True):
            value = getattr(members, field)
            if _is_number(value):
                found[key] = msgspec.Raw(bytes(value))
        return found

    @staticmethod
    def _first(members: Any) -> str | None:
        for text in astuple(members):  # a member not given is empty (_ABSENT)
            if text and (found := _id_in(bytes(text))) is not None:
                return found
        return None


_ABSENT = msgspec.Raw(b"")
"""A member not given (:class:`IdReader`): no JSON text is empty."""
_NUMBER_STARTS = frozenset(b"-0123456789")


def _decoded_text(decode: Callable[[Any], T], text: Any) -> T | None:
    """``decode(text)``; an escaped lone surrogate read as U+FFFD, as every route reads
    one (:func:`repair_surrogates`); None when ``text`` is no JSON of that shape."""
    try:
        return decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    if bytes(text).find(b"\\u") < 0:
        return None
    repaired = repair_surrogates(bytes(text))
    if repaired is None:
        return None
    try:
        return decode(repaired)
    except (msgspec.DecodeError, RecursionError):
        return None


def _is_number(text: msgspec.Raw) -> bool:
    return bool(text) and bytes(text)[0] in _NUMBER_STARTS


def member_id(text: msgspec.Raw) -> str | None:
    """The id a member holds, given its JSON text (:class:`IdReader`): a text that is not
    empty, decoded (bytes that are not UTF-8 read as U+FFFD); a number as written."""
    return _id_in(bytes(text)) if text else None


def _id_in(text: bytes) -> str | None:
    """:func:`member_id` of a member's JSON text that is not empty."""
    first = text[0]
    if first == 0x22:  # '"'
        try:
            value = _decode_json_text(text)
        except msgspec.DecodeError:
            value = _decode_json_text(text.decode("utf-8", "replace").encode())
        return value if value.__class__ is str and value else None
    if first in _NUMBER_STARTS:
        return text.decode("ascii", "replace")  # JSON checked: ASCII only
    return None


_decode_json_text = msgspec.json.decode


def find_id(obj: Mapping[str, Any], keys: Iterable[str]) -> str | None:
    """The id of an object already decoded, by the rule of :class:`IdReader`, for what
    holds no JSON text: a text as it is; a number only where it is kept as the server
    wrote it (``msgspec.Raw``, as ``get`` keeps them). A decoded number is no id: its
    text may be gone (``0.1000000000000000000001`` is read ``0.1``, ``-0`` ``0``), so
    such an object has none the client can use, rather than another object's.
    """
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str):
            if value:
                return value
        elif isinstance(value, msgspec.Raw):
            if (found := member_id(value)) is not None:
                return found
        elif isinstance(value, int | float) and not isinstance(value, bool):
            return None
    return None


COLLECTION_IDS = IdReader(COLLECTION_ID_KEYS)
"""Reads a collection's id (:class:`IdReader`)."""
ASSET_IDS = IdReader(ASSET_ID_KEYS)
"""Reads an asset's id (:class:`IdReader`)."""

_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])


def member_text(text: Any, key: str) -> bytes | None:
    """The JSON text of the member ``key`` of the JSON object ``text`` (the last, where
    it is given twice, as every decoder here reads it); None where there is none."""
    members = _decoded_text(_MEMBERS.decode, text)
    found = None if members is None else members.get(key)
    return None if found is None else bytes(found)


_ROWS_OR_MEMBERS = msgspec.json.Decoder(list[msgspec.Raw] | dict[str, msgspec.Raw])
_ROWS = msgspec.json.Decoder(list[msgspec.Raw])


def created_ids(body: bytes) -> frozenset[str]:
    """The ids an answer to adding collections gives to what it created (its ``created``
    list, or the answer itself as a list), each read as a listed collection's is
    (:data:`COLLECTION_IDS`), so that the rows it names are found among those listed."""
    found = _decoded_text(_ROWS_OR_MEMBERS.decode, as_read(bytes(body)))
    if isinstance(found, dict):
        rows = found.get("created")
        found = None if rows is None else _decoded_text(_ROWS.decode, rows)
    if not isinstance(found, list):
        return frozenset()
    return frozenset(filter(None, map(COLLECTION_IDS, found)))


def error_message(payload: Any) -> str | None:
    """One line from an error body, or None when the body says nothing usable.

    Reads ``message``, ``error`` (text or an object with a message), ``detail``,
    ``title``, ``errors[]`` (texts or objects with ``message``/``field``) and
    problem+json ``validation[]``; OAuth's ``error`` code with its ``error_description``.
    A list under any of them reads as ``errors[]`` does (NestJS's ``message: ["url must
    be an URL address"]``, FastAPI's ``detail: [{"loc": [...], "msg": ...}]``).
    """
    if isinstance(payload, str):
        return _one_line(payload)
    if not isinstance(payload, dict):
        return None
    parts: list[str] = []
    for key in MESSAGE_KEYS:
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value)
            break
        if isinstance(value, dict):
            inner = error_message(value)
            if inner:
                parts.append(inner)
                break
        if isinstance(value, list) and (lines := _detail_lines(value)):
            parts.append("; ".join(lines))
            break
    described = payload.get("error_description")
    if isinstance(described, str) and described.strip() and parts and described not in parts:
        parts.append(described)  # OAuth: "error" is only a code ("invalid_request")
    for key in ("errors", "validation"):
        details = _detail_lines(payload.get(key))
        if details:
            parts.append("; ".join(details))
    if not parts:
        return None
    field = payload.get("field")
    if isinstance(field, str) and field:
        if field not in parts[0]:
            parts[0] = f"{field}: {parts[0]}"
        elif parts[0].startswith(field + " "):
            # "contractAddress the address must…": the path and its problem read apart.
            parts[0] = f"{field}: {parts[0][len(field) + 1 :]}"
    return _one_line(" — ".join(dict.fromkeys(parts)))


_PLACE_LIMIT = 200
"""Characters of a field path kept; a server's path can be of any length."""
_LEADING_INDEX = re.compile(r"^(?:[A-Za-z_]+\[(\d{1,6})\]\.|\[(\d{1,6})\]\.?|(\d{1,6})(?:\.|$))")
"""An element's position leading a path: ``[1].name``, ``1.name``, ``collections[1].name``;
not ``events[1]``, a member's own element."""


def error_place(payload: Any) -> tuple[str | None, int | None]:
    """The request field an error body names (``field``), and which element (``index``).

    Without a ``field`` of its own, the place of the one entry of a list of problems
    (``errors``, ``validation``, or one under a message key) that names one by
    ``field``, ``path``, ``loc`` or ``pointer`` (see :func:`_entry_place`); several
    entries name no one place. A path that starts with an element's position
    (``[1].name``, ``collections[1].name``, ``1.name``) gives the index when the body has
    none; the path is returned without it. Anything else (no object, a non-string field,
    a negative or non-integer index) is ``None``.
    """
    if not isinstance(payload, dict):
        return None, None
    field = payload.get("field")
    index = payload.get("index")
    if not (isinstance(field, str) and field.strip()):
        field = _only_entry_place(payload)
    return _split_place(field, index)


def _split_place(field: Any, index: Any) -> tuple[str | None, int | None]:
    """A field path and an element's position, each checked (see :func:`error_place`)."""
    place = field[:_PLACE_LIMIT] if isinstance(field, str) and field.strip() else None
    position = index if type(index) is int and 0 <= index < 1_000_000 else None
    if place is not None and (match := _LEADING_INDEX.match(place)):
        if position is None:
            position = int(next(group for group in match.groups() if group is not None))
        place = place[match.end() :] or None
    return place, position


_MAX_PROBLEMS = 50
"""Problems of one refusal kept with their places; a server may list thousands."""
_NAMED_FIRST = re.compile(
    r"(?:\[\d{1,6}\]|\d{1,6}\.)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d{1,6}\]|\.\d{1,6})*(?= )"
)
"""A field path leading a message, as class-validator (NestJS) writes one: ``url must be
an URL address``, ``fiatDetails.paymentProviderId should not be empty``."""


def error_problems(payload: Any) -> list[tuple[str | None, int | None, str]]:
    """Each problem an error body reports: the request field it names (a path), the element
    of an array body it is in, and its words, in the body's order.

    A ``field`` of the body's own is one problem, worded as :func:`error_message` words
    the body. Otherwise each entry of the list of problems (``errors``, ``validation``, or
    one under a message key) is one, named by ``field``, ``path``, ``loc`` or ``pointer``
    (:func:`_entry_place`); a ``{"field": [...]}`` map names each field. A text in such a
    list names the field it starts with, as NestJS words them (``url must be an URL
    address``): whether that is a field of the request is for the caller to know.
    At most :data:`_MAX_PROBLEMS` are read; no body of a known shape gives none.
    """
    if not isinstance(payload, dict):
        return []
    whole = error_message(payload)
    if whole is None:
        return []
    field = payload.get("field")
    if isinstance(field, str) and field.strip():
        return [(*_split_place(field, payload.get("index")), whole)]
    for key in (*MESSAGE_KEYS, "errors", "validation"):
        value = payload.get(key)
        if isinstance(value, dict) and key in ("errors", "validation"):
            return [
                (*_split_place(name, None), _one_line(f"{name}: {_said(said)}"))
                for name, said in itertools.islice(value.items(), _MAX_PROBLEMS)
                if isinstance(name, str)
            ]
        if isinstance(value, list) and value:
            found = [
                problem
                for entry in value[:_MAX_PROBLEMS]
                if (problem := _entry_problem(entry)) is not None
            ]
            if found:
                return found
    return [(None, None, whole)]


def _said(said: Any) -> str:
    return ", ".join(map(str, said)) if isinstance(said, list) else str(said)


def _named_first(text: str) -> tuple[str | None, int | None]:
    match = _NAMED_FIRST.match(text.strip())
    return _split_place(match[0], None) if match else (None, None)


def _entry_problem(entry: Any) -> tuple[str | None, int | None, str] | None:
    said = _entry_line(entry)
    if said is None:
        return None
    if isinstance(entry, str):
        return (*_named_first(entry), _one_line(said))
    return (*_split_place(_entry_place(entry), entry.get("index")), _one_line(said))


def _only_entry_place(payload: Mapping[str, Any]) -> str | None:
    for key in (*MESSAGE_KEYS, "errors", "validation"):
        entries = payload.get(key)
        if isinstance(entries, list) and entries:
            if len(entries) == 1 and isinstance(entries[0], dict):
                return _entry_place(entries[0])
            return None
    return None


_MAX_ENTRIES = 5
"""Entries of a list of problems said; the rest are counted."""
_MAX_ENTRY = 200
"""Characters of one entry kept, so that one long entry leaves room for the others."""
_REQUEST_PARTS = frozenset({"body", "query", "path", "header", "cookie"})
"""What FastAPI's ``loc`` starts with: where in the request, not which field."""


def _entry_place(entry: Mapping[str, Any]) -> str | None:
    """The field one problem names: ``field``, ``path``, ``pointer`` or ``loc``, a text or a
    list of names and positions (``["body", "collections", 1, "name"]`` is
    ``collections[1].name``; the part of the request it starts with is left out)."""
    place = next((entry[k] for k in ("field", "path", "loc", "pointer") if entry.get(k)), None)
    if isinstance(place, str) and place.startswith("/"):  # a JSON pointer: /fiatDetails/name
        pieces = place[1:].split("/")
        place = [p if (n := ascii_int(p, 9)) is None or p != str(n) else n for p in pieces]
    if isinstance(place, str):
        return place
    if not isinstance(place, list):
        return None
    parts = place[1:] if place and place[0] in _REQUEST_PARTS else place
    path = ""
    for part in parts[:20]:
        if type(part) is int:
            path += f"[{part}]"
        elif isinstance(part, str):
            path += f".{part}" if path else part
    return path or None


def _detail_lines(value: Any) -> list[str]:
    """Each problem of a list of them (or a ``{"field": [...]}`` map) as a line: the first
    :data:`_MAX_ENTRIES`, each cut to :data:`_MAX_ENTRY` characters, then how many more."""
    if isinstance(value, dict):
        # {"field": ["msg", ...]} as some frameworks send
        entries = [
            f"{key}: {', '.join(map(str, msgs)) if isinstance(msgs, list) else msgs}"
            for key, msgs in itertools.islice(value.items(), _MAX_ENTRIES + 1)
        ]
        total = len(value)
    elif isinstance(value, list):
        entries = [line for entry in value[: _MAX_ENTRIES + 1] if (line := _entry_line(entry))]
        total = len(value)
    else:
        return []
    lines = [_one_line(line)[:_MAX_ENTRY] for line in entries[:_MAX_ENTRIES]]
    if lines and total > len(lines):
        lines.append(f"and {total - len(lines):,} more")
    return lines


def _entry_line(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry if entry.strip() else None
    if not isinstance(entry, dict):
        return None
    text = next(
        (entry[k] for k in ("message", "detail", "msg", "error") if isinstance(entry.get(k), str)),
        None,
    )
    if not text:
        return None
    field = _entry_place(entry)
    return f"{field}: {text}" if field else text


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return shorten(line, MAX_MESSAGE)
