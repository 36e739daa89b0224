"""Reads hammering a workspace while its owner deletes it: no read sent after the delete answered succeeds.

Readers loop over whoami, agent, feed and an r2 object with the workspace's key; the
owner deletes the workspace through the portal in the middle of it. "Gone at once for
every API" (``WorkspaceService.delete``): every read sent once the delete's answer has
arrived is refused (401 for the revoked key, or 404), reads in flight may go either
way, and nothing ever answers 5xx — not even while the background purge empties it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from functools import partial

import pytest

from tests.support.load import REFUSED, Shot, bearer, burst, mint_key, owner_on_plan, shoot, warm
from tests.support.runner import LocalService, portal

pytestmark = pytest.mark.load

READERS = 6
MAX_READS = 2_000
READ_SECONDS_BEFORE = 1.5  # reading at full speed before the delete is sent (and until every path answered 200)
READ_SECONDS_AFTER = 2.0  # and after its answer arrived
RUN_BUDGET = 20.0


def test_no_read_succeeds_after_the_delete_answers(service: LocalService) -> None:
    workspace = service.demo["workspaces"][1]  # this module's runner: nobody else reads it
    agent_id = workspace["agents"][0]["id"]
    owner = owner_on_plan(service, workspace["ownerEmail"])
    key = mint_key(service, owner, workspace["id"], rate_limit=100_000)["key"]
    # A filtered feed page: a whole one (120 posts) takes moto seconds to serve, under the runner's DynamoDB lock.
    feed = f"/v1/agent/{agent_id}/feed?channel=instagram&category=events"
    paths = ["/v1/agent/_whoami", f"/v1/agent/{agent_id}", feed, "/v1/r2/config/site.json"]
    warm(service.brain, paths, 4)
    warm(service.portal, [f"/api/workspaces/{workspace['id']}"], 1, method="DELETE")
    for path in paths:
        assert shoot(service.brain, "GET", path, headers=bearer(key)).status == 200, path

    stop = threading.Event()
    answered: set[str] = set()  # paths that have answered 200 (set.add is atomic)
    budget = threading.BoundedSemaphore(MAX_READS)
    ends = time.monotonic() + RUN_BUDGET

    def reader(n: int) -> list[tuple[str, Shot]]:
        seen: list[tuple[str, Shot]] = []
        while not stop.is_set() and time.monotonic() < ends and budget.acquire(blocking=False):
            path = paths[(n + len(seen)) % len(paths)]
            seen.append((path, shoot(service.brain, "GET", path, headers=bearer(key), timeout=RUN_BUDGET)))
            if seen[-1][1].status == 200:
                answered.add(path)
        return seen

    def deleter() -> list[tuple[str, Shot]]:
        time.sleep(READ_SECONDS_BEFORE)
        while answered != set(paths) and time.monotonic() < ends - 2 * READ_SECONDS_AFTER:
            time.sleep(0.05)
        path = f"/api/workspaces/{workspace['id']}"
        deleted = shoot(service.portal, "DELETE", path, headers=bearer(owner.jwt), timeout=RUN_BUDGET)
        time.sleep(READ_SECONDS_AFTER)
        stop.set()
        return [("DELETE", deleted)]

    started = time.monotonic()
    calls = [deleter] + [partial(reader, n) for n in range(READERS)]
    results = burst(calls, workers=READERS + 1, deadline_seconds=RUN_BUDGET + 20)
    took = time.monotonic() - started
    ((_, deleted),) = results[0]
    reads = [shot for seen in results[1:] for shot in seen]
    replied = [(path, s) for path, s in reads if s.status != REFUSED]  # not ``answered``: the readers' set
    after = [(path, s) for path, s in replied if s.sent > deleted.received]
    print(f"\ndelete under reads: {len(reads)} reads from {READERS} clients in {took:.2f}s "
          f"({len(reads) / took:.0f}/s), delete answered in {deleted.received - deleted.sent:.2f}s; "
          f"statuses {dict(Counter(s.status for _, s in reads))}, after the delete {len(after)}")  # fmt: skip

    assert (deleted.status, deleted.json()) == (200, {"deleted": True}), deleted.body
    assert all(s.status < 500 for _, s in replied), Counter((p, s.status) for p, s in replied if s.status >= 500)
    before = {path for seen in results[1:] for path, s in seen if s.received < deleted.sent and s.status == 200}
    assert before == set(paths)  # the readers really were reading before the delete
    assert after, "no read was sent after the delete answered"
    assert {(p, s.status) for p, s in after} <= {(p, c) for p in paths for c in (401, 404)}, Counter(
        (p, s.status) for p, s in after
    )
    assert portal(service, "GET", f"/api/workspaces/{workspace['id']}", owner.jwt).status == 404
