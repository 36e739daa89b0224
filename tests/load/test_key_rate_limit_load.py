"""Concurrent requests against one key's limit: never more than ``rateLimit`` accepted in any rolling 60 s.

A run of a few seconds is far under a minute, so every accepted request lies within one
rolling minute of every other: exactly the limit may pass, and every refusal must be a
429 that says when to come back. (The burst of twice the limit across a fixed window's
edge needs a minute of real waiting to show; the limiter's own tests show it with a
frozen clock, so this run starts where it should not straddle a minute; should a slow run
straddle one anyway and more than the limit pass, the test xfails, naming that hole.)
"""

from __future__ import annotations

import time
from functools import partial

import pytest

from tests.support.load import (
    Shot,
    bearer,
    burst,
    mint_key,
    new_workspace,
    owner_on_plan,
    received,
    shoot,
    warm,
    xfail_if_dropped,
)
from tests.support.runner import LocalService

pytestmark = pytest.mark.load

LIMIT = 30  # the key's rateLimit, requests per minute
REQUESTS = 90
CLIENTS = 8
SPREAD_SECONDS = 3.0  # the requests' send times are spread over about this long
EXPECTED_SECONDS = 15.0  # a run takes a few seconds on two busy cores; far under a minute
RUN_BUDGET = 45.0  # the hard bound of the run
LONGEST_WAIT = 61  # seconds: a minute, plus the limiter's rounding up to whole seconds (or one-second buckets)


def _minute(epoch: float) -> int:
    return int(epoch // 60)


def test_a_key_never_gets_more_than_its_limit(service: LocalService) -> None:
    owner = owner_on_plan(service, "load.rate@example.org")
    workspace_id = new_workspace(service, owner, "Rate limited shop")
    key = mint_key(service, owner, workspace_id, rate_limit=LIMIT)
    headers = bearer(key["key"])

    def client(n: int) -> Shot:
        time.sleep(max(0.0, started + SPREAD_SECONDS * n / REQUESTS - time.monotonic()))  # evenly spread sends
        return shoot(service.brain, "GET", "/v1/agent/_whoami", headers=headers)

    warm(service.brain, ["/v1/agent/_whoami"], CLIENTS)
    if time.time() % 60 > 60 - EXPECTED_SECONDS:  # start where the run is unlikely to straddle a whole minute
        time.sleep(60 - time.time() % 60 + 0.2)
    wall_started, started = time.time(), time.monotonic()
    shots = burst([partial(client, n) for n in range(REQUESTS)], workers=CLIENTS, deadline_seconds=RUN_BUDGET)
    took, crossed = time.monotonic() - started, _minute(wall_started) != _minute(time.time())
    accepted = sorted((s for s in shots if s.status == 200), key=lambda s: s.received)
    limited = [s for s in shots if s.status == 429]
    print(f"\nrate limit {LIMIT}/min: {REQUESTS} requests from {CLIENTS} clients in {took:.2f}s, "
          f"{len(accepted)} accepted, {len(limited)} limited, crossed a minute: {crossed}")  # fmt: skip

    assert len(accepted) + len(limited) == len(received(shots)), sorted({s.status for s in shots})
    assert accepted[-1].received - accepted[0].sent < 60  # all inside one rolling minute...
    if crossed and len(accepted) > LIMIT:  # only a slow run shows it; the limiter's tests show it every time
        pytest.xfail(f"hole: a fixed window let {len(accepted)} > {LIMIT} through across a minute's edge")
    assert len(accepted) <= LIMIT  # ...so never more than the limit passes
    for shot in accepted:
        assert shot.json() == {"workspaceId": workspace_id, "apiKeyId": key["id"]}
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert 0 <= int(shot.headers["ratelimit-remaining"]) < LIMIT
        assert 1 <= int(shot.headers["ratelimit-reset"]) <= LONGEST_WAIT
    # Each accepted request was counted once, atomically: no two saw the same remaining count.
    assert len({s.headers["ratelimit-remaining"] for s in accepted}) == len(accepted)
    for shot in limited:
        assert (shot.code(), set(shot.json())) == ("RATE_LIMITED", {"error", "code"})
        assert 1 <= int(shot.headers["retry-after"]) <= LONGEST_WAIT
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert shot.headers["ratelimit-remaining"] == "0"
        assert shot.headers["ratelimit-reset"] == shot.headers["retry-after"]  # remaining goes up when it may retry
        assert 1 <= int(shot.headers["ratelimit-reset"]) <= LONGEST_WAIT
    xfail_if_dropped(shots, "concurrent requests")
    assert len(accepted) == LIMIT  # with every answer seen, exactly the limit passed
