"""What the runner benches share: a fresh runner with a key no client rate-limits, and one timed request."""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

Request = tuple[str, str, dict[str, str], bytes | None]  # method, path, headers, body


@dataclass(frozen=True)
class Prepared:
    brain: str  # the brain API's base URL
    key: str  # a raw key of the first demo workspace, rate limit 100,000 a minute
    agent: str  # that workspace's published agent
    pid: int  # the runner's process

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the runner and its containers used so far, in ~10 ms ticks from /proc."""
        from stack.process_tree import descendants

        ticks = 0
        for pid in [self.pid, *descendants(self.pid)]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # it exited meanwhile
                continue
            ticks += int(fields[11]) + int(fields[12])  # utime, stime: the 14th and 15th fields of stat
        return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def prepared_runner(model_delay_ms: int) -> Iterator[Prepared]:
    """``python -m local`` on a fresh state dir (removed after), the offline model at ``model_delay_ms``.

    The key is minted by the workspace's owner with a rate limit no bench reaches (its limiter is
    not what is measured), and the owner is granted a million credits (every chat turn is paid).
    """
    from stack.process import RunnerProcess
    from tests.support.load import ops
    from tests.support.runner import GENEROUS_MAIL, LocalService, portal, sign_in

    env = GENEROUS_MAIL | {"OFFLINE_MODEL_DELAY_MS": str(model_delay_ms)}
    runner = RunnerProcess(Path(tempfile.mkdtemp(prefix="bench-runner-")), function_env=env, fresh=True)
    try:
        service = LocalService(runner.start(), runner.state_dir)
        workspace = service.demo["workspaces"][0]
        _, jwt = sign_in(service, workspace["ownerEmail"])
        path = f"/api/workspaces/{workspace['id']}/keys"
        minted = portal(service, "POST", path, jwt, {"name": "bench", "rateLimit": 100_000})
        assert minted.status == 201, minted.body
        granted = ops(service, "grant", "--email", workspace["ownerEmail"], "--credits", "1000000", "--ref-id", "bench")
        assert granted["applied"], granted
        yield Prepared(service.brain, minted.json()["key"]["key"], workspace["agents"][0]["id"], runner.pid)
    finally:
        runner.stop()
        shutil.rmtree(runner.state_dir, ignore_errors=True)


def send(base: str, request: Request, timeout: float = 60) -> tuple[int, float, bytes]:
    """One request on a fresh connection: status (0 if the connection failed), seconds to the last byte, body."""
    url = urlsplit(base)
    method, path, headers, body = request
    assert url.hostname is not None, base
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    start = time.perf_counter()
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        answer: Any = response.read()
        return response.status, time.perf_counter() - start, answer
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - start, b""
    finally:
        connection.close()
