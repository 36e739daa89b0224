"""The local runner's reading of schedule expressions (template.yaml's ScheduleV2 events)."""

from __future__ import annotations

import pytest

from local.triggers.schedules import Scheduler, rate_seconds
from tests.support.lambdas import stack


@pytest.mark.parametrize(
    ("expression", "seconds"),
    [("rate(5 minutes)", 300), ("rate(1 minute)", 60), ("rate(2 hours)", 7200), ("rate(1 day)", 86400),
     ("cron(0 12 * * ? *)", None), ("rate(5 fortnights)", None), ("at(2026-01-01T00:00:00)", None)],
)  # fmt: skip
def test_rate_expressions(expression: str, seconds: int | None) -> None:
    assert rate_seconds(expression) == seconds


def test_the_template_schedules_the_hold_sweeper_every_five_minutes() -> None:
    assert Scheduler(stack(), pool=None)._jobs == [("CreditHoldSweeperFunction", 300)]  # type: ignore[arg-type]
