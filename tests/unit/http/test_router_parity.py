"""Our REST resolver (core.platform.rest.router) answers every request as Powertools' ``APIGatewayRestResolver``
answered it (docs/decisions.md, "Our own REST resolver").

The same plane factories (``portal_api``, ``fallback_api``: the boundary middleware, the 404/405 handler, the
serializer) and the same routes are built twice, once on our resolver and once on Powertools', the resolver
``make_resolver`` built before; then each event below goes through both, and the proxy results must be equal,
key order, headers, cookies, base64 and streamed bodies included. Powertools stays a test dependency for this.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.api_gateway import Response as PowertoolsResponse
from pydantic import BaseModel, Field

from core.http import fallback_api, json_response, parse_body, portal_api, query_param, stream_response
from core.platform import observability
from core.platform.errors import Conflict, NotFound
from core.platform.response_stream import StreamBody
from core.platform.rest import resolver as resolver_module
from core.platform.rest.router import Response, RestResolver, compile_rule
from stack.openapi.contracts import handler_module
from stack.template import load
from tests.support.handler_routes import template_routes
from tests.support.lambdas import LambdaContext

JSON = "application/json; charset=utf-8"
SESSION = "session=s3cr3t; HttpOnly; Path=/api/auth; SameSite=Lax; Max-Age=2592000"


class PowertoolsObserved(APIGatewayRestResolver):
    """What ``make_resolver`` built before: the observed resolver on Powertools' ``APIGatewayRestResolver``. Our
    ``Response`` objects (the routes', the boundary's) are handed to Powertools as its own, field by field."""

    def __init__(self, plane: Callable[[], str], serializer: Callable[[Any], Any] | None = None):
        super().__init__(serializer=serializer)
        self._plane = plane

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        result: dict[str, Any] = observability.invocation(self._plane(), super().resolve, event, context)
        return result

    def _to_response(self, result: Any) -> Any:
        if isinstance(result, Response):
            cookies: Any = result.cookies  # formatted strings: Powertools writes str(cookie), typed as its Cookie
            return PowertoolsResponse(result.status_code, None, result.body, result.headers, cookies)
        return super()._to_response(result)


class Item(BaseModel):
    name: str = Field(min_length=1)


def declare(app: Any, response: type) -> None:
    """Routes of every shape the handlers use, on ``app`` (ours or Powertools'); ``response``: its own class."""

    @app.get("/api/items")
    def items() -> Any:
        return json_response([{"q": query_param(app, "q")}], headers={"Vary": "Accept"})

    @app.get("/api/items/<itemId>")
    def item(itemId: str) -> Any:
        return json_response({"id": itemId, "origin": app.current_event.headers.get("ORIGIN")})

    @app.get("/api/items/featured")  # matched by the dynamic route too: the static one wins
    def featured() -> Any:
        return json_response({"featured": True})

    @app.get("/api/items/<itemId>/parts/<partId>/")  # a trailing slash in the rule
    def part(itemId: str, partId: str) -> Any:
        return json_response({"item": itemId, "part": partId})

    @app.post("/api/items")
    def create() -> Any:
        body = parse_body(app, Item)
        return json_response({"name": body.name}, status=201, cookies=[SESSION, "theme=dark; Path=/"])

    @app.delete("/api/items/<itemId>")
    def delete(itemId: str) -> Any:
        if itemId == "gone":
            raise NotFound("No such item")
        raise Conflict("Item is in use", headers={"Retry-After": "3"})

    @app.get("/api/crash")
    def crash() -> Any:
        raise RuntimeError("a bug")

    @app.get("/api/logo.png")
    def logo() -> Any:
        return response(200, "image/png", b"\x89PNG\r\n\x1a\n\x00\xff", {"Cache-Control": "max-age=60"})

    @app.get("/api/stream")
    def stream() -> Any:
        return stream_response(200, {"X-Accel-Buffering": "no"}, iter([b"data: 1\n\n", b"data: 2\n\n"]),
                               "text/event-stream")  # fmt: skip

    @app.get("/api/empty-stream")
    def empty_stream() -> Any:
        return stream_response(204, {}, None)

    @app.get("/api/headers")
    def headers() -> Any:
        return response(200, "text/plain", "ok", {"X-List": ["a", "b"], "X-None": None, "Content-Type": "text/csv"})

    @app.get("/api/plain")
    def plain() -> Any:
        return {"plain": True}

    @app.get("/api/tuple")
    def as_tuple() -> Any:
        return {"accepted": True}, 202

    @app.route("/api/r2.*", ["GET", "HEAD"])  # a regex rule, as the r2 route's
    def r2() -> Any:
        return json_response({"path": app.current_event.path, "method": app.current_event.http_method})

    @app.get("/")
    def root() -> Any:
        return json_response({"root": True})


def event(
    method: str,
    path: str,
    *,
    resource: str | None = None,
    headers: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    body: str | None = None,
    base64_body: bool = False,
) -> dict[str, Any]:
    sent = {"Host": "api.example.com", "User-Agent": "test"} | (headers or {})
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    return {
        "resource": resource or path, "path": path, "httpMethod": method,
        "headers": sent, "multiValueHeaders": {k: [v] for k, v in sent.items()},
        "queryStringParameters": query, "multiValueQueryStringParameters": {k: [v] for k, v in (query or {}).items()},
        "pathParameters": None, "stageVariables": None,
        "requestContext": {"stage": "prod", "path": f"/prod{path}", "requestId": "req-1", "httpMethod": method,
                           "resourcePath": resource or path, "identity": {"sourceIp": "203.0.113.9"}},
        "body": base64.b64encode(body.encode()).decode() if base64_body and body is not None else body,
        "isBase64Encoded": base64_body,
    }  # fmt: skip


ORIGIN = {"Origin": "https://console.example.com"}
PORTAL_EVENTS = {
    "static route with query": event("GET", "/api/items", query={"q": "tea"}, headers=ORIGIN),
    "parameter": event("GET", "/api/items/itm_1", resource="/api/items/{itemId}", headers=ORIGIN),
    "parameter, trailing slashes": event("GET", "/api/items/itm_1//", resource="/api/items/{itemId}"),
    "parameter, odd characters": event("GET", "/api/items/a:b@c,d;e=f+g&h$i(j)~k*l!m'n%20o ü[p]{q}|r^s<t>"),
    "two parameters, rule with a trailing slash": event("GET", "/api/items/itm_1/parts/p-2"),
    "two parameters, the path with one": event("GET", "/api/items/itm_1/parts/p-2/"),
    "a parameter cannot span segments": event("GET", "/api/items/itm_1/other"),
    "method upper case": event("get", "/api/items"),
    "static before dynamic": event("GET", "/api/items/featured"),
    "a response's own Content-Type": event("GET", "/api/headers"),
    "unknown path": event("GET", "/api/nothing", resource="/{proxy+}"),
    "known path, unrouted method": event("PUT", "/api/items", headers=ORIGIN),
    "body and cookies": event("POST", "/api/items", body='{"name": "tea"}', headers=ORIGIN),
    "base64 body": event("POST", "/api/items", body='{"name": "t\u00e9"}', base64_body=True),
    "DomainError from the body": event("POST", "/api/items", body='{"name": ""}'),
    "body not JSON: 415": event("POST", "/api/items", body="name=tea", headers={"Content-Type": "text/plain"}),
    "DomainError with headers": event("DELETE", "/api/items/busy"),
    "DomainError 404": event("DELETE", "/api/items/gone"),
    "unexpected error: 500": event("GET", "/api/crash"),
    "bytes body": event("GET", "/api/logo.png"),
    "list and None headers, Content-Type given": event("GET", "/api/headers"),
    "plain data": event("GET", "/api/plain"),
    "tuple": event("GET", "/api/tuple"),
    "regex route": event("HEAD", "/api/r2/public/v1/app.js"),
    "root": event("GET", "/"),
    "root, no slash": event("GET", ""),
    "Vary merged with the boundary's": event("GET", "/api/items", headers={"Origin": "http://localhost:3000"}),
    "stream": event("GET", "/api/stream", headers=ORIGIN),
    "empty stream": event("GET", "/api/empty-stream"),
    "no headers at all": {**event("GET", "/api/items"), "headers": None, "multiValueHeaders": None},
}
FALLBACK_EVENTS = {
    "405 on a known resource": event("DELETE", "/api/workspaces", resource="/api/workspaces", headers=ORIGIN),
    "404 on the proxy resource": event("GET", "/api/nowhere", resource="/{proxy+}", headers=ORIGIN),
    "405 without allowed methods": event("PUT", "/api/other", resource="/api/other"),
}


def allowed(resource: str) -> list[str]:
    return ["GET", "OPTIONS", "POST"] if resource == "/api/workspaces" else []


def build(resolver: type, factory: Callable[[type], Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(resolver_module, "ObservedResolver", resolver)
        app = factory(PowertoolsResponse if resolver is PowertoolsObserved else Response)
    assert isinstance(app, resolver)
    return app


def answered(app: Any, sent: dict[str, Any]) -> dict[str, Any]:
    """The proxy result, a streamed body read to its end (as the runtime does), the keys in their order."""
    result = app.resolve(json.loads(json.dumps(sent)), LambdaContext(function_name="Parity"))
    if isinstance(result.get("body"), StreamBody):
        result["body"] = ("streamed", list(result["body"]))
    return {"keys": list(result), **result}


@pytest.fixture
def portal_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.platform.settings import get_settings

    monkeypatch.setenv("PORTAL_ALLOW_ORIGIN", "https://console.example.com,http://localhost:3000")
    get_settings.cache_clear()


def planes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any, Any, dict[str, dict[str, Any]]]]:
    def portal(response: type) -> Any:
        app = portal_api(authenticated=False)
        declare(app, response)
        return app

    def fallback(_: type) -> Any:
        return fallback_api(allowed)

    for name, factory, events in (("portal", portal, PORTAL_EVENTS), ("fallback", fallback, FALLBACK_EVENTS)):
        ours, theirs = (
            build(resolver_module.ObservedResolver, factory, monkeypatch),
            build(PowertoolsObserved, factory, monkeypatch),
        )
        yield name, ours, theirs, events


@pytest.mark.usefixtures("portal_origin")
def test_every_request_is_answered_as_powertools_answered_it(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0
    for plane, ours, theirs, events in planes(monkeypatch):
        for case, sent in events.items():
            mine, powertools = answered(ours, sent), answered(theirs, sent)
            assert mine == powertools, f"{plane}: {case}"
            assert ours.context == {} == theirs.context  # cleared after each request
            compared += 1
    assert compared == len(PORTAL_EVENTS) + len(FALLBACK_EVENTS)


@pytest.mark.usefixtures("portal_origin")
def test_the_cases_reach_what_they_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above holds for any two resolvers that answer alike, even both wrongly: pin what each case is.
    (_, ours, _, _), (_, fallback, _, _) = planes(monkeypatch)
    seen = {case: answered(ours, sent) for case, sent in PORTAL_EVENTS.items()}
    assert (
        json.loads(seen["parameter, odd characters"]["body"])["id"] == "a:b@c,d;e=f+g&h$i(j)~k*l!m'n%20o ü[p]{q}|r^s<t>"
    )
    assert json.loads(seen["parameter"]["body"]) == {"id": "itm_1", "origin": "https://console.example.com"}
    assert json.loads(seen["two parameters, the path with one"]["body"]) == {"item": "itm_1", "part": "p-2"}
    assert json.loads(seen["regex route"]["body"])["method"] == "HEAD"
    assert json.loads(seen["static before dynamic"]["body"]) == {"featured": True}
    assert seen["a response's own Content-Type"]["multiValueHeaders"]["Content-Type"] == ["text/csv"]
    statuses = {case: result["statusCode"] for case, result in seen.items()}
    assert [statuses[c] for c in ("a parameter cannot span segments", "unknown path", "known path, unrouted method",
                                  "DomainError from the body", "body not JSON: 415", "DomainError with headers",
                                  "unexpected error: 500", "tuple", "body and cookies")] == [
        404, 404, 404, 400, 415, 409, 500, 202, 201]  # fmt: skip
    created = seen["body and cookies"]["multiValueHeaders"]
    assert created["Set-Cookie"] == [SESSION, "theme=dark; Path=/"]
    assert created["Access-Control-Allow-Origin"] == ["https://console.example.com"]
    assert seen["bytes body"]["isBase64Encoded"] is True
    assert base64.b64decode(seen["bytes body"]["body"]) == b"\x89PNG\r\n\x1a\n\x00\xff"
    assert seen["stream"]["body"] == ("streamed", [b"data: 1\n\n", b"data: 2\n\n"])
    assert seen["Vary merged with the boundary's"]["multiValueHeaders"]["Vary"] == ["Accept, Origin"]
    assert seen["list and None headers, Content-Type given"]["multiValueHeaders"]["X-List"] == ["a", "b"]
    assert seen["DomainError with headers"]["multiValueHeaders"]["Retry-After"] == ["3"]
    refused = answered(fallback, FALLBACK_EVENTS["405 on a known resource"])
    assert (refused["statusCode"], refused["multiValueHeaders"]["Allow"]) == (405, ["GET, OPTIONS, POST"])


def test_every_handler_route_compiles_to_powertools_pattern() -> None:
    # Each handler's own rule, as our resolver compiled it, against Powertools' compiler for the same rule.
    functions = sorted({r.function for r in template_routes(load())})
    compared = 0
    for function in functions:
        app = handler_module(function).app
        assert isinstance(app, RestResolver)
        for route in [*app._static_routes, *app._dynamic_routes]:
            assert route.rule.pattern == APIGatewayRestResolver._compile_regex(route.path.rstrip("/")).pattern
            compared += 1
    assert compared > 70
    assert compile_rule("/a/<b>").pattern == APIGatewayRestResolver._compile_regex("/a/<b>").pattern


def test_a_bare_resolver_answers_as_powertools_bare_one() -> None:
    # No middleware and no not_found handler (the factories always give both): Powertools' default 404, its default
    # serializer for plain data, and a middleware-free route.
    answers = []
    for app in (RestResolver(), APIGatewayRestResolver()):
        app.get("/things/<thingId>")(lambda thingId: {"thing": thingId, "n": [1, 2]})
        app.route("/things", ["POST", "PUT"])(lambda: ({"made": True}, 201))
        requests = (("GET", "/things/t1"), ("GET", "/things"), ("PUT", "/things/"), ("GET", "/nothing"))
        answers.append([answered(app, event(method, path)) for method, path in requests])
    assert answers[0] == answers[1]
    assert [a["statusCode"] for a in answers[0]] == [200, 404, 201, 404]
