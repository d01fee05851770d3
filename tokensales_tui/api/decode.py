"""Decoding list bodies into models, fast and off the event loop.

The fast path never builds the generic objects of a body (for 100,000 items,
millions of dicts and lists, 300 MB): it finds the list as slices of JSON text,
decodes each element straight into the model and keeps the element's text as its
``raw``. Anything else goes to the generic path of :mod:`.shapes`, which names the
problem exactly.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from . import paging, shapes
from .body_text import describe_body, without_bom
from .errors import UnexpectedResponse
from .models import (
    Asset,
    Collection,
    ElementDecoder,
    Item,
    Model,
    from_json_elements,
    from_raw,
    keep_in,
    keep_text,
    paused_gc,
    set_each,
)
from .spool import Region

__all__ = [
    "MAX_ROWS",
    "OFF_LOOP_BYTES",
    "ListParser",
    "RowsLeftOut",
    "convert",
    "left_out",
    "list_texts",
    "looks_like",
    "optional_json",
]

M = TypeVar("M", bound=Model)

MAX_ROWS = 2_000_000
"""Most entries a list may hold: past this the list is refused, in words, before its
entries are decoded (a body of a million tiny entries would take far more memory as
rows than as bytes)."""

OFF_LOOP_BYTES = 256 * 1024
"""Bodies larger than this are decoded in a thread so the UI keeps drawing."""

_JSON_START = re.compile(rb"[^ \t\r\n]")
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])


class _Object(msgspec.Struct):
    """Any JSON object, its members skipped: what counting a list's elements decodes."""


_OBJECTS = msgspec.json.Decoder(list[_Object])


class NoFastPath(Exception):
    """The body is not a plain list of objects of the model: use the generic path."""


PROBLEMS_KEPT = 3
"""How many of the entries left out of a list are named (the rest are counted)."""


class RowsLeftOut(list[Any]):
    """The rows of a list some of whose entries could not be read, in order: the rest.

    One entry a server got wrong (a price sent as ``"12,50"``, an object missing its
    id) leaves out that entry alone, not the list: :attr:`missing` says how many were,
    :attr:`problems` names the first few, as the whole list's error would have.
    """

    def __init__(self, rows: list[Any], missing: int, problems: list[str]) -> None:
        super().__init__(rows)
        self.missing = missing
        self.problems = problems

    def summary(self, what: str) -> str:
        """``2 of 1,002 items could not be read and are left out; items[7]: …`` (the
        first problem: one line)."""
        total = len(self) + self.missing
        return (
            f"{self.missing:,} of {total:,} {what} could not be read and"
            f" {'is' if self.missing == 1 else 'are'} left out; {self.problems[0]}"
        )


def left_out(rows: object) -> RowsLeftOut | None:
    """``rows`` where entries of its list were left out (:class:`RowsLeftOut`), else None."""
    return rows if isinstance(rows, RowsLeftOut) and rows.missing else None


