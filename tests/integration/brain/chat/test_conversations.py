"""Stored conversations: a workspace with ``store_conversations`` keeps each billed turn under its thread (an item of
the agent's conversations partition, written with its thread's item), resumes the thread on the server, and never
serves it through r2 (nothing of it is in the object store)."""

from __future__ import annotations

from typing import Any

from core.chat.model import Message
from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
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
    """Objects under ``prefix`` of the bucket: turns are never stored there."""
    listed = aws.s3.list_objects_v2(Bucket=get_settings().content_bucket, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def stored(aws: Any, agent_id: str, prefix: str = "VISITOR#") -> dict[str, dict[str, Any]]:
    """The agent's conversations partition by sort key (a range of it with ``prefix``)."""
    return {row["sk"]: row for row in query_all(aws.dynamodb, {
        "TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk AND begins_with(sk, :p)",
        "ExpressionAttributeValues": to_item({":pk": keys.conversations_partition(agent_id), ":p": prefix}),
    })}  # fmt: skip


def turns(aws: Any, agent_id: str, client: str = CLIENT, thread: str = "") -> list[dict[str, Any]]:
    """The visitor's stored turns (of ``thread``, or of all their threads), oldest first within a thread."""
    prefix = keys.thread_turns_prefix(client, thread) if thread else f"{keys.visitor_prefix(client)}TURN#"
    return list(stored(aws, agent_id, prefix).values())


def test_a_turn_is_stored_under_its_thread(storing, aws) -> None:
    lines, reply = streamed(chat(threadKey="thr_visit-1", section="menu"))
    turn_id, usage = lines[0]["turnId"], lines[-1]["usage"]
    (turn,) = turns(aws, storing.agent.id)
    assert turn["sk"] == keys.turn(storing.agent.id, CLIENT, "thr_visit-1", turn_id)["sk"]
    assert turn["prompt"] == PROMPT and turn["reply"] == reply
    assert (turn["client"], turn["section"]) == (CLIENT, "menu")
    assert turn["usage"] == {"inputTokens": usage["inputTokens"], "outputTokens": usage["outputTokens"]}
    assert (turn["turnId"], turn["threadKey"], turn["agentId"]) == (turn_id, "thr_visit-1", storing.agent.id)
    assert turn["complete"] is True and turn["credits"] == usage["credits"] > 0
    assert RFC3339_MS.match(turn["createdAt"]) and "expiresAt" not in turn  # kept: no retention set
    # Its thread's item, written with it: the row the management plane lists.
    thread = stored(aws, storing.agent.id, keys.visitor_threads_prefix(CLIENT))[
        keys.thread(storing.agent.id, CLIENT, "thr_visit-1")["sk"]
    ]
    assert (thread["startedAt"], thread["lastAt"]) == (turn["createdAt"], turn["createdAt"])
    assert thread["gsi1sk"] == f"{turn['createdAt']}#{CLIENT}#thr_visit-1"
    assert conversation_keys(aws, f"workspaces/{storing.ws.id}/") == []  # nothing in the object store


def test_a_turn_without_a_thread_key_is_stored_under_its_new_thread(storing, aws) -> None:
    lines, reply = streamed(chat())
    thread, turn_id = lines[0]["threadKey"], lines[0]["turnId"]
    (turn,) = turns(aws, storing.agent.id, thread=thread)
    assert (turn["turnId"], turn["reply"]) == (turn_id, reply)


def test_nothing_is_stored_without_store_conversations(funded, aws, model: RecordingModel) -> None:
    streamed(chat(threadKey="thr_visit-1"))
    streamed(chat(threadKey="thr_visit-1", prompt="And a linen shirt?"))
    assert stored(aws, funded.agent.id) == {}
    assert model.requests[-1].messages == (Message("user", "And a linen shirt?"),)  # nothing to resume


def test_turns_that_delivered_nothing_store_no_transcript(storing, aws) -> None:
    chat(threadKey="thr_x", prompt="[[offline-error-before]] rain jacket")
    chat(threadKey="thr_x", read=1)
    assert stored(aws, storing.agent.id) == {}  # neither a turn nor a thread


def test_charged_but_unfinished_turns_keep_what_was_delivered(storing, aws) -> None:
    """A visitor who left after the first text, or a model that failed midway: billed, so kept (incomplete)."""
    left = chat(threadKey="thr_left", read=2)
    failed = chat(threadKey="thr_failed", prompt="[[offline-error]] rain jacket").lines()
    assert failed[-1]["type"] == "error"
    kept = {turn["threadKey"]: turn for turn in turns(aws, storing.agent.id)}
    assert len(kept) == 2
    assert kept["thr_left"]["reply"] == left.lines()[1]["text"] and kept["thr_left"]["complete"] is False
    delivered = "".join(line.get("text", "") for line in failed)
    assert kept["thr_failed"]["reply"] == delivered != "" and kept["thr_failed"]["complete"] is False


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
    stored_ids = [turn["turnId"] for turn in turns(aws, storing.agent.id, thread="thr_visit-2")]
    assert stored_ids == [t[0]["turnId"] for t in (first, second)]
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
    """Turns are in the table, never in the object store; the ``conversations/`` prefix, where they were once kept,
    stays refused (an object put there by hand, as older deployments stored turns, is not served)."""
    lines, _ = streamed(chat(threadKey="thr_visit-3"))
    path = f"conversations/{storing.agent.id}/{CLIENT}/thr_visit-3/{lines[0]['turnId']}.json"
    assert turns(aws, storing.agent.id, thread="thr_visit-3")  # it is stored
    aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{storing.ws.id}/{path}", Body=b"{}")
    for candidate, status, code in [
        (path, 403, "PREFIX_NOT_ALLOWED"),
        (f"projects/../{path}", 400, "INVALID_PATH"),
    ]:
        event = with_request(sample_event("BrainR2Function"), path_parameters={"path": candidate})
        result = invoke_streamed("BrainR2Function", event)
        assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
        assert result.json()["code"] == code
