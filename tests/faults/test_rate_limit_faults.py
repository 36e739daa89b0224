"""(d) A read-plane request's rate-limit update, failed at every AWS call it makes.

Written against whatever calls the limiter makes (fixed window today; a sliding window is being
written): the request is ``GET /v1/agent/_whoami`` with a key limited to ``LIMIT`` a minute, on a
frozen clock, after ``used`` requests. Afterwards clean requests are sent until one is refused.
A fault must never let a request through beyond the limit, nor count a refused request twice:
of ``LIMIT`` allowed, a request that failed may use up at most its own one.
Fail closed or open? docs/decisions.md does not say; the service fails closed (a framed 5xx),
except at the ``lastUsedAt`` write, which is bookkeeping after the request was counted: a fault there
is logged and the request answers 200.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.platform import rate_limit
from core.platform.ids import new_id
from tests.support.fault_harness import World, answered, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import HttpResult
from tests.support.seed import Seeder

LIMIT = 3
TOUCH = 3  # the position of the lastUsedAt write in the first request of a minute (after key, limiter read, write)
FROZEN = 1_800_000_000.0 + 7.5  # inside one window of any limiter; the clock never moves during a case


@dataclass(frozen=True)
class Limited:
    key: str
    used: int


@dataclass(frozen=True)
class RateLimitScenario:
    name: str
    used: int  # requests already let through in this minute

    def prepare(self, world: World) -> None:
        world.monkeypatch.setattr(rate_limit, "now", lambda: FROZEN)

    def arrange(self, world: World) -> Limited:
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"))
        key = seed.api_key(workspace.id, rate_limit=LIMIT)
        for _ in range(self.used):
            assert world.portal.whoami(key).status == 200
        return Limited(key, self.used)

    def act(self, world: World, state: Limited) -> HttpResult:
        return world.portal.whoami(state.key)

    def verify(self, world: World, state: Limited, result: HttpResult, fault: Fault | None) -> None:
        through = answered(result)
        if not through and result.status == 429:
            assert result.header("Retry-After"), result.headers
        if state.used >= LIMIT:
            assert not through, "a request beyond the limit was let through"
        if fault is None:
            assert through == (state.used < LIMIT)
        plan = world.injector._plan  # which call the fault hit: verify is told only the fault
        if state.used == 0 and plan is not None and plan.position == TOUCH:
            assert through, "a lastUsedAt write that failed turned an already counted request away"
        later = 0
        for _ in range(LIMIT + 2):
            answer = world.portal.whoami(state.key)
            if answer.status == 429:
                break
            assert answer.status == 200, answer.body
            later += 1
        else:
            raise AssertionError("never refused: the limit is not enforced")
        framed_error(answer)
        accepted = state.used + through + later
        assert accepted <= LIMIT, f"{accepted} requests let through in one minute (limit {LIMIT})"
        if state.used < LIMIT:
            # the faulted request may have used up its own place, never more
            assert accepted >= LIMIT - (not through), f"only {accepted} of {LIMIT} let through: counted twice"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [
    RateLimitScenario("rate-first", used=0),  # the first of the minute also writes lastUsedAt
    RateLimitScenario("rate-last", used=LIMIT - 1),
    RateLimitScenario("rate-over", used=LIMIT),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
