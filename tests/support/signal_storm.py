"""Signal storms: SIGINT and SIGTERM, as fast as ``os.kill`` goes, at a busy process waiting to stop.

``storm`` sends them. ``python -m tests.support.signal_storm`` is the busy process: threads working a
little and taking a shared lock and condition over and over (as the runner's request, container and poller
threads do), the main thread waiting with the runner's own ``local.stopping.StopSignals``, then a short
"graceful stop" while signals keep coming, as a second Ctrl-C would. ``Stormed`` starts one and follows it.

A storm is how a rare interleaving is made frequent: a handler that takes a lock deadlocks only when it
runs while the main thread holds that lock (a few microseconds in each Event.wait wakeup, or a first
handler's own ``set()``), and thousands of signals a second find those moments within a second or two.
"""

from __future__ import annotations

import faulthandler
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from local.stopping import StopSignals
from stack.template import ROOT

# Measured on 2 cores against the Event wait the runner had: 8 threads doing ``sum(range(2000))`` between
# lock rounds hung it in 15 rounds of 15; 4 threads of 10 times the work, in 10 of 15; 2 threads spinning
# without a pause, in only 2 of 20. With the wakeup fd a round takes ~0.5 s, the stop 0.4 s at most.
THREADS, WORK = 8, 2000
CLOSING_SECONDS = 0.2  # its graceful stop: the storm goes on meanwhile
STORM_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def storm(pid: int, until: threading.Event, seconds: float, rng: random.Random) -> int:
    """SIGINT and SIGTERM, mixed at random, until ``until`` is set or ``seconds`` pass; how many were sent."""
    deadline, sent = time.monotonic() + seconds, 0
    while not until.is_set() and time.monotonic() < deadline:
        os.kill(pid, rng.choice(STORM_SIGNALS))
        sent += 1
    return sent


class Stormed:
    """``python -m tests.support.signal_storm`` as a child, ready to stop: ``stopped`` is set once it says so."""

    def __init__(self, stderr: Path):
        self.stderr = stderr
        self.stopped = threading.Event()
        self.said: list[str] = []
        env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])}
        with stderr.open("wb") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.signal_storm"], cwd=ROOT, env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True,
            )  # fmt: skip
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n", stderr.read_text()  # its handlers are installed
        threading.Thread(target=self._follow, args=(self.process.stdout,), daemon=True).start()

    def _follow(self, stdout: IO[str]) -> None:
        for line in stdout:
            self.said.append(line.strip())
            if line == "stopped\n":
                self.stopped.set()

    def stacks(self) -> str:
        """Every thread's stack (faulthandler, on SIGUSR1), then killed: what a hung child was doing."""
        self.process.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        self.process.kill()
        self.process.wait()
        return self.stderr.read_text()[-6000:]

    def exit(self, timeout: float) -> int:
        """Let it exit (the storm is over: no signal can reach its interpreter's finalization); its status."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout)


def _busy() -> None:
    """The stormed process: busy threads, the runner's stop wait, a graceful stop under more signals."""
    faulthandler.register(signal.SIGUSR1)
    done = threading.Event()
    shared = threading.Condition()

    def serve() -> None:  # a request's thread: a little work, a lock and a condition shared with the others
        while not done.wait(0.001):
            sum(range(WORK))
            with shared:
                shared.notify_all()
                shared.wait(0.001)

    threads = [threading.Thread(target=serve) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    stop = StopSignals()
    print("ready", flush=True)
    signum = stop.wait()
    print(f"stopping {signum.name}", flush=True)
    time.sleep(CLOSING_SECONDS)
    done.set()
    for thread in threads:
        thread.join()
    print("stopped", flush=True)
    sys.stdin.read()  # exit only once the storm is over: finalization puts SIG_DFL back


if __name__ == "__main__":
    _busy()
