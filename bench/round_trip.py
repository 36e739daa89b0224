"""Round-trip latency of every read endpoint over HTTP through the local runner.

Starts ``python -m local`` on free ports, then for each endpoint: one cold request
(the emulated container starts) and ``--requests`` warm ones, reporting p50/p95 in
ms. These are local figures (moto's server, not DynamoDB); use them to compare
changes, not to predict AWS latency.

    .venv/bin/python bench/round_trip.py [--requests 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path

from local.process import running  # noqa: E402


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
    with running(Path(tempfile.mkdtemp(prefix="bench-"))) as demo:
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


if __name__ == "__main__":
    main()
