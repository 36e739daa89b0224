"""The client's side of issue 40 without a service: ``brain.feedback`` sends ``rating: null`` to withdraw (a generated
method would leave a None out), a chat stream is read to its end after ``done`` (the service records the turn a
rating needs before it ends the stream), an owner's answer is a source of its own, and ``workspace-client insights``
prints the days as a table with the top questions and sources."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from workspace_client import AsyncBrain, Brain
from workspace_client.chat import Source, async_events, events
from workspace_client.cli_insights import insights_table

START = {"type": "start", "threadKey": "thr_1", "turnId": "turn_1"}
DONE = {"type": "done", "usage": {"inputTokens": 1, "outputTokens": 1, "credits": 1}}


def feedback_requests(call: Any) -> list[tuple[str, str, dict[str, Any]]]:
    sent: list[tuple[str, str, dict[str, Any]]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append((request.method, request.url.raw_path.decode(), json.loads(request.content)))
        return httpx.Response(200, json={})

    with Brain("https://b.test", key="sk_ws_x", client_id="visitor_0123456789ab",
               transport=httpx.MockTransport(answer)) as brain:  # fmt: skip
        call(brain)
    return sent


def test_feedback_sends_the_rating_always_null_included_and_the_comment_only_when_given() -> None:
    sent = feedback_requests(lambda brain: [
        brain.feedback("prj_1", "turn_1", rating="down", comment="Wrong hours"),
        brain.feedback("prj_1", "turn_1", rating="up"),
        brain.feedback("prj_1", "turn_1", rating=None),  # withdrawn: the service must read rating null
        brain.feedback("prj_1", "turn/2", client="other_visitor_000001", rating="up"),
    ])  # fmt: skip
    path = "/v1/agent/prj_1/turns/turn_1/feedback"
    assert sent == [
        ("POST", path, {"client": "visitor_0123456789ab", "rating": "down", "comment": "Wrong hours"}),
        ("POST", path, {"client": "visitor_0123456789ab", "rating": "up"}),
        ("POST", path, {"client": "visitor_0123456789ab", "rating": None}),
        ("POST", "/v1/agent/prj_1/turns/turn%2F2/feedback", {"client": "other_visitor_000001", "rating": "up"}),
    ]


def test_feedback_refuses_a_rating_that_is_not_one() -> None:
    with pytest.raises(ValueError, match="rating must be"):
        feedback_requests(lambda brain: brain.feedback("prj_1", "turn_1", rating="meh"))


def test_async_feedback_withdraws_with_null() -> None:
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json={})

    async def run() -> None:
        async with AsyncBrain("https://b.test", key="sk_ws_x", client_id="visitor_0123456789ab",
                              transport=httpx.MockTransport(answer)) as brain:  # fmt: skip
            await brain.feedback("prj_1", "turn_1", rating=None)

    asyncio.run(run())
    assert sent == [{"client": "visitor_0123456789ab", "rating": None}]


class Lines:
    """A stream's lines that records how far it was read."""

    def __init__(self, *events: dict[str, Any]) -> None:
        self.lines = [json.dumps(event) for event in events] + ["", json.dumps({"type": "keepalive"})]
        self.read = 0

    def __iter__(self) -> Iterator[str]:
        for line in self.lines:
            self.read += 1
            yield line

    async def __aiter__(self) -> AsyncIterator[str]:
        for line in self.lines:
            self.read += 1
            yield line


def test_a_stream_is_read_to_its_end_after_done_and_nothing_after_done_is_yielded() -> None:
    lines = Lines(START, {"type": "delta", "text": "Hi"}, DONE)
    seen = [event.type for event in events(iter(lines))]
    assert seen == ["start", "delta", "done"]
    assert lines.read == len(lines.lines)  # the lines after done were read (the stream's end reached)

    async def collect(source: Lines) -> list[str]:
        return [event.type async for event in async_events(source.__aiter__())]

    again = Lines(START, DONE)
    assert asyncio.run(collect(again)) == ["start", "done"]
    assert again.read == len(again.lines)


def test_an_owners_answer_is_a_source_of_its_own() -> None:
    source = Source.from_wire({"name": "When do you open?", "answerId": "ans_1", "where": ""})
    assert source is not None and (source.kind, source.answer_id, source.name) == ("answer", "ans_1",
                                                                                    "When do you open?")  # fmt: skip
    item = Source.from_wire({"name": "Menu", "itemId": "itm_1", "r2Key": "projects/p/menu.pdf"})
    assert item is not None and (item.kind, item.answer_id) == ("item", None)


def test_the_insights_table_days_totals_questions_and_sources() -> None:
    zero = {"turns": 0, "threads": 0, "visitors": 0, "up": 0, "down": 0, "unanswered": 0}
    insights = {
        "days": [{"date": "2026-03-01"} | zero,
                 {"date": "2026-03-02", "turns": 12, "threads": 3, "visitors": 2, "up": 1, "down": 2,
                  "unanswered": 4}],
        "topQuestions": [{"question": "When do you open?\nOn Sunday?", "count": 7, "answered": True,
                          "lastAt": "2026-03-02T10:00:00.000Z"}],
        "topSources": [{"itemId": "itm_1", "postId": None, "answerId": None, "name": "Menu", "count": 9},
                       {"itemId": None, "postId": None, "answerId": "ans_1", "name": "Parking?", "count": 2}],
    }  # fmt: skip
    assert insights_table(insights) == [
        "date        turns  threads  visitors  up  down  unanswered",
        "2026-03-01      0        0         0   0     0           0",
        "2026-03-02     12        3         2   1     2           4",
        "total          12        3         2   1     2           4",
        "",
        "top questions (1):",
        "      7  answered    2026-03-02T10:00:00.000Z  When do you open? On Sunday?",
        "",
        "top sources (2):",
        "      9  Menu (item itm_1)",
        "      2  Parking? (answer ans_1)",
    ]
    empty = insights_table({"days": [{"date": "2026-03-02"} | zero], "topQuestions": [], "topSources": []})
    assert empty[-5:] == ["top questions (0):", "  none (the workspace does not store conversations, or nobody "
                          "asked yet)", "", "top sources (0):", "  none"]  # fmt: skip
