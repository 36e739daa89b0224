"""POST /v1/agent/{agentId}/chat through its handler (events/BrainChatFunction.json, moto), drained as the runtime does.

The model is the offline one (``CHAT_MODEL=offline``, as the local runner sets it), with
no delay between deltas unless a test needs time to pass. Every test that spends
credits ends by checking the owner's ledger: balance, holds and entries agree.
"""

from __future__ import annotations

import json
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

import pytest

from core import deps
from core.auth.api_keys import generate
from core.chat.model import Message
from core.chat.offline import OfflineModel
from core.ids import new_id, now_iso
from core.models.records import BrandRecord
from core.repositories.agents import AgentRepository
from core.repositories.workspaces import WorkspaceRepository
from core.services.credits import CreditService
from core.settings import get_settings
from local.events import SAMPLE_KEY
from tests.integration.conftest import WINDOW_START, Clock
from tests.integration.helpers import AGENT_NOT_FOUND, JSON, RFC3339_MS, UNAUTHORIZED, call
from tests.support.containers import Container
from tests.support.lambdas import (
    LambdaContext,
    StreamedResult,
    handler_module,
    invoke_streamed,
    sample_event,
    stack,
    with_request,
)
from tests.support.ledger_checks import assert_consistent, entries, holds, ledger_items, ledger_repository
from tests.support.seed import Seeder

CHAT = "BrainChatFunction"
NDJSON = "application/x-ndjson"
CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
OTHER_CLIENT = "v1_9e8d7c6b5a4f3e2d1c0b9a8f"
PROMPT = "Do you have a rain jacket?"
ITEM = "Waxed rain jacket"
JWT_LOOKALIKE = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl"


# --- environment and fixtures


