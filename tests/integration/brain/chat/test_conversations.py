"""Stored conversations: a workspace with ``store_conversations`` keeps each billed turn under its thread, resumes the
thread on the server, and never serves it through r2."""

from __future__ import annotations

import json
from typing import Any

from core.chat.model import Message
from core.platform.settings import get_settings
from tests.support.brain import JSON, RFC3339_MS
from tests.support.chat import (
    CLIENT,
    OTHER_CLIENT,
    PROMPT,
    RecordingModel,
    chat,
    streamed,
)
from tests.support.lambdas import (
    invoke_streamed,
    sample_event,
    with_request,
)
from tests.support.seed import Seeder


def conversation_keys(aws: Any, prefix: str) -> list[str]:
    listed = aws.s3.list_objects_v2(Bucket=get_settings().content_bucket, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def stored_turn(aws: Any, key: str) -> dict[str, Any]:
    return json.loads(aws.s3.get_object(Bucket=get_settings().content_bucket, Key=key)["Body"].read())


def test_a_turn_is_stored_under_its_thread(storing, aws) -> None:
    lines, reply = streamed(chat(threadKey="thr_visit-1", section="menu"))
    turn_id, usage = lines[0]["turnId"], lines[-1]["usage"]
    prefix = f"workspaces/{storing.ws.id}/conversations/{storing.agent.id}/{CLIENT}/thr_visit-1/"
    (key,) = conversation_keys(aws, f"workspaces/{storing.ws.id}/conversations/")
    assert key == f"{prefix}{turn_id}.json"
    turn = stored_turn(aws, key)
    assert turn["prompt"] == PROMPT and turn["reply"] == reply
    assert (turn["client"], turn["section"]) == (CLIENT, "menu")
    assert turn["usage"] == {"inputTokens": usage["inputTokens"], "outputTokens": usage["outputTokens"]}
    assert (turn["turnId"], turn["threadKey"], turn["agentId"]) == (turn_id, "thr_visit-1", storing.agent.id)
    assert turn["complete"] is True
    assert RFC3339_MS.match(turn["createdAt"])


def test_a_turn_without_a_thread_key_is_stored_under_its_new_thread(storing, aws) -> None:
    lines, reply = streamed(chat())
    thread, turn_id = lines[0]["threadKey"], lines[0]["turnId"]
    prefix = f"workspaces/{storing.ws.id}/conversations/{storing.agent.id}/{CLIENT}/{thread}/"
    assert conversation_keys(aws, prefix) == [f"{prefix}{turn_id}.json"]
    assert stored_turn(aws, f"{prefix}{turn_id}.json")["reply"] == reply


def test_nothing_is_stored_without_store_conversations(funded, aws, model: RecordingModel) -> None:
    streamed(chat(threadKey="thr_visit-1"))
    streamed(chat(threadKey="thr_visit-1", prompt="And a linen shirt?"))
    assert conversation_keys(aws, f"workspaces/{funded.ws.id}/") == []
    assert model.requests[-1].messages == (Message("user", "And a linen shirt?"),)  # nothing to resume


def test_turns_that_delivered_nothing_store_no_transcript(storing, aws) -> None:
    chat(threadKey="thr_x", prompt="[[offline-error-before]] rain jacket")
    chat(threadKey="thr_x", read=1)
    assert conversation_keys(aws, f"workspaces/{storing.ws.id}/conversations/") == []


def test_charged_but_unfinished_turns_keep_what_was_delivered(storing, aws) -> None:
    """A visitor who left after the first text, or a model that failed midway: billed, so kept (incomplete)."""
    left = chat(threadKey="thr_left", read=2)
    failed = chat(threadKey="thr_failed", prompt="[[offline-error]] rain jacket").lines()
    assert failed[-1]["type"] == "error"
    prefix = f"workspaces/{storing.ws.id}/conversations/{storing.agent.id}/{CLIENT}/"
    keys = conversation_keys(aws, prefix)
    assert len(keys) == 2
    turns = {stored_turn(aws, key)["threadKey"]: stored_turn(aws, key) for key in keys}
    assert turns["thr_left"]["reply"] == left.lines()[1]["text"] and turns["thr_left"]["complete"] is False
    delivered = "".join(line.get("text", "") for line in failed)
    assert turns["thr_failed"]["reply"] == delivered != "" and turns["thr_failed"]["complete"] is False


def test_a_second_turn_of_a_thread_resumes_it_on_the_server(storing, seed: Seeder, aws, model: RecordingModel) -> None:
    first, first_reply = streamed(chat(threadKey="thr_visit-2"))
    second, second_reply = streamed(chat(threadKey="thr_visit-2", prompt="And a linen shirt?"))
    assert model.requests[1].messages == (
        Message("user", PROMPT),
        Message("assistant", first_reply),
        Message("user", "And a linen shirt?"),
    )
    # The offline model greets only on the first turn of a conversation.
    assert first_reply.startswith("Hi, I'm") and not second_reply.startswith("Hi, I'm")
    assert "Linen summer shirt" in second_reply
    prefix = f"workspaces/{storing.ws.id}/conversations/{storing.agent.id}/{CLIENT}/thr_visit-2/"
    assert conversation_keys(aws, prefix) == sorted(f"{prefix}{t[0]['turnId']}.json" for t in (first, second))
    # Another visitor naming the same thread key does not get this visitor's conversation.
    streamed(chat(threadKey="thr_visit-2", prompt="Hello?", client=OTHER_CLIENT))
    assert model.requests[-1].messages == (Message("user", "Hello?"),)
    # Another thread, or the same thread key with another agent, starts afresh.
    streamed(chat(threadKey="thr_other", prompt="Hello?"))
    assert model.requests[-1].messages == (Message("user", "Hello?"),)
    other_agent = seed.agent(storing.ws, slug="second")
    streamed(chat(agent_id=other_agent.id, threadKey="thr_visit-2", prompt="Hello?"))
    assert model.requests[-1].messages == (Message("user", "Hello?"),)
    # History sent by the client wins over the stored thread.
    given = [{"role": "user", "content": "Q0"}, {"role": "assistant", "content": "A0"}]
    streamed(chat(threadKey="thr_visit-2", prompt="Q1", history=given))
    assert model.requests[-1].messages == (Message("user", "Q0"), Message("assistant", "A0"), Message("user", "Q1"))


def test_stored_conversations_are_not_readable_through_r2(storing, aws) -> None:
    lines, _ = streamed(chat(threadKey="thr_visit-3"))
    path = f"conversations/{storing.agent.id}/{CLIENT}/thr_visit-3/{lines[0]['turnId']}.json"
    assert conversation_keys(aws, f"workspaces/{storing.ws.id}/{path}")  # it is there
    for candidate, status, code in [
        (path, 403, "PREFIX_NOT_ALLOWED"),
        (f"projects/../{path}", 400, "INVALID_PATH"),
    ]:
        event = with_request(sample_event("BrainR2Function"), path_parameters={"path": candidate})
        result = invoke_streamed("BrainR2Function", event)
        assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
        assert result.json()["code"] == code
