"""A local API Gateway (REST) per API: routes, CORS preflight and gateway responses from the template.

The HTTP side (framing, limits, the access log, ``serve``) is ``local.gateway.http_server``, which names this module
for its types only: the two import each other no more.
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

from local.containers.pool import ContainerPool, InvocationFailed, StreamedResponse, Throttled
from local.gateway.refusals import refusal
from local.gateway.routing import match, proxy_event
from stack.template import ROOT, Stack

Reply = tuple[int, dict[str, str] | list[tuple[str, str]], bytes]
# The checked-in OpenAPI documents, served at GET /openapi.json on each API's port (local only).
OPENAPI_DIR = ROOT / "docs" / "openapi"
OPENAPI_FILES = {"PortalApi": "portal.json", "BrainApi": "brain.json"}

__all__ = ["ApiGateway"]
logger = logging.getLogger("local.gateway")
MAX_PAYLOAD = 10 * 1024 * 1024  # API Gateway's own request limit


def _unquote(value: Any) -> str:
    """SAM writes CORS values as quoted literals ("'*'")."""
    return str(value).strip("'")


class ApiGateway:
    def __init__(self, stack: Stack, api: str, pool: ContainerPool, *, openapi_dir: Path = OPENAPI_DIR):
        props = stack.api_properties(api)
        self.openapi = openapi_dir / OPENAPI_FILES.get(api, f"{api}.json")
        self.name = api
        self.routes = stack.routes(api)
        self.stage = props.get("StageName", "live")
        self.cors = props.get("Cors")
        self.responses = props.get("GatewayResponses", {})
        self.pool = pool
        self.streaming = {name for name, spec in stack.functions().items() if spec.streaming}

    def _gateway_response(self, kind: str, status: int, fallback: str) -> tuple[int, dict[str, str], bytes]:
        spec = self.responses.get(kind) or self.responses.get("DEFAULT_5XX" if status >= 500 else "DEFAULT_4XX") or {}
        headers = {k: _unquote(v) for k, v in spec.get("ResponseParameters", {}).get("Headers", {}).items()}
        body = spec.get("ResponseTemplates", {}).get("application/json", fallback)
        # The $context variables a gateway response template may use (longest name first: one is a prefix).
        for variable, value in (
            ("$context.error.messageString", json.dumps(fallback)),
            ("$context.error.message", fallback),
            ("$context.error.responseType", kind),
        ):
            body = body.replace(variable, value)
        return int(spec.get("StatusCode", status)), {"Content-Type": "application/json"} | headers, body.encode()

    def _preflight(self) -> tuple[int, dict[str, str], bytes]:
        cors = self.cors if isinstance(self.cors, dict) else {"AllowOrigin": self.cors}
        headers = {
            "Access-Control-Allow-Origin": _unquote(cors.get("AllowOrigin", "*")),
            "Access-Control-Allow-Headers": _unquote(cors.get("AllowHeaders", "")),
            "Access-Control-Allow-Methods": _unquote(cors.get("AllowMethods", "")),
        }
        if "MaxAge" in cors:
            headers["Access-Control-Max-Age"] = _unquote(cors["MaxAge"])
        if cors.get("AllowCredentials"):
            headers["Access-Control-Allow-Credentials"] = "true"
        return 200, {k: v for k, v in headers.items() if v}, b""

    def too_large(self) -> Reply:
        return self._gateway_response("REQUEST_TOO_LARGE", 413, "Request Too Long")

    def unknown_method(self, method: str, target: str) -> Reply:
        """A method API Gateway does not route (TRACE, PROPFIND, FOO…): 405 on a known path, else not found."""
        resource, _ = match(self.routes, method, target.split("?", 1)[0])
        if resource is None or resource == "/{proxy+}":
            return self._gateway_response("MISSING_AUTHENTICATION_TOKEN", 403, "Missing Authentication Token")
        methods = {r.method for r in self.routes if r.path == resource and r.method != "ANY"}
        if self.cors:
            methods.add("OPTIONS")  # SAM adds the preflight method to every resource
        return refusal(405, {"Allow": ", ".join(sorted(methods))})

    def openapi_document(self) -> Reply:
        """GET /openapi.json: the API's checked-in OpenAPI document, read at request time (no auth)."""
        try:
            document = self.openapi.read_bytes()
        except OSError:
            return refusal(404)
        return 200, {"Content-Type": "application/json", "Access-Control-Allow-Origin": "*"}, document

    def handle(
        self, method: str, target: str, headers: list[tuple[str, str]], body: bytes, source_ip: str
    ) -> Reply | StreamedResponse:
        path = target.split("?", 1)[0]
        if path == "/openapi.json" and method in ("GET", "HEAD"):
            return self.openapi_document()
        resource, found = match(self.routes, method, path)
        if resource is not None and method == "OPTIONS" and self.cors:
            return self._preflight()
        if found is None:
            return self._gateway_response("MISSING_AUTHENTICATION_TOKEN", 403, "Missing Authentication Token")
        if len(body) > MAX_PAYLOAD:
            return self.too_large()
        event = proxy_event(method, target, headers, body, found, stage=self.stage, source_ip=source_ip)
        try:
            if found.route.function in self.streaming:  # ResponseTransferMode: RESPONSE_STREAM
                return self.pool.invoke_stream(found.route.function, event)
            result = self.pool.invoke(found.route.function, event)
        except InvocationFailed as exc:
            logger.error("%s failed: %s", found.route.function, exc)
            return self._gateway_response("DEFAULT_5XX", 502, "Internal server error")
        except Throttled as shed:
            return self.shed(shed)
        return _to_http(result)

    def shed(self, shed: Throttled) -> tuple[int, dict[str, str], bytes]:
        """No container came free in time: the function's throttle (429, THROTTLED) or a busy runner (503)."""
        logger.warning("shed: %s", shed)
        retry = {"Retry-After": str(shed.retry_after)}
        if shed.runner_full:
            return refusal(503, retry)
        status, headers, body = self._gateway_response("THROTTLED", 429, "Rate exceeded")
        return status, headers | retry, body


def _to_http(result: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = list((result.get("headers") or {}).items())
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((name, v) for v in values)
    body = result.get("body") or ""
    raw = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode()
    return int(result.get("statusCode", 200)), headers, raw
