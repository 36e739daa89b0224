"""Concurrent requests against one key's limit: never more than ``rateLimit`` accepted in any rolling 60 s.

A run of a few seconds is far under a minute, so every accepted request lies within one
rolling minute of every other: exactly the limit may pass, and every refusal must be a
429 that says when to come back. (The burst of twice the limit across a fixed window's
edge needs a minute of real waiting to show; the limiter's own tests show it with a
frozen clock, so this suite keeps its run inside one window of the current limiter.)
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import LocalService
from tests.load.support import DROPPED, Shot, bearer, burst, mint_key, new_workspace, owner_on_plan, shoot, warm

pytestmark = pytest.mark.load

LIMIT = 30  # the key's rateLimit, requests per minute
REQUESTS = 90
CLIENTS = 8
SPREAD_SECONDS = 3.0  # the requests' send times are spread over about this long
RUN_BUDGET = 12.0  # the whole burst's bound; far under a minute


def _outside_a_window_edge(budget: float) -> None:
    """Start the run where it cannot straddle a whole minute (the fixed-window limiter's edge), waiting if needed."""
    into = time.time() % 60
    if into > 60 - budget:
        time.sleep(60 - into + 0.2)


def test_a_key_never_gets_more_than_its_limit(service: LocalService) -> None:
    owner = owner_on_plan(service, "load.rate@example.org")
    workspace_id = new_workspace(service, owner, "Rate limited shop")
    key = mint_key(service, owner, workspace_id, rate_limit=LIMIT)
    headers = bearer(key["key"])

    def client(n: int) -> Shot:
        time.sleep(max(0.0, started + SPREAD_SECONDS * n / REQUESTS - time.monotonic()))  # evenly spread sends
        return shoot(service.brain, "GET", "/v1/agent/_whoami", headers=headers)

    warm(service.brain, ["/v1/agent/_whoami"], CLIENTS)
    _outside_a_window_edge(RUN_BUDGET)
    started = time.monotonic()
    shots = burst([lambda n=n: client(n) for n in range(REQUESTS)], workers=CLIENTS, deadline_seconds=RUN_BUDGET)
    took = time.monotonic() - started
    accepted = sorted((s for s in shots if s.status == 200), key=lambda s: s.received)
    limited = [s for s in shots if s.status == 429]
    print(f"\nrate limit {LIMIT}/min: {REQUESTS} requests from {CLIENTS} clients in {took:.2f}s, "
          f"{len(accepted)} accepted, {len(limited)} limited")  # fmt: skip

    assert all(s.status != DROPPED for s in shots), [s.error for s in shots if s.status == DROPPED]
    assert len(accepted) + len(limited) == REQUESTS, sorted({s.status for s in shots})
    assert accepted[-1].received - accepted[0].sent < 60  # all inside one rolling minute...
    assert len(accepted) == LIMIT  # ...so exactly the limit passes, never more
    for shot in accepted:
        assert shot.json() == {"workspaceId": workspace_id, "apiKeyId": key["id"]}
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert 0 <= int(shot.headers["ratelimit-remaining"]) < LIMIT
        assert 1 <= int(shot.headers["ratelimit-reset"]) <= 60
    # Each accepted request was counted once, atomically: no two saw the same remaining count.
    assert sorted(int(s.headers["ratelimit-remaining"]) for s in accepted) == list(range(LIMIT))
    for shot in limited:
        assert (shot.code(), set(shot.json())) == ("RATE_LIMITED", {"error", "code"})
        assert 1 <= int(shot.headers["retry-after"]) <= 60
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert shot.headers["ratelimit-remaining"] == "0"
        assert 1 <= int(shot.headers["ratelimit-reset"]) <= 60
