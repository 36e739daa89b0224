"""AWS calls of a chat turn: every read at once, then the hold; delivery mark and settle as the stream runs; one
write after ``done`` (the turn's log)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from core.platform.settings import get_settings
from core.workspaces.store import WorkspaceStore
from tests.support.call_recorder import Recorder, assert_exact_queries
from tests.support.lambdas import invoke_streamed, sample_event, with_request
from tests.support.ledger_checks import ledger_repository

CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"


def test_a_chat_turn(published: Any, chat_environment: None, recorder: Recorder, aws: Any) -> None:
    ledger_repository(aws.dynamodb).grant(published.ws.owner_id, 10, "topup", "top_1", "Top-up")
    body = json.dumps({"prompt": "What's new?", "client": CLIENT})
    event = with_request(sample_event("BrainChatFunction"), body=body)
    invoke_streamed("BrainChatFunction", event)
    with recorder.record():
        result = invoke_streamed("BrainChatFunction", event)
    assert result.status == 200 and result.lines()[-1]["type"] == "done", result.body
    assert recorder.beyond_key_check() == Counter({
        "BatchGetItem:main": 1,  # agent + workspace
        "Query:main": 3,  # the workspace's brands, active items, context posts
        "TransactWriteItems:ledger": 2,  # hold, settle
        "UpdateItem:ledger": 1,  # delivered mark
        "TransactWriteItems:main": 1,  # after done: the turn's receipt and its day's counters (core.insights)
    })  # fmt: skip
    together = recorder.issued_together()
    assert +Counter({k: n for k, n in together.items() if not k.endswith(":rates")}) == Counter(
        {"BatchGetItem:main": 1, "Query:main": 3}
    )
    assert any(k.endswith(":rates") for k in together), "the visitor's count goes with the reads"
    assert_exact_queries(recorder)


def test_a_resumed_thread_reads_its_turns_together(
    published: Any, chat_environment: None, recorder: Recorder, aws: Any
) -> None:
    """A workspace that stores conversations: a turn resuming a thread reads its last turns in one Query (after the
    first round: it needs the workspace's setting) and stores itself with its thread's item, its receipt and counts in
    one transaction."""
    stored = published.ws.model_copy(update={"store_conversations": True})
    WorkspaceStore(aws.dynamodb, get_settings().main_table).put_workspace(stored)
    ledger_repository(aws.dynamodb).grant(published.ws.owner_id, 10, "topup", "top_1", "Top-up")
    body = json.dumps({"prompt": "What's new?", "client": CLIENT, "threadKey": "thr_1"})
    event = with_request(sample_event("BrainChatFunction"), body=body)
    for _ in range(2):  # two turns stored in the thread
        invoke_streamed("BrainChatFunction", event)
    with recorder.record():
        result = invoke_streamed("BrainChatFunction", event)
    assert result.lines()[-1]["type"] == "done", result.body
    assert recorder.beyond_key_check() == Counter({
        "BatchGetItem:main": 1,  # agent + workspace
        "Query:main": 4,  # the workspace's brands, active items, context posts; the thread's last turns
        "TransactWriteItems:ledger": 2,  # hold, settle
        "UpdateItem:ledger": 1,  # delivered mark
        "TransactWriteItems:main": 1,  # after done: the turn and its thread's item, with its receipt and counts
    })  # fmt: skip
    assert_exact_queries(recorder)
