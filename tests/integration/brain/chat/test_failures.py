"""Chat turns that end early: the visitor leaves, the model fails, the container dies, time runs out or the hold
is swept. Each is charged once or not at all."""

from __future__ import annotations

import json
import threading
import time
from functools import cache

import pytest

from core.chat import providers as chat_providers
from core.chat.offline import OfflineModel
from core.credits.reader import CreditReader
from core.platform import providers as platform_providers
from tests.support.chat import (
    CHAT,
    NDJSON,
    assert_untouched,
    balance,
    chat,
    chat_event,
    llm_charges,
    marker,
)
from tests.support.lambdas import (
    LambdaContext,
    handler_module,
)
from tests.support.ledger_checks import assert_consistent, holds, ledger_repository

SILENT_MODEL_SECONDS = 60  # how long the silent model below waits for its gate at most (a hang, not a measure)


def test_a_visitor_leaving_after_the_first_delta_is_charged_once(funded, aws) -> None:
    result = chat(read=2)
    assert result.status == 200
    start, delta = (json.loads(chunk) for chunk in result.chunks)
    assert (start["type"], delta["type"]) == ("start", "delta")
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, start["turnId"])]
    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "settled"
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_a_visitor_leaving_after_the_start_line_is_not_charged(funded, aws) -> None:
    result = chat(read=1)
    (start,) = (json.loads(chunk) for chunk in result.chunks)
    assert start["type"] == "start"
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"


def test_a_model_failure_before_any_text_is_an_error_line_and_free(funded, aws) -> None:
    result = chat(prompt="[[offline-error-before]] Do you have a rain jacket?")
    assert (result.status, result.header("Content-Type")) == (200, NDJSON)
    start, error = result.lines()
    assert start["type"] == "start"
    assert set(error) == {"type", "message", "code"}
    assert (error["type"], error["code"]) == ("error", "MODEL_UNAVAILABLE")
    assert error["message"] and "offline" not in error["message"].lower()
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"


def test_a_model_failure_after_text_ends_with_an_error_line_and_is_charged_once(funded, aws) -> None:
    result = chat(prompt="[[offline-error]] Do you have a rain jacket?")
    assert result.status == 200
    start, *deltas, error = result.lines()
    assert start["type"] == "start"
    assert len(deltas) == 2 and all(d["type"] == "delta" and d["text"] for d in deltas)
    assert (error["type"], error["code"]) == ("error", "MODEL_UNAVAILABLE") and error["message"]
    assert not any(line["type"] == "done" for line in result.lines())
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, start["turnId"])]
    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_an_unexpected_model_failure_is_an_internal_error_line(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    class Breaking:
        def stream(self, request):
            yield from OfflineModel(delay_seconds=0).stream(request)
            raise RuntimeError("socket closed by botocore.internal.Thing")

    monkeypatch.setattr(chat_providers, "model", cache(lambda spec: Breaking()))
    platform_providers.reset()
    start, *deltas, error = chat().lines()
    assert deltas and all(d["type"] == "delta" for d in deltas)
    assert (error["type"], error["code"]) == ("error", "INTERNAL_ERROR")
    assert error["message"] and "botocore" not in error["message"] and "socket" not in error["message"]
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, start["turnId"])]
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_a_turn_left_by_a_dead_container_is_billed_once_by_the_sweeper(funded, aws) -> None:
    raw = handler_module(CHAT).lambda_handler(chat_event(), LambdaContext(function_name=CHAT))
    chunks = iter(raw["body"])
    start = json.loads(next(chunks))
    assert json.loads(next(chunks))["type"] == "delta"
    # The container freezes here, for longer than a hold lives: the sweeper finds the hold, marked delivered.
    (hold,) = holds(aws.dynamodb, funded.ws.owner_id)
    assert (hold["refId"], hold["amount"], hold["streamed"]) == (start["turnId"], 1, True)
    later = CreditReader(
        ledger_repository(aws.dynamodb), usd_cents_per_credit=1, hold_seconds=900, clock=lambda: time.time() + 901
    )
    report = later.sweep()
    assert (report.settled, report.released) == (1, 0)
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, start["turnId"])]
    # It thaws and the visitor has gone: its own settlement finds the turn already billed.
    raw["body"].close()
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, start["turnId"])]
    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_a_visitor_leaving_during_keepalives_is_not_charged(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "0.3")
    platform_providers.reset()
    result = chat(prompt="[[offline-slow]] Do you have a rain jacket?", read=2)
    start, keepalive = (json.loads(chunk) for chunk in result.chunks)
    assert (start["type"], keepalive) == ("start", {"type": "keepalive"})
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"


def test_a_stream_closed_before_its_first_line_releases_the_hold(funded, aws) -> None:
    """The runtime closes the body even when the reader left before the first byte: nothing stays held."""
    raw = handler_module(CHAT).lambda_handler(chat_event(), LambdaContext(function_name=CHAT))
    assert raw["statusCode"] == 200
    assert balance(aws, funded.ws.owner_id) == (9, 1)  # held while the turn is pending
    raw["body"].close()
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_turn_out_of_time_ends_with_an_error_line_before_lambda_stops_it(funded, aws, monkeypatch) -> None:
    """5 s are kept back from the invocation's time; with 5.3 s left the model gets 0.3 s. The model here stays
    silent until the test lets it go, after the turn's lines are read: so the error line can only come from the
    turn's own deadline, never from waiting for the model (no clock is read here: a turn that waited would get the
    model's text and ``done`` once the model's gate timed out, and fail)."""
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "10")
    asked, gate = threading.Event(), threading.Event()

    class Silent:
        def stream(self, request):
            asked.set()
            gate.wait(SILENT_MODEL_SECONDS)
            yield from OfflineModel(delay_seconds=0).stream(request)

    monkeypatch.setattr(chat_providers, "model", cache(lambda spec: Silent()))
    platform_providers.reset()
    event = chat_event(prompt="rain jacket")
    try:
        raw = handler_module(CHAT).lambda_handler(event, LambdaContext(function_name=CHAT, timeout_ms=5_300))
        lines = [json.loads(chunk) for chunk in raw["body"]]
        raw["body"].close()
    finally:
        gate.set()  # the model's thread ends
    assert asked.is_set()  # the turn did ask the model, which answered nothing before the lines ended
    assert [line["type"] for line in lines] == ["start", "error"]
    assert lines[-1]["code"] == "MODEL_TIMEOUT" and lines[-1]["message"]
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_turn_whose_hold_was_swept_stops_unpaid(funded, aws) -> None:
    """If the sweeper released the hold (it expired), the turn must not deliver text for free."""
    raw = handler_module(CHAT).lambda_handler(chat_event(), LambdaContext(function_name=CHAT))
    body = iter(raw["body"])
    start = json.loads(next(body))
    (hold,) = holds(aws.dynamodb, funded.ws.owner_id)
    ledger = ledger_repository(aws.dynamodb)
    stored = ledger.get_hold(funded.ws.owner_id, hold["refId"])
    assert stored is not None
    assert ledger.release(stored).value == "applied"
    rest = [json.loads(chunk) for chunk in body]
    raw["body"].close()
    assert [line["type"] for line in rest] == ["error"] and rest[0]["code"] == "MODEL_TIMEOUT"
    assert llm_charges(aws, funded.ws.owner_id) == []
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"
    assert_untouched(aws, funded.ws.owner_id, 10)