@pytest.fixture(autouse=True)
def chat_environment(lambda_environment: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat function's own environment from the template, with the offline model as the local runner sets it."""
    for name, value in stack().functions()[CHAT].environment.items():
        if name != "AWS_LAMBDA_EXEC_WRAPPER":
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    deps.reset()


def grant(aws: Any, account: str, amount: int) -> None:
    ledger_repository(aws.dynamodb).grant(account, amount, "topup", new_id("top"), "Test top-up")


@pytest.fixture
def funded(tenant, seed: Seeder, aws):
    """The tenant, its owner holding 10 credits, and its agent with published items to talk about."""
    grant(aws, tenant.ws.owner_id, 10)
    seed.items(
        tenant.agent.id,
        [
            {"name": ITEM, "kind": "document", "folder": "catalogue"},
            {"name": "Linen summer shirt", "kind": "image", "folder": "catalogue"},
            {"name": "Gift card terms", "kind": "document", "folder": "service"},
        ],
    )
    return tenant


@pytest.fixture
def clock(clock: Clock) -> Clock:
    """Every rate limit's clock (tests/integration/conftest.py), 12.4 s into a window."""
    clock.now = WINDOW_START + 12.4
    return clock


class RecordingModel:
    """The offline model, remembering every request the chat service sent it."""

    def __init__(self) -> None:
        self.inner = OfflineModel(delay_seconds=0)
        self.requests: list[Any] = []

    def stream(self, request):
        self.requests.append(request)
        return self.inner.stream(request)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> RecordingModel:
    recorder = RecordingModel()
    monkeypatch.setattr(deps, "chat_model", cache(lambda: recorder))
    deps.reset()
    return recorder


@pytest.fixture
def storing(funded, aws):
    """The funded tenant, its workspace storing conversations."""
    WorkspaceRepository(aws.dynamodb, get_settings().main_table).put_workspace(
        funded.ws.model_copy(update={"store_conversations": True})
    )
    return funded


# --- calling the function


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
    """A complete turn's lines and reply: start → delta… → done, each line its own chunk."""
    assert result.status == 200, result.body
    assert result.header("Content-Type") == NDJSON
    assert result.header("Cache-Control") == "no-store"
    assert result.header("Access-Control-Allow-Origin") == "*"
    assert all(chunk.endswith(b"\n") and chunk.count(b"\n") == 1 for chunk in result.chunks), result.chunks
    lines = result.lines()
    start, *middle, done = lines
    assert set(start) == {"type", "threadKey", "turnId"} and start["type"] == "start"
    assert start["turnId"].startswith("turn_")
    deltas = [line for line in middle if line != {"type": "keepalive"}]  # keep-alives may come between
    assert deltas and all(set(d) == {"type", "text"} and d["type"] == "delta" for d in deltas)
    assert all(isinstance(d["text"], str) and d["text"] for d in deltas)
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


# --- a turn


def test_a_turn_streams_start_deltas_and_done(funded) -> None:
    result = chat(threadKey="thr_visit-1")
    lines, reply = streamed(result)
    start, done = lines[0], lines[-1]
    assert start == {"type": "start", "threadKey": "thr_visit-1", "turnId": start["turnId"]}
    assert len(lines) > 3  # the reply arrives in several deltas, not in one piece
    assert reply.startswith("Hi, I'm Helper, Acme's assistant.")
    assert f"“{ITEM}”" in reply and "Linen summer shirt" not in reply
    assert done["usage"]["credits"] == 1
    assert done["usage"]["inputTokens"] > 0
    assert done["usage"]["outputTokens"] == math.ceil(len(reply) / 4)
    assert result.header("RateLimit-Limit") == "600" and result.header("RateLimit-Remaining") == "599"


def test_the_sample_event_replays_as_it_is(funded) -> None:
    lines, reply = streamed(invoke_streamed(CHAT, sample_event(CHAT)))
    assert lines[0]["threadKey"] == "thr_sample"
    assert "Acme" in reply


def test_without_a_thread_key_each_turn_gets_a_new_thread_and_turn(funded) -> None:
    first, _ = streamed(chat())
    second, _ = streamed(chat())
    assert first[0]["threadKey"].startswith("thr_") and second[0]["threadKey"].startswith("thr_")
    assert first[0]["threadKey"] != second[0]["threadKey"]
    assert first[0]["turnId"] != second[0]["turnId"]


def test_turn_ids_differ_within_one_thread(funded) -> None:
    turns = [streamed(chat(threadKey="thr_same"))[0][0] for _ in range(3)]
    assert {t["threadKey"] for t in turns} == {"thr_same"}
    assert len({t["turnId"] for t in turns}) == 3


def test_the_section_shapes_the_reply(tenant, seed: Seeder, aws) -> None:
    grant(aws, tenant.ws.owner_id, 5)
    site = {
        "pages": [{"id": "visit", "title": "Visit", "sections": ["visit-main"]}],
        "sections": [{"id": "visit-main", "type": "text", "body": "Find us on Harbour Street 12. Walk-ins welcome."}],
    }
    agent = seed.agent(tenant.ws, slug="guide", site=site)
    _, reply = streamed(chat(agent_id=agent.id, prompt="Where is your street address?", section="visit"))
    assert "Harbour Street 12" in reply


# --- billing


def test_the_workspace_owner_pays_one_llm_entry_per_turn(funded, aws) -> None:
    lines, _ = streamed(chat())
    turn_id = lines[0]["turnId"]
    (entry,) = entries(aws.dynamodb, funded.ws.owner_id, "llm")
    assert (entry["amountCredits"], entry["refType"], entry["refId"]) == (-1, "llm", turn_id)
    assert entry["accountId"] == funded.ws.owner_id and RFC3339_MS.match(entry["createdAt"])
    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert marker(aws, funded.ws.owner_id, turn_id) == "settled"
    # Only the owner's account exists in the ledger: not the key, not the visitor.
    scanned = aws.dynamodb.scan(TableName=get_settings().ledger_table)["Items"]
    assert {item["pk"]["S"] for item in scanned} == {f"ACCT#{funded.ws.owner_id}"}
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_every_turn_is_charged_separately(funded, aws) -> None:
    turn_ids = [streamed(chat())[0][0]["turnId"] for _ in range(3)]
    assert llm_charges(aws, funded.ws.owner_id) == sorted((-1, t) for t in turn_ids)
    assert balance(aws, funded.ws.owner_id) == (7, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_the_price_per_turn_is_configurable(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_CREDITS_PER_TURN", "3")
    deps.reset()
    lines, _ = streamed(chat())
    assert lines[-1]["usage"]["credits"] == 3
    assert llm_charges(aws, funded.ws.owner_id) == [(-3, lines[0]["turnId"])]
    assert balance(aws, funded.ws.owner_id) == (7, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_an_owner_without_credits_gets_402(tenant, aws) -> None:
    body = refused(chat(), 402, "INSUFFICIENT_CREDITS")
    assert "credit" in body["error"].lower()
    assert_untouched(aws, tenant.ws.owner_id, 0)


def test_an_owner_with_fewer_credits_than_the_price_gets_402(tenant, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    grant(aws, tenant.ws.owner_id, 2)
    monkeypatch.setenv("CHAT_CREDITS_PER_TURN", "3")
    deps.reset()
    refused(chat(), 402, "INSUFFICIENT_CREDITS")
    assert_untouched(aws, tenant.ws.owner_id, 2)


def test_the_last_credit_pays_one_turn_then_402(tenant, aws) -> None:
    grant(aws, tenant.ws.owner_id, 1)
    streamed(chat())
    refused(chat(), 402, "INSUFFICIENT_CREDITS")
    assert balance(aws, tenant.ws.owner_id) == (0, 0)
    assert len(llm_charges(aws, tenant.ws.owner_id)) == 1
    assert_consistent(aws.dynamodb, tenant.ws.owner_id)


# --- disconnects and model failures


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

    monkeypatch.setattr(deps, "chat_model", cache(Breaking))
    deps.reset()
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
    later = CreditService(
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


# --- validation


def with_fields(**fields: Any) -> dict[str, Any]:
    return {"prompt": PROMPT, "client": CLIENT} | fields


# (body, the field the message must name first), grouped so that each group costs one moto set-up.
MALFORMED: dict[str, list[tuple[Any, str]]] = {
    "prompt": [
        ({"client": CLIENT}, "prompt"),
        (with_fields(prompt=""), "prompt"),
        (with_fields(prompt=" \n\t "), "prompt"),
        (with_fields(prompt="x" * 4001), "prompt"),
        (with_fields(prompt=" " + "x" * 4001 + " "), "prompt"),
        (with_fields(prompt=5), "prompt"),
        (with_fields(prompt=["hi"]), "prompt"),
        (with_fields(prompt=None), "prompt"),
    ],
    "client": [
        ({"prompt": PROMPT}, "client"),
        (with_fields(client="a" * 15), "client"),
        (with_fields(client="a" * 129), "client"),
        (with_fields(client="visitor hash 1234567"), "client"),
        (with_fields(client="visitor/hash/1234567"), "client"),
        (with_fields(client="visitör_hash_1234567"), "client"),
        (with_fields(client="visitor.hash.1234567"), "client"),
        (with_fields(client=1234567890123456789), "client"),
        (with_fields(client=None), "client"),
    ],
    "client-ip": [
        (with_fields(client="203.0.113.7"), "client"),
        (with_fields(client="2001:db8::1"), "client"),
        (with_fields(client="2001:0db8:0000:0000:0000:ff00:0042:8329"), "client"),
        (with_fields(client="::ffff:198.51.100.4"), "client"),
    ],
    "threadKey": [
        (with_fields(threadKey="t" * 129), "threadKey"),
        (with_fields(threadKey="thr sample"), "threadKey"),
        (with_fields(threadKey="thr/../other"), "threadKey"),
        (with_fields(threadKey=""), "threadKey"),
        (with_fields(threadKey=7), "threadKey"),
    ],
    "history": [
        (with_fields(history=[{"content": "hi"}] * 51), "history"),
        (with_fields(history=[{"content": "x" * 16_001}] * 2), "history"),
        (with_fields(history=[{"role": "user"}]), "history.0.content"),
        (with_fields(history=[{"content": "a"}, {"content": 5}]), "history.1.content"),
        (with_fields(history=[{"content": None}]), "history.0.content"),
        (with_fields(history=["just text"]), "history.0"),
        (with_fields(history={"content": "hi"}), "history"),
    ],
    "other-fields": [
        (with_fields(section="s" * 129), "section"),
        (with_fields(section=3), "section"),
        (with_fields(brandSlug="b" * 129), "brandSlug"),
        (with_fields(model="gpt-5"), "model"),
        (with_fields(thread_key="thr_1"), "thread_key"),
        (with_fields(brand_slug="acme"), "brand_slug"),
    ],
    "body": [
        ('{"prompt": "hi", "client": ', "body"),
        ("not json at all", "body"),
        ("", "body"),
        ("null", "body"),
        ('[{"prompt": "hi"}]', "body"),
        ('"a string"', "body"),
    ],
}


@pytest.mark.parametrize("group", MALFORMED)
def test_a_malformed_request_is_400_naming_the_field(funded, aws, group: str) -> None:
    wrong = []
    for body, field in MALFORMED[group]:
        result = chat(body)
        answer = result.json() if result.header("Content-Type") == JSON else result.body
        ok = result.status == 400 and isinstance(answer, dict) and set(answer) == {"error", "code"}
        if not (ok and answer["code"] == "VALIDATION_ERROR" and answer["error"].startswith(f"{field}: ")):
            wrong.append((str(body)[:80], field, result.status, answer))
    assert wrong == []
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_body_over_256_kib_is_413(funded, aws) -> None:
    result = chat(with_fields(history=[{"content": "z" * 30_000}] * 9))
    refused(result, 413, "PAYLOAD_TOO_LARGE")
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_the_largest_valid_request_is_served(funded) -> None:
    history = [{"content": "y" * 640} for _ in range(50)]  # 50 entries, 32,000 characters
    lines, _ = streamed(
        chat({
            "prompt": "  " + "rain jacket " * 333 + "why  ",  # 4,000 characters once trimmed
            "client": "c" * 128,
            "threadKey": "T" * 120 + "_.:-0aZ9",
            "history": history,
            "section": "s" * 128,
        })
    )  # fmt: skip
    assert lines[0]["threadKey"] == "T" * 120 + "_.:-0aZ9"
    assert streamed(chat({"prompt": "?", "client": "c" * 16}))[1]


def test_history_entries_may_carry_fields_of_the_clients_own(funded, model: RecordingModel) -> None:
    history = [
        {"content": "Do you sell shirts?", "role": "user", "at": "2026-01-01"},
        {"content": "We do.", "role": "assistant", "id": 3},
    ]
    streamed(chat(history=history))
    assert model.requests[-1].messages == (
        Message("user", "Do you sell shirts?"),
        Message("assistant", "We do."),
        Message("user", PROMPT),
    )


def test_a_brand_slug_of_another_brand_of_the_workspace_shapes_the_reply(funded, aws) -> None:
    now = now_iso()
    night_owl = BrandRecord(
        id=new_id("brd"), workspace_id=funded.ws.id, slug="night-owl", name="Night Owl", created_at=now, updated_at=now
    )
    AgentRepository(aws.dynamodb, get_settings().main_table).put_brand(night_owl)
    _, reply = streamed(chat(brandSlug="night-owl"))
    assert "Night Owl's assistant" in reply and "Acme" not in reply
    _, default = streamed(chat(brandSlug="acme"))
    assert "Acme's assistant" in default
    assert len(llm_charges(aws, funded.ws.owner_id)) == 2


def test_a_brand_slug_that_names_no_brand_of_the_workspace_is_400(funded, rival, aws) -> None:
    now = now_iso()
    theirs = BrandRecord(
        id=new_id("brd"), workspace_id=rival.ws.id, slug="rival-only", name="Rival", created_at=now, updated_at=now
    )
    AgentRepository(aws.dynamodb, get_settings().main_table).put_brand(theirs)
    for slug in ("no-such-brand", "rival-only", "", "ACME"):
        message = refused(chat(brandSlug=slug), 400, "VALIDATION_ERROR")["error"]
        assert message.startswith("brandSlug: "), message
    assert_untouched(aws, funded.ws.owner_id, 10)


# --- not found and unauthorised


def test_an_unknown_agent_is_404(funded, aws) -> None:
    result = chat(agent_id="prj_01JDNOSUCHAGENT0000000000")
    refused(result, 404, "NOT_FOUND")
    assert result.json() == AGENT_NOT_FOUND
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_another_workspaces_agent_is_404_and_nobody_pays(funded, rival, aws) -> None:
    grant(aws, rival.ws.owner_id, 10)
    result = chat(agent_id=rival.agent.id)  # with the tenant's key
    refused(result, 404, "NOT_FOUND")
    assert result.json() == AGENT_NOT_FOUND
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert_untouched(aws, rival.ws.owner_id, 10)
    # The rival's own key does reach it, and the rival's owner pays.
    streamed(chat(agent_id=rival.agent.id, key=rival.key))
    assert balance(aws, rival.ws.owner_id) == (9, 0)


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", f"Bearer {generate()}", f"Bearer {JWT_LOOKALIKE}", f"Basic {SAMPLE_KEY}", SAMPLE_KEY],
    ids=["missing", "empty", "no-credential", "unknown-key", "portal-jwt", "basic-scheme", "no-scheme"],
)
def test_a_missing_or_wrong_credential_is_401(funded, aws, authorization: str | None) -> None:
    result = chat(headers={"Authorization": authorization})
    refused(result, 401, "UNAUTHORIZED")
    assert result.json() == UNAUTHORIZED
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_revoked_key_is_401(funded, seed, aws) -> None:
    revoked = seed.api_key(funded.ws.id, revoked=True)
    assert chat(key=revoked).json() == UNAUTHORIZED
    assert_untouched(aws, funded.ws.owner_id, 10)


# --- rate limits


def test_the_21st_turn_of_a_visitor_within_a_minute_is_429(funded, seed: Seeder, aws, clock: Clock) -> None:
    grant(aws, funded.ws.owner_id, 90)  # 100 in all
    served = [streamed(chat())[0][0]["turnId"] for _ in range(20)]
    result = chat()
    refused(result, 429, "RATE_LIMITED")
    retry_after = result.header("Retry-After")
    assert retry_after is not None and retry_after.isdigit() and int(retry_after) >= 1
    # Whole seconds until the turns of second W+12 leave every rolling minute (at W+73): 60.6, rounded up.
    assert retry_after == "61"
    assert result.header("RateLimit-Limit") == "20"
    assert result.header("RateLimit-Remaining") == "0"
    assert result.header("RateLimit-Reset") == "61"
    # Another visitor of the same agent, and the same visitor on another agent, are still served.
    streamed(chat({"prompt": PROMPT, "client": OTHER_CLIENT}))
    other_agent = seed.agent(funded.ws, slug="second")
    streamed(chat(agent_id=other_agent.id))
    charges = llm_charges(aws, funded.ws.owner_id)
    assert len(charges) == 22 and {ref for _, ref in charges} >= set(served)
    assert balance(aws, funded.ws.owner_id) == (78, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_the_visitor_is_served_again_once_the_turns_leave_the_rolling_minute(funded, aws, clock: Clock) -> None:
    grant(aws, funded.ws.owner_id, 90)
    for _ in range(20):
        streamed(chat())
    refused(chat(), 429, "RATE_LIMITED")
    clock.now = WINDOW_START + 72.9  # a second short of Retry-After: still within a minute of a turn
    refused(chat(), 429, "RATE_LIMITED")
    clock.now = WINDOW_START + 73
    streamed(chat())
    assert len(llm_charges(aws, funded.ws.owner_id)) == 21


def test_the_keys_own_rate_limit_applies_to_chat(funded, seed, aws, clock: Clock) -> None:
    key = seed.api_key(funded.ws.id, rate_limit=3)
    first = chat(key=key)
    streamed(first)
    assert (first.header("RateLimit-Limit"), first.header("RateLimit-Remaining")) == ("3", "2")
    assert call("BrainWhoAmIFunction", key=key).status == 200
    streamed(chat(key=key, client=OTHER_CLIENT))
    result = chat(key=key, client="v1_a_third_visitor_0000")
    refused(result, 429, "RATE_LIMITED")
    assert (result.header("RateLimit-Limit"), result.header("RateLimit-Remaining")) == ("3", "0")
    assert result.header("Retry-After") == "61"
    assert len(llm_charges(aws, funded.ws.owner_id)) == 2
    assert balance(aws, funded.ws.owner_id) == (8, 0)
    # The sample key, with the default limit, is not affected.
    streamed(chat())
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


# --- stored conversations


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


# --- keep-alive


def test_keepalive_lines_arrive_while_the_model_is_silent(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "0.3")
    deps.reset()
    lines, reply = streamed(chat(prompt="[[offline-slow]] Do you have a rain jacket?"))
    kinds = [line["type"] for line in lines]
    first_delta = kinds.index("delta")
    assert kinds[0] == "start" and "keepalive" in kinds[1:first_delta]
    assert all(line == {"type": "keepalive"} for line in lines if line["type"] == "keepalive")
    assert ITEM in reply and "[[" not in reply
    assert llm_charges(aws, funded.ws.owner_id) == [(-1, lines[0]["turnId"])]


def test_a_visitor_leaving_during_keepalives_is_not_charged(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "0.3")
    deps.reset()
    result = chat(prompt="[[offline-slow]] Do you have a rain jacket?", read=2)
    start, keepalive = (json.loads(chunk) for chunk in result.chunks)
    assert (start["type"], keepalive) == ("start", {"type": "keepalive"})
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"


# --- concurrency


def test_concurrent_turns_never_overspend(tenant, aws) -> None:
    grant(aws, tenant.ws.owner_id, 5)
    containers = [Container(CHAT) for _ in range(10)]
    deps.chat()  # warm, as every container would be; boto3 clients are not built safely by racing threads
    deps.key_authenticator()
    events = [chat_event(client=f"v1_concurrent_visitor_{n:02d}") for n in range(10)]
    barrier = threading.Barrier(10)

    def one(n: int) -> StreamedResult:
        barrier.wait()
        return containers[n].invoke_streamed(events[n])

    with ThreadPoolExecutor(max_workers=10) as pool:
        results = list(pool.map(one, range(10)))
    assert sorted(r.status for r in results) == [200] * 5 + [402] * 5
    turn_ids = []
    for result in results:
        if result.status == 200:
            lines, reply = streamed(result)
            assert reply and lines[-1]["usage"]["credits"] == 1
            turn_ids.append(lines[0]["turnId"])
        else:
            refused(result, 402, "INSUFFICIENT_CREDITS")
    assert llm_charges(aws, tenant.ws.owner_id) == sorted((-1, t) for t in turn_ids)
    assert balance(aws, tenant.ws.owner_id) == (0, 0)
    assert holds(aws.dynamodb, tenant.ws.owner_id) == []
    assert_consistent(aws.dynamodb, tenant.ws.owner_id)


# --- turns that end early: never started, out of time, their hold swept


def test_a_stream_closed_before_its_first_line_releases_the_hold(funded, aws) -> None:
    """The runtime closes the body even when the reader left before the first byte: nothing stays held."""
    raw = handler_module(CHAT).lambda_handler(chat_event(), LambdaContext(function_name=CHAT))
    assert raw["statusCode"] == 200
    assert balance(aws, funded.ws.owner_id) == (9, 1)  # held while the turn is pending
    raw["body"].close()
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_turn_out_of_time_ends_with_an_error_line_before_lambda_stops_it(funded, aws, monkeypatch) -> None:
    """5 s are kept back from the invocation's time; with 5.3 s left the slow model gets 0.3 s."""
    monkeypatch.setenv("CHAT_KEEPALIVE_SECONDS", "10")
    deps.reset()
    event = chat_event(prompt="[[offline-slow]] rain jacket")
    raw = handler_module(CHAT).lambda_handler(event, LambdaContext(function_name=CHAT, timeout_ms=5_300))
    started = time.monotonic()
    lines = [json.loads(chunk) for chunk in raw["body"]]
    raw["body"].close()
    assert time.monotonic() - started < 1.2  # not the model's 1.5 s of silence
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
    assert ledger.release(ledger.get_hold(funded.ws.owner_id, hold["refId"])).value == "applied"
    rest = [json.loads(chunk) for chunk in body]
    raw["body"].close()
    assert [line["type"] for line in rest] == ["error"] and rest[0]["code"] == "MODEL_TIMEOUT"
    assert llm_charges(aws, funded.ws.owner_id) == []
    assert marker(aws, funded.ws.owner_id, start["turnId"]) == "released"
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_history_role_of_the_clients_own_is_accepted(funded, model: RecordingModel) -> None:
    history = [{"role": "system", "content": "Q0"}, {"role": "Assistant", "content": "A0"}]
    streamed(chat(history=history, prompt="Q1"))
    assert model.requests[-1].messages == (
        Message("user", "Q0"), Message("assistant", "A0"), Message("user", "Q1"),
    )  # fmt: skip
