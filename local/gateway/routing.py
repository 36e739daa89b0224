"""API Gateway (REST) routing and the proxy event it hands to a function."""

from __future__ import annotations

import base64
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from stack.template import Route


@dataclass(frozen=True)
class Match:
    route: Route
    path_parameters: dict[str, str]


def _segment_match(pattern: str, path: str) -> tuple[tuple[int, ...], dict[str, str]] | None:
    """How specifically ``pattern`` matches ``path`` (lower is more specific), or None."""
    want = [s for s in pattern.split("/") if s]
    have = [s for s in path.split("/") if s]
    rank: list[int] = []
    params: dict[str, str] = {}
    for i, part in enumerate(want):
        if part.startswith("{") and part.endswith("+}"):
            if i >= len(have):
                return None
            params[part[1:-2]] = unquote("/".join(have[i:]))
            return (*rank, 2), params
        if i >= len(have):
            return None
        if part.startswith("{"):
            params[part[1:-1]] = unquote(have[i])  # API Gateway decodes path parameters once
            rank.append(1)
        elif part == unquote(have[i]):
            rank.append(0)
        else:
            return None
    return (tuple(rank), params) if len(want) == len(have) else None


def match(routes: list[Route], method: str, path: str) -> tuple[str | None, Match | None]:
    """The matched resource path (None if none) and the route for ``method`` there (explicit, else ANY)."""
    best: tuple[tuple[int, ...], str, dict[str, str]] | None = None
    for resource in {r.path for r in routes}:
        found = _segment_match(resource, path)
        if found and (best is None or found[0] < best[0]):
            best = (found[0], resource, found[1])
    if best is None:
        return None, None
    _, resource, params = best
    on_resource = {r.method: r for r in routes if r.path == resource}
    route = on_resource.get(method) or on_resource.get("ANY")
    return resource, Match(route, params) if route else None


def _header(headers: list[tuple[str, str]], name: str) -> str:
    return next((value for key, value in reversed(headers) if key.lower() == name), "")


def proxy_event(
    method: str,
    raw_target: str,
    headers: list[tuple[str, str]],
    body: bytes,
    match: Match,
    *,
    stage: str,
    source_ip: str,
) -> dict[str, Any]:
    """The REST API (v1) proxy event API Gateway builds for this request."""
    target = urlsplit(raw_target)
    path = target.path  # a REST API passes the path as the client sent it (still percent-encoded)
    query = parse_qsl(target.query, keep_blank_values=True)
    multi_headers: dict[str, list[str]] = {}
    for name, value in headers:
        multi_headers.setdefault(name, []).append(value)
    multi_query: dict[str, list[str]] = {}
    for name, value in query:
        multi_query.setdefault(name, []).append(value)
    try:
        text, is_base64 = body.decode("utf-8"), False
    except UnicodeDecodeError:
        text, is_base64 = base64.b64encode(body).decode(), True
    request_id = str(uuid.uuid4())
    return {
        "resource": match.route.path,
        "path": path,
        "httpMethod": method,
        "headers": {k: v[-1] for k, v in multi_headers.items()} or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": match.path_parameters or None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "local",
            "resourcePath": match.route.path,
            "httpMethod": method,
            "path": f"/{stage}{path}",
            "accountId": "000000000000",
            "protocol": "HTTP/1.1",
            "stage": stage,
            "requestId": request_id,
            "extendedRequestId": request_id,
            "requestTimeEpoch": int(time.time() * 1000),
            "identity": {"sourceIp": source_ip, "userAgent": _header(headers, "user-agent")},
            "domainName": "localhost",
            "apiId": "local",
        },
        "body": (text if body else None),
        "isBase64Encoded": is_base64,
    }
