"""Our REST resolver: the part of Powertools' ``APIGatewayRestResolver`` the API functions use, and nothing else.

Every API function imported Powertools' resolver (``event_handler.api_gateway``, its OpenAPI parameter types, the
event classes, ...), about 23 ms of CPU of a cold start, the largest single piece of our own code on that path, to
use a fraction of it: routes with ``<name>`` parameters, one global middleware, the 404 handler and the proxy
result. What this keeps of Powertools' behaviour, on purpose and tested against Powertools itself
(tests/unit/http/test_router_parity.py, which runs the same events through both and compares the results):

- a route's rule loses its trailing ``/`` and matches ``^{rule}/*$``, each ``<name>`` as the same named group
  (URI-safe and API Gateway-decoded characters), static routes before dynamic ones, the method compared upper case;
  the matched groups are the handler's keyword arguments;
- middlewares run in the order given, each ``middleware(app, next_middleware)``; the handler's result becomes a
  ``Response`` (a ``Response`` as is, ``(body, status)``, or JSON data with 200);
- an unmatched request runs the same middleware chain around the ``not_found`` handler (or Powertools' default
  404 body);
- the result: ``statusCode``, ``body`` (JSON content serialised when it is not a ``str`` already, ``bytes``
  base64-encoded with ``isBase64Encoded``, anything else, e.g. a ``StreamBody``, as it is), ``isBase64Encoded``
  and ``multiValueHeaders`` (each header's values in order, ``None`` left out, the cookies as ``Set-Cookie`` lines);
- ``app.context`` is cleared after every request; ``app.current_event`` is the request, ``app.lambda_context``
  its Lambda context.

Not kept (nothing here used it): CORS configuration, compression, cache-control, route middlewares, OpenAPI
validation, ``Depends``, prefixes, debug mode. The event and the context are the resolver's own attributes, not
attributes shared by every resolver of the process as Powertools keeps them.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

logger = logging.getLogger(__name__)

# Powertools' own character class for a ``<name>`` parameter (event_handler/api_gateway.py), so a path matches
# exactly what it matched before: RFC 3986's safe characters and those API Gateway hands over decoded.
_SAFE_URI = "-._~()'!*:@,;=+&$"
_UNSAFE_URI = r"%<> \[\]{}|^"
_NAMED_GROUP = rf"(?P\1[{_SAFE_URI}{_UNSAFE_URI}\\w]+)"
_PARAMETER = re.compile(r"(<\w+>)")
JSON_TYPE = "application/json"


def compile_rule(rule: str) -> re.Pattern[str]:
    """A route's pattern: each ``<name>`` a named group; any number of trailing slashes (REST's ``^{rule}/*$``)."""
    return re.compile(f"^{_PARAMETER.sub(_NAMED_GROUP, rule)}/*$")


class Headers(dict[str, Any]):
    """A request's headers with names in lower case, read in any case (``headers.get("Origin")``)."""

    def __init__(self, data: Mapping[str, Any] | None = None):
        super().__init__((k.lower(), v) for k, v in (data or {}).items())

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.lower() if isinstance(key, str) else key)

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.lower(), value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key.lower())


class ProxyEvent(Mapping[str, Any]):
    """An API Gateway REST (v1) proxy event: the raw dict, with the attributes our code reads."""

    def __init__(self, data: Mapping[str, Any]):
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    @cached_property  # read several times a request (the boundary's checks, the routes): lower-cased once
    def headers(self) -> Headers:
        return Headers(self._data.get("headers"))

    @property
    def query_string_parameters(self) -> dict[str, str]:
        return self._data.get("queryStringParameters") or {}

    @property
    def path_parameters(self) -> dict[str, str]:
        return self._data.get("pathParameters") or {}

    @property
    def path(self) -> str:
        return str(self._data["path"])

    @property
    def resource(self) -> str:
        return str(self._data["resource"])

    @property
    def http_method(self) -> str:
        return str(self._data["httpMethod"])

    @property
    def body(self) -> str | None:
        return self._data.get("body")

    @property
    def is_base64_encoded(self) -> bool | None:
        return self._data.get("isBase64Encoded")

    @cached_property
    def decoded_body(self) -> str | None:
        body = self.body
        if self.is_base64_encoded and body:
            return base64.b64decode(body.encode()).decode()
        return body


class Response[T]:
    """A route's answer. ``content_type`` becomes the ``Content-Type`` header unless ``headers`` has one; ``cookies``
    are ``Set-Cookie`` values already formatted (core.platform.cookies), written as they are."""

    def __init__(
        self,
        status_code: int,
        content_type: str | None = None,
        body: T | None = None,
        headers: Mapping[str, str | list[str]] | None = None,
        cookies: list[str] | None = None,
    ):
        self.status_code = status_code
        self.content_type = content_type
        self.body = body
        self.headers: dict[str, str | list[str]] = dict(headers) if headers else {}
        self.cookies = cookies or []
        if content_type:
            self.headers.setdefault("Content-Type", content_type)

    def is_json(self) -> bool:
        content_type = self.headers.get("Content-Type", "")
        if isinstance(content_type, list):
            content_type = content_type[0]
        return content_type.startswith(JSON_TYPE)


class NotFoundError(Exception):
    """What the ``not_found`` handler is called with: no route matched the request's method and path."""


class Route:
    def __init__(self, method: str, path: str, rule: re.Pattern[str], func: Callable[..., Any]):
        self.method = method.upper()
        self.path = path if path.strip() else "/"
        self.rule = rule
        self.func = func


Next = Callable[["RestResolver"], Response[Any]]
Middleware = Callable[["RestResolver", Next], Response[Any]]


class RestResolver:
    """Routes an API Gateway REST proxy event to its handler and answers the proxy result (see the module's doc)."""

    current_event: ProxyEvent
    lambda_context: Any

    def __init__(self, serializer: Callable[[Any], Any] | None = None):
        self._static_routes: list[Route] = []
        self._dynamic_routes: list[Route] = []
        self._route_keys: set[str] = set()
        self._middlewares: list[Middleware] = []
        self._not_found: Callable[[NotFoundError], Any] | None = None
        self._serializer = serializer or (lambda value: json.dumps(value, separators=(",", ":")))
        self.context: dict[str, Any] = {}

    # --- declaring

    def route[F: Callable[..., Any]](self, rule: str, method: str | Sequence[str]) -> Callable[[F], F]:
        rule = rule.rstrip("/")  # REST: /items and /items/ are one route

        def register(func: F) -> F:
            for item in (method,) if isinstance(method, str) else method:
                route = Route(item, rule, compile_rule(rule), func)
                (self._dynamic_routes if route.rule.groups else self._static_routes).append(route)
                if item + rule in self._route_keys:
                    warnings.warn(f"A route like this was already registered. method: {item!r} rule: {rule!r}",
                                  stacklevel=2)  # fmt: skip
                self._route_keys.add(item + rule)
            return func

        return register

    def get[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "GET")

    def post[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "POST")

    def put[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "PUT")

    def patch[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "PATCH")

    def delete[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "DELETE")

    def head[F: Callable[..., Any]](self, rule: str) -> Callable[[F], F]:
        return self.route(rule, "HEAD")

    def use(self, middlewares: list[Middleware]) -> None:
        """Middlewares every request runs through, in this order (the first one outermost)."""
        self._middlewares = self._middlewares + middlewares

    def not_found[F: Callable[[NotFoundError], Any]](self, func: F) -> F:
        self._not_found = func
        return func

    # --- answering

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        self.current_event = ProxyEvent(event)
        self.lambda_context = context
        try:
            return self._proxy_result(self._answer())
        finally:
            self.context.clear()

    def __call__(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        return self.resolve(event, context)

    def _answer(self) -> Response[Any]:
        method, path = self.current_event.http_method.upper(), self.current_event.path
        for route in (*self._static_routes, *self._dynamic_routes):
            if route.method == method and (match := route.rule.match(path)):
                self.context.update(_route=route, _path=path)
                return self._call(route.func, match.groupdict())
        self.context.update(_path=path)
        return self._call(self._unmatched, {})

    def _unmatched(self) -> Any:
        if self._not_found is not None:
            return self._not_found(NotFoundError())
        return Response(404, JSON_TYPE, {"statusCode": 404, "message": "Not found"})

    def _call(self, func: Callable[..., Any], arguments: dict[str, str]) -> Response[Any]:
        def handler(app: RestResolver) -> Response[Any]:
            return app._to_response(func(**arguments))

        chain: Next = handler
        for middleware in reversed(self._middlewares):
            chain = _frame(middleware, chain)
        try:
            return self._to_response(chain(self))
        except Exception:
            logger.exception("unhandled error in the resolver")  # then the runtime's (or the observer's) answer
            raise

    def _to_response(self, result: Any) -> Response[Any]:
        if isinstance(result, Response):
            return result
        status = 200
        if isinstance(result, tuple) and len(result) == 2:
            result, status = result
        return Response(status, JSON_TYPE, result)

    def _proxy_result(self, response: Response[Any]) -> dict[str, Any]:
        body, encoded = response.body, False
        if response.is_json() and not isinstance(body, str):
            body = self._serializer(body)
        if isinstance(body, bytes):
            body, encoded = base64.b64encode(body).decode(), True
        headers: dict[str, list[str]] = {}
        for name, values in response.headers.items():
            if values is not None:
                headers.setdefault(name, []).extend([values] if isinstance(values, str) else values)
        if response.cookies:
            headers.setdefault("Set-Cookie", []).extend(str(cookie) for cookie in response.cookies)
        return {"statusCode": response.status_code, "body": body, "isBase64Encoded": encoded,
                "multiValueHeaders": headers}  # fmt: skip


def _frame(middleware: Middleware, following: Next) -> Next:
    return lambda app: middleware(app, following)
