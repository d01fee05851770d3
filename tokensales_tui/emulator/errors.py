"""The one exception the emulator's handlers raise, and its JSON rendering."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response


class ApiError(Exception):
    """A refusal the emulator answers with ``status`` and ``{"message", "field"?, ...}``.

    ``field`` names the offending request field (a dotted path such as
    ``whitelistingInfo.list.wallets[1]``); ``extra`` adds keys to the body (``index``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.headers = headers or {}
        self.extra = extra

    def to_response(self) -> Response:
        """The JSON response the client sees."""
        body: dict[str, Any] = {"message": self.message}
        if self.field is not None:
            body["field"] = self.field
        body.update(self.extra)
        return json_response(body, self.status, headers=self.headers)


def json_response(
    body: Any, status: int = 200, *, headers: dict[str, str] | None = None
) -> Response:
    """A response whose body is ``body`` encoded as JSON by msgspec."""
    return Response(
        msgspec.json.encode(body), status, headers=headers, media_type="application/json"
    )
