"""What a delivered chat turn leaves for its owner (issue 40; authoring.md, "Feedback, unanswered questions and the
owner's answers"): a receipt for every turn, its day's counters (turns, distinct visitors and threads, unanswered,
sources), and, only when the workspace stores conversations, its question's count and its unanswered row. All of
it is one write after ``done`` (with the stored turn), never a call before the first line; the preview writes none.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from core.chat import providers as chat_providers
from core.chat.model import TextDelta, Usage
from core.insights.questions import question_key
from core.insights.records import COUNTERS, SOURCE_COUNT, SOURCE_NAME, source_key
from core.keys import providers as keys_providers
from core.platform import main_table as keys
from core.platform import providers as platform_providers
from core.platform.dynamo import from_item, query_all, to_item
from core.platform.response_stream import StreamBody, body_chunks
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.behaviour import set_behaviour
from tests.support.call_recorder import Recorder
from tests.support.chat import CHAT, CLIENT, OTHER_CLIENT, chat, chat_event, grant, streamed
from tests.support.containers import Container
from tests.support.core_clients import core_tables, wrap_core_clients
from tests.support.knowledge import index_queued
from tests.support.lambdas import LambdaContext, handler_module, invoke_streamed, register_event
from tests.support.portal import Portal

QUESTION = "What does a cortado cost?"
NOTHING_MATCHES = "Do you sell snowboards?"
FALLBACK = "Ask Ines at the counter, she knows every bean we roast."
DOCUMENTS = {  # name -> (file, text)
    "Price list": ("prices.txt", "A cortado costs 2.85 EUR. A flat white costs 3.40 EUR."),
    "Winter menu": ("winter.txt", "In winter our cortado with cinnamon costs 3.10 EUR, from December to February."),
}


@dataclass
class Cafe:
    studio: Studio
    agent_id: str
    key: str
    key_id: str

    def ask(self, prompt: str = QUESTION, client: str = CLIENT, **fields: Any) -> tuple[list[dict[str, Any]], str]:
        return streamed(chat({"prompt": prompt, "client": client} | fields, agent_id=self.agent_id, key=self.key))

    def store_conversations(self, **more: Any) -> None:
        self.studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True} | more)


@pytest.fixture
def cafe(portal: Portal, aws: Any) -> Cafe:
    """An agent with two indexed documents, a key and 200 credits."""
    studio = Studio.open(portal)
    agent_id = studio.agent("Barista")["id"]
    for name, (file, text) in DOCUMENTS.items():
        path = f"projects/{agent_id}/notes/{file}"
        studio.put_object(path, text.encode(), "text/plain")
        studio.item(agent_id, name, r2Key=path, kind="document")
    assert index_queued(portal) >= 1
    grant(aws, studio.who.user_id, 200)
    minted = portal.mint_key(studio.who, studio.workspace_id)
    return Cafe(studio, agent_id, minted["key"], minted["id"])


def partition(aws: Any, pk: str) -> list[dict[str, Any]]:
    return query_all(aws.dynamodb, {
        "TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": pk}),
    })  # fmt: skip


def receipt(aws: Any, agent_id: str, turn_id: str) -> dict[str, Any] | None:
    found = aws.dynamodb.get_item(
        TableName=get_settings().main_table, Key=to_item(keys.turn_receipt(agent_id, turn_id))
    )
    return from_item(found["Item"]) if "Item" in found else None


def day_totals(aws: Any, agent_id: str) -> dict[str, dict[str, int]]:
    """Per day, the shards summed (as the insights reader does), source counts under ``src:<key>``."""
    totals: dict[str, Counter[str]] = {}
    for shard in partition(aws, keys.insights_partition(agent_id)):
        day = shard["sk"].split("#")[1]
        assert shard["sk"] == keys.insights_day(agent_id, day, int(shard["sk"].split("#")[2]))["sk"]
        counts = {k: int(v) for k, v in shard.items() if k in COUNTERS or k.startswith(SOURCE_COUNT)}
        totals.setdefault(day, Counter()).update(counts)
    return {day: dict(+counts) for day, counts in totals.items()}


def expected_sources(turns: list[list[dict[str, Any]]]) -> dict[str, int]:
    """Each source once per turn that named it in its ``sources`` line."""
    counted: Counter[str] = Counter()
    for lines in turns:
        counted.update({SOURCE_COUNT + source_key(s) for s in lines[-2]["sources"]})
    return dict(counted)


def today_of(lines: list[dict[str, Any]], aws: Any, agent_id: str) -> str:
    found = receipt(aws, agent_id, lines[0]["turnId"])
    assert found is not None
    return found["day"]


# --- receipts


def test_every_delivered_turn_leaves_a_receipt_without_its_words_when_not_stored(cafe: Cafe, aws: Any) -> None:
    lines, _ = cafe.ask(threadKey="thr_counter")
    found = receipt(aws, cafe.agent_id, lines[0]["turnId"])
    assert found is not None
    created = datetime.fromisoformat(found["createdAt"])
    assert {k: v for k, v in found.items() if k not in ("pk", "sk", "createdAt", "expiresAt")} == {
        "workspaceId": cafe.studio.workspace_id, "agentId": cafe.agent_id, "turnId": lines[0]["turnId"],
        "threadKey": "thr_counter", "client": CLIENT, "keyId": cafe.key_id, "day": found["createdAt"][:10],
        "unanswered": False, "sources": lines[-2]["sources"], "credits": lines[-1]["usage"]["credits"],
    }  # fmt: skip
    assert lines[-2]["sources"], "the question matches the documents"
    assert int(found["expiresAt"]) == int((created + timedelta(days=8)).timestamp())  # 8 days, no retention


def test_a_stored_workspace_s_receipt_keeps_the_prompt_and_reply_and_its_retention(cafe: Cafe, aws: Any) -> None:
    cafe.store_conversations(conversationRetentionDays=3)
    lines, reply = cafe.ask()
    found = receipt(aws, cafe.agent_id, lines[0]["turnId"])
    assert found is not None and (found["prompt"], found["reply"]) == (QUESTION, reply)
    day = datetime.fromisoformat(found["day"] + "T00:00:00+00:00")
    assert int(found["expiresAt"]) == int((day + timedelta(days=4)).timestamp())  # the retention's, sooner than 8


def test_a_turn_the_visitor_left_mid_stream_leaves_its_receipt_once(cafe: Cafe, aws: Any) -> None:
    result = invoke_streamed(CHAT, chat_event({"prompt": QUESTION, "client": CLIENT}, agent_id=cafe.agent_id,
                                              key=cafe.key), read=2)  # fmt: skip
    turn_id = result.lines()[0]["turnId"]
    assert result.lines()[1]["type"] == "delta"
    assert receipt(aws, cafe.agent_id, turn_id) is not None
    (totals,) = day_totals(aws, cafe.agent_id).values()
    assert totals["turns"] == 1


# --- day counters


def test_the_day_counters_are_what_happened(cafe: Cafe, aws: Any) -> None:
    turns = [
        cafe.ask(threadKey="thr_a")[0],
        cafe.ask(threadKey="thr_a", prompt="And a flat white?")[0],
        cafe.ask(threadKey="thr_b")[0],
        cafe.ask(client=OTHER_CLIENT)[0],  # no thread key: each starts a thread
        cafe.ask(client=OTHER_CLIENT, prompt=NOTHING_MATCHES)[0],
        cafe.ask(client=OTHER_CLIENT, prompt=NOTHING_MATCHES, threadKey="thr_a")[0],  # another visitor's thr_a
    ]
    day = today_of(turns[0], aws, cafe.agent_id)
    assert day_totals(aws, cafe.agent_id) == {day: {
        "turns": 6, "visitors": 2, "threads": 5, "unanswered": 2, **expected_sources(turns),
    }}  # fmt: skip
    names = {k: v for shard in partition(aws, keys.insights_partition(cafe.agent_id))
             for k, v in shard.items() if k.startswith(SOURCE_NAME)}  # fmt: skip
    assert set(names.values()) == set(DOCUMENTS) and len(expected_sources(turns)) == 2
    assert all(
        shard["expiresAt"] == day_expiry(day) for shard in partition(aws, keys.insights_partition(cafe.agent_id))
    )


def day_expiry(day: str) -> int:
    return int((datetime.fromisoformat(day + "T00:00:00+00:00") + timedelta(days=100)).timestamp())


def test_concurrent_turns_of_one_visitor_count_one_visitor_and_one_thread(cafe: Cafe, aws: Any) -> None:
    """The visitor's limiter write returns its counters as it left them: exactly one turn sees itself first."""
    event = chat_event({"prompt": QUESTION, "client": CLIENT, "threadKey": "thr_rush"}, agent_id=cafe.agent_id,
                       key=cafe.key)  # fmt: skip
    # One container each, as Lambda runs them: a handler module serves one request at a time (its resolver
    # holds the current event), so eight threads through one module would race in its resolver, not in the turn's code.
    containers = [Container(CHAT) for _ in range(8)]
    keys_providers.checker()
    chat_providers.service()  # warm, as every container would be: boto3 clients are not built safely by racing threads
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda n: containers[n].invoke_streamed(event), range(8)))
    assert all(r.lines()[-1]["type"] == "done" for r in results), [r.body for r in results]
    ((_, totals),) = day_totals(aws, cafe.agent_id).items()
    assert (totals["turns"], totals["visitors"], totals["threads"]) == (8, 1, 1)
    assert all(receipt(aws, cafe.agent_id, r.lines()[0]["turnId"]) for r in results)


