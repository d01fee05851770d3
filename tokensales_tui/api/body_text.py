"""The text of a body a server sent: the one rule every route reads a body by.

- A leading UTF-8 byte order mark is skipped (RFC 8259 lets a reader skip it), in every
  route: a list, one object, a token answer, an error body.
- Data (a list, one object, a token answer) is JSON, and JSON is UTF-8 (RFC 8259 §8.1),
  whatever charset its ``Content-Type`` names. A body that is not is refused, in the app
  and the commands alike, in the same words (:func:`not_utf8`), as soon as the first byte
  that is not UTF-8 arrives: never read with that byte replaced, which changed an id
  (``itm_\\xe9`` became ``itm_\\ufffd``) and had a ``delete`` address another object.
  :func:`data_body` checks a whole body, :class:`DataPieces` one arriving a piece at a
  time.
- Of an error body only the server's reason is wanted: :func:`reason_text` reads it in
  the charset its ``Content-Type`` declares where Python knows it as a text encoding
  (``charset=iso-8859-1``, ``windows-1252``), else as UTF-8 with each byte that is not
  marked (U+FFFD), so that the reason is shown and its field marked rather than lost.
  What it returns is still text we did not write: every sink cleans it.
- A write's successful answer is read by that same rule (:func:`read_as_utf8`): the
  failure it may report is a reason too, whatever charset it came in.
"""

from __future__ import annotations

import codecs
import re

from .errors import UnexpectedResponse

__all__ = [
    "BOM",
    "DataPieces",
    "data_body",
    "declared_charset",
    "describe_body",
    "not_utf8",
    "read_as_utf8",
    "reason_text",
    "without_bom",
]

BOM = codecs.BOM_UTF8
"""A UTF-8 byte order mark, which RFC 8259 lets a reader skip before a body."""

_CHARSET = re.compile(
    r"""(?:^|;)[ \t]*charset[ \t]*=[ \t]*"?([A-Za-z0-9_-]{1,40})"?[ \t]*(?:;|$)""",
    re.IGNORECASE | re.ASCII,
)
"""A ``charset`` parameter of a ``Content-Type``. Only letters, digits, ``-`` and ``_``:
the name is handed to :func:`codecs.lookup`, which imports the codec's module by it.
ASCII: under ``re.IGNORECASE`` alone ``ſ`` would match ``s`` and ``ı`` the ``i`` of a name."""

_NO_CHARSETS = frozenset(
    {"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined", "mbcs", "oem"}
)
"""Python text codecs that are no charset a server could mean: they read escapes or
host names, or stand for the machine's own code page."""


def without_bom(body: bytes) -> bytes:
    """``body`` without a leading UTF-8 byte order mark; every route that decodes a body
    skips it, so that none reads it as "not valid JSON" while another reads the list."""
    return body[len(BOM) :] if body[: len(BOM)] == BOM else body


def describe_body(status: int, content_type: str, size: int) -> str:
    """What arrived, for an :class:`UnexpectedResponse` message."""
    kind = content_type.split(";", 1)[0].strip() or "no content type"
    return f"HTTP {status}, {kind}, {_size(size)}"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def declared_charset(content_type: str) -> str | None:
    """The charset a ``Content-Type`` names, lower-cased, or None."""
    found = _CHARSET.search(content_type)
    return None if found is None else found[1].lower()


def not_utf8(
    what: str, *, status: int, content_type: str, at: int, byte: int, size: int
) -> UnexpectedResponse:
    """The refusal of a data body that is not UTF-8, its first such byte ``byte`` at
    offset ``at``: the same words in every route."""
    charset = declared_charset(content_type)
    said = f"; it names charset={charset}" if charset not in (None, "utf-8", "utf8") else ""
    return UnexpectedResponse(
        f"{what}: the body is not UTF-8, as JSON must be (byte {at:,} is 0x{byte:02X}{said})"
        f" ({describe_body(status, content_type, size)})",
        status=status,
    )


def data_body(body: bytes | memoryview, *, what: str, status: int, content_type: str) -> bytes:
    """``body``, a data body whole, without its byte order mark; an
    :class:`UnexpectedResponse` (:func:`not_utf8`) where it is not UTF-8."""
    body = bytes(body)
    check = DataPieces(what, status=status, content_type=content_type)
    check(body)
    check.end()
    return without_bom(body)


class DataPieces:
    """Checks that a data body arriving a piece at a time is UTF-8; call it with each
    piece in order, then :meth:`end`. Raises :func:`not_utf8`'s error at the first piece
    holding a byte that is not (a character cut between two pieces is whole in neither).

    A piece of ASCII is passed over without decoding (``bytes.isascii``, a scan at
    memory speed); any other is decoded and dropped.
    """

    def __init__(self, what: str, *, status: int, content_type: str) -> None:
        self._what = what
        self._status = status
        self._content_type = content_type
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._seen = 0  # bytes before the current piece
        self._held = 0  # bytes of a character cut at the end of the last piece

    def __call__(self, piece: bytes) -> None:
        seen = self._seen
        self._seen += len(piece)
        if not self._held and piece.isascii():
            return
        try:
            self._decoder.decode(piece)
        except UnicodeDecodeError as error:
            raise self._refusal(error, seen - self._held) from None
        self._held = len(self._decoder.getstate()[0])

    def end(self) -> None:
        """The body has ended: a character cut short at its end is no UTF-8 either."""
        try:
            self._decoder.decode(b"", final=True)
        except UnicodeDecodeError as error:
            raise self._refusal(error, self._seen - self._held) from None

    def _refusal(self, error: UnicodeDecodeError, start: int) -> UnexpectedResponse:
        # The decoder reads the bytes it held and the piece as one, from ``start``.
        return not_utf8(
            self._what,
            status=self._status,
            content_type=self._content_type,
            at=start + error.start,
            byte=error.object[error.start],
            size=self._seen,  # read so far, as the list splitter says it
        )


def reason_text(body: bytes, content_type: str) -> str:
    """An error body as text, for the reason it gives: without a byte order mark, in the
    charset ``content_type`` declares where Python knows it as a text encoding and the
    body is that charset, else UTF-8 with each byte that is not as U+FFFD."""
    body = without_bom(body)
    charset = declared_charset(content_type)
    if charset is not None:
        try:
            codec = codecs.lookup(charset)
        except LookupError:
            codec = None
        if codec is not None and codec._is_text_encoding and codec.name not in _NO_CHARSETS:  # type: ignore[attr-defined]
            try:
                return body.decode(codec.name)
            except UnicodeDecodeError:
                pass
    return body.decode("utf-8", "replace")


def read_as_utf8(body: bytes, content_type: str) -> bytes:
    """``body`` in UTF-8 as :func:`reason_text` reads it (its declared charset, else
    UTF-8 with each byte that is not as U+FFFD), without a byte order mark.

    A write's answer is read so: the failure it may report is a reason, like an error
    body's, and ``{"success": false, "error": "Quota dépassée"}`` in Latin-1 is a refusal
    as much as in UTF-8 (read strictly, it was no JSON, so no refusal: done).
    """
    if declared_charset(content_type) in (None, "utf-8", "utf8") and body.isascii():
        return without_bom(body)
    return reason_text(body, content_type).encode("utf-8", "replace")
