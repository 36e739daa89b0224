"""What a deployed function writes for operators: one JSON access line per request and EMF metrics (moto).

Each test reads the function's own output, Powertools' JSON log lines and the EMF documents, as
CloudWatch would receive them, and checks the facts, their dimensions, and that no secret, prompt or
reply text is among them.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core.keys.key_format import generate
from core.platform import observability
from local.gateway.events import SAMPLE_API_KEY_ID, SAMPLE_WORKSPACE_ID
from tests.support.brain import call
from tests.support.lambdas import handler_module, invoke_streamed, sample_event, with_request

CHAT = "BrainChatFunction"
PROMPT = "Which waxed jacket keeps the rain out on a bike?"
UNKNOWN_KEY = generate()  # well-formed (its checksum holds), stored nowhere
Output = Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]], str]]


@pytest.fixture
def output(capsys: pytest.CaptureFixture[str]) -> Iterator[Output]:
    """``() -> (log lines, EMF documents, all text)`` written since the last call, as CloudWatch gets them.

    Log lines: a second handler on the plane's Powertools Logger, with its own formatter (the JSON it
    writes); EMF documents: stdout, where Powertools prints them.
    """
    logger = observability.logger_for("brain")
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    capsys.readouterr()

    def read() -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
        text = buffer.getvalue() + capsys.readouterr().out
        buffer.seek(0)
        buffer.truncate()
        documents = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        return [d for d in documents if "_aws" not in d], [d for d in documents if "_aws" in d], text

    yield read
    logging.getLogger(logger.name).removeHandler(handler)  # the stdlib logger the plane Logger writes through


def metric(documents: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The one EMF document carrying ``name`` (namespace WorkspaceService): its dimensions and value."""
    (found,) = [d for d in documents if name in d]
    (directive,) = found["_aws"]["CloudWatchMetrics"]
    (dimensions,) = directive["Dimensions"]
    assert directive["Namespace"] == "WorkspaceService"
    assert name in [m["Name"] for m in directive["Metrics"]]
    return {"dimensions": {d: found[d] for d in dimensions}, "value": found[name]}


def test_a_request_writes_one_access_line_with_correlation_caller_status_and_latency(tenant, output: Output) -> None:
    event = sample_event("BrainWhoAmIFunction")
    result = call("BrainWhoAmIFunction", key=tenant.key)
    assert result.status == 200
    lines, documents, text = output()
    (done,) = [line for line in lines if line["message"] == "request done"]
    assert done["correlation_id"] == event["requestContext"]["requestId"]
    assert (done["workspace_id"], done["key_id"]) == (SAMPLE_WORKSPACE_ID, SAMPLE_API_KEY_ID)
    assert (done["status"], done["method"], done["resource"]) == (200, "GET", "/v1/agent/_whoami")
    assert isinstance(done["latency_ms"], float) and done["latency_ms"] >= 0
    assert isinstance(done["cold_start"], bool) and done["function_name"] == "BrainWhoAmIFunction"
    assert done["service"] == "workspace-service-brain" and done["level"] == "INFO"
    assert metric(documents, "Requests") == {"dimensions": {"service": "workspace-service-brain"}, "value": [1.0]}
    assert tenant.key not in text and "Bearer" not in text


def test_a_refused_key_counts_the_error_by_code_and_the_refusal_by_reason(tenant, output: Output) -> None:
    assert call("BrainWhoAmIFunction", key=UNKNOWN_KEY).status == 401
    assert call("BrainWhoAmIFunction", headers={"Authorization": None}).status == 401
    lines, documents, text = output()
    assert [line["status"] for line in lines if line["message"] == "request done"] == [401, 401]
    assert all("workspace_id" not in line for line in lines)  # no caller was established
    reasons = sorted(d["reason"] for d in documents if "Unauthorized" in d)
    assert reasons == ["missing", "unknown"]
    codes = [d["code"] for d in documents if "Errors" in d]
    assert codes == ["UNAUTHORIZED", "UNAUTHORIZED"]
    assert UNKNOWN_KEY not in text


def test_a_key_over_its_rate_counts_a_throttle_by_limiter(tenant, seed, output: Output) -> None:
    key = seed.api_key(tenant.ws.id, rate_limit=1)
    assert [call("BrainWhoAmIFunction", key=key).status for _ in range(2)] == [200, 429]
    _, documents, text = output()
    assert metric(documents, "Throttled")["dimensions"] == {"service": "workspace-service-brain", "limiter": "key_rate"}
    assert [d["code"] for d in documents if "Errors" in d] == ["RATE_LIMITED"]
    assert key not in text


def test_a_chat_turn_is_logged_after_its_stream_with_turn_and_charge_and_no_text(
    chat_environment: None, tenant, aws, output: Output
) -> None:
    from tests.support.chat import grant

    grant(aws, tenant.ws.owner_id, 5)
    body = json.dumps({"prompt": PROMPT, "client": "v1_3f9a2c7e5b1d4e8fa6c0b2d4"})
    event = with_request(sample_event(CHAT), body=body)
    raw = handler_module(CHAT).lambda_handler(event, _context())
    lines, documents, _ = output()
    assert not [line for line in lines if line["message"] == "request done"]  # the stream has not run yet
    assert not documents
    from tests.support.lambdas import drain

    reply = drain(raw)
    assert reply.status == 200
    lines, documents, text = output()
    (done,) = [line for line in lines if line["message"] == "request done"]
    assert (done["status"], done["resource"]) == (200, "/v1/agent/{agentId}/chat")
    assert metric(documents, "ChatTurns")["value"] == [1.0]
    assert metric(documents, "CreditsCharged")["value"] == [1.0]
    replied = "".join(json.loads(c).get("text", "") for c in b"".join(reply.chunks).decode().splitlines())
    assert replied and PROMPT not in text and replied not in text
    assert not any(word in text for word in replied.split() if len(word) > 12)  # no fragment of the reply either


def test_r2_bytes_are_counted_when_the_stream_ends(tenant, aws, output: Output) -> None:
    from tests.support.r2 import put, request

    data = b"x" * 70_000
    put(aws, SAMPLE_WORKSPACE_ID, "assets/logo.png", data, ContentType="image/png")
    result = invoke_streamed("BrainR2Function", request("assets/logo.png"))
    assert result.status == 200 and b"".join(result.chunks) == data
    _, documents, _ = output()
    assert metric(documents, "R2BytesStreamed") == {
        "dimensions": {"service": "workspace-service-brain"},
        "value": [float(len(data))],
    }


def test_a_broken_metrics_emitter_never_fails_the_request(
    tenant, output: Output, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aws_lambda_powertools.metrics as powertools_metrics

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("EMF emitter broke")

    monkeypatch.setattr(powertools_metrics, "single_metric", broken)
    assert call("BrainWhoAmIFunction", key=UNKNOWN_KEY).status == 401  # Errors{code} goes through single_metric
    lines, _, _ = output()
    assert [line["status"] for line in lines if line["message"] == "request done"] == [401]


def _context() -> Any:
    from tests.support.lambdas import LambdaContext

    return LambdaContext(function_name=CHAT)
