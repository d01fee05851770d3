"""The service's API: typed models, the client, its errors. Never imports Textual."""

from .client import ApiClient, Endpoint, RetryNotice
from .connection import Connection
from .errors import (
    ApiError,
    AuthError,
    NetworkError,
    NotFoundError,
    OutcomeUnknownError,
    RateLimitedError,
    RedirectError,
    ServerError,
    TimeoutError_,
    UnexpectedResponse,
    ValidationError,
)
from .secret import Secret

__all__ = [
    "ApiClient",
    "ApiError",
    "AuthError",
    "Connection",
    "Endpoint",
    "NetworkError",
    "NotFoundError",
    "OutcomeUnknownError",
    "RateLimitedError",
    "RedirectError",
    "RetryNotice",
    "Secret",
    "ServerError",
    "TimeoutError_",
    "UnexpectedResponse",
    "ValidationError",
]
