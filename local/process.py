"""Run the local runner (``python -m local``) as a child process, for tests and benchmarks.

Free ports, its own state directory, the shared media cache; waits for ``demo.json``
(written once the demo data is loaded) and stops the runner on exit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .template import ROOT

STARTUP_TIMEOUT = 120  # a first run encodes the demo videos
# Every log file a runner of this process wrote: the test suite's log scan reads each for secrets.
RUNNER_LOGS: list[Path] = []


@contextmanager
def running(
    state_dir: Path, *, log: Path | None = None, function_env: dict[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """The runner's ``demo.json`` (URLs, workspaces, keys) while it runs; its output goes to ``log``.

    ``function_env`` sets settings of every function over the template's (``--function-env``).
    """
    # Only the runner's own (dummy) AWS settings: never a caller's profile or real credentials.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])
    command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0", "--state-dir", str(state_dir)]
    command += ["--media-cache", str(ROOT / ".local" / "media-cache")]
    command += [f"--function-env={name}={value}" for name, value in (function_env or {}).items()]
    log_path = log or state_dir / "runner.log"
    RUNNER_LOGS.append(log_path)
    with log_path.open("wb") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            demo_file = state_dir / "demo.json"
            deadline = time.monotonic() + STARTUP_TIMEOUT
            while not demo_file.exists():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the local runner did not start:\n" + log_path.read_text()[-4000:])
                time.sleep(0.1)
            yield json.loads(demo_file.read_text())
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def moto_client(state_dir: Path, name: str) -> Any:
    """A boto3 client of a running runner's moto server (``runner.json``), to look at what the service stored."""
    import boto3

    runner = json.loads((state_dir / "runner.json").read_text())
    return boto3.client(
        name, endpoint_url=runner["awsEndpoint"], region_name=runner["region"],
        aws_access_key_id="local", aws_secret_access_key="local",  # noqa: S106 - moto takes any
    )  # fmt: skip
