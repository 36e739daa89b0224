"""core.platform.observability: bounded metric dimensions, emitting that never fails, Tracer only when X-Ray is on,
the streaming runtime's own lines as Powertools JSON, and the log scan seeing Powertools and EMF output."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.platform import errors, observability
from core.platform.observability.catalogue import CATALOGUE, bounded_dimensions, error_codes
from tests.support import log_scan
from tests.support.secrets_seen import findings, register_secret

LAYER = Path(__file__).resolve().parents[3] / "layers" / "common"
RAW_KEY = "sk_ws_" + "Q" * 49


@pytest.fixture(autouse=True)
def no_leftover_metrics():
    yield
    observability._values.clear()


def test_every_error_code_of_the_hierarchy_is_a_known_dimension_value() -> None:
    assert {"UNAUTHORIZED", "RATE_LIMITED", "NOT_FOUND", "INTERNAL_ERROR"} <= error_codes()
    assert errors.Conflict.code in error_codes()


@pytest.mark.parametrize(
    ("metric", "dimensions", "expected"),
    [
        ("Errors", {"code": "NOT_FOUND"}, (("code", "NOT_FOUND"),)),
        ("Errors", {"code": RAW_KEY}, (("code", "other"),)),  # never a caller's value as a dimension
        ("Unauthorized", {"reason": "/v1/agent/secret-path"}, (("reason", "other"),)),
        ("Throttled", {"limiter": "key_rate"}, (("limiter", "key_rate"),)),
        ("ChatTurns", {}, ()),
    ],
)
def test_dimension_values_are_bounded(metric: str, dimensions: dict[str, str], expected: tuple) -> None:
    assert bounded_dimensions(metric, dimensions) == expected


def test_no_metric_takes_an_id_as_a_dimension() -> None:
    names = {name for _, dimensions in CATALOGUE.values() for name in dimensions}
    assert names <= {"code", "reason", "limiter"}


def test_an_unknown_metric_or_dimension_is_a_warning_never_an_exception(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "core.platform.observability"):
        observability.count("NoSuchMetric")
        observability.count("Errors", workspace="ws_1")  # an id as a dimension: refused
    assert [r.getMessage() for r in caplog.records] == ["metric not recorded", "metric not recorded"]
    assert not observability._values


def test_emf_documents_carry_only_bounded_dimensions(capsys: pytest.CaptureFixture[str]) -> None:
    observability.count("Errors", code=RAW_KEY)
    observability.count("Requests")
    observability.flush("brain")
    documents = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {d.get("code") for d in documents} == {None, "other"}
    assert RAW_KEY not in json.dumps(documents)


def test_tracing_is_off_without_the_xray_daemon_and_imports_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_XRAY_DAEMON_ADDRESS", raising=False)
    assert not observability.tracing_enabled()
    with observability.subsegment("bedrock.converse_stream") as segment:
        assert segment is None
    code = "import sys, core.http, core.platform.observability; print('aws_xray_sdk' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=LAYER, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_tracing_on_patches_botocore_and_traces_the_model_call() -> None:
    """In a child process (patching is global): X-Ray on, as Lambda sets it with Tracing: Active."""
    code = """
import json
from core.platform import observability
observability.invocation("brain", lambda e, c: {"statusCode": 200}, {"httpMethod": "GET"}, None)
with observability.subsegment("bedrock.converse_stream") as segment:
    print(json.dumps({"tracer": observability.tracing._tracer is not None, "segment": segment.name}))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",  # UDP on loopback: nothing listens, nothing fails
        "AWS_LAMBDA_FUNCTION_NAME": "BrainChatFunction",
        "LAMBDA_TASK_ROOT": str(LAYER),
        "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=LAYER, capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"tracer": True, "segment": "bedrock.converse_stream"}


def test_the_streaming_runtime_logs_one_powertools_json_line_with_its_exception() -> None:
    """As in a Lambda sandbox (no root handler): core.platform.lambda_runtime.loop's own lines are the plane Logger's
    JSON."""
    code = """
from core.platform import observability
from core.platform.lambda_runtime import loop as runtime
observability.logger_for("runtime")
try:
    raise ValueError("boom")
except ValueError as exc:
    runtime._log("function error", exc)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_"))}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=LAYER, capture_output=True, text=True, env=env, check=False
    )
    (line,) = [json.loads(text) for text in result.stdout.splitlines()]
    assert (line["level"], line["message"], line["service"]) == ("ERROR", "function error", "workspace-service-runtime")
    assert line["name"] == "core.platform.lambda_runtime.loop" and line["exception_name"] == "ValueError"
    assert not result.stderr


def test_the_log_scan_hears_powertools_loggers_and_flags_a_secret_in_json_or_emf() -> None:
    logger = observability.logger_for("portal")
    log_scan._attach()
    assert log_scan._collector in logger.handlers
    register_secret(RAW_KEY)
    emf = json.dumps({"_aws": {"CloudWatchMetrics": []}, "code": RAW_KEY, "Errors": [1.0]})
    access = json.dumps({"message": "request done", "key_id": "key_1", "authorization": RAW_KEY})
    assert len(findings([("emf", emf), ("log", access)])) == 2
    assert findings([("log", json.dumps({"message": "request done", "key_id": "key_1"}))]) == []
