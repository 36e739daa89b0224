"""Start the local runner (``python -m local``) as a real process and talk to it over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from local.template import ROOT

STARTUP_TIMEOUT = 120  # first run encodes the demo videos


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass(frozen=True)
class LocalService:
    demo: dict[str, Any]
    state_dir: Path

    @property
    def brain(self) -> str:
        return self.demo["brainUrl"]

    @property
    def portal(self) -> str:
        return self.demo["portalUrl"]

    def request(
        self, method: str, url: str, *, headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> Reply:
        req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return Reply(res.status, {k.lower(): v for k, v in res.headers.items()}, res.read())
        except urllib.error.HTTPError as err:
            return Reply(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())

    def brain_get(self, path: str, key: str | None, **headers: str) -> Reply:
        auth = {"Authorization": f"Bearer {key}"} if key else {}
        return self.request("GET", self.brain + path, headers=auth | headers)


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    state_dir = tmp_path_factory.mktemp("local-state")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])
    command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0"]
    command += ["--state-dir", str(state_dir), "--media-cache", str(ROOT / ".local" / "media-cache")]
    log = (state_dir / "runner.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    demo_file = state_dir / "demo.json"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not demo_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("local runner did not start:\n" + (state_dir / "runner.log").read_text()[-4000:])
        time.sleep(0.1)
    try:
        yield LocalService(json.loads(demo_file.read_text()), state_dir)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
