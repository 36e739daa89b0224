"""What a plane adds to every operation: credentials, plane-wide errors, and the headers that matter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stack.api_gateway import CODES

if TYPE_CHECKING:  # core is imported when a document is built, once the layer is on the path
    from core.platform.errors import DomainError

RATE_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")

HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {"description": "The key's limit, requests per minute.", "schema": {"type": "integer"}},
    "RateLimit-Remaining": {"description": "Requests left before a 429.", "schema": {"type": "integer"}},
    "RateLimit-Reset": {
        "description": "Seconds until RateLimit-Remaining next goes up (equals Retry-After when it is 0).",
        "schema": {"type": "integer"},
    },
    "Retry-After": {"description": "Whole seconds to wait before trying again.", "schema": {"type": "integer"}},
    "ETag": {"description": "The object's entity tag.", "schema": {"type": "string"}},
    "Last-Modified": {"description": "When the object was stored (HTTP date).", "schema": {"type": "string"}},
    "Cache-Control": {"description": "The object's own, or private, max-age=3600.", "schema": {"type": "string"}},
    "Accept-Ranges": {"description": "Always bytes.", "schema": {"type": "string", "enum": ["bytes"]}},
    "Content-Length": {"description": "Bytes in this answer's body.", "schema": {"type": "integer"}},
    "Content-Range": {
        "description": "The part sent (206), or bytes */<size> when no range is satisfiable (416).",
        "schema": {"type": "string"},
    },
    "Location": {"description": "A presigned S3 URL of the whole object, valid 300 s.", "schema": {"type": "string"}},
    "Allow": {"description": "The methods the path does support (RFC 9110).", "schema": {"type": "string"}},
    "Next-Cursor": {
        "description": "The next page's cursor (pass it as `cursor`); absent on the last page.",
        "schema": {"type": "string"},
    },
    "Set-Cookie": {
        "description": "The `session` cookie (HttpOnly, SameSite=Lax, Path=/, Secure), or its removal.",
        "schema": {"type": "string"},
    },
}

REQUEST_HEADERS: dict[str, dict[str, Any]] = {
    "Idempotency-Key": {
        "description": "Retry safely: the same key and body replay the first answer for 24 hours. 1-255 printable "
        "characters (else 400 VALIDATION_ERROR).",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    },
    "Range": {
        "description": "One byte range (bytes=N-M, N-, -N); anything else is ignored.",
        "schema": {"type": "string"},
    },
    "If-Range": {"description": "Keep the range only while this strong ETag matches.", "schema": {"type": "string"}},
    "If-None-Match": {"description": "304 when one of these ETags matches.", "schema": {"type": "string"}},
}

SECURITY_SCHEMES: dict[str, dict[str, dict[str, Any]]] = {
    "portal": {
        "portalJwt": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A portal JWT (HS256, one hour) from POST /api/auth/api-token or /api/auth/refresh.",
        },
        "sessionCookie": {
            "type": "apiKey",
            "in": "cookie",
            "name": "session",
            "description": "The session cookie set by a sign-in (magic link, Google or Apple).",
        },
    },
    "brain": {
        "workspaceKey": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "sk_ws_…",
            "description": "A workspace API key (`sk_ws_` + secret + checksum), minted on the portal.",
        },
    },
}

SECURITY: dict[tuple[str, str], list[dict[str, list[str]]]] = {
    ("portal", "plane"): [{"portalJwt": []}],
    ("portal", "none"): [],
    ("portal", "session"): [{"sessionCookie": []}],
    ("portal", "session-or-bearer"): [{"sessionCookie": []}, {"portalJwt": []}, {}],
    ("brain", "plane"): [{"workspaceKey": []}],
}


def gateway_limits() -> dict[int, str]:
    """What API Gateway refuses before any function runs, whatever the operation: a URL over its quota (414), a
    request line and headers over theirs (431); ``{status: code}`` as the local runner answers them
    (``stack/api_gateway.py``). A query or path can reach 414 within its own schema (a 2,048-character cursor of
    non-ASCII characters is more than 8 KiB once percent-encoded)."""
    return {status: CODES[status][1] for status in (414, 431)}


def plane_errors(
    plane: str, auth: str, has_body: bool, request_headers: tuple[str, ...] = ()
) -> list[type[DomainError]]:
    """The errors every operation of the plane can answer, mirroring ``core.http``'s boundary: 413
    before anything, 415 for a body not declared JSON, 401 for two ``Authorization`` headers or a bad
    credential, the read plane's key limit (429) and a restricted key's origins (403), and 500 for anything
    unexpected; 400 for a body, or an ``Idempotency-Key`` (``core.platform.idempotency``), that is refused."""
    from core.platform import errors

    found: list[type[DomainError]] = [
        errors.PayloadTooLarge, errors.UnsupportedMediaType, errors.Unauthorized, errors.DomainError,
    ]  # fmt: skip
    if plane == "brain":
        found += [errors.RateLimited, errors.OriginNotAllowed]  # a key restricted to origins refuses the others
    if plane == "portal" and auth in ("plane", "session-or-bearer"):
        found.append(errors.TokenExpired)
    if has_body or "Idempotency-Key" in request_headers:
        found.append(errors.ValidationFailed)
    return found
