"""Python client of the workspace service: ``Portal`` (management plane) and ``Brain`` (read plane), sync and async."""

__version__ = "0.1.0"

from ._operation import CLEAR
from .brain import AsyncBrain, Brain
from .chat import ChatEvent, Source
from .errors import (
    ApiError,
    AuthError,
    BadRequestError,
    ChatStreamError,
    ClientError,
    ConflictError,
    DownloadIntegrityError,
    ForbiddenError,
    IncompleteStreamError,
    NotFoundError,
    PaymentRequiredError,
    RangeNotSatisfiableError,
    RateLimitedError,
    ServerError,
    TokenExpiredError,
    TransportError,
    ValidationError,
)
from .portal import AsyncPortal, Portal
from .retry import RetryPolicy

__all__ = [
    "CLEAR",
    "ApiError",
    "AsyncBrain",
    "AsyncPortal",
    "AuthError",
    "BadRequestError",
    "Brain",
    "ChatEvent",
    "ChatStreamError",
    "ClientError",
    "ConflictError",
    "DownloadIntegrityError",
    "ForbiddenError",
    "IncompleteStreamError",
    "NotFoundError",
    "PaymentRequiredError",
    "Portal",
    "RangeNotSatisfiableError",
    "RateLimitedError",
    "RetryPolicy",
    "ServerError",
    "Source",
    "TokenExpiredError",
    "TransportError",
    "ValidationError",
]
