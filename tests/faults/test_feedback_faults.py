"""A visitor's rating of a turn (key check, the visitor's count, the receipt's read, the rating's transaction),
failed at every AWS call it makes: first a rating of an unrated turn, then a re-rating (up to down, with a comment),
then a withdrawal.

Afterwards: the visitor got 200 ``{}`` or a framed JSON error, never anything else; the receipt, its three feedback
rows and the turn's day counters say one thing (the rating before, or the one asked for, counted once: never
lost halfway, never counted twice). Then the visitor sends the same rating again, as a client would after an
error, on a later minute of the clock: 200, and it stands, counted once. A transaction applied whose answer was
lost (``read-timeout-applied``) is the hardest case: the retry finds the rating already there and moves no counter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.insights.records import ReceiptRecord
from core.platform import rate_limit
from core.platform.ids import new_id
from tests.support.fault_harness import World, answered, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.feedback import FEEDBACK, assert_rating_stored, put_receipt, receipt_of
from tests.support.lambdas import HttpResult, invoke, sample_event, with_request
from tests.support.seed import Seeder

CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
FROZEN = 1_800_000_000.0 + 7.5  # the visitor limit's clock: the retry runs a minute later (a fresh window)


@dataclass(frozen=True)
class Rated:
    key: str
    receipt: ReceiptRecord


@dataclass
class FeedbackScenario:
    name: str
    before: str | None  # the turn's rating when the act starts
    body: dict[str, Any]  # what the act asks
    clock: list[float] | None = None

    def prepare(self, world: World) -> None:
        self.clock = [FROZEN]
        world.monkeypatch.setattr(rate_limit, "now", lambda: (self.clock or [FROZEN])[0])

    def arrange(self, world: World) -> Rated:
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"), "Shop")
        agent = seed.agent(workspace, slug="helper")
        key = seed.api_key(workspace.id)
        receipt = put_receipt(world.aws.dynamodb, workspace.id, agent.id, CLIENT)
        if self.before is not None:
            assert rate(key, receipt, {"client": CLIENT, "rating": self.before, "comment": "at first"}).status == 200
        return Rated(key, receipt)

    def act(self, world: World, state: Rated) -> HttpResult:
        return rate(state.key, state.receipt, self.body)

    def verify(self, world: World, state: Rated, result: HttpResult, fault: Fault | None) -> None:
        db, receipt = world.aws.dynamodb, state.receipt
        through = answered(result)
        if through:
            assert result.json() == {}, result.body
        stored = receipt_of(db, receipt.agent_id, receipt.turn_id) or {}
        now = stored.get("rating")
        assert now in {self.before, self.body["rating"]}, stored  # one or the other: nothing in between
        if through or fault is None:
            assert now == self.body["rating"], "a rating answered 200 was not stored"
        assert_rating_stored(db, receipt, now)  # the rows and the counters agree with the receipt, counted once
        if self.clock is not None:
            self.clock[0] += 60  # the visitor's retry, on a later minute
        again = rate(state.key, receipt, self.body)
        assert (again.status, again.json()) == (200, {}), again.body
        assert_rating_stored(db, receipt, self.body["rating"])
        kept = receipt_of(db, receipt.agent_id, receipt.turn_id) or {}
        assert kept.get("comment") == self.body.get("comment"), kept

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


def rate(key: str, receipt: ReceiptRecord, body: dict[str, Any]) -> HttpResult:
    event = with_request(
        sample_event(FEEDBACK), path_parameters={"agentId": receipt.agent_id, "turnId": receipt.turn_id},
        headers={"Authorization": f"Bearer {key}"}, body=json.dumps(body),
    )  # fmt: skip
    return invoke(FEEDBACK, event)


SCENARIOS = [
    FeedbackScenario("feedback-rate", before=None, body={"client": CLIENT, "rating": "up"}),
    FeedbackScenario("feedback-rerate", before="up", body={"client": CLIENT, "rating": "down", "comment": "Vague"}),
    FeedbackScenario("feedback-withdraw", before="down", body={"client": CLIENT, "rating": None}),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
