"""Run the local runner (``python -m local``) as a child process, for tests and benchmarks.

Free ports, its own state directory, the shared media cache; waits for ``demo.json``
(written once the demo data is loaded) and stops the runner on exit.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stack.demo_template import seeded
from stack.template import ROOT

# How long a starting runner may go without a line in its logs: a first run encodes the demo videos, publishes the
# demo (a line an example) and waits for its documents to be read. A bound on silence, not on the whole start: the
# package check's first start (every container a bare interpreter) took 180 s an example on a loaded machine, past
# a bound of 240 s on the whole, while it was still publishing.
STARTUP_TIMEOUT = 240
STARTUP_CAP = 1_200  # and on the whole start, so that a runner logging in a loop still ends a run
# Every log file a runner of this process wrote: the test suite's log scan reads each for secrets.
RUNNER_LOGS: list[Path] = []


def write_ready_files(state_dir: Path, about: dict[str, Any], demo: dict[str, Any]) -> None:
    """The runner's half of ``RunnerProcess.start``'s wait: ``runner.json`` (its moto endpoint, its pid) first, then
    ``demo.json``, each renamed into place whole. A reader polls for ``demo.json``: it must never find it empty or
    half written, nor read it before ``runner.json`` is there (``moto_client`` reads that next)."""
    for name, document in (("runner.json", about), ("demo.json", demo)):
        written = state_dir / f".{name}.partial"
        written.write_text(json.dumps(document, indent=2) + "\n")
        os.replace(written, state_dir / name)


class RunnerProcess:
    """``python -m local`` on free ports and ``state_dir``: started, then stopped by a signal the caller picks."""

    def __init__(
        self,
        state_dir: Path,
        *,
        log: Path | None = None,
        function_env: dict[str, str] | None = None,
        fresh: bool = False,
        demo: bool = True,
        env: dict[str, str] | None = None,
        built: Path | None = None,
    ):
        self.state_dir = state_dir
        self.log = log or state_dir / "runner.log"
        # Only the runner's own (dummy) AWS settings: never a caller's profile or real credentials.
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | (env or {})
        self._env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])
        command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0", "--page-port", "0"]
        command += ["--console-port", "0"]  # the owner's console, on a free port too (its mail links open it)
        command += ["--state-dir", str(state_dir), "--media-cache", str(ROOT / ".local" / "media-cache")]
        command += [f"--function-env={name}={value}" for name, value in (function_env or {}).items()]
        command += ["--built", str(built)] if built else []
        self.command = command + (["--fresh"] if fresh else []) + ([] if demo else ["--no-demo"])
        self.process: subprocess.Popen | None = None

    def start(self) -> dict[str, Any]:
        """Start it; its ``demo.json`` (URLs, workspaces, keys) once written (the previous run's is removed first).

        With ``LOCAL_DEMO_TEMPLATE=1`` (the test suites), an empty state starts from a copy of a published demo
        (``stack.demo_template``) instead of publishing it again; ``--fresh`` and ``--no-demo`` never do.
        """
        if self._env.get("LOCAL_DEMO_TEMPLATE") == "1" and not {"--fresh", "--no-demo"} & set(self.command):
            seeded(self.state_dir, self._publish_template)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        demo_file = self.state_dir / "demo.json"
        demo_file.unlink(missing_ok=True)
        RUNNER_LOGS.append(self.log)
        RUNNER_LOGS.append(self.state_dir / "demo-publish.log")  # a first start's demo publication (local.runner)
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self._env, stdout=output, stderr=output)
        started, written = time.monotonic(), self._logged()
        deadline = started + STARTUP_TIMEOUT
        while not demo_file.exists():
            if (now_written := self._logged()) != written:  # it is still at work: the bound is on silence
                deadline, written = time.monotonic() + STARTUP_TIMEOUT, now_written
            if self.process.poll() is not None or time.monotonic() > min(deadline, started + STARTUP_CAP):
                self.stop(signal.SIGKILL)
                raise RuntimeError("the local runner did not start:\n" + self.log.read_text()[-4000:])
            time.sleep(0.1)
        return json.loads(demo_file.read_text())

    def _logged(self) -> tuple[int, ...]:
        """The sizes of the runner's log and of its demo publication's request log (0 for one not yet written)."""
        logs = (self.log, self.state_dir / "demo-publish.log")
        return tuple(path.stat().st_size if path.exists() else 0 for path in logs)

    def _publish_template(self, directory: Path) -> None:
        """A runner of this kind publishes the demo into ``directory`` from scratch and stops (its state kept), then
        starts and stops once more: a start compacts the journal into a snapshot, so each runner copied from the
        template loads its items in batches instead of replaying the publish's thousand requests (6.7 s a start)."""
        for _ in ("publish", "compact"):
            template = RunnerProcess(directory, env={"LOCAL_DEMO_TEMPLATE": "0"})
            template.start()
            if template.stop() != 0:
                raise RuntimeError(
                    "the demo template's runner did not stop cleanly:\n" + template.log.read_text()[-4000:]
                )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int | None:
        """Send ``signum`` and wait for the exit (killed after ``timeout``); its exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGUSR1)  # its threads' stacks into the log: why it did not stop
            time.sleep(1)
            self.process.kill()
            return self.process.wait(timeout=10)


@contextmanager
def running(
    state_dir: Path, *, log: Path | None = None, function_env: dict[str, str] | None = None, fresh: bool = False
) -> Iterator[dict[str, Any]]:
    """The runner's ``demo.json`` (URLs, workspaces, keys) while it runs; its output goes to ``log``.

    ``function_env`` sets settings of every function over the template's (``--function-env``).
    """
    runner = RunnerProcess(state_dir, log=log, function_env=function_env, fresh=fresh)
    try:
        yield runner.start()
    finally:
        runner.stop()


def moto_client(state_dir: Path, name: str) -> Any:
    """A boto3 client of a running runner's moto server (``runner.json``), to look at what the service stored."""
    runner = json.loads((state_dir / "runner.json").read_text())
    return _moto_client(runner["awsEndpoint"], runner["region"], name)


@functools.lru_cache(maxsize=64)
def _moto_client(endpoint: str, region: str, name: str) -> Any:
    """One client per moto server and service (clients are thread-safe): the suites look at stored state thousands
    of times, and making a client costs more than most of those looks."""
    import boto3

    # boto3-stubs type client() once per literal service name; this takes any name, and answers Any (as
    # core.platform.aws).
    return boto3.client(  # type: ignore[call-overload]
        name, endpoint_url=endpoint, region_name=region,
        aws_access_key_id="local", aws_secret_access_key="local",  # noqa: S106 - moto takes any
    )  # fmt: skip
