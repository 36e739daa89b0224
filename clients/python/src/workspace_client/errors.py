"""Exceptions: every refusal of the service is an ``ApiError`` carrying its status, code and message.

The class is chosen by the service's ``code`` first (``TOKEN_EXPIRED`` is an ``AuthError`` that
says the JWT only needs refreshing), then by the status, so a code this client does not know yet
still lands in the right family (a new 403 code is a ``ForbiddenError``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from time import time


class ClientError(Exception):
    """Anything this client raises."""


class TransportError(ClientError):
    """No usable answer: the connection failed, timed out or was cut (after the retries allowed)."""


class IncompleteStreamError(TransportError):
    """A chat stream ended without its final event (the connection was cut mid-reply)."""


class DownloadIntegrityError(ClientError):
    """A downloaded object's length or checksum does not match what the service announced; nothing was kept."""


class ApiError(ClientError):
    """The service refused: ``status``, its stable ``code`` (``UPPER_SNAKE``) and its ``message``."""

    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


class BadRequestError(ApiError):
    """400: the request was malformed (``INVALID_PATH``, ``BAD_REQUEST``, …)."""


class ValidationError(BadRequestError):
    """400 ``VALIDATION_ERROR``: a field is missing, of the wrong type or out of range (the message names it)."""


class AuthError(ApiError):
    """401: the credential is missing, unknown, revoked or of the wrong kind."""


class TokenExpiredError(AuthError):
    """401 ``TOKEN_EXPIRED``: a portal JWT past its ``exp`` (refresh it, or sign in again)."""


class PaymentRequiredError(ApiError):
    """402: a plan limit (``PLAN_LIMIT_REACHED``, ``API_KEYS_NOT_AVAILABLE``) or ``INSUFFICIENT_CREDITS``."""


class ForbiddenError(ApiError):
    """403: the role may not do this (``FORBIDDEN``), or an r2 path outside the allowlist."""


class NotFoundError(ApiError):
    """404: unknown, or not yours (the service does not tell which)."""


class ConflictError(ApiError):
    """409: e.g. the same Idempotency-Key with another body, or while its first attempt runs."""


class RangeNotSatisfiableError(ApiError):
    """416: the requested byte range starts past the object's end."""


class RateLimitedError(ApiError):
    """429: over the key's or the visitor's limit; ``retry_after`` seconds until the same request passes."""

    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(status, code, message, headers)
        self.retry_after = retry_after_seconds(self.headers.get("retry-after"))


class ServerError(ApiError):
    """5xx: the service failed (retried first when the request was safe to repeat)."""


class ChatStreamError(ApiError):
    """A chat turn that failed after it started (an ``error`` event; the HTTP status was already 200)."""

    def __init__(self, code: str, message: str, turn_id: str | None):
        super().__init__(200, code, message)
        self.turn_id = turn_id


BY_CODE: dict[str, type[ApiError]] = {
    "VALIDATION_ERROR": ValidationError,
    "TOKEN_EXPIRED": TokenExpiredError,
}
BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthError,
    402: PaymentRequiredError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    416: RangeNotSatisfiableError,
    429: RateLimitedError,
}


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` in seconds from now: whole seconds, or an HTTP date (RFC 9110 §10.2.3); None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - (time() if now is None else now))


def error_from_response(status: int, headers: Mapping[str, str], content: bytes) -> ApiError:
    """The exception for an error answer; a body that is not the service's ``{error, code}`` still makes one."""
    code, message = f"HTTP_{status}", content[:200].decode("utf-8", "replace") or f"HTTP {status}"
    try:
        document = json.loads(content)
    except ValueError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("code"), str):
        code, message = document["code"], str(document.get("error", ""))
    kind = BY_CODE.get(code) or BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return kind(status, code, message, {name.lower(): value for name, value in headers.items()})
