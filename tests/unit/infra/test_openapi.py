"""The OpenAPI documents (docs/openapi/) are generated from the code, valid OpenAPI 3.1, and cover every route."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing

import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel

from core.agents import service as read_plane
from core.chat.models import ChatEvent
from core.platform.errors import DomainError
from core.posts.models import FeedQuery
from stack import openapi
from stack.openapi import contracts, schemas
from stack.template import load
from tests.support import handler_routes

PLANES = tuple(contracts.PLANES)
REGENERATE = "PYTHONPATH=layers/common .venv/bin/python -m stack.openapi"


@pytest.mark.parametrize("plane", PLANES)
def test_checked_in_document_matches_the_code(plane: str) -> None:
    path = openapi.path_of(plane)
    assert path.exists(), f"{path} is missing: run `{REGENERATE}`"
    fresh = openapi.render(plane)
    assert path.read_text() == fresh, (
        f"{path} is out of date with the handlers' contracts, the models or template.yaml: run `{REGENERATE}` "
        "and commit the result"
    )


@pytest.mark.parametrize("plane", PLANES)
def test_document_is_valid_openapi_3_1(plane: str) -> None:
    document = json.loads(openapi.render(plane))
    assert document["openapi"].startswith("3.1")
    validate(document)  # raises with the offending location


@pytest.mark.parametrize("plane", PLANES)
def test_every_template_route_is_an_operation_and_every_operation_a_route(plane: str) -> None:
    """The document's operations are the template's events, read from the template itself (not through the
    generator's ``Stack.routes``), and each is the route its handler declares, path and method (not by method only:
    tests/support/handler_routes.py compares the handler's own ``@app.<method>(path)`` with the event)."""
    document = json.loads(openapi.render(plane))
    documented = {(path, method.upper()) for path, item in document["paths"].items() for method in item}
    events = [r for r in handler_routes.template_routes(load()) if r.api == contracts.PLANES[plane]]
    routed = {
        (route.path.replace("+}", "}"), route.method)
        for route in events
        if route.method != "ANY"  # the fallback's: 404/405 for whatever is not routed
    }
    assert documented == routed
    declared = {r.function: handler_routes.declared_routes(contracts.handler_module(r.function)) for r in events}
    assert handler_routes.disagreements(events, declared) == []
    by_operation = {(op.path, op.method): op.function for op in contracts.operations(plane)}
    assert by_operation == {(r.path.replace("+}", "}"), r.method): r.function for r in events if r.method != "ANY"}


@pytest.mark.parametrize("plane", PLANES)
def test_every_error_response_uses_the_shared_error_schema_with_known_codes(plane: str) -> None:
    document = json.loads(openapi.render(plane))
    known = set(document["components"]["schemas"]["Error"]["properties"]["code"]["enum"])
    assert {cls.code for cls in schemas.domain_errors()} <= known
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert {"401", "413", "415", "500"} <= set(responses), f"{method} {path}"
            for status, response in responses.items():
                if int(status) < 400 or method == "head":
                    continue
                schema = response["content"]["application/json"]["schema"]
                assert schema["allOf"][0] == {"$ref": "#/components/schemas/Error"}
                codes = schema["allOf"][1]["properties"]["code"]["enum"]
                assert set(codes) <= known, f"{method} {path} {status}"
                assert all(_status_of(code) in (int(status), None) for code in codes), f"{method} {path} {status}"


def _status_of(code: str) -> int | None:
    statuses = {cls.status for cls in schemas.domain_errors() if cls.code == code}
    return statuses.pop() if len(statuses) == 1 else None


def test_read_plane_answers_carry_rate_limit_headers_and_429_retry_after() -> None:
    document = json.loads(openapi.render("brain"))
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "RateLimit-Remaining" in responses["200" if "200" in responses else "400"]["headers"]
            assert responses["429"]["headers"]["Retry-After"]["required"] is True, f"{method} {path}"


def test_security_schemes_per_plane() -> None:
    portal, brain = (json.loads(openapi.render(p)) for p in ("portal", "brain"))
    assert brain["components"]["securitySchemes"]["workspaceKey"]["scheme"] == "bearer"
    assert all(op["security"] == [{"workspaceKey": []}] for item in brain["paths"].values() for op in item.values())
    api_token = portal["paths"]["/api/auth/api-token"]["post"]
    assert api_token["security"] == [{"sessionCookie": []}]
    assert portal["paths"]["/api/auth/magic-link"]["post"]["security"] == []
    assert portal["paths"]["/api/workspaces"]["get"]["security"] == [{"portalJwt": []}]
    assert portal["components"]["securitySchemes"]["sessionCookie"] == portal["components"]["securitySchemes"][
        "sessionCookie"
    ] | {"in": "cookie", "name": "session"}


def test_request_bodies_are_the_strict_models_handlers_parse() -> None:
    document = json.loads(openapi.render("brain"))
    chat = document["paths"]["/v1/agent/{agentId}/chat"]["post"]
    body = chat["requestBody"]["content"]["application/json"]["schema"]
    request = document["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    assert request["additionalProperties"] is False
    assert set(request["required"]) == {"prompt", "client"}
    assert "brandSlug" in request["properties"]  # camelCase aliases, as on the wire
    assert "application/x-ndjson" in chat["responses"]["200"]["content"]


def test_responses_declare_every_field_required_as_the_wire_sends_it() -> None:
    document = json.loads(openapi.render("portal"))
    api_key = document["components"]["schemas"]["ApiKey"]
    assert set(api_key["required"]) == set(api_key["properties"])  # lastUsedAt/revokedAt: null, never omitted


def test_every_declared_contract_names_real_models_and_domain_errors() -> None:
    for plane in PLANES:
        for operation in contracts.operations(plane):
            contract = operation.contract
            for error in contract.errors:
                assert issubclass(error, DomainError), f"{operation.function}: {error!r}"
            for reference in (contract.body, contract.query):
                if reference is not None:
                    assert issubclass(schemas.resolve(reference), BaseModel), operation.function
            if contract.response is not None:
                assert schemas._models_in(contract.response), operation.function


def test_feed_query_model_has_the_service_limits() -> None:
    for name in ("channel", "category"):
        metadata = {type(m).__name__: m for m in FeedQuery.model_fields[name].metadata}
        assert metadata["MaxLen"].max_length == read_plane.MAX_FILTER_LENGTH


def test_chat_events_cover_every_event_type_the_stream_writes() -> None:
    types = {typing.get_args(model.model_fields["type"].annotation)[0] for model in typing.get_args(ChatEvent)}
    assert types == {"start", "delta", "keepalive", "sources", "done", "error"}


# Imported by no handler: the contracts must cost a cold start nothing but a few dict literals.
DOCS_ONLY = (
    "core.platform.envelopes",
    "stack.openapi",
    "aws_lambda_powertools.event_handler.openapi.models",
    "aws_lambda_powertools.event_handler.openapi.schema_generator",
    "aws_lambda_powertools.event_handler.openapi.dependant",
)
IMPORT_ALL = """
import importlib.util, json, sys
for name, path in json.loads(sys.argv[1]).items():
    spec = importlib.util.spec_from_file_location(name, path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps(sorted(m for m in sys.modules if m.startswith(tuple(json.loads(sys.argv[2]))))))
"""


def test_handlers_import_no_documentation_machinery() -> None:
    handlers = {
        f"handler_{name}": str(spec.code_uri / f"{spec.handler.rsplit('.', 1)[0]}.py")
        for name, spec in contracts.stack().functions().items()
    }
    layer = str(contracts.stack().layer_dirs()[0])
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, json.dumps(handlers), json.dumps(DOCS_ONLY)],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": layer, "PATH": os.environ.get("PATH", "")},
    )
    assert json.loads(out.stdout) == []