class ListParser:
    """Decodes a list body into models; runs in a thread for large bodies.

    The fast path never builds the generic objects of the body (for 100,000 items,
    millions of dicts and lists, 300 MB): it finds the list as slices of JSON text,
    decodes each element straight into the model and keeps the element's text as its
    ``raw``. Each element is a separate call, so a decoding thread hands the GIL back
    to the event loop every few milliseconds. Anything else (another shape, a broken
    entry, invalid JSON) goes to the generic path, which names the problem exactly.

    Skipped JSON text is checked for syntax here, not for UTF-8: every route checks the
    whole body is UTF-8 as it arrives (:mod:`.body_text`), a field the model does not
    name included.
    """

    def __init__(self, model: type[Model], what: str, status: int, content_type: str) -> None:
        self.model = model
        self.what = what
        self.status = status
        self.content_type = content_type
        self.paging: paging.Paging | None = None
        """What the body last read whole said of more on the server (:mod:`.paging`)."""
        self._elements: ElementDecoder | None = None

    def __call__(self, body: bytes) -> list[Any]:
        body = without_bom(body)  # as every route reads a body (RFC 8259)
        with paused_gc():
            try:
                return self._fast(body)
            except (NoFastPath, msgspec.DecodeError, RecursionError, ValueError):
                pass
            repaired = shapes.repair_surrogates(body) if body.find(b"\\u") >= 0 else None
            if repaired is not None:  # read lone surrogates as U+FFFD, then try again
                with contextlib.suppress(
                    NoFastPath, msgspec.DecodeError, RecursionError, ValueError
                ):
                    return self._fast(repaired)
                body = repaired
            return self._generic(body if isinstance(body, bytes) else bytes(body))

    def decode_region(self, text: bytes) -> list[Any]:
        """Decode ``[`` + a stretch of a list arriving + ``]`` in one call (see
        :class:`StreamedList`): checks the cut and decodes the elements in one pass.

        Raises:
            msgspec.DecodeError: The text is no JSON array: the cut is not between two
                elements (the splitter tries another).
            NoFastPath: The cut is right but an element is odd: the whole body must be
                read by :meth:`__call__`, which names the problem exactly.
        """
        with paused_gc():
            try:
                if self.model is Asset:
                    # The table reads an asset's cells from its dict: kept decoded,
                    # with its text (convert).
                    elements = _ELEMENTS.decode(text)
                    objects = list(map(msgspec.json.decode, elements))
                    if not all(isinstance(obj, dict) for obj in objects):
                        raise NoFastPath
                    try:
                        rows = [
                            convert(obj, Asset, self.what, self.status, element)
                            for obj, element in zip(objects, elements, strict=True)
                        ]
                    except UnexpectedResponse:
                        raise NoFastPath from None
                    return rows
                else:
                    if self._elements is None:
                        self._elements = ElementDecoder(self.model)
                    rows = self._elements.decode_list(text)
                reader = _ID_READERS.get(self.model)
                if reader is not None:
                    set_each(rows, "id", _ids_of_each(reader, text, len(rows)))
                return rows
            except msgspec.DecodeError:  # a ValidationError too
                _ELEMENTS.decode(text)  # raises again where the cut is wrong
                raise NoFastPath from None  # the cut is right: an element is odd

    @property
    def counts(self) -> bool:
        """Whether a list of this model arriving is counted first and decoded when read
        (:meth:`count_region`, :mod:`.arriving`): only items come by the million."""
        return self.model is Item

    def count_region(self, text: bytes) -> list[Any]:
        """:meth:`decode_region` without decoding into the model: a placeholder for each
        element, which must be a JSON object (its fields are checked when decoded,
        :meth:`decode_regions`). A fifth of the time.

        Raises:
            msgspec.DecodeError: The text is no JSON array: the cut is not between two
                elements (the splitter tries another).
            NoFastPath: The cut is right but an element is no object: the whole body
                must be read by :meth:`__call__`, which names the problem exactly.
        """
        with paused_gc():
            try:
                return _OBJECTS.decode(text)
            except msgspec.DecodeError:  # a ValidationError too
                _ELEMENTS.decode(text)  # raises again where the cut is wrong
                raise NoFastPath from None  # the cut is right: an element is odd

    def decode_regions(self, regions: Sequence[Region], counts: Sequence[int]) -> list[Any]:
        """The rows of consecutive ``regions`` of a body, counted by :meth:`count_region`
        (``counts``), decoded from the spool in one call, each keeping where its text
        lies (:meth:`keep`).

        Raises:
            msgspec.DecodeError: An element does not fit the model.
            OSError: The spool cannot be read.
        """
        first, last = regions[0], regions[-1]
        text = first.spool.read_array(first.at, last.at + last.length - first.at)
        if self._elements is None:
            self._elements = ElementDecoder(self.model)
        with paused_gc():
            rows = self._elements.decode_list(text)
            del text
            self._elements.share(rows)
            at = 0
            for region, count in zip(regions, counts, strict=True):
                keep_in(rows[at : at + count] if len(regions) > 1 else rows, region)
                at += count
        return rows

    def blank(self) -> Any:
        """A row that stands for one that could not be decoded (the list is then read
        whole, which names the problem)."""
        return msgspec.convert({"id": "", "title": "", "currency": "", "price": 0}, self.model)

    def keep(self, rows: list[Any], region: Region | None, first: int) -> None:
        """Let ``rows``, decoded by :meth:`decode_region` from ``region`` (the text in the
        spool), read their JSON back from it; ``first`` rows came before. With no region,
        the rows share their nested objects only (see :meth:`ElementDecoder.keep`).

        Raises:
            NoFastPath: Where the whole body must be read by :meth:`__call__`.
        """
        if first + len(rows) > MAX_ROWS:
            raise NoFastPath  # the whole read says how many entries the list holds
        if self.model is Asset or not rows or rows[0].__class__ is _Object:
            return  # counted rows are decoded and kept later (decode_regions)
        assert self._elements is not None
        with paused_gc():
            try:
                self._elements.keep(rows, region)
            except (msgspec.DecodeError, RecursionError, ValueError):
                raise NoFastPath from None

    def _too_many(self, count: int) -> None:
        if count > MAX_ROWS:
            raise UnexpectedResponse(
                f"{self.what}: the list holds {count:,} entries; this client reads at most"
                f" {MAX_ROWS:,}",
                status=self.status,
            )

    def _fast(self, body: bytes) -> list[Any]:
        elements, beside = list_and_members(body, (self.what, *shapes.LIST_KEYS))
        self._too_many(len(elements))
        self.paging = paging.read_paging(beside, len(elements))
        out: list[Any] = []
        append = out.append
        if self.model is Asset:
            # Assets name no fields: the table reads each cell from the dict.
            for index, element in enumerate(elements):
                obj = msgspec.json.decode(element)
                if not isinstance(obj, dict):
                    raise NoFastPath
                try:
                    append(convert(obj, Asset, f"{self.what}[{index}]", self.status, element))
                except UnexpectedResponse:
                    raise NoFastPath from None  # the generic path leaves it out, named
            return out
        out = from_json_elements(elements, self.model)
        reader = _ID_READERS.get(self.model)
        if reader is not None:
            set_each(out, "id", map(reader, elements))
        return out

    def _generic(self, body: bytes) -> list[Any]:
        keys = (self.what, *shapes.LIST_KEYS)
        payload = shapes.decode_json(
            body, status=self.status, content_type=self.content_type, what=self.what, noting=keys
        )
        try:
            rows = shapes.extract_list(payload, keys)
        except ValueError as error:
            raise shapes.list_problem(
                self.what,
                error,
                status=self.status,
                content_type=self.content_type,
                size=len(body),
            ) from None
        self._too_many(len(rows))
        self.paging = paging.read_paging(payload, len(rows)) if isinstance(payload, dict) else None
        texts = _texts_of(body, keys, len(rows))
        out = []
        problems: list[UnexpectedResponse] = []  # the first few
        failed = 0
        for index, (row, text) in enumerate(zip(rows, texts, strict=True)):
            try:
                if not isinstance(row, dict):
                    raise UnexpectedResponse(
                        f"{self.what}: entry {index} is not an object "
                        f"({describe_body(self.status, self.content_type, len(body))})",
                        status=self.status,
                    )
                out.append(convert(row, self.model, f"{self.what}[{index}]", self.status, text))
            except UnexpectedResponse as problem:
                failed += 1
                if len(problems) < PROBLEMS_KEPT:
                    problems.append(problem)
        if not failed:
            return out
        if not out:  # not one entry read: the list itself is not what was asked for
            raise problems[0]
        return RowsLeftOut(out, failed, [problem.message for problem in problems])


