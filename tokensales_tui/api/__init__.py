"""The service's API: typed models, the client, its errors. Never imports Textual."""

from .client import ApiClient, Created, Deleted, Done
from .connection import Connection
from .endpoints import Endpoint
from .errors import (
    ApiError,
    AuthError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitedError,
    RedirectError,
    RefusedRequest,
    ServerError,
    TimeoutError_,
    UnexpectedResponse,
    ValidationError,
)
from .secret import Secret
from .transport import RetryNotice

__all__ = [
    "ApiClient",
    "ApiError",
    "AuthError",
    "Connection",
    "Created",
    "Deleted",
    "Done",
    "Endpoint",
    "NetworkError",
    "NotFoundError",
    "OutcomeUnknownError",
    "RateLimitedError",
    "RedirectError",
    "RefusedRequest",
    "RetryNotice",
    "Secret",
    "ServerError",
    "TimeoutError_",
    "UnexpectedResponse",
    "ValidationError",
]
