"""Calling a read-plane (brain) handler with its sample event (events/<LogicalId>.json), changed where a test says."""

from __future__ import annotations

import re
from typing import Any

from core.keys.check import VAGUE_MESSAGE
from tests.support.lambdas import HttpResult, invoke, sample_event, with_request

UNAUTHORIZED = {"error": VAGUE_MESSAGE, "code": "UNAUTHORIZED"}
AGENT_NOT_FOUND = {"error": "Agent not found", "code": "NOT_FOUND"}
JSON = "application/json; charset=utf-8"
RFC3339_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
BRAIN_FUNCTIONS = (
    "BrainAgentFunction",
    "BrainFeedFunction",
    "BrainItemsFunction",
    "BrainWrapFunction",
    "BrainSiteFunction",
    "BrainSuggestionsFunction",
)


def call(
    function: str,
    *,
    agent_id: str | None = None,
    key: str | None = None,
    headers: dict[str, str | None] | None = None,
    **changes: Any,
) -> HttpResult:
    """Invoke ``function`` with its sample event; ``agent_id``/``key`` replace the sample's, if given."""
    auth = {"Authorization": f"Bearer {key}"} if key is not None else {}
    event = with_request(
        sample_event(function),
        path_parameters={"agentId": agent_id} if agent_id is not None else None,
        headers=auth | (headers or {}),
        **changes,
    )
    return invoke(function, event)


def ok_json(result: HttpResult) -> Any:
    """The body of a 200 JSON response (with the read plane's CORS header)."""
    assert result.status == 200, result.body
    assert result.header("Content-Type") == JSON
    assert result.header("Access-Control-Allow-Origin") == "*"
    return result.json()


def error_of(result: HttpResult) -> tuple[int, dict[str, Any]]:
    assert result.header("Content-Type") == JSON
    return result.status, result.json()
