"""A local API Gateway (REST) per API: routes, CORS preflight and gateway responses from the template."""

from __future__ import annotations

import base64
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .containers import ContainerPool, InvocationFailed, StreamedResponse
from .routing import match, proxy_event
from .template import Stack

logger = logging.getLogger("local.gateway")
MAX_PAYLOAD = 10 * 1024 * 1024  # API Gateway's own request limit


def _unquote(value: Any) -> str:
    """SAM writes CORS values as quoted literals ("'*'")."""
    return str(value).strip("'")


class ApiGateway:
    def __init__(self, stack: Stack, api: str, pool: ContainerPool):
        props = stack.api_properties(api)
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
        body = body.replace("$context.error.messageString", json.dumps(fallback))
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

    def handle(
        self, method: str, target: str, headers: list[tuple[str, str]], body: bytes, source_ip: str
    ) -> tuple[int, dict[str, str] | list[tuple[str, str]], bytes] | StreamedResponse:
        path = target.split("?", 1)[0]
        resource, found = match(self.routes, method, path)
        if resource is not None and method == "OPTIONS" and self.cors:
            return self._preflight()
        if found is None:
            return self._gateway_response("MISSING_AUTHENTICATION_TOKEN", 403, "Missing Authentication Token")
        if len(body) > MAX_PAYLOAD:
            return self._gateway_response("REQUEST_TOO_LARGE", 413, "Request Too Long")
        event = proxy_event(method, target, headers, body, found, stage=self.stage, source_ip=source_ip)
        try:
            if found.route.function in self.streaming:  # ResponseTransferMode: RESPONSE_STREAM
                return self.pool.invoke_stream(found.route.function, event)
            result = self.pool.invoke(found.route.function, event)
        except InvocationFailed as exc:
            logger.error("%s failed: %s", found.route.function, exc)
            return self._gateway_response("DEFAULT_5XX", 502, "Internal server error")
        return _to_http(result)


def _to_http(result: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = list((result.get("headers") or {}).items())
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((name, v) for v in values)
    body = result.get("body") or ""
    raw = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode()
    return int(result.get("statusCode", 200)), headers, raw


def serve(gateway: ApiGateway, host: str, port: int) -> ThreadingHTTPServer:
    """Serve ``gateway`` on a background thread; returns the server (its bound port in ``server_address``)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # a streamed chunk leaves at once, not after the last one's ACK

        def _dispatch(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            reply = gateway.handle(self.command, self.path, list(self.headers.items()), body, self.client_address[0])
            if isinstance(reply, StreamedResponse):
                return self._stream(reply)
            status, headers, payload = reply
            self.send_response(status)
            items = headers.items() if isinstance(headers, dict) else headers
            names = set()
            for name, value in items:
                names.add(name.lower())
                self.send_header(name, value)
            if "content-length" not in names:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
            return None

        def _stream(self, response: StreamedResponse) -> None:
            """Status and headers as soon as the prelude is in, then each chunk as the function produces it."""
            try:
                self.send_response(response.status)
                for name, value in response.headers:
                    self.send_header(name, value)
                has_body = self.command != "HEAD" and response.status not in (204, 304)
                # Without the function's own Content-Length, the body is framed by chunked encoding.
                chunked = has_body and all(name.lower() != "content-length" for name, _ in response.headers)
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in response.chunks:  # read to the end even without a body: the function finishes
                    if has_body:
                        self.wfile.write(b"%x\r\n%b\r\n" % (len(chunk), chunk) if chunked else chunk)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
            except InvocationFailed as exc:  # after the prelude: the client sees the body end abruptly
                logger.error("%s failed mid-stream: %s", gateway.name, exc)
                self.close_connection = True
            except OSError:  # the client went away; closing the response aborts the invocation
                logger.info("%s: client disconnected mid-stream", gateway.name)
                self.close_connection = True
            finally:
                response.close()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch

        def log_message(self, fmt: str, *args: Any) -> None:
            logger.info("%s %s", gateway.name, fmt % args)

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=f"http-{gateway.name}", daemon=True).start()
    return server
