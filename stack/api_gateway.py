"""API Gateway (REST)'s front end as deployed: the quotas it enforces and the methods it routes before any function
runs, and the service's ``{error, code}`` for each status it refuses with.

The local gateway answers by these (``local.gateway.http_server``, ``local.gateway.refusals``) and the OpenAPI
documents declare them (``stack.openapi.catalog``), so neither the documents nor the runner repeats the other.
"""

from __future__ import annotations

# API Gateway (REST) quotas: the URL of an edge-optimized API, and request line plus headers together.
MAX_URL = 8192
MAX_REQUEST_HEAD = 10240
# The methods API Gateway routes (ANY is these); anything else never reaches a function.
KNOWN_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})

# The application's vocabulary (core.platform.errors) where it has the status, else the status's own name.
CODES = {
    400: ("Bad request", "BAD_REQUEST"),
    404: ("Not found", "NOT_FOUND"),
    405: ("Method not allowed", "METHOD_NOT_ALLOWED"),
    408: ("Request timeout", "REQUEST_TIMEOUT"),
    411: ("Length required", "LENGTH_REQUIRED"),
    413: ("Request body too large", "PAYLOAD_TOO_LARGE"),
    414: ("Request URI too long", "URI_TOO_LONG"),
    417: ("Expectation failed", "EXPECTATION_FAILED"),
    429: ("Rate limit exceeded", "RATE_LIMITED"),
    431: ("Request header fields too large", "REQUEST_HEADER_FIELDS_TOO_LARGE"),
    500: ("Internal error", "INTERNAL_ERROR"),
    501: ("Not implemented", "NOT_IMPLEMENTED"),
    503: ("Service unavailable, retry after the time in Retry-After", "SERVICE_UNAVAILABLE"),
    505: ("HTTP version not supported", "HTTP_VERSION_NOT_SUPPORTED"),
}
