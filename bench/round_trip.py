"""Round-trip latency of every read endpoint over HTTP through the local runner.

Starts ``python -m local`` on free ports, then for each endpoint: one cold request
(the emulated container starts) and ``--requests`` warm ones, reporting p50/p95 in
ms. These are local figures (moto's server, not DynamoDB); use them to compare
changes, not to predict AWS latency.

    .venv/bin/python bench/round_trip.py [--requests 50]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _get(url: str, key: str) -> float:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="bench-"))
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])}
    command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0", "--state-dir", str(state)]
    command += ["--media-cache", str(ROOT / ".local" / "media-cache")]
    runner = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not (state / "demo.json").exists():
            if runner.poll() is not None:
                sys.exit("local runner exited")
            time.sleep(0.1)
        demo = json.loads((state / "demo.json").read_text())
        ws = demo["workspaces"][0]
        agent = ws["agents"][0]["id"]
        paths = ["/v1/agent/_whoami"] + [f"/v1/agent/{agent}{s}" for s in ("", "/feed", "/items", "/wrap", "/site")]
        paths.append(f"/v1/agent/{agent}/suggestions")
        print(f"{'endpoint':32} {'cold':>8} {'p50':>8} {'p95':>8}   (ms, {args.requests} warm requests)")
        for path in paths:
            cold = _get(demo["brainUrl"] + path, ws["key"])
            warm = sorted(_get(demo["brainUrl"] + path, ws["key"]) for _ in range(args.requests))
            p95 = warm[min(len(warm) - 1, int(len(warm) * 0.95))]
            label = path.replace(agent, "{agentId}")
            print(f"{label:32} {cold:8.1f} {statistics.median(warm):8.1f} {p95:8.1f}")
    finally:
        runner.terminate()
        runner.wait(timeout=10)


if __name__ == "__main__":
    main()
