"""template.yaml as SAM deploys it: r2, chat and the preview are streaming integrations, every other route is
buffered.

``ResponseTransferMode: STREAM`` passes every validator and silently builds a buffered
integration; only ``RESPONSE_STREAM`` makes SAM call InvokeWithResponseStream. This test
runs the real aws-sam-translator (from the SAM CLI's venv, which ``make test`` creates).
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from stack.template import ROOT, TEMPLATE

SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"
STREAMING = {("/v1/r2/{path+}", "get"), ("/v1/r2/{path+}", "head"), ("/v1/r2", "get"), ("/v1/r2", "head"),
             ("/v1/agent/{agentId}/chat", "post")}  # fmt: skip
STREAMING_FUNCTIONS = {"BrainR2Function", "BrainChatFunction", "PortalAgentPreviewFunction"}
# The management plane's one streamed route: an owner's preview of an agent (a chat turn behind the portal JWT).
PORTAL_STREAMING = {("/api/workspaces/{workspaceId}/agents/{agentId}/preview", "post")}


@cache
def transformed(template: Path = TEMPLATE) -> dict[str, Any]:
    assert SAM_PYTHON.exists(), "the SAM CLI venv is missing: run `make validate` (make test does) first"
    script = ROOT / "tests" / "support" / "sam_transform.py"
    run = subprocess.run([SAM_PYTHON, script, template], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(run.stdout)


def integrations(api: str, template: Path = TEMPLATE) -> dict[tuple[str, str], dict[str, Any]]:
    paths = transformed(template)["Resources"][api]["Properties"]["Body"]["paths"]
    return {(path, method): op["x-amazon-apigateway-integration"] for path, ops in paths.items()
            for method, op in ops.items() if "x-amazon-apigateway-integration" in op}  # fmt: skip


@pytest.mark.parametrize(("api", "routes"), [("BrainApi", STREAMING), ("PortalApi", PORTAL_STREAMING)])
def test_r2_chat_and_the_preview_call_lambda_with_response_streaming(api: str, routes: set) -> None:
    found = integrations(api)
    assert set(found) >= routes
    for route in routes:
        integration = found[route]
        uri = integration["uri"]["Fn::Sub"]
        assert "/2021-11-15/functions/" in uri and uri.endswith("/response-streaming-invocations"), route
        assert integration["responseTransferMode"] == "STREAM", route
        assert (integration["type"], integration["httpMethod"]) == ("aws_proxy", "POST")
        assert any(f"${{{name}Aliaslive}}" in uri for name in STREAMING_FUNCTIONS), uri  # the published version


@pytest.mark.parametrize("api", ["BrainApi", "PortalApi"])
def test_every_other_route_stays_buffered(api: str) -> None:
    found = integrations(api)
    assert {i["type"] for route, i in found.items() if route[1] == "options"} == {"mock"}  # CORS preflight
    streamed = STREAMING | PORTAL_STREAMING
    buffered = {route: i for route, i in found.items() if route not in streamed and route[1] != "options"}
    assert len(buffered) >= 10
    for route, integration in buffered.items():
        assert "/2015-03-31/functions/" in integration["uri"]["Fn::Sub"], route
        assert "responseTransferMode" not in integration, route


def test_streaming_functions_run_the_streaming_runtime() -> None:
    resources = transformed()["Resources"]
    for name in STREAMING_FUNCTIONS:
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/python/stream-bootstrap"
        assert resources[name]["Properties"]["Runtime"] == "python3.13"


def test_the_lookalike_value_stream_would_silently_buffer(tmp_path: Path) -> None:
    """Why the template says RESPONSE_STREAM: with STREAM the same routes deploy buffered, and nothing complains."""
    lookalike = tmp_path / "template.yaml"
    lookalike.write_text(
        TEMPLATE.read_text().replace("ResponseTransferMode: RESPONSE_STREAM", "ResponseTransferMode: STREAM")
    )
    found = integrations("BrainApi", lookalike)
    for route in STREAMING:
        assert "/2015-03-31/functions/" in found[route]["uri"]["Fn::Sub"], route
        assert "responseTransferMode" not in found[route], route