def test_the_visitor_s_counters_are_kept_two_days_on_their_limiter_item(cafe: Cafe, aws: Any) -> None:
    cafe.ask(threadKey="thr_a")
    (item,) = [
        from_item(i) for i in aws.dynamodb.scan(TableName=get_settings().rate_limits_table)["Items"]
        if i["pk"]["S"].startswith(f"visitor#{cafe.studio.workspace_id}#")
    ]  # fmt: skip
    usage = sorted(k for k in item if k[:1] == "u" and k[1:2].isdigit())
    assert len(usage) == 2 and usage[1].endswith("~thr_a")  # the visitor's and the thread's
    assert int(item["expiresAt"]) - datetime.now().timestamp() < 2 * 86_400 + 120  # not the keys' 100 days


# --- unanswered


class SaysTheFallback:
    """A model that answers the owner's fallback whatever was retrieved (as a real model may)."""

    def stream(self, request: Any) -> Any:
        yield TextDelta(f"  {FALLBACK.upper()}  ")
        yield Usage(input_tokens=5, output_tokens=5)


def test_a_turn_is_unanswered_when_nothing_matched_or_the_reply_was_the_fallback(
    cafe: Cafe, aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cafe.store_conversations()
    set_behaviour(aws.dynamodb, cafe.studio.workspace_id, cafe.agent_id, fallback=FALLBACK)
    answered, _ = cafe.ask()
    nothing, _ = cafe.ask(prompt=NOTHING_MATCHES)
    monkeypatch.setattr(chat_providers, "model", lambda spec: SaysTheFallback())
    platform_providers.reset()
    fallback, _ = cafe.ask()
    assert fallback[-2]["sources"], "passages were found: only the reply makes it unanswered"
    flags = [receipt(aws, cafe.agent_id, lines[0]["turnId"])["unanswered"] for lines in (answered, nothing, fallback)]  # type: ignore[index]
    assert flags == [False, True, True]
    rows = partition(aws, keys.unanswered_partition(cafe.agent_id))
    assert [(r["turnId"], r["prompt"]) for r in rows] == [
        (nothing[0]["turnId"], NOTHING_MATCHES), (fallback[0]["turnId"], QUESTION),
    ]  # fmt: skip
    for row, lines in zip(rows, (nothing, fallback), strict=True):
        assert row["sk"] == keys.unanswered(cafe.agent_id, row["createdAt"], lines[0]["turnId"])["sk"]
        assert (row["threadKey"], row["client"]) == (lines[0]["threadKey"], CLIENT) and "expiresAt" not in row
    (totals,) = day_totals(aws, cafe.agent_id).values()
    assert totals["unanswered"] == 2


# --- questions (stored conversations only)


def test_questions_are_counted_by_their_key_only_when_conversations_are_stored(cafe: Cafe, aws: Any) -> None:
    cafe.ask()
    cafe.ask(prompt=NOTHING_MATCHES)
    assert partition(aws, keys.questions_partition(cafe.agent_id)) == []
    assert partition(aws, keys.unanswered_partition(cafe.agent_id)) == []
    cafe.store_conversations()
    first, _ = cafe.ask()
    last, _ = cafe.ask(prompt="what does a CORTADO cost", client=OTHER_CLIENT)
    cafe.ask(prompt=NOTHING_MATCHES)
    day = today_of(first, aws, cafe.agent_id)
    found = aws.dynamodb.query(
        TableName=get_settings().main_table, IndexName="gsi2", ScanIndexForward=False,
        KeyConditionExpression="gsi2pk = :pk", ExpressionAttributeValues=to_item({":pk": keys.questions_index(
            cafe.agent_id, day)}),
    )["Items"]  # fmt: skip
    top = [from_item(i) for i in found]
    assert [(q["sk"], int(q["gsi2sk"]), q["question"], q["answered"]) for q in top] == [
        (f"{day}#{question_key(QUESTION)}", 2, "what does a CORTADO cost", True),
        (f"{day}#{question_key(NOTHING_MATCHES)}", 1, NOTHING_MATCHES, False),
    ]  # fmt: skip
    (item,) = [q for q in partition(aws, keys.questions_partition(cafe.agent_id)) if q["question"] != NOTHING_MATCHES]
    assert (item["client"], item["turnId"]) == (OTHER_CLIENT, last[0]["turnId"])  # the latest asker's
    assert item["expiresAt"] == day_expiry(day)


# --- calls: none added before the first line, exactly one after done


@pytest.fixture
def recorder(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    found = Recorder(core_tables())
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


def calls_by_line(recorder: Recorder, event: dict[str, Any]) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """The turn's lines and the calls made before each line was handed over, then those after the last."""
    register_event(event)
    with recorder.record():
        raw = handler_module(CHAT).lambda_handler(event, LambdaContext(function_name=CHAT))
        lines, spans, mark = [], [], 0
        try:
            for chunk in body_chunks(raw):
                spans.append([str(c) for c in recorder.calls[mark:]])
                mark = len(recorder.calls)
                lines.append(json.loads(chunk))
        finally:
            if isinstance(raw.get("body"), StreamBody):
                raw["body"].close()
        spans.append([str(c) for c in recorder.calls[mark:]])
    return lines, spans


@pytest.mark.parametrize("stored", [False, True], ids=["not-stored", "stored"])
def test_no_call_before_the_first_line_and_one_after_done(cafe: Cafe, recorder: Recorder, stored: bool) -> None:
    if stored:
        cafe.store_conversations()
    cafe.ask(client=OTHER_CLIENT)  # a warm container: the agent's index is loaded (one GetObject, once)
    event = chat_event({"prompt": QUESTION, "client": CLIENT}, agent_id=cafe.agent_id, key=cafe.key)
    lines, spans = calls_by_line(recorder, event)
    assert [line["type"] for line in lines][-2:] == ["sources", "done"]
    before_first = Counter(c for c in spans[0] if not c.endswith((":keys", ":rates")))
    assert before_first == Counter({"BatchGetItem:main": 1, "Query:main": 3, "TransactWriteItems:ledger": 1})
    assert not any(c.endswith(":main") for span in spans[1:-1] for c in span)  # nothing while streaming
    assert spans[-1] == ["TransactWriteItems:main"]  # after done: one call, whether or not the turn is stored


def test_the_stored_turn_and_its_log_are_one_transaction(
    cafe: Cafe, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    cafe.store_conversations()
    sent: list[list[dict[str, Any]]] = []
    from core.insights.turn_log_store import TurnLogStore

    record = TurnLogStore.record

    def kept(self: TurnLogStore, actions: Any) -> None:
        sent.append(actions.items)
        record(self, actions)

    monkeypatch.setattr(TurnLogStore, "record", kept)
    lines, _ = cafe.ask(prompt=NOTHING_MATCHES, threadKey="thr_one")
    (items,) = sent
    steps = [next(iter(item.values())) for item in items]
    written = sorted(from_item(step.get("Item") or step["Key"])["pk"].rsplit("#", 1)[1] for step in steps)
    assert written == sorted(["TURNS", "INSIGHTS", "QUESTIONS", "UNANSWERED", "CONVERSATIONS", "CONVERSATIONS"])
    assert receipt(cafe.studio.portal.aws, cafe.agent_id, lines[0]["turnId"]) is not None


# --- the preview


def test_the_preview_writes_no_receipt_counter_question_or_row(
    cafe: Cafe, aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cafe.store_conversations()
    for name, value in function_env("PortalAgentPreviewFunction").items():
        monkeypatch.setenv(name, value)
    platform_providers.reset()
    for prompt in (QUESTION, NOTHING_MATCHES):
        event = cafe.studio.event("PortalAgentPreviewFunction", agent_id=cafe.agent_id, body={"prompt": prompt})
        result = invoke_streamed("PortalAgentPreviewFunction", event)
        assert result.status == 200 and result.lines()[-1]["type"] == "done", result.body
    for pk in (keys.turns_partition, keys.insights_partition, keys.questions_partition, keys.unanswered_partition):
        assert partition(aws, pk(cafe.agent_id)) == []


def function_env(logical_id: str) -> dict[str, str]:
    from tests.support.lambdas import stack

    return {k: v for k, v in stack().functions()[logical_id].environment.items() if k != "AWS_LAMBDA_EXEC_WRAPPER"}
