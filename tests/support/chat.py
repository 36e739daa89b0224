"""Calling the chat function (events/BrainChatFunction.json) and reading what it streamed and billed.

The chat tests (tests/integration/brain/chat/), the sliding-limit tests and the metrics tests share these;
the fixtures that set up a funded tenant live in tests/integration/brain/conftest.py.
"""

from __future__ import annotations

import json
from typing import Any

from core.chat.offline import OfflineModel
from core.platform.ids import new_id
from tests.support.brain import JSON
from tests.support.lambdas import StreamedResult, invoke_streamed, sample_event, with_request
from tests.support.ledger_checks import assert_consistent, entries, holds, ledger_items, ledger_repository

CHAT = "BrainChatFunction"
NDJSON = "application/x-ndjson"
CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
OTHER_CLIENT = "v1_9e8d7c6b5a4f3e2d1c0b9a8f"
PROMPT = "Do you have a rain jacket?"
ITEM = "Waxed rain jacket"
JWT_LOOKALIKE = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl"


def grant(aws: Any, account: str, amount: int) -> None:
    ledger_repository(aws.dynamodb).grant(account, amount, "topup", new_id("top"), "Test top-up")


class RecordingModel:
    """The offline model, remembering every request the chat service sent it (and which model it was asked as)."""

    def __init__(self) -> None:
        self.inner = OfflineModel(delay_seconds=0)
        self.requests: list[Any] = []
        self.specs: list[Any] = []

    def for_spec(self, spec: Any) -> RecordingModel:
        """``chat_providers.model``'s stand-in: the same recorder for every model of the catalogue."""
        self.specs.append(spec)
        return self

    def stream(self, request):
        self.requests.append(request)
        return self.inner.stream(request)


def chat_event(
    body: dict[str, Any] | str | None = None,
    *,
    agent_id: str | None = None,
    key: str | None = None,
    headers: dict[str, str | None] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """The sample chat event with this body (default: PROMPT from CLIENT, plus ``fields``)."""
    payload = body if body is not None else {"prompt": PROMPT, "client": CLIENT} | fields
    auth = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return with_request(
        sample_event(CHAT),
        path_parameters={"agentId": agent_id} if agent_id is not None else None,
        headers=auth | (headers or {}),
        body=payload if isinstance(payload, str) else json.dumps(payload),
    )


def chat(body: dict[str, Any] | str | None = None, *, read: int | None = None, **changes: Any) -> StreamedResult:
    return invoke_streamed(CHAT, chat_event(body, **changes), read=read)


def reply_of(lines: list[dict[str, Any]]) -> str:
    return "".join(line["text"] for line in lines if "text" in line)


def streamed(result: StreamedResult) -> tuple[list[dict[str, Any]], str]:
    """A complete turn's lines and reply: start → delta… → sources → done, each line its own chunk."""
    assert result.status == 200, result.body
    assert result.header("Content-Type") == NDJSON
    assert result.header("Cache-Control") == "no-store"
    assert result.header("Access-Control-Allow-Origin") == "*"
    assert all(chunk.endswith(b"\n") and chunk.count(b"\n") == 1 for chunk in result.chunks), result.chunks
    lines = result.lines()
    start, *middle, sources, done = lines
    assert set(start) == {"type", "threadKey", "turnId"} and start["type"] == "start"
    assert start["turnId"].startswith("turn_")
    deltas = [line for line in middle if line != {"type": "keepalive"}]  # keep-alives may come between
    assert deltas and all(set(d) == {"type", "text"} and d["type"] == "delta" for d in deltas)
    assert all(isinstance(d["text"], str) and d["text"] for d in deltas)
    assert sources["type"] == "sources" and set(sources) == {"type", "sources"} and isinstance(sources["sources"], list)
    source_keys = {"itemId", "postId", "answerId", "name", "r2Key", "where"}
    assert all(set(source) == source_keys for source in sources["sources"])
    assert done["type"] == "done" and set(done) == {"type", "usage"}
    assert set(done["usage"]) == {"inputTokens", "outputTokens", "credits"}
    assert all(isinstance(v, int) for v in done["usage"].values())
    return lines, reply_of(lines)


def refused(result: StreamedResult, status: int, code: str) -> dict[str, Any]:
    """A plain JSON error (never NDJSON), with the read plane's CORS header."""
    assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
    assert result.header("Access-Control-Allow-Origin") == "*"
    body = result.json()
    assert set(body) == {"error", "code"} and body["code"] == code, body
    assert isinstance(body["error"], str) and body["error"]
    return body


def llm_charges(aws: Any, account: str) -> list[tuple[int, str]]:
    return sorted((e["amountCredits"], e["refId"]) for e in entries(aws.dynamodb, account, "llm"))


def balance(aws: Any, account: str) -> tuple[int, int]:
    record = ledger_repository(aws.dynamodb).balance(account)
    return record.available, record.held


def marker(aws: Any, account: str, turn_id: str) -> str | None:
    found = [i for i in ledger_items(aws.dynamodb, account) if i["sk"] == f"REF#llm#{turn_id}"]
    return found[0]["outcome"] if found else None


def assert_untouched(aws: Any, account: str, available: int) -> None:
    """Nothing held and nothing charged: the account still has exactly ``available`` credits."""
    assert balance(aws, account) == (available, 0)
    assert holds(aws.dynamodb, account) == []
    assert llm_charges(aws, account) == []
    assert_consistent(aws.dynamodb, account)
