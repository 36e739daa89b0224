"""The container pool's bounds and shedding, with fake containers (no process is spawned).

The pool reuses an idle container, starts one while its function and the runner are under their
bounds (stopping another function's idle container to make room), lets a request wait a bounded
time for one to come free, and sheds the rest as ``Throttled``: the function's cap is a 429, the
runner's a 503, both with ``Retry-After``. Idle containers are reaped; a failed one is never reused.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local.containers import pool as container_pool
from local.containers.capacity import PoolLimits, Throttled
from local.containers.streaming import InvocationFailed
from local.gateway.api import ApiGateway
from stack.template import FunctionSpec
from tests.support.lambdas import stack

WAIT = 5.0  # an upper bound for threads to reach a state; never a timing the test asserts


def _limits(**changes: Any) -> PoolLimits:
    base = {"per_function": 2, "total": 8, "cold_starts": 8, "queue_wait": 0.2, "queue_depth": 8, "idle_seconds": 300}
    return PoolLimits(**base | changes)


class Fakes:
    """Fake containers: each invocation waits until ``release``d; starts are counted and may be held."""

    def __init__(self) -> None:
        self.started: list[Any] = []
        self.busy = 0
        self.starting = self.most_starting = 0
        self.changed = threading.Condition()
        self.gate = threading.Semaphore(0)
        self.start_gate = threading.Event()
        self.start_gate.set()
        fakes = self

        class FakeContainer:
            def __init__(self, spec: FunctionSpec, *args: Any, **kwargs: Any) -> None:
                with fakes.changed:
                    fakes.starting += 1
                    fakes.most_starting = max(fakes.most_starting, fakes.starting)
                    fakes.changed.notify_all()
                assert fakes.start_gate.wait(WAIT)
                self.spec, self.last_used, self.closed = spec, 0.0, False
                with fakes.changed:
                    fakes.starting -= 1
                    fakes.started.append(self)

            @property
            def alive(self) -> bool:
                return not self.closed

            def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
                with fakes.changed:
                    fakes.busy += 1
                    fakes.changed.notify_all()
                try:
                    if not event.get("instant"):
                        assert fakes.gate.acquire(timeout=WAIT), "never released"
                    if event.get("fail"):
                        raise InvocationFailed("the handler crashed")
                    return {"statusCode": 200, "container": id(self)}
                finally:
                    with fakes.changed:
                        fakes.busy -= 1

            def close(self) -> None:
                self.closed = True

        self.container_type = FakeContainer

    def wait_for(self, predicate: Any) -> None:
        """Until ``predicate()`` holds (checked on every change here, and every 20 ms for the pool's own state)."""
        deadline = time.monotonic() + WAIT
        with self.changed:
            while not predicate():
                assert time.monotonic() < deadline, "the pool never reached the state"
                self.changed.wait(0.02)

    def release(self, count: int = 1) -> None:
        for _ in range(count):
            self.gate.release()


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Fakes:
    kept = Fakes()
    monkeypatch.setattr(container_pool, "Container", kept.container_type)
    return kept


@contextlib.contextmanager
def _pool(limits: PoolLimits) -> Iterator[container_pool.ContainerPool]:
    specs = {name: FunctionSpec(name, Path("."), "handler.handler", timeout=10, memory=128) for name in ("A", "B")}
    pool = container_pool.ContainerPool(specs, ["layer"], {}, limits=limits)
    try:
        yield pool
    finally:
        pool.close()


def _in_background(pool: container_pool.ContainerPool, function: str, event: dict[str, Any] | None = None) -> dict:
    """Invoke on a thread; the returned dict gets ``result`` or ``error`` when it ends, ``thread`` at once."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = pool.invoke(function, event or {})
        except Exception as exc:  # the test inspects it
            outcome["error"] = exc

    outcome["thread"] = threading.Thread(target=run, daemon=True)
    outcome["thread"].start()
    return outcome


def _busy(pool: container_pool.ContainerPool, fakes: Fakes, function: str, count: int) -> list[dict]:
    before = fakes.busy
    calls = [_in_background(pool, function) for _ in range(count)]
    fakes.wait_for(lambda: fakes.busy == before + count)
    return calls


def test_the_function_cap_sheds_with_429_and_retry_after(fakes: Fakes) -> None:
    with _pool(_limits(per_function=2)) as pool:
        _busy(pool, fakes, "A", 2)
        with pytest.raises(Throttled) as shed:
            pool.invoke("A", {"instant": True})
        assert (shed.value.runner_full, shed.value.retry_after) == (False, 1)
        assert pool.invoke("B", {"instant": True})["statusCode"] == 200  # another function still runs
        assert len(fakes.started) == 3
        status, headers, body = ApiGateway(stack(), "BrainApi", pool).shed(shed.value)
        assert (status, headers["Retry-After"]) == (429, "1")
        assert json.loads(body)["code"] == "RATE_LIMITED"  # the template's THROTTLED gateway response
        fakes.release(2)


def test_the_runner_cap_sheds_with_503_and_retry_after(fakes: Fakes) -> None:
    with _pool(_limits(per_function=3, total=3)) as pool:
        _busy(pool, fakes, "A", 2)
        _busy(pool, fakes, "B", 1)
        with pytest.raises(Throttled) as shed:  # B is under its own cap, the runner is full, nothing is idle
            pool.invoke("B", {"instant": True})
        assert (shed.value.runner_full, shed.value.retry_after) == (True, 2)
        assert pool.size == 3
        status, headers, _ = ApiGateway(stack(), "BrainApi", pool).shed(shed.value)
        assert (status, headers["Retry-After"]) == (503, "2")
        fakes.release(3)


def test_a_waiting_request_takes_the_container_that_comes_free(fakes: Fakes) -> None:
    with _pool(_limits(per_function=2, queue_wait=WAIT)) as pool:
        first = _busy(pool, fakes, "A", 2)
        waiting = _in_background(pool, "A", {"instant": True})
        fakes.release()  # one of the two finishes: the waiting request gets its container
        waiting["thread"].join(WAIT)
        assert waiting["result"]["container"] in {id(c) for c in fakes.started}
        assert len(fakes.started) == 2  # no third container: the cap held, and nothing was shed
        fakes.release()
        for call in first:
            call["thread"].join(WAIT)
            assert "result" in call


def test_a_full_queue_sheds_at_once(fakes: Fakes) -> None:
    with _pool(_limits(per_function=1, queue_depth=1, queue_wait=WAIT)) as pool:
        _busy(pool, fakes, "A", 1)
        waiting = _in_background(pool, "A", {"instant": True})
        fakes.wait_for(lambda: pool._waiting["A"] == 1)
        with pytest.raises(Throttled) as shed:
            pool.invoke("A", {"instant": True})
        assert waiting["thread"].is_alive()  # shed without waiting: the one queued is still in its wait
        assert shed.value.runner_full is False
        fakes.release()
        waiting["thread"].join(WAIT)
        assert "result" in waiting


def test_a_full_runner_stops_another_function_s_idle_container(fakes: Fakes) -> None:
    with _pool(_limits(per_function=2, total=2)) as pool:
        done = _busy(pool, fakes, "A", 2)
        fakes.release(2)
        for call in done:
            call["thread"].join(WAIT)
        assert pool.invoke("B", {"instant": True})["statusCode"] == 200
        a_closed = [c.closed for c in fakes.started if c.spec.logical_id == "A"]
        assert sorted(a_closed) == [False, True]  # one of A's idle containers made room for B
        assert pool.size == 2


def test_starts_are_bounded(fakes: Fakes) -> None:
    with _pool(_limits(cold_starts=1, queue_wait=WAIT)) as pool:
        fakes.start_gate.clear()
        calls = [_in_background(pool, name, {"instant": True}) for name in ("A", "B", "A")]
        fakes.wait_for(lambda: fakes.starting == 1)
        fakes.start_gate.set()
        for call in calls:
            call["thread"].join(WAIT)
            assert "result" in call
        assert fakes.most_starting == 1


def test_idle_containers_are_reaped(fakes: Fakes) -> None:
    with _pool(_limits(idle_seconds=0.2)) as pool:
        pool.invoke("A", {"instant": True})
        pool.invoke("B", {"instant": True})
        fakes.wait_for(lambda: pool.size == 0)
        assert len(fakes.started) == 2 and all(c.closed for c in fakes.started)


def test_a_failed_container_is_never_reused(fakes: Fakes) -> None:
    with _pool(_limits()) as pool:
        with pytest.raises(InvocationFailed):
            pool.invoke("A", {"instant": True, "fail": True})
        assert fakes.started[0].closed and pool.size == 0
        result = pool.invoke("A", {"instant": True})
        assert result["container"] == id(fakes.started[1])


def test_retired_containers_take_no_more_requests(fakes: Fakes) -> None:
    """After the demo's publication (local/runner.py) no container started during it serves again: their stderr is
    the demo's log file. The idle one stops at once, the busy one once its request is done."""
    with _pool(_limits()) as pool:
        idle = pool.invoke("B", {"instant": True})["container"]
        busy = _busy(pool, fakes, "A", 1)
        assert pool.retire() == 1 and [c.closed for c in fakes.started] == [True, False]
        fakes.release()
        busy[0]["thread"].join(WAIT)
        assert "result" in busy[0]
        fakes.wait_for(lambda: fakes.started[1].closed and pool.size == 0)
        assert pool.invoke("B", {"instant": True})["container"] not in (idle, id(fakes.started[1]))
        assert len(fakes.started) == 3 and pool.size == 1
