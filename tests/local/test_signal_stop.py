"""Ctrl-C and SIGTERM stop the runner whenever they come and however many come, however busy it is.

The runner once waited for them with ``threading.Event`` and handlers calling ``set()``: a signal handled
while the main thread held the Event's lock left it waiting for itself (``local/stopping.py``). That took
an hour of use to hit once; a storm of signals (``tests/support/signal_storm.py``) hits it in a second.
First the stop wait itself, in a busy process stormed at random moments, round after round; then the
real runner, kept busy by clients, stormed a few times: each stop ends, with status 0, within its limit.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from local.gateway.http_server import DRAIN_SECONDS
from stack.process import RunnerProcess
from tests.support.load import REFUSED, BrokenExchange, shoot
from tests.support.signal_storm import Stormed, storm

ROUNDS = 20  # ~0.5 s each; the Event wait hung in every round (tests/support/signal_storm.py has the numbers)
# Hang detectors, not measures (a stop that deadlocks never ends), set far past what a busy machine takes:
STOP_WITHIN = 30.0  # seconds from the first signal to the end of the stormed process's graceful stop (≤ 0.4 s)
RUNNER_ROUNDS = 3
BROKEN = -1  # a client's request cut off by the runner (stopping): no HTTP answer
RUNNER_STOP_WITHIN = DRAIN_SECONDS + 40  # the drain's bound, and the rest of the stop (~2 s) with room to spare
CLIENTS = 6


def test_the_stop_wait_survives_signal_storms(tmp_path: Path) -> None:
    rng = random.Random()  # noqa: S311 - random moments, not secrets (a race is not replayed by a seed)
    for round_ in range(ROUNDS):
        stormed = Stormed(tmp_path / f"stormed-{round_}.stderr")
        time.sleep(rng.uniform(0, 0.3))  # a random moment of its busy wait
        started = time.monotonic()
        sent = storm(stormed.process.pid, stormed.stopped, STOP_WITHIN, rng)
        took = time.monotonic() - started
        assert stormed.stopped.is_set(), (
            f"round {round_}: not stopped {took:.1f}s after the first of {sent} signals "
            f"(it said {stormed.said}); its threads:\n{stormed.stacks()}"
        )
        assert stormed.exit(timeout=5) == 0


@contextmanager
def _clients(demo: dict, count: int) -> Iterator[list[int]]:
    """``count`` clients calling both APIs back to back (functions answer 401/403/404): statuses seen so far. They are
    load, not a check: a request the stopping runner cuts off is noted ``BROKEN`` and the client goes on."""
    statuses: list[int] = []
    done = threading.Event()
    calls = [(demo["brainUrl"], "/v1/agent/_whoami"), (demo["portalUrl"], "/api/workspaces")]

    def client(index: int) -> None:
        base, path = calls[index % len(calls)]
        while not done.is_set():
            try:
                statuses.append(shoot(base, "GET", path, headers={"Authorization": "Bearer x"}, timeout=30).status)
            except BrokenExchange:
                statuses.append(BROKEN)

    threads = [threading.Thread(target=client, args=(index,), daemon=True) for index in range(count)]
    for thread in threads:
        thread.start()
    try:
        yield statuses
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=35)


def _exited(pid: int) -> threading.Event:
    """Set once ``pid`` has exited, left unreaped (a zombie still takes signals, and its pid cannot be reused)."""
    gone = threading.Event()

    def watch() -> None:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        gone.set()

    threading.Thread(target=watch, daemon=True).start()
    return gone


@pytest.mark.e2e
def test_a_busy_runner_stops_on_every_signal_storm(tmp_path: Path) -> None:
    rng = random.Random()  # noqa: S311 - random moments, not secrets (a race is not replayed by a seed)
    for round_ in range(RUNNER_ROUNDS):
        runner = RunnerProcess(tmp_path / "state", log=tmp_path / f"runner-{round_}.log")
        runner.command.append("--no-demo")  # a stop needs no demo data, and starts in a second without it
        demo = runner.start()
        assert runner.process is not None
        try:
            with _clients(demo, CLIENTS) as statuses:
                answering = time.monotonic() + 60  # the first answers wait for the containers' cold starts
                while not any(status not in (REFUSED, BROKEN) for status in statuses):
                    assert time.monotonic() < answering, f"the runner answered nobody: {statuses[-5:]}"
                    time.sleep(0.1)
                time.sleep(rng.uniform(0, 1))  # a random moment of its busy life
                started = time.monotonic()
                # The storm lasts until the runner has exited: signals keep coming through its stop and its
                # interpreter's finalization (which would put SIG_DFL back on a signal with a Python handler).
                sent = storm(runner.pid, _exited(runner.pid), RUNNER_STOP_WITHIN, rng)
                status = runner.process.wait(timeout=RUNNER_STOP_WITHIN)
        except subprocess.TimeoutExpired:
            runner.stop(signal.SIGUSR1, timeout=1)  # its threads' stacks into its log, then killed
            pytest.fail(f"round {round_}: the runner did not stop:\n{runner.log.read_text()[-6000:]}")
        finally:
            runner.stop(signal.SIGKILL)  # only if it is still running: an assertion failed
        took = time.monotonic() - started
        assert status == 0, f"round {round_}: status {status} after {sent} signals"
        assert took < RUNNER_STOP_WITHIN
        assert "finishing the requests in flight" in runner.log.read_text()  # stopped by main(), gracefully
