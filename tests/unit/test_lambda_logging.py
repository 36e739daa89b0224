"""core.lambda_logging: the streaming runtime logs as the managed runtime would (JSON with the request id)."""

from __future__ import annotations

import json
import logging

import pytest

from core import lambda_logging


@pytest.fixture
def configured(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    monkeypatch.setenv("AWS_LAMBDA_LOG_FORMAT", "JSON")
    monkeypatch.setenv("AWS_LAMBDA_LOG_LEVEL", "TRACE")

    def lines() -> list[dict]:
        return [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    yield lines
    root.handlers[:], root.level = saved
    lambda_logging.set_request_id("")


def start() -> None:
    """As core.runtime does: at start-up (while the test's output is captured), then per invocation."""
    lambda_logging.configure()
    lambda_logging.set_request_id("req-1")


def test_json_lines_carry_the_request_id_and_extra_fields(configured) -> None:
    start()
    logging.getLogger("chat").info("turn %s billed", "t1", extra={"turnId": "t1", "credits": 1})
    logging.getLogger("chat").debug("detail")  # TRACE is Lambda's lowest level: DEBUG passes
    first, second = configured()
    assert first | {"timestamp": "-"} == {
        "timestamp": "-", "level": "INFO", "message": "turn t1 billed", "logger": "chat", "requestId": "req-1",
        "turnId": "t1", "credits": 1,
    }  # fmt: skip
    assert first["timestamp"].endswith("+00:00") and second["level"] == "DEBUG"


def test_exceptions_are_one_json_line(configured) -> None:
    start()
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("x").exception("failed")
    (line,) = configured()
    assert (line["level"], line["errorType"], line["errorMessage"]) == ("ERROR", "ValueError", "boom")
    assert line["stackTrace"][0].startswith("Traceback")
