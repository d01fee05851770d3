"""Splitting a list body into its elements while it arrives, without holding the list.

:class:`ListSplitter` is fed the body chunk by chunk and hands back the elements it has
seen whole, as JSON text (``msgspec.Raw``); memory stays at a few hundred kilobytes
however long the list is. It reads the shapes :func:`.shapes.extract_list` accepts: a
bare array, or an object whose *first* member holds the list under one of the list
keys. Any other shape is read whole at the end and split by the generic rules, so
every accepted body works, only without the saving. The members after a list are
judged by the same rule as a whole body's (:func:`.shapes.list_key`): one that reports
a failure, or another list under a list key, makes the body an error, not a list, as
it would have been read whole.

How elements are found without a JSON parser of our own: a cut candidate is a ``}``
followed by ``,`` and the start of the next element; ``[`` + the text before it + ``]``
decodes as a list only when the cut lies between two elements of the list (inside a
string or a nested object the brackets cannot balance). msgspec checks that and splits
the elements in one pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from typing import Any

import msgspec

from . import shapes
from .decode import list_texts
from .errors import UnexpectedResponse
from .paging import Paging, read_paging

__all__ = ["SPLIT_BYTES", "SPLIT_EVERY", "ListSplitter"]

SPLIT_BYTES = 256 * 1024
"""Body held before looking for a cut: larger cuts cost fewer decoder calls."""
SPLIT_EVERY = 0.25
"""Seconds after the last cut (or the start) from which a piece that comes is cut
with less than :data:`SPLIT_BYTES` held: a list arriving slowly hands its elements over
as they come. (At 20 items a second, 256 KB took 24 s; at 10, longer than a request
may take.) A body arriving fast is cut by size as before."""
HEAD_BYTES = 4096
"""Body read before deciding that its start is not a streamable shape."""
_TRIES = 8
"""Cut candidates tried before waiting for more of the body."""

_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_FIRST_KEY = re.compile(rb'\{\s*"(?:[^"\\]|\\.)*"\s*:')
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_SEPARATOR = re.compile(rb"\s*,")
_GAP = re.compile(rb"[ \t\r\n]*(?:,[ \t\r\n]*)?")


class _TooDeep(msgspec.DecodeError):
    """Text nested deeper than the decoder goes (``RecursionError``): valid JSON, maybe."""


class ListSplitter:
    """Splits a list body fed in chunks into the list's elements, as JSON text.

    Args:
        keys: the keys a list may sit under in an object body, preferred first.
        status, content_type: of the response, for error messages.
        decode: Decodes ``[`` + the text before a cut + ``]``, raising
            ``msgspec.DecodeError`` when that is no JSON array (the cut is not between
            two elements); what it returns is what :meth:`feed` and :meth:`close` hand
            back, and :attr:`region` says where that text lies. By default the elements
            as JSON text, with :attr:`offsets`. A decoder into the model checks the cut
            and decodes in one pass.
        clock: Seconds, for :data:`SPLIT_EVERY` (tests pass their own).
    """

    def __init__(
        self,
        keys: Sequence[str],
        *,
        status: int = 200,
        content_type: str = "",
        decode: Callable[[bytes], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # JSON's own white space only, after a byte order mark: as the whole read takes them.
        self._head = re.compile(
            rb"(?:\xef\xbb\xbf)?[ \t\r\n]*(?:(\[)|\{[ \t\r\n]*\"("
            + b"|".join(re.escape(key.encode()) for key in keys)
            + rb')"[ \t\r\n]*:[ \t\r\n]*\[)'
        )
        self._keys = tuple(keys)
        self._status = status
        self._content_type = content_type
        self._buffer = bytearray()
        self._mode = "head"  # head → list (streaming) or whole (read, then split)
        self._bare = False
        self._key = ""  # the list key of an object body, its first member
        self._next_element: bytes | None = None
        self._size = 0
        self._dropped = 0  # bytes of the body before the buffer
        self._decode = decode or _ELEMENTS.decode
        self._raw = decode is None
        self._clock = clock
        self._cut_at = clock()  # the last cut, or the last look for one that was due
        self.offsets: list[int] = []
        """Where in the body each element last handed back starts (empty: the elements
        were re-encoded from an odd shape, not cut from the body, or ``decode`` was given)."""
        self.region: tuple[int, int] = (0, 0)
        """Where the text of what was last handed back lies in the body: offset, length
        (elements separated by commas)."""
        self.paging: Paging | None = None
        """Once :meth:`close` has returned: what the members beside the list said of
        more on the server (:mod:`.paging`), if anything."""
        self._handed = 0  # elements handed back so far

    @property
    def streaming(self) -> bool:
        """Whether the body has a shape whose elements are cut from it as it arrives."""
        return self._mode == "list"

    @property
    def whole(self) -> bool:
        """Whether the body is of a shape that is read whole, then split, at :meth:`close`."""
        return self._mode == "whole"

    def feed(self, chunk: bytes) -> Any:
        """Take the next chunk; return the elements now complete (often none)."""
        self.offsets = []
        self._size += len(chunk)
        self._buffer += chunk
        if self._mode == "head":
            self._read_head(final=False)
        if self._mode == "list":
            if len(self._buffer) >= SPLIT_BYTES:
                return self._split()
            # One call of the clock a piece (some 60 ns): nothing for a fast body.
            if self._buffer and (now := self._clock()) - self._cut_at >= SPLIT_EVERY:
                self._cut_at = now  # found or not, no other look before SPLIT_EVERY
                return self._split()
        return []

    def close(self) -> Any:
        """The body has ended: return the remaining elements, or raise
        :class:`UnexpectedResponse` for a body that is no list."""
        self.offsets = []
        if self._mode == "head":
            self._read_head(final=True)
        if self._mode == "whole":
            return self._whole()
        return self._tail()

    # --- the parts of a body --------------------------------------------------------

    def _read_head(self, *, final: bool) -> None:
        found = self._head.match(self._buffer)
        if found is not None:
            self._bare = found.group(1) is not None
            self._key = (found.group(2) or b"").decode()
            del self._buffer[: found.end()]
            self._dropped += found.end()
            self._mode = "list"
        elif final or len(self._buffer) >= HEAD_BYTES:
            self._mode = "whole"

    def _split(self) -> Any:
        """The elements before the last cut that decodes; none if no cut is found yet."""
        for end in self._candidates():
            with memoryview(self._buffer) as view:
                text = b"".join((b"[", view[:end], b"]"))  # one copy
            try:
                elements = self._decoded(text)
            except msgspec.DecodeError:
                continue
            del text
            self._cut_at = self._clock()
            self.region = (self._dropped, end)
            if self._raw:
                self.offsets = self._places(elements, end)
            if self._next_element is None:
                self._next_element = self._first_key(end)
            separator = _SEPARATOR.match(self._buffer, end)
            cut = separator.end() if separator else end
            del self._buffer[:cut]
            self._dropped += cut
            self._handed += len(elements)
            return elements
        return []

    def _decoded(self, text: bytes) -> Any:
        """``self._decode(text)``; elements as JSON text hold each escaped lone surrogate
        (``\\ud800``, which JSON allows and JavaScript servers send) as U+FFFD, as
        :func:`.shapes.decode_json` reads them: the escapes are of one length, so the
        elements' places in the body stay where they were."""
        try:
            try:
                return self._decode(text)
            except msgspec.DecodeError:
                if not self._raw or text.find(b"\\u") < 0:
                    raise
                repaired = shapes.repair_surrogates(text)
                if repaired is None:
                    raise
                return self._decode(repaired)
        except RecursionError:  # nested deeper than the decoder goes: no list of ours
            raise _TooDeep("nested too deeply") from None

    def _first_key(self, end: int) -> bytes | None:
        """How the first element starts (``{"id":``), to find the next cuts by."""
        start = _GAP.match(self._buffer, 0, end)
        at = start.end() if start else 0
        if at >= end:
            return None  # no element yet
        first = _FIRST_KEY.match(self._buffer, at, end)
        return bytes(first.group()) if first else b""

    def _places(self, elements: list[msgspec.Raw], end: int) -> list[int]:
        """Where in the body each of ``elements`` starts: they lie in the first ``end``
        bytes of the buffer in order, apart by a comma and maybe white space."""
        lengths = list(map(len, elements))
        if sum(lengths) + len(lengths) - 1 == end:  # compact: a comma between, nothing else
            return list(accumulate([n + 1 for n in lengths[:-1]], initial=self._dropped))
        gap, buffer = _GAP.match, self._buffer
        offsets = []
        at = gap(buffer, 0).end()  # type: ignore[union-attr]
        for element in elements:
            offsets.append(self._dropped + at)
            at = gap(buffer, at + len(element)).end()  # type: ignore[union-attr]
        return offsets

    def _candidates(self) -> Iterator[int]:
        """Where the last elements may end, last first (just after their ``}``)."""
        buffer = self._buffer
        if self._next_element:
            # Elements of one list usually start alike ({"id": …): a cut before such a
            # start is almost always between two elements, not inside one. Tried
            # first, and usually the only one tried: the others are found only if not.
            at = buffer.rfind(b"}," + self._next_element)
            if at >= 0:
                yield at + 1
        window = max(0, len(buffer) - 64 * 1024)
        yield from [m.start() + 1 for m in _BOUNDARY.finditer(buffer, window)][::-1][:_TRIES]

    def _tail(self) -> Any:
        """The last elements: the list ends at a ``]`` after which the body ends (a bare
        array) or the enclosing object goes on with valid members."""
        buffer = self._buffer
        end = len(buffer)
        deep = False  # a cut whose text nests deeper than the decoder goes
        for _ in range(64):
            end = buffer.rfind(b"]", 0, end)
            if end < 0:
                break
            rest_text = bytes(buffer[end + 1 :])
            rest = self._rest(rest_text)
            if rest is not None:
                try:
                    elements = self._decoded(b"[" + buffer[:end] + b"]")
                except _TooDeep:
                    deep = True
                    continue
                except msgspec.DecodeError:
                    continue
                self._judge(rest, rest_text)
                self.paging = read_paging(rest, self._handed + len(elements))
                self.region = (self._dropped, end)
                if self._raw:
                    elements = list(elements)
                    self.offsets = self._places(elements, end)
                return elements
        if deep:  # whole, maybe, but no decoder here reads it
            raise self._unexpected("the list body is nested too deeply to read")
        raise self._unexpected("the list body is cut short or malformed")

    def _rest(self, rest: bytes) -> dict[str, Any] | None:
        """The members of the object after its list (none for a bare array), or None
        when ``rest`` cannot end the body; only JSON's white space may follow it."""
        text = rest.strip(shapes.JSON_SPACE)
        if self._bare:
            return None if text else {}
        if text == b"}":
            return {}
        if not text.startswith(b","):
            return None
        try:
            members = msgspec.json.decode(b"{" + text[1:])
        except (msgspec.DecodeError, RecursionError):
            return None
        return members if isinstance(members, dict) else None

    def _judge(self, rest: dict[str, Any], text: bytes) -> None:
        """Refuse an object body whose members after the list (``rest``, whose JSON text
        is ``text``) make it no list, by the rule a whole body is read by
        (:func:`.shapes.list_key`): the list's key given again among them among others."""
        if self._bare:
            return
        members = b"{" + text.strip(shapes.JSON_SPACE)[1:]
        twice = shapes.repeated(members, self._keys)
        if self._key in rest:
            twice |= {self._key}
        try:
            shapes.list_key({self._key: [], **rest}, self._keys, twice=twice)
        except ValueError as error:
            raise self._unexpected(error) from None

    def _whole(self) -> list[msgspec.Raw]:
        body = bytes(self._buffer)
        self._buffer = bytearray()
        payload = shapes.decode_json(
            body,
            status=self._status,
            content_type=self._content_type,
            what=self._what,
            noting=self._keys,
        )
        try:
            rows = shapes.extract_list(payload, self._keys)
        except ValueError as error:
            raise self._unexpected(error) from None
        if isinstance(payload, dict):
            self.paging = read_paging(payload, len(rows))
        # Their text as the server wrote it, where an id is read from (``1e+20``, not
        # ``1e20``); the decoded rows written again only where it cannot be told.
        texts = list_texts(body, self._keys, len(rows))
        if texts is not None:
            return texts
        return [msgspec.Raw(msgspec.json.encode(row)) for row in rows]

    @property
    def _what(self) -> str:
        """The resource, to head messages with (``webhooks:``)."""
        return self._keys[0] if self._keys else "list"

    def _unexpected(self, why: str | ValueError) -> UnexpectedResponse:
        return shapes.list_problem(
            self._what, why, status=self._status, content_type=self._content_type, size=self._size
        )
