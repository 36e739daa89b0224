"""The one middleware every resolver runs, ``boundary_for(...)``: it
- refuses bodies over the size limit (413), then a body not declared JSON (415),
- refuses a request carrying more than one ``Authorization`` header (401),
- authenticates the caller for the plane (the read plane's key check runs here),
- maps every ``DomainError`` to ``{error, code}`` and anything unexpected to a bare 500,
- adds CORS (and, on the read plane, ``RateLimit-*``) headers to every response,
reading settings at request time so importing a handler reads no environment.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any

from core.platform import json_body, observability, origins
from core.platform.errors import DomainError, PayloadTooLarge, Unauthorized, UnsupportedMediaType
from core.platform.rest.bearer import authorization_count
from core.platform.rest.requests import header
from core.platform.rest.responses import error_response
from core.platform.rest.router import Middleware, Next, Response, RestResolver
from core.platform.settings import get_settings

logger = logging.getLogger("core.http")  # the name these lines have always been logged under

EXPOSED_HEADERS = (
    "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag, Content-Range, Accept-Ranges, "
    "Content-Disposition, Next-Cursor"
)
Authenticate = Callable[[RestResolver], dict[str, str]]


def _body_size(app: RestResolver) -> int:
    body = app.current_event.body or ""
    if app.current_event.is_base64_encoded:
        return len(base64.b64decode(body))
    return len(body.encode())


def cors_headers(
    allow_origin: str, request_origin: str | None, key_origins: tuple[str, ...] | None = None
) -> dict[str, str]:
    headers = {"Access-Control-Expose-Headers": EXPOSED_HEADERS}
    if (
        key_origins is not None
    ):  # a read-plane key restricted to some origins: its list decides (core/platform/origins.py)
        key_cors = origins.cors_headers(key_origins, request_origin)
        echoed = key_cors.get("Access-Control-Allow-Origin")
        if echoed and allow_origin != "*" and echoed not in allow_origin.split(","):
            del key_cors["Access-Control-Allow-Origin"]  # the plane's own list still applies
        return headers | key_cors
    if allow_origin == "*":
        headers["Access-Control-Allow-Origin"] = "*"
    elif request_origin and request_origin in allow_origin.split(","):
        headers |= {
            "Access-Control-Allow-Origin": request_origin,
            "Access-Control-Allow-Credentials": "true",
            "Vary": "Origin",
        }
    return headers


def merge_tokens(*values: str) -> str:
    """Comma-separated header tokens, each once, in order of appearance (case-insensitive)."""
    seen: dict[str, str] = {}
    for token in (t.strip() for value in values for t in value.split(",")):
        if token:
            seen.setdefault(token.lower(), token)
    return ", ".join(seen.values())


def _refuse_unreadable_request(app: RestResolver, unauthorized: str) -> None:
    """415 for a body not declared JSON (a missing type too: a browser's "simple" ``text/plain`` POST skips
    the CORS preflight, which the cookie-authenticated sign-in routes rely on), then 401 for a doubled credential."""
    event = app.current_event
    if event.body and not json_body.is_json_media_type(header(app, "content-type")):
        raise UnsupportedMediaType()
    if authorization_count(event.get("headers"), event.get("multiValueHeaders")) > 1:
        observability.count("Unauthorized", reason="doubled")
        raise Unauthorized(unauthorized)


def boundary_for(
    authenticate: Authenticate | None, allow_origin: Callable[[], str], unauthorized: str | None
) -> Middleware:
    def _boundary(app: RestResolver, next_middleware: Next) -> Response[Any]:
        extra_headers: dict[str, str] = {}
        try:
            if _body_size(app) > get_settings().max_body_bytes:
                raise PayloadTooLarge()
            if unauthorized is not None:  # None: the fallback, whose 404/405 is about the route, not the request
                _refuse_unreadable_request(app, unauthorized)
            if authenticate is not None:
                extra_headers = authenticate(app)
            response = next_middleware(app)
        except DomainError as error:
            response = error_response(error)
        except Exception:  # incl. a ValidationError from a stored record: the service's fault, not the caller's
            logger.exception("unhandled error")
            response = error_response(DomainError())
        for name, value in (
            extra_headers
            | cors_headers(allow_origin(), app.current_event.headers.get("origin"), app.context.get("key_origins"))
        ).items():
            if name == "Vary" and isinstance(current := response.headers.get("Vary"), str):
                response.headers["Vary"] = merge_tokens(current, value)  # both reasons hold: keep both
            else:
                response.headers.setdefault(name, value)
        return response

    return _boundary
