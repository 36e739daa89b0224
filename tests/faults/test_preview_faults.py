"""(a) An owner's preview (``POST …/agents/{agentId}/preview``: the JWT's session, the access check, the caller's
preview count, the turn's reads, the knowledge index, the hold, the delivery mark, the settlement) and (b) a knowledge
search (the session, the access check, the items, the index), each failed at every AWS call it makes.

Afterwards, (a): the caller got a framed JSON error before the stream, or an NDJSON stream that starts with
``start`` then ``retrieval`` and ends with ``done`` or a final ``error``; after the hold sweeper has run past every
hold's expiry, the owner's ledger agrees with itself, no hold is left open, the preview is charged its model's price
exactly once if any text reached the caller (else nothing), the agent's usage says what the ledger charged, and
nothing of the preview is stored as a conversation (the workspace stores them). (b): a 200 with the passages the
clean run finds, or a framed error, and nothing written.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from core.agents.records import KnowledgePointer
from core.credits.ledger_items import usage_key
from core.knowledge.index import Source, build
from core.platform import main_table, rate_limit
from core.platform import providers as platform_providers
from core.platform.dynamo import from_item, to_av
from core.platform.ids import new_id
from core.platform.settings import get_settings
from core.workspaces.store import WorkspaceStore
from tests.faults.test_chat_faults import sweep_past_expiry
from tests.faults.test_mint_faults import signed_in
from tests.support.fault_harness import World, answered, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult, StreamedResult, invoke_streamed
from tests.support.ledger_checks import assert_consistent, entries, holds, ledger_repository
from tests.support.portal import Session, event_for
from tests.support.seed import Seeder

PREVIEW, SEARCH = "PortalAgentPreviewFunction", "PortalKnowledgeSearchFunction"
CREDITS = 9
PRICE = 3  # offline-plus, the agent's model
MODELS = json.dumps([
    {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True},
    {"id": "offline-plus", "name": "Offline Plus", "provider": "offline", "creditsPerTurn": PRICE},
])  # fmt: skip
FROZEN = 1_800_000_000.0 + 7.5
DAY = time.strftime("%Y-%m-%d", time.gmtime(FROZEN))
QUESTION = "How much is a cortado?"
TEXT = "A cortado costs 2.85 EUR."


@dataclass(frozen=True)
class Shop:
    owner: Session
    workspace_id: str
    agent_id: str
    item_id: str


def arrange_shop(world: World) -> Shop:
    """An owner signed in, their workspace storing conversations, an agent on offline-plus with one document
    indexed (the index object written as the worker writes it, the agent's pointer moved to it), and credits."""
    owner = signed_in(world, world.portal.seed_user(f"{new_id('o').lower()}@example.com", plan="pro"))
    user = world.portal.users.get(owner.user_id)
    assert user is not None  # just seeded
    seed = Seeder(world.aws.dynamodb)
    workspace = seed.workspace(user, "Shop")
    stored = workspace.model_copy(update={"store_conversations": True})
    WorkspaceStore(world.aws.dynamodb, get_settings().main_table).put_workspace(stored)
    agent = seed.agent(workspace, slug="barista")
    (item,) = seed.items(agent.id, [{"name": "Price list", "kind": "document", "r2Key": f"projects/{agent.id}/p.txt"}])
    data, count, fingerprint = build([(Source("Price list", item_id=item.id, r2_key=item.r2_key), [(TEXT, "")])])
    key = f"workspaces/{workspace.id}/knowledge/{agent.id}/index-1.faults.json.gz"
    world.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=key, Body=data)
    pointer = KnowledgePointer(version=1, key=key, fingerprint=fingerprint, passages=count)
    behaviour = agent.behaviour.model_copy(update={"model": "offline-plus"})
    world.aws.dynamodb.update_item(
        TableName=get_settings().main_table,
        Key={name: to_av(value) for name, value in main_table.agent(workspace.id, agent.id).items()},
        UpdateExpression="SET knowledge = :k, behaviour = :b",
        ExpressionAttributeValues={":k": to_av(pointer.model_dump(mode="json", by_alias=True)),
                                   ":b": to_av(behaviour.model_dump(mode="json", by_alias=True))},
    )  # fmt: skip
    ledger_repository(world.aws.dynamodb).grant(owner.user_id, CREDITS, "topup", new_id("top"), "Top-up")
    return Shop(owner, workspace.id, agent.id, item.id)


