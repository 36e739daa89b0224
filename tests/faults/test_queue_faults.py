"""The portal's writes that queue background work on the purge queue (SQS), failed at every AWS call: a workspace
deleted (its purge), and its conversations' retention changed (the stored turns' re-stamping). An agent deleted
is ``agent-delete`` in ``test_authoring_agent_faults.py``; the knowledge queue's messages are the posts'
scenarios in ``test_authoring_faults.py``; the purge worker's own follow-ups are ``agent-purge-cut`` there.

Afterwards: a 2xx or a framed 5xx; after a failure, the owner's retry is answered; and once a request is
answered, the work it promises is queued (a deleted workspace with no purge queued would keep its objects and
records for good; a retention stored without its re-stamping would keep turns past it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.platform import main_table
from core.platform.dynamo import get_item
from core.platform.settings import get_settings
from tests.faults.test_authoring_faults import Answer, Desk, open_desk, refused, retried, send
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.portal import take_purge_messages

DAYS = 30


def purge_bodies(world: World) -> list[dict[str, Any]]:
    return [json.loads(m["Body"]) for m in take_purge_messages(world.aws.sqs)]


@dataclass(frozen=True)
class WorkspaceDeleteScenario:
    name: str = "workspace-delete"

    def arrange(self, world: World) -> Desk:
        return open_desk(world)

    def request(self, world: World, desk: Desk) -> Answer:
        return send(world, desk, "PortalWorkspaceDeleteFunction")

    def act(self, world: World, desk: Desk) -> Answer:
        return self.request(world, desk)

    def verify(self, world: World, desk: Desk, first: Answer, fault: Fault | None) -> None:
        answer = first
        if not 200 <= first.result.status < 300:
            refused(first.result, fault, also=(404,) if fault and fault.conditional else ())
            answer = retried(world, lambda: self.request(world, desk))
        assert 200 <= answer.result.status < 300, answer.result.body
        gone = get_item(world.aws.dynamodb, get_settings().main_table, main_table.workspace(desk.workspace_id),
                        consistent=True)  # fmt: skip
        assert gone is None, "answered deleted, and the workspace is there"
        queued = [b for b in purge_bodies(world) if b == {"workspaceId": desk.workspace_id}]
        assert queued, "the workspace is deleted and no purge of it is queued"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


@dataclass(frozen=True)
class RetentionScenario:
    name: str = "retention-change"

    def prepare(self, world: World) -> None:
        world.monkeypatch.setenv("RESTAMP_DELAY_SECONDS", "0")  # moto holds a delayed message back

    def arrange(self, world: World) -> Desk:
        return open_desk(world)

    def request(self, world: World, desk: Desk) -> Answer:
        return send(world, desk, "PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": DAYS})

    def act(self, world: World, desk: Desk) -> Answer:
        return self.request(world, desk)

    def verify(self, world: World, desk: Desk, first: Answer, fault: Fault | None) -> None:
        answer = first
        if first.result.status != 200:
            refused(first.result, fault)
            answer = retried(world, lambda: self.request(world, desk))
        assert answer.result.status == 200, answer.result.body
        stored = get_item(world.aws.dynamodb, get_settings().main_table, main_table.workspace(desk.workspace_id),
                          consistent=True)  # fmt: skip
        assert stored is not None and stored.get("conversationRetentionDays") == DAYS, stored
        restamps = [b for b in purge_bodies(world) if b == {"workspaceId": desk.workspace_id, "job": "restamp"}]
        assert restamps, "the retention changed and no re-stamping of the stored turns is queued"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS: list[Any] = [WorkspaceDeleteScenario(), RetentionScenario()]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
