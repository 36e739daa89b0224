"""Who pays for a chat turn and how much: one llm ledger entry per turn for the workspace owner, 402 without
credits, and no overspending under concurrent turns."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from core.chat import providers as chat_providers
from core.keys import providers as keys_providers
from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from tests.support.brain import RFC3339_MS
from tests.support.chat import (
    CHAT,
    assert_untouched,
    balance,
    chat,
    chat_event,
    grant,
    llm_charges,
    marker,
    refused,
    streamed,
)
from tests.support.containers import Container
from tests.support.lambdas import (
    StreamedResult,
)
from tests.support.ledger_checks import assert_consistent, entries, holds


def test_the_workspace_owner_pays_one_llm_entry_per_turn(funded, aws) -> None:
    lines, _ = streamed(chat())
    turn_id = lines[0]["turnId"]
    (entry,) = entries(aws.dynamodb, funded.ws.owner_id, "llm")
    assert (entry["amountCredits"], entry["refType"], entry["refId"]) == (-1, "llm", turn_id)
    assert entry["accountId"] == funded.ws.owner_id and RFC3339_MS.match(entry["createdAt"])
    assert balance(aws, funded.ws.owner_id) == (9, 0)
    assert marker(aws, funded.ws.owner_id, turn_id) == "settled"
    # Only the owner's account exists in the ledger: not the key, not the visitor (beside the workspace's usage).
    scanned = aws.dynamodb.scan(TableName=get_settings().ledger_table)["Items"]
    assert {item["pk"]["S"] for item in scanned} == {f"ACCT#{funded.ws.owner_id}", f"USAGE#{funded.ws.id}"}
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_every_turn_is_charged_separately(funded, aws) -> None:
    turn_ids = [streamed(chat())[0][0]["turnId"] for _ in range(3)]
    assert llm_charges(aws, funded.ws.owner_id) == sorted((-1, t) for t in turn_ids)
    assert balance(aws, funded.ws.owner_id) == (7, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_the_price_per_turn_is_configurable(funded, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAT_CREDITS_PER_TURN", "3")
    platform_providers.reset()
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
    platform_providers.reset()
    refused(chat(), 402, "INSUFFICIENT_CREDITS")
    assert_untouched(aws, tenant.ws.owner_id, 2)


def test_the_last_credit_pays_one_turn_then_402(tenant, aws) -> None:
    grant(aws, tenant.ws.owner_id, 1)
    streamed(chat())
    refused(chat(), 402, "INSUFFICIENT_CREDITS")
    assert balance(aws, tenant.ws.owner_id) == (0, 0)
    assert len(llm_charges(aws, tenant.ws.owner_id)) == 1
    assert_consistent(aws.dynamodb, tenant.ws.owner_id)


def test_concurrent_turns_never_overspend(tenant, aws) -> None:
    grant(aws, tenant.ws.owner_id, 5)
    containers = [Container(CHAT) for _ in range(10)]
    chat_providers.service()  # warm, as every container would be; boto3 clients are not built safely by racing threads
    keys_providers.checker()
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
