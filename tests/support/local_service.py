"""A private local runner (``python -m local``) for e2e tests that change state others read.

``tests/e2e/conftest.py``'s ``service`` is one runner for the whole session, and some of
its tests assert the demo data as loaded (e.g. the demo owner's 1000 credits). Tests
that spend those credits start their own runner here, the same way, so neither
depends on the order the files run in.
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

import boto3

from local.template import ROOT
from tests.e2e.conftest import STARTUP_TIMEOUT, LocalService


@contextmanager
def local_service(state_dir: Path) -> Iterator[LocalService]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])
    command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0"]
    command += ["--state-dir", str(state_dir), "--media-cache", str(ROOT / ".local" / "media-cache")]
    log_path = state_dir / "runner.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            demo_file = state_dir / "demo.json"
            deadline = time.monotonic() + STARTUP_TIMEOUT
            while not demo_file.exists():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("local runner did not start:\n" + log_path.read_text()[-4000:])
                time.sleep(0.1)
            yield LocalService(json.loads(demo_file.read_text()), state_dir)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def moto_client(service: LocalService, name: str) -> Any:
    """A boto3 client of the runner's moto server (``runner.json``), for looking at what the service stored."""
    runner = json.loads((service.state_dir / "runner.json").read_text())
    return boto3.client(
        name,
        endpoint_url=runner["awsEndpoint"],
        region_name=runner["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
