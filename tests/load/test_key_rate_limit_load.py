"""Concurrent requests against one key's limit: never more than ``rateLimit`` accepted in any rolling 60 s.

The limiter is a sliding window (docs/decisions.md, "Workspace keys"): a request counted is remembered for 60 to
61 s of the limiter's own clock, whatever clock minute it falls in, so where the run starts is irrelevant and it
is not aligned to anything. What the run shows, without reading a clock, is the limiter's own count: every
accepted answer carries ``RateLimit-Remaining``, the limit less what the window holds with that request counted.
Counted atomically, no two accepted requests see the same remaining count, and each lies in ``[0, limit)``; so
at most ``limit`` are accepted (a count of answers, not a time). And since a refusal comes only once the window
is full, any refusal by the limiter means exactly ``limit`` were accepted. (The exact window edges, a request
leaving it after 60-61 s, are the limiter's own tests', with a clock they move:
tests/integration/brain/test_limits_sliding.py.)

One deadline stops a run that hangs (``RUN_BUDGET``, well under the window): it asserts nothing about speed.
"""

from __future__ import annotations

import time
from functools import partial

import pytest

from tests.support.load import (
    REFUSED,
    Shot,
    bearer,
    burst,
    mint_key,
    new_workspace,
    owner_on_plan,
    shed,
    shoot,
    warm,
)
from tests.support.runner import LocalService

pytestmark = pytest.mark.load

LIMIT = 30  # the key's rateLimit, requests per minute
REQUESTS = 90
CLIENTS = 8
SPREAD_SECONDS = 3.0  # the requests' send times are spread over about this long
RUN_BUDGET = 45.0  # the hard bound of the run (a hang), under the 60 s a counted request is remembered
LONGEST_WAIT = 61  # seconds: a minute, plus the limiter's rounding up to whole seconds (or one-second buckets)


def test_a_key_never_gets_more_than_its_limit(service: LocalService) -> None:
    owner = owner_on_plan(service, "load.rate@example.org")
    workspace_id = new_workspace(service, owner, "Rate limited shop")
    key = mint_key(service, owner, workspace_id, rate_limit=LIMIT)
    headers = bearer(key["key"])

    def client(n: int) -> Shot:
        time.sleep(max(0.0, started + SPREAD_SECONDS * n / REQUESTS - time.monotonic()))  # evenly spread sends
        return shoot(service.brain, "GET", "/v1/agent/_whoami", headers=headers)

    warm(service.brain, ["/v1/agent/_whoami"], CLIENTS)
    started = time.monotonic()
    shots = burst([partial(client, n) for n in range(REQUESTS)], workers=CLIENTS, deadline_seconds=RUN_BUDGET)
    accepted = [s for s in shots if s.status == 200]
    limited = [s for s in shots if s.status == 429 and "ratelimit-limit" in s.headers]  # the limiter's 429
    unsent = [s for s in shots if s.status == REFUSED or shed(s)]  # reached no function: counted nowhere
    print(f"\nrate limit {LIMIT}/min: {REQUESTS} requests from {CLIENTS} clients in {time.monotonic() - started:.2f}s, "
          f"{len(accepted)} accepted, {len(limited)} limited, {len(unsent)} refused or shed by the runner")  # fmt: skip

    assert len(accepted) + len(limited) + len(unsent) == REQUESTS, sorted({s.status for s in shots})
    for shot in accepted:
        assert shot.json() == {"workspaceId": workspace_id, "apiKeyId": key["id"]}
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert 0 <= int(shot.headers["ratelimit-remaining"]) < LIMIT
        assert 1 <= int(shot.headers["ratelimit-reset"]) <= LONGEST_WAIT
    # Each accepted request was counted once, atomically: no two saw the same remaining count. With every count in
    # [0, LIMIT), that is also never more than LIMIT accepted.
    remaining = sorted((int(s.headers["ratelimit-remaining"]) for s in accepted), reverse=True)
    assert remaining == sorted(set(remaining), reverse=True), remaining
    assert len(accepted) <= LIMIT
    for shot in limited:
        assert (shot.code(), set(shot.json())) == ("RATE_LIMITED", {"error", "code"})
        assert 1 <= int(shot.headers["retry-after"]) <= LONGEST_WAIT
        assert shot.headers["ratelimit-limit"] == str(LIMIT)
        assert shot.headers["ratelimit-remaining"] == "0"
        assert shot.headers["ratelimit-reset"] == shot.headers["retry-after"]  # remaining goes up when it may retry
    # Refused only once full: with any refusal, exactly the limit passed, and counted from the top down.
    assert limited, "more requests than the limit, and none refused"
    assert remaining == list(range(LIMIT - 1, -1, -1)), remaining
