"""local.gateway.routing: API Gateway (REST) resource matching and the v1 proxy event it builds."""

from __future__ import annotations

import base64

import pytest

from local.gateway.routing import Match, match, proxy_event
from stack.template import Route
from tests.support.lambdas import stack

BRAIN = stack().routes("BrainApi")
PORTAL = stack().routes("PortalApi")


def route(path: str, method: str = "GET", function: str = "F") -> Route:
    return Route("Api", path, method, function)


@pytest.mark.parametrize(
    ("method", "path", "resource", "function", "params"),
    [
        ("GET", "/v1/agent/_whoami", "/v1/agent/_whoami", "BrainWhoAmIFunction", {}),
        ("GET", "/v1/agent/prj_1", "/v1/agent/{agentId}", "BrainAgentFunction", {"agentId": "prj_1"}),
        ("GET", "/v1/agent/prj_1/feed", "/v1/agent/{agentId}/feed", "BrainFeedFunction", {"agentId": "prj_1"}),
        ("GET", "/v1/agent/prj_1/items", "/v1/agent/{agentId}/items", "BrainItemsFunction", {"agentId": "prj_1"}),
        ("GET", "/v1/agent/prj_1/wrap", "/v1/agent/{agentId}/wrap", "BrainWrapFunction", {"agentId": "prj_1"}),
        ("GET", "/v1/agent/prj_1/site", "/v1/agent/{agentId}/site", "BrainSiteFunction", {"agentId": "prj_1"}),
        ("GET", "/v1/agent/p/suggestions", "/v1/agent/{agentId}/suggestions", "BrainSuggestionsFunction",
         {"agentId": "p"}),
        # a known path with a method nobody routes falls to the ANY on that resource
        ("POST", "/v1/agent/_whoami", "/v1/agent/_whoami", "BrainFallbackFunction", {}),
        ("DELETE", "/v1/agent/prj_1/feed", "/v1/agent/{agentId}/feed", "BrainFallbackFunction", {"agentId": "prj_1"}),
        # anything else is the greedy proxy
        ("GET", "/v1/agent/prj_1/feed/extra", "/{proxy+}", "BrainFallbackFunction",
         {"proxy": "v1/agent/prj_1/feed/extra"}),
        ("GET", "/nope", "/{proxy+}", "BrainFallbackFunction", {"proxy": "nope"}),
        ("GET", "/v1/agent", "/{proxy+}", "BrainFallbackFunction", {"proxy": "v1/agent"}),
    ],
)  # fmt: skip
def test_brain_routes(method: str, path: str, resource: str, function: str, params: dict[str, str]) -> None:
    found_resource, found = match(BRAIN, method, path)
    assert found_resource == resource
    assert found is not None
    assert (found.route.path, found.route.function, found.path_parameters) == (resource, function, params)


def test_literal_beats_parameter_whatever_the_route_order() -> None:
    routes = [route("/a/{x}", function="param"), route("/a/b", function="literal"), route("/{proxy+}", "ANY", "any")]
    for ordering in (routes, list(reversed(routes))):
        assert match(ordering, "GET", "/a/b")[1].route.function == "literal"  # type: ignore[union-attr]
        assert match(ordering, "GET", "/a/c")[1].route.function == "param"  # type: ignore[union-attr]
        assert match(ordering, "GET", "/z/y/x")[1].route.function == "any"  # type: ignore[union-attr]


def test_earlier_literal_segment_beats_later_one() -> None:
    routes = [route("/{a}/b", function="late"), route("/a/{b}", function="early")]
    assert match(routes, "GET", "/a/b")[1].route.function == "early"  # type: ignore[union-attr]


def test_parameter_beats_greedy_prefix() -> None:
    routes = [route("/a/{proxy+}", function="greedy"), route("/a/{x}", function="param")]
    assert match(routes, "GET", "/a/b")[1].route.function == "param"  # type: ignore[union-attr]
    assert match(routes, "GET", "/a/b/c")[1] == Match(routes[0], {"proxy": "b/c"})


def test_no_match_and_no_method() -> None:
    routes = [route("/a", "GET")]
    assert match(routes, "GET", "/b") == (None, None)
    assert match(routes, "POST", "/a") == ("/a", None)  # known resource, no method and no ANY
    assert match([route("/{proxy+}", "ANY")], "GET", "/") == (None, None)  # greedy needs one segment


