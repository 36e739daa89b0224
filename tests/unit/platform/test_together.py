"""core.platform.together: independent calls overlap in time, and answers come back in argument order."""

from __future__ import annotations

import contextvars
import threading

import pytest

from core.platform import together

WAIT = 5.0  # a barrier that nobody else reaches within this is a sequential run


def test_calls_run_at_the_same_time() -> None:
    """Three calls that each wait for the other two can only finish if all three run at once."""
    barrier = threading.Barrier(3, timeout=WAIT)
    futures = together.concurrently(*[lambda n=n: (barrier.wait(), n)[1] for n in range(3)])
    assert [f.result() for f in futures] == [0, 1, 2]


def test_an_error_stays_with_its_call_and_the_others_still_answer() -> None:
    def fails() -> None:
        raise LookupError("gone")

    for run in (together.concurrently, together.in_order):
        first, second = run(fails, lambda: "fine")
        assert second.result() == "fine"
        with pytest.raises(LookupError, match="gone"):
            first.result()


def test_calls_see_the_callers_context() -> None:
    request = contextvars.ContextVar("request", default="none")
    request.set("req-1")
    (seen,) = together.concurrently(request.get)
    assert seen.result() == "req-1"


def test_in_order_runs_one_after_another() -> None:
    order: list[int] = []
    together.in_order(*[lambda n=n: order.append(n) for n in range(4)])
    assert order == [0, 1, 2, 3]