def stored_turns(world: World, agent_id: str) -> list[str]:
    """The sort keys of anything the chat's conversation store writes under the agent."""
    found = world.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
    return [i["sk"]["S"] for i in found if agent_id in i["pk"]["S"] and ("TURN#" in i["sk"]["S"] or
                                                                         "THREAD#" in i["sk"]["S"])]  # fmt: skip


@dataclass(frozen=True)
class PreviewScenario:
    name: str = "preview"

    def prepare(self, world: World) -> None:
        world.monkeypatch.setenv("CHAT_MODEL", "offline")
        world.monkeypatch.setenv("CHAT_MODELS", MODELS)
        world.monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
        world.monkeypatch.setattr(rate_limit, "now", lambda: FROZEN)
        platform_providers.reset()

    def arrange(self, world: World) -> Shop:
        return arrange_shop(world)

    def act(self, world: World, state: Shop) -> StreamedResult:
        event = event_for(PREVIEW, token=state.owner.token, body={"prompt": QUESTION},
                          params={"workspaceId": state.workspace_id, "agentId": state.agent_id})  # fmt: skip
        return invoke_streamed(PREVIEW, event)

    def verify(self, world: World, state: Shop, result: StreamedResult, fault: Fault | None) -> None:
        delivered = False
        if result.status != 200:
            assert fault is not None
            framed_error(result)
        else:
            lines = result.lines()
            assert [line["type"] for line in lines[:2]] == ["start", "retrieval"], lines[:2]
            assert lines[-1]["type"] in ("done", "error"), f"the stream ended without done or error: {lines[-1]}"
            assert fault is not None or lines[-1]["type"] == "done"
            delivered = any(line["type"] == "delta" for line in lines)
            if fault is None:
                assert [p["source"]["itemId"] for p in lines[1]["passages"]] == [state.item_id]
                assert "2.85 EUR" in "".join(line.get("text", "") for line in lines)
        sweep_past_expiry(world)
        account = state.owner.user_id
        assert holds(world.aws.dynamodb, account) == [], "a hold is still open after the sweeper"
        assert_consistent(world.aws.dynamodb, account)
        charged = -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, account, "llm"))
        assert charged == (PRICE if delivered else 0), f"charged {charged} for a preview that delivered={delivered}"
        assert ledger_repository(world.aws.dynamodb).balance(account).available == CREDITS - charged
        found = world.aws.dynamodb.get_item(TableName=get_settings().ledger_table,
                                            Key=usage_key(state.workspace_id, DAY))  # fmt: skip
        usage = from_item(found["Item"]) if "Item" in found else {}
        subject = f"agent#{state.agent_id}"
        counted = (int(usage.get(f"turns:{subject}", 0)), int(usage.get(f"credits:{subject}", 0)))
        assert counted == (1 if charged else 0, charged), f"usage {counted}, the ledger charged {charged}"
        assert stored_turns(world, state.agent_id) == [], "a preview was stored as a conversation"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


@dataclass(frozen=True)
class SearchScenario:
    name: str = "search"

    def arrange(self, world: World) -> Shop:
        return arrange_shop(world)

    def act(self, world: World, state: Shop) -> tuple[list[Any], HttpResult]:
        """The main table as it was (read with the test's own client, which the injector leaves alone), and the
        answer."""
        before = world.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
        where = {"workspaceId": state.workspace_id, "agentId": state.agent_id}
        return before, world.portal.call(SEARCH, token=state.owner.token, body={"query": QUESTION}, params=where)

    def verify(self, world: World, state: Shop, acted: tuple[list[Any], HttpResult], fault: Fault | None) -> None:
        before, result = acted
        if answered(result):
            (passage,) = result.json()["passages"]  # never an empty answer for an index it could not read
            assert (passage["text"], passage["source"]["itemId"]) == (TEXT, state.item_id)
        else:
            assert fault is not None
        assert world.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"] == before
        assert entries(world.aws.dynamodb, state.owner.user_id, "llm") == []  # unbilled
        assert holds(world.aws.dynamodb, state.owner.user_id) == []

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [PreviewScenario(), SearchScenario()]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