def test_explicit_method_beats_any_on_the_same_resource() -> None:
    routes = [route("/a", "ANY", "any"), route("/a", "GET", "get")]
    assert match(routes, "GET", "/a")[1].route.function == "get"  # type: ignore[union-attr]
    assert match(routes, "PUT", "/a")[1].route.function == "any"  # type: ignore[union-attr]


def test_path_parameters_are_decoded_once() -> None:
    _, found = match(BRAIN, "GET", "/v1/agent/prj%5F1%252F/feed")
    assert found is not None and found.path_parameters == {"agentId": "prj_1%2F"}
    _, found = match(BRAIN, "GET", "/v1/agent/a%2Fb")
    assert found is not None and found.route.function == "BrainAgentFunction"
    assert found.path_parameters == {"agentId": "a/b"}


def test_portal_key_route_with_two_parameters() -> None:
    _, found = match(PORTAL, "DELETE", "/api/workspaces/ws_1/keys/key_1")
    assert found is not None and found.route.function == "PortalKeyRevokeFunction"
    assert found.path_parameters == {"workspaceId": "ws_1", "keyId": "key_1"}


def event(target: str, headers: list[tuple[str, str]] | None = None, body: bytes = b"", method: str = "GET") -> dict:
    found = Match(route("/v1/agent/{agentId}/feed"), {"agentId": "prj_1"})
    return proxy_event(method, target, headers or [], body, found, stage="live", source_ip="198.51.100.1")


def test_proxy_event_shape() -> None:
    result = event(
        "/v1/agent/prj_1/feed?channel=site&tag=a&tag=b&empty=&q=a%20b+c",
        [("Host", "localhost"), ("X-Multi", "1"), ("X-Multi", "2"), ("User-Agent", "curl/8")],
    )
    assert result["resource"] == "/v1/agent/{agentId}/feed"
    assert result["path"] == "/v1/agent/prj_1/feed"
    assert result["httpMethod"] == "GET"
    assert result["pathParameters"] == {"agentId": "prj_1"}
    assert result["queryStringParameters"] == {"channel": "site", "tag": "b", "empty": "", "q": "a b c"}
    assert result["multiValueQueryStringParameters"] == {
        "channel": ["site"], "tag": ["a", "b"], "empty": [""], "q": ["a b c"],
    }  # fmt: skip
    assert result["headers"] == {"Host": "localhost", "X-Multi": "2", "User-Agent": "curl/8"}
    assert result["multiValueHeaders"]["X-Multi"] == ["1", "2"]
    assert (result["body"], result["isBase64Encoded"], result["stageVariables"]) == (None, False, None)
    context = result["requestContext"]
    assert context["resourcePath"] == "/v1/agent/{agentId}/feed"
    assert (context["httpMethod"], context["stage"], context["path"]) == ("GET", "live", "/live/v1/agent/prj_1/feed")
    assert context["identity"] == {"sourceIp": "198.51.100.1", "userAgent": "curl/8"}
    assert context["requestId"] == context["extendedRequestId"]
    assert isinstance(context["requestTimeEpoch"], int)


def test_proxy_event_without_query_headers_or_params() -> None:
    found = Match(route("/v1/agent/_whoami"), {})
    result = proxy_event("GET", "/v1/agent/_whoami", [], b"", found, stage="live", source_ip="127.0.0.1")
    assert result["headers"] is None and result["multiValueHeaders"] is None
    assert result["queryStringParameters"] is None and result["multiValueQueryStringParameters"] is None
    assert result["pathParameters"] is None


def test_text_body_is_passed_as_is() -> None:
    result = event("/x", body='{"prompt": "héllo"}'.encode(), method="POST")
    assert (result["body"], result["isBase64Encoded"]) == ('{"prompt": "héllo"}', False)


def test_binary_body_is_base64() -> None:
    raw = b"\x89PNG\r\n\x1a\n\xff\x00"
    result = event("/x", body=raw, method="POST")
    assert result["isBase64Encoded"] is True
    assert base64.b64decode(result["body"]) == raw


def test_path_is_passed_still_encoded() -> None:
    assert event("/v1/agent/prj%5F1/feed")["path"] == "/v1/agent/prj%5F1/feed"


def test_user_agent_header_name_is_case_insensitive() -> None:
    assert event("/x", [("user-agent", "httpie/3")])["requestContext"]["identity"]["userAgent"] == "httpie/3"