def list_elements(body: bytes, keys: Sequence[str]) -> list[msgspec.Raw]:
    """:func:`list_and_members`'s list alone."""
    return list_and_members(body, keys)[0]


def list_and_members(
    body: bytes, keys: Sequence[str]
) -> tuple[list[msgspec.Raw], Mapping[str, msgspec.Raw]]:
    """The elements of the list in a list body, as JSON text, by the rules of
    :func:`shapes.extract_list` (:func:`shapes.list_key` among them), and the members
    of the object beside it that may say there is more (:mod:`.paging`), as JSON text
    (none beside a bare array); raises
    :class:`NoFastPath` where those rules fail, and the generic path says why.

    Raises:
        NoFastPath, msgspec.DecodeError, RecursionError: Where it cannot tell.
    """
    start = _JSON_START.search(body)
    first = body[start.start()] if start else 0
    if first == ord("["):
        return _ELEMENTS.decode(body), {}
    if first != ord("{"):
        raise NoFastPath
    keys = tuple(dict.fromkeys(keys))
    if all(key.isidentifier() for key in keys):
        # Usually the list sits under the first key: split it out in one pass, with
        # the members that could make the body no list beside it.
        try:
            envelope = _envelope(keys).decode(body)
        except msgspec.ValidationError:  # something else under the first key
            envelope = None
        listed: list[msgspec.Raw] | None = getattr(envelope, keys[0], None)
        if listed is not None:
            besides = {
                name: value
                for name in envelope.__struct_fields__[1:]  # type: ignore[union-attr]
                if (value := getattr(envelope, name)) is not None
            }
            _list_member({keys[0]: msgspec.Raw(b"[]"), **besides}, keys, body)
            beside = {
                name: value
                for name in paging.MEMBERS
                if (value := getattr(envelope, name, None)) is not None
            }
            return listed, beside
    members = _MEMBERS.decode(body)
    found = _list_member(members, keys, body)
    if found is None:
        data = members.get("data")
        if data is not None and _starts_with(data, ord("{")):
            found = _list_member(_MEMBERS.decode(data), keys, bytes(data))
    if found is None:
        lists = [value for value in members.values() if _starts_with(value, ord("["))]
        if len(lists) != 1:
            raise NoFastPath
        found = lists[0]
    return _ELEMENTS.decode(found), members


