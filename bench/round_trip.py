"""Round-trip latency of every read endpoint over HTTP through the local runner.

Starts ``python -m local`` on free ports, then for each endpoint: one cold request
(the emulated container starts) and ``--requests`` warm ones, reporting p50/p95 in
ms. These are local figures (moto's server, not DynamoDB); use them to compare
changes, not to predict AWS latency.

    .venv/bin/python bench/round_trip.py [--requests 50] [--json PATH]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path

from bench.benchkit import command, finish, parser, percentile, table  # noqa: E402
from stack.process import running  # noqa: E402


def _get(url: str, key: str) -> float:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--requests", type=int, default=50)
    args = cli.parse_args(argv)
    rows = []
    with running(Path(tempfile.mkdtemp(prefix="bench-"))) as demo:
        ws = demo["workspaces"][0]
        agent = ws["agents"][0]["id"]
        paths = ["/v1/agent/_whoami"] + [f"/v1/agent/{agent}{s}" for s in ("", "/feed", "/items", "/wrap", "/site")]
        paths.append(f"/v1/agent/{agent}/suggestions")
        for path in paths:
            cold = _get(demo["brainUrl"] + path, ws["key"])
            warm = [_get(demo["brainUrl"] + path, ws["key"]) for _ in range(args.requests)]
            rows.append([path.replace(agent, "{agentId}"), cold, statistics.median(warm), percentile(warm, 0.95)])
    markdown = (
        f"Over HTTP through the local runner (moto server), ms; cold: the container's first request; "
        f"p50/p95 of {args.requests} warm requests.\n\n" + table(["endpoint", "cold", "p50", "p95"], rows)
    )
    return finish(args, "Read endpoints over HTTP (local runner)", command("round_trip.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
