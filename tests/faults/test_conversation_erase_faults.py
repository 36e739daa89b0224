"""``DELETE …/agents/{agentId}/conversations?client=`` (a visitor's erasure) failed at every AWS call.

The visitor's items are deleted in several transactions here (``BATCH`` lowered to 2: two thread items, then each
turn with its receipt and unanswered row, then each rating's rows), each with its audit entry, after the question
items they asked last lost their text (issue 40). Whatever failed: no thread is left whose turns are gone (a thread
item that remains counts exactly the turns stored under it), a turn and its receipt and unanswered row are all there
or all gone, as are a rating's rows, the question items' counts never move, the audit entries' counts add up to the
turns that are gone, there is an entry exactly when something was erased, and the client's retry erases the rest.
Another visitor's turns and what they left are never touched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.audit.store import AuditStore
from core.chat import erasure
from core.platform.ids import new_id
from core.platform.retention import DAY_COUNT
from core.platform.settings import get_settings
from tests.faults.test_mint_faults import signed_in
from tests.support import privacy_seed
from tests.support.conversations import OTHER_VISITOR, VISITOR, days_ago, is_turn, partition, store_turn
from tests.support.fault_harness import World, answered, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult
from tests.support.portal import Session
from tests.support.seed import Seeder

ERASE = "PortalConversationsEraseFunction"
TURNS = 3


@dataclass(frozen=True)
class Erasing:
    owner: Session
    workspace_id: str
    agent_id: str


def erase_entries(world: World, workspace_id: str) -> list[Any]:
    entries = AuditStore(world.aws.dynamodb, get_settings().main_table).newest(workspace_id, 50)
    return [e for e in entries if e.action == "conversation.erase"]


@dataclass(frozen=True)
class EraseScenario:
    name: str = "erase"

    def prepare(self, world: World) -> None:
        world.monkeypatch.setattr(erasure, "BATCH", 2)

    def arrange(self, world: World) -> Erasing:
        owner = signed_in(world, world.portal.seed_user(f"{new_id('o').lower()}@example.com", plan="pro"))
        user = world.portal.users.get(owner.user_id)
        assert user is not None  # just seeded
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(user, "Privacy")
        agent = seed.agent(workspace, slug="helper")
        day, db = days_ago(1)[:10], world.aws.dynamodb
        other = store_turn(db, workspace.id, agent.id, "thr_a", f"{day}T09:00:00.000Z", client=OTHER_VISITOR)
        privacy_seed.everything(db, workspace.id, other)
        for n, thread in enumerate(["thr_a", "thr_b", "thr_a"][:TURNS]):
            turn = store_turn(db, workspace.id, agent.id, thread, f"{day}T10:0{n}:00.000Z", prompt=f"question {n}")
            privacy_seed.everything(db, workspace.id, turn)
        return Erasing(owner, workspace.id, agent.id)

    def act(self, world: World, state: Erasing) -> HttpResult:
        return world.portal.call(ERASE, token=state.owner.token, query={"client": VISITOR},
                                 params={"workspaceId": state.workspace_id, "agentId": state.agent_id})  # fmt: skip

    def check(self, world: World, state: Erasing) -> int:
        """The invariants that hold after any attempt; the visitor's turns still stored."""
        stored = partition(world.aws.dynamodb, state.agent_id)
        for sk, row in stored.items():
            if is_turn(sk):
                continue
            turns = [t for t in stored if is_turn(t) and t.startswith(sk.replace("#THREAD#", "#TURN#") + "#")]
            counted = sum(int(v) for k, v in row.items() if k.startswith(DAY_COUNT))
            assert len(turns) == counted, f"a listed thread without its turns: {sk}"
        left = sum(1 for sk in stored if is_turn(sk) and VISITOR in sk)
        visitor_items = sum(1 for sk in stored if VISITOR in sk)
        assert sum(1 for sk in stored if OTHER_VISITOR in sk) == 2, "another visitor's conversation was touched"
        trail = privacy_seed.trail(world.aws.dynamodb, state.agent_id)
        turn_ids = {sk.rsplit("#", 1)[1] for sk in stored if is_turn(sk)}
        assert {row["turnId"] for row in trail["receipts"].values()} == turn_ids, "a receipt without its turn"
        assert {row["turnId"] for row in trail["unanswered"].values()} == turn_ids, "an unanswered row without its turn"
        rated = [sk.rsplit("#", 1)[1] for sk in trail["feedback"]]
        assert all(rated.count(turn_id) == 3 for turn_id in rated), "a rating without its three rows"
        assert sorted(row["gsi2sk"] for row in trail["questions"].values()) == [1] * (TURNS + 1), "a count moved"
        assert any(row.get("client") == OTHER_VISITOR for row in trail["questions"].values()), "another's question"
        entries = erase_entries(world, state.workspace_id)
        assert sum(e.count or 0 for e in entries) == TURNS - left, "the audit's count is not what was erased"
        erased = visitor_items < TURNS + 2 or len(rated) < 3 * (TURNS + 1)
        assert bool(entries) == erased, "an erasure without its entry, or the reverse"
        return left

    def finished(self, world: World, state: Erasing, fault: Fault | None) -> None:
        """Nothing of the visitor's is left anywhere, their question items' counts kept without their text. A lost
        race at a question item's update (its condition failed) means another visitor asked it since and the text
        is theirs: the injected one leaves that item as it was, and only that one."""
        trail = privacy_seed.trail(world.aws.dynamodb, state.agent_id)
        raced = [row for row in trail["questions"].values() if row.get("client") == VISITOR]
        assert len(raced) <= (fault is not None and fault.conditional), "a question item kept the visitor's text"
        assert sum(1 for row in trail["questions"].values() if "question" not in row) == TURNS - len(raced)
        del trail["questions"]
        assert not any(VISITOR in json.dumps(row) for rows in trail.values() for row in rows.values())

    def verify(self, world: World, state: Erasing, result: HttpResult, fault: Fault | None) -> None:
        done = answered(result)
        assert done or fault is not None
        left = self.check(world, state)
        if done:
            assert result.json() == {"deleted": TURNS} and left == 0
            self.finished(world, state, fault)
            return
        retry = self.act(world, state)  # the client tries again: the rest goes
        assert retry.status == 200, retry.body
        assert retry.json() == {"deleted": left}
        assert self.check(world, state) == 0
        self.finished(world, state, fault)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None  # none known: each transaction carries the entry of what it deletes


SCENARIOS = [EraseScenario()]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
