"""core.platform.errors: every DomainError's status and code (decisions.md's table) and the ``{error, code}`` body."""

from __future__ import annotations

import inspect
import re

import pytest

from core.platform import errors
from core.platform.dynamo import StorageUnavailable
from core.platform.errors import DomainError, RateLimited

# decisions.md "Wire conventions"; CONFLICT (idempotency keys) and RANGE_NOT_SATISFIABLE (/v1/r2) and
# UNSUPPORTED_MEDIA_TYPE (a body not declared JSON) and INVALID_WEBHOOK_URL (authoring.md's webhooks leave
# the code unnamed) are the code's own.
TABLE = {
    errors.ValidationFailed: (400, "VALIDATION_ERROR"),
    errors.InvalidPath: (400, "INVALID_PATH"),
    errors.InvalidWebhookUrl: (400, "INVALID_WEBHOOK_URL"),
    errors.Unauthorized: (401, "UNAUTHORIZED"),
    errors.TokenExpired: (401, "TOKEN_EXPIRED"),
    errors.PlanLimitReached: (402, "PLAN_LIMIT_REACHED"),
    errors.ApiKeysNotAvailable: (402, "API_KEYS_NOT_AVAILABLE"),
    errors.InsufficientCredits: (402, "INSUFFICIENT_CREDITS"),
    errors.StorageLimitReached: (402, "STORAGE_LIMIT_REACHED"),
    errors.Forbidden: (403, "FORBIDDEN"),
    errors.PrefixNotAllowed: (403, "PREFIX_NOT_ALLOWED"),
    errors.OriginNotAllowed: (403, "ORIGIN_NOT_ALLOWED"),
    errors.SignedUrlInvalid: (403, "SIGNED_URL_INVALID"),
    errors.SignedUrlExpired: (403, "SIGNED_URL_EXPIRED"),
    errors.NotFound: (404, "NOT_FOUND"),
    errors.MethodNotAllowed: (405, "METHOD_NOT_ALLOWED"),
    errors.Conflict: (409, "CONFLICT"),
    errors.PayloadTooLarge: (413, "PAYLOAD_TOO_LARGE"),
    errors.UnsupportedMediaType: (415, "UNSUPPORTED_MEDIA_TYPE"),
    errors.RangeNotSatisfiable: (416, "RANGE_NOT_SATISFIABLE"),
    errors.RateLimited: (429, "RATE_LIMITED"),
    errors.DomainError: (500, "INTERNAL_ERROR"),
    StorageUnavailable: (500, "INTERNAL_ERROR"),
}


def test_table_covers_every_error_class_of_the_module() -> None:
    defined = {c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, DomainError)}
    assert defined <= set(TABLE), defined - set(TABLE)


@pytest.mark.parametrize(("cls", "expected"), TABLE.items(), ids=lambda v: getattr(v, "__name__", str(v)))
def test_status_and_code(cls: type[DomainError], expected: tuple[int, str]) -> None:
    error = cls()
    assert (error.status, error.code) == expected
    assert isinstance(error, DomainError)
    assert re.fullmatch(r"[A-Z][A-Z0-9_]*", error.code)


@pytest.mark.parametrize("cls", TABLE, ids=lambda c: c.__name__)
def test_default_body_is_error_and_code_only(cls: type[DomainError]) -> None:
    body = cls().body()
    assert set(body) == {"error", "code"}
    assert body["code"] == cls.code
    assert isinstance(body["error"], str) and body["error"]
    assert body["error"] == str(cls())
    assert cls().headers == {}


def test_custom_message_is_the_error_text() -> None:
    error = errors.NotFound("Agent not found")
    assert error.body() == {"error": "Agent not found", "code": "NOT_FOUND"}
    assert str(error) == "Agent not found"
    assert errors.NotFound().body() == {"error": "Not found", "code": "NOT_FOUND"}


def test_custom_message_does_not_change_the_class_default() -> None:
    errors.Forbidden("custom")
    assert errors.Forbidden().message == "Forbidden"


def test_internal_error_body_has_no_internals() -> None:
    assert DomainError().body() == {"error": "Internal error", "code": "INTERNAL_ERROR"}


def test_rate_limited_carries_its_headers() -> None:
    headers = {"Retry-After": "17", "RateLimit-Limit": "600", "RateLimit-Remaining": "0", "RateLimit-Reset": "17"}
    error = RateLimited(headers=headers)
    assert error.headers == headers
    assert error.body() == {"error": "Rate limit exceeded", "code": "RATE_LIMITED"}
    assert error.status == 429


def test_headers_are_not_shared_between_instances() -> None:
    first, second = RateLimited(), RateLimited()
    first.headers["X"] = "1"
    assert second.headers == {}