@functools.cache
def _envelope(keys: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    """A decoder of an object holding a list under ``keys[0]``, its elements as JSON
    text, and as JSON text the other ``keys`` and :data:`shapes.ERROR_MARKS`."""
    others = dict.fromkeys((*keys[1:], *shapes.ERROR_MARKS, *paging.MEMBERS))
    struct = msgspec.defstruct(
        "Envelope",
        [(keys[0], list[msgspec.Raw] | None, None)]
        + [(key, msgspec.Raw | None, None) for key in others if key != keys[0]],
    )
    return msgspec.json.Decoder(struct)


def _list_member(
    members: dict[str, msgspec.Raw], keys: Sequence[str], text: Any
) -> msgspec.Raw | None:
    """The list among ``members`` (of the object whose JSON text is ``text``) by
    :func:`shapes.list_key`; :class:`NoFastPath` where that refuses them."""
    try:
        key = shapes.list_key(
            members,
            keys,
            lambda value: _starts_with(value, ord("[")),
            twice=shapes.repeated(text, keys),
        )
    except ValueError:
        raise NoFastPath from None
    return None if key is None else members[key]


def _starts_with(text: msgspec.Raw, byte: int) -> bool:
    with memoryview(text) as view:
        return len(view) > 0 and view[0] == byte


def list_texts(body: bytes, keys: Sequence[str], count: int) -> list[msgspec.Raw] | None:
    """The JSON text of each of the ``count`` elements of a list body already read whole
    (:func:`shapes.extract_list`), by the same rules (:func:`list_elements`); None where
    they cannot be told. Lone surrogates are read as every route reads them."""
    try:
        elements = list_elements(shapes.as_read(body), keys)
    except (NoFastPath, msgspec.DecodeError, RecursionError, ValueError):
        return None
    return elements if len(elements) == count else None


def _texts_of(body: bytes, keys: Sequence[str], count: int) -> Sequence[msgspec.Raw | None]:
    """:func:`list_texts`, or no text for each element (the ids only they hold are then
    none: see :func:`convert`)."""
    texts = list_texts(body, keys, count)
    return texts if texts is not None else [None] * count


_ID_READERS: dict[type[Model], shapes.IdReader] = {
    Collection: shapes.COLLECTION_IDS,
    Asset: shapes.ASSET_IDS,
}
"""The models whose id the interface does not type, and how it is read."""


def convert(obj: dict[str, Any], model: type[M], what: str, status: int, text: Any = None) -> M:
    """``obj`` as ``model`` (:func:`.models.from_raw`), or :class:`UnexpectedResponse`
    naming what does not fit. ``text``, the object's JSON text, is what it keeps as
    ``raw`` (:func:`.models.keep_text`: its numbers as the server wrote them), and
    where the id of a model the interface does not type is read (:class:`.shapes.IdReader`);
    without it, the id is read from ``obj`` (:func:`.shapes.find_id`: a number has no
    text left, and is no id)."""
    value = _typed(obj, model, what, status)
    reader = _ID_READERS.get(model)
    if reader is not None:
        value.id = reader(text) if text is not None else shapes.find_id(obj, reader.keys)  # type: ignore[attr-defined]
    return value if text is None else keep_text(value, text)


def _typed(obj: dict[str, Any], model: type[M], what: str, status: int) -> M:
    try:
        return from_raw(obj, model)
    except msgspec.ValidationError as error:
        raise UnexpectedResponse(f"{what}: {_problem(error, obj)}", status=status) from None


def _ids_of_each(reader: shapes.IdReader, text: bytes, count: int) -> list[str | None]:
    """The id of each of the ``count`` objects of the JSON array ``text``."""
    ids = reader.each(text)
    if ids is None or len(ids) != count:
        raise NoFastPath  # decoded as objects a moment ago: never, but said where
    return ids


_AT_FIELD = re.compile(r" - at `\$\.([A-Za-z_]\w*)`$")


def _problem(error: msgspec.ValidationError, obj: dict[str, Any]) -> str:
    """What is wrong with ``obj``, as the decoder says it; a number past a float's range
    (``1e999``, read as infinity, then written again as ``null``) is said as such, not
    as the ``null`` the server never sent."""
    text = str(error)
    found = _AT_FIELD.search(text)
    value = obj.get(found.group(1)) if found else None
    if isinstance(value, float) and not math.isfinite(value):
        return f"a number beyond a float's range - at `$.{found.group(1)}`"  # type: ignore[union-attr]
    return text


def looks_like(payload: dict[str, Any], model: type[Model]) -> bool:
    fields = {f.encode_name for f in msgspec.structs.fields(model)} - {
        "__tokensales_tui_raw__",
        "__tokensales_tui_at__",
        "__tokensales_tui_id__",
    }
    if model is Asset:
        return any(k in payload for k in shapes.ASSET_ID_KEYS) or not any(
            isinstance(payload.get(k), dict) for k in ("data", "asset")
        )
    return bool(fields & payload.keys())


def optional_json(content: bytes) -> Any:
    """The decoded body when it is JSON, else None (an answer the interface leaves open)."""
    content = without_bom(content)
    if not content.strip(shapes.JSON_SPACE):
        return None
    try:
        return msgspec.json.decode(content)
    except (msgspec.DecodeError, RecursionError):
        return None
