"""Scheduled functions of the template (``Schedule`` / ``ScheduleV2`` events), run on their rate.

``rate(5 minutes)`` locally means every five minutes, as in AWS; ``cron(...)`` expressions
are not emulated (none is used), and a function with one is reported and skipped.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

from local.containers.pool import ContainerPool
from stack.template import Stack

logger = logging.getLogger("local.schedules")
_UNITS = {"minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400}


def rate_seconds(expression: str) -> int | None:
    """Seconds between runs of ``rate(N unit)``; None for anything else (cron, at)."""
    found = re.fullmatch(r"rate\((\d+) (\w+)\)", expression.strip())
    return int(found.group(1)) * _UNITS[found.group(2)] if found and found.group(2) in _UNITS else None


def _event(function: str) -> dict[str, Any]:
    """What EventBridge delivers to a scheduled target (the scheduler's default payload)."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.scheduler",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "resources": [f"arn:aws:scheduler:local:000000000000:schedule/default/{function}"],
        "detail": {},
    }


class Scheduler:
    def __init__(self, stack: Stack, pool: ContainerPool):
        self._pool = pool
        self._stop = threading.Event()
        self._jobs: list[tuple[str, int]] = []
        for name, res in stack.of_type("AWS::Serverless::Function").items():
            for event in res["Properties"].get("Events", {}).values():
                if event["Type"] in ("Schedule", "ScheduleV2"):
                    expression = event["Properties"].get("ScheduleExpression") or event["Properties"]["Schedule"]
                    seconds = rate_seconds(expression)
                    if seconds is None:
                        logger.warning("%s: schedule %r is not emulated locally", name, expression)
                    else:
                        self._jobs.append((name, seconds))
        self._threads = [
            threading.Thread(target=self._run, args=job, name=f"schedule-{job[0]}", daemon=True) for job in self._jobs
        ]

    def start(self) -> Scheduler:
        for thread in self._threads:
            thread.start()
        return self

    def _run(self, function: str, seconds: int) -> None:
        while not self._stop.wait(seconds):
            try:
                logger.info("%s: %s", function, self._pool.invoke(function, _event(function)))
            except Exception:
                logger.exception("scheduled run of %s failed", function)

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=3)
