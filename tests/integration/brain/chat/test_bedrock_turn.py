"""A chat turn as deployed: ``CHAT_MODEL=bedrock`` and the template's model id, the chat function's own Bedrock client
answered offline at botocore's ``before-send`` (moto has no ConverseStream; tests/support/bedrock_stream.py).

Every other chat test talks to the offline model, so this is the test that holds the function's
``bedrock:InvokeModelWithResponseStream`` grant (tests/support/iam_check.py judges the call against the template's
policy) and the path from the settings to the adapter that the unit tests of core/chat/bedrock.py start past.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import pytest

from core.platform import aws as core_aws
from core.platform import providers as platform_providers
from tests.support.bedrock_stream import ScriptedBody, answer, answer_from, event_stream, exception
from tests.support.chat import CHAT, NDJSON, PROMPT, assert_untouched, balance, chat, llm_charges, streamed
from tests.support.lambdas import stack
from tests.support.ledger_checks import assert_consistent

MODEL_ID = stack().functions()[CHAT].environment["BEDROCK_MODEL_ID"]


@pytest.fixture
def bedrock(aws: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The template's CHAT_MODEL (``bedrock``) back in place of the offline model the chat tests run with; the
    frames the next ConverseStream answers with, and the requests it was sent. After ``aws``, whose start empties
    the clients' cache."""
    monkeypatch.setenv("CHAT_MODEL", stack().functions()[CHAT].environment["CHAT_MODEL"])
    platform_providers.reset()
    script: dict[str, Any] = {"frames": answer("Our rain ", "jacket is ", "waxed cotton.", usage=(42, 7))}
    script["requests"] = answer_from(
        core_aws.bedrock_runtime(), lambda request: event_stream(request, ScriptedBody(script["frames"]))
    )
    return script


def test_a_turn_streams_what_bedrock_answers_and_bills_it(bedrock: dict[str, Any], funded: Any, aws: Any) -> None:
    lines, reply = streamed(chat(threadKey="thr_bedrock"))
    assert reply == "Our rain jacket is waxed cotton."
    assert [line["text"] for line in lines if line["type"] == "delta"] == ["Our rain ", "jacket is ", "waxed cotton."]
    assert lines[-1]["usage"] == {"inputTokens": 42, "outputTokens": 7, "credits": 1}

    (request,) = bedrock["requests"]
    assert unquote(request.url).endswith(f"/model/{MODEL_ID}/converse-stream")
    sent = json.loads(request.body)
    assert sent["messages"][-1] == {"role": "user", "content": [{"text": PROMPT}]}
    assert "Helper" in sent["system"][0]["text"]  # the agent's persona, from the stored agent

    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert [credits for credits, _ in llm_charges(aws, funded.ws.owner_id)] == [-1]
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_bedrock_throttling_before_the_first_word_is_a_model_busy_line_and_costs_nothing(
    bedrock: dict[str, Any], funded: Any, aws: Any
) -> None:
    bedrock["frames"] = [exception("throttlingException", "Too many tokens")]
    result = chat()
    assert (result.status, result.header("Content-Type")) == (200, NDJSON)
    start, error = result.lines()
    assert (start["type"], error["type"], error["code"]) == ("start", "error", "MODEL_BUSY")
    assert "Too many tokens" not in error["message"]  # Bedrock's own words stay in the log
    assert_untouched(aws, funded.ws.owner_id, 10)
