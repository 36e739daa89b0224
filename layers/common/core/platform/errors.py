"""One error hierarchy. Every failure a caller may see is a ``DomainError``.

The HTTP layer maps these to ``{"error", "code"}`` in one place (``core.http``);
nothing else builds error bodies.
"""

from __future__ import annotations


class DomainError(Exception):
    status = 500
    code = "INTERNAL_ERROR"
    message = "Internal error"

    def __init__(self, message: str | None = None, *, headers: dict[str, str] | None = None):
        super().__init__(message or self.message)
        self.message = message or self.message
        self.headers = headers or {}

    def body(self) -> dict[str, str]:
        return {"error": self.message, "code": self.code}


class ValidationFailed(DomainError):
    status, code, message = 400, "VALIDATION_ERROR", "Invalid request"


class InvalidWebhookUrl(DomainError):
    # A webhook's URL refused when saved (not https, or naming or resolving to an address no delivery may reach):
    # the message says which (core.webhooks.addresses).
    status, code, message = 400, "INVALID_WEBHOOK_URL", "The webhook URL is not allowed"


class InvalidPath(DomainError):
    status, code, message = 400, "INVALID_PATH", "Invalid object path"


class Unauthorized(DomainError):
    status, code, message = 401, "UNAUTHORIZED", "Unauthorized"


class TokenExpired(DomainError):
    status, code, message = 401, "TOKEN_EXPIRED", "Token expired"


class PlanLimitReached(DomainError):
    status, code, message = 402, "PLAN_LIMIT_REACHED", "Plan limit reached"


class ApiKeysNotAvailable(DomainError):
    status, code, message = 402, "API_KEYS_NOT_AVAILABLE", "API keys are not available on this plan"


class StorageLimitReached(DomainError):
    status, code, message = 402, "STORAGE_LIMIT_REACHED", "The plan's storage limit is reached"


class InsufficientCredits(DomainError):
    status, code, message = 402, "INSUFFICIENT_CREDITS", "Insufficient credits"


class Forbidden(DomainError):
    status, code, message = 403, "FORBIDDEN", "Forbidden"


class PrefixNotAllowed(DomainError):
    status, code, message = 403, "PREFIX_NOT_ALLOWED", "Path prefix is not allowed"


class NotFound(DomainError):
    status, code, message = 404, "NOT_FOUND", "Not found"


class MethodNotAllowed(DomainError):
    status, code, message = 405, "METHOD_NOT_ALLOWED", "Method not allowed"


class PayloadTooLarge(DomainError):
    status, code, message = 413, "PAYLOAD_TOO_LARGE", "Request body too large"


class UnsupportedMediaType(DomainError):
    status, code, message = 415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json"


class RangeNotSatisfiable(DomainError):
    status, code, message = 416, "RANGE_NOT_SATISFIABLE", "Requested range not satisfiable"


class RateLimited(DomainError):
    status, code, message = 429, "RATE_LIMITED", "Rate limit exceeded"


class Conflict(DomainError):
    status, code, message = 409, "CONFLICT", "Conflict"


class OriginNotAllowed(DomainError):
    status, code, message = 403, "ORIGIN_NOT_ALLOWED", "This API key may not be used from this origin"


class SignedUrlInvalid(DomainError):
    # One vague message for every reason (bad signature, another path, revoked key, deleted workspace…):
    # a holder of a URL learns nothing about why it fails, so it cannot probe which part to change.
    status, code, message = 403, "SIGNED_URL_INVALID", "This media URL is not valid"


class SignedUrlExpired(DomainError):
    status, code, message = 403, "SIGNED_URL_EXPIRED", "This media URL has expired; ask for a new one"
