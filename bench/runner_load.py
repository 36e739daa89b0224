"""The local runner under load: requests per second and p50/p99 at 1, 8 and 32 clients, on whoami, feed and chat.

A runner (``python -m local``, a fresh state) with the demo data; a key of the first demo workspace
minted with a rate limit no client here reaches (the key's limiter is not what is measured), credits
granted, and the offline model without its delay between tokens (``--model-delay-ms``), so a chat
turn costs the runner's work, not the fake model's sleep. Containers are started first (ramped, as
``tests.support.load.warm``), then each endpoint is driven by N closed-loop clients (a new connection
per request, as independent clients) for ``--seconds`` each. A request the runner sheds (429/503 with
``Retry-After``: its container pool is bounded, see ``local.containers.capacity``) counts as answered, not as
served; requests/s counts only 2xx answers. Latency is per request, to the last byte of the answer.

    .venv/bin/python bench/runner_load.py [--seconds 3] [--clients 1 8 32] [--json PATH]
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: make the project importable

from bench.benchkit import command, finish, parser, table  # noqa: E402 - after the path is set
from bench.runner_support import Request, prepared_runner, send  # noqa: E402

TITLE = "Local runner: requests per second and latency under concurrent clients"


def _drive(base: str, make: Any, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` closed loops for ``seconds``; counts by status and every latency."""
    shots: list[tuple[int, float]] = []
    lock, start = threading.Lock(), threading.Barrier(clients)
    ends: list[float] = []

    def client(n: int) -> None:
        start.wait()
        deadline = time.monotonic() + seconds
        count = 0
        while time.monotonic() < deadline:
            status, latency, _ = send(base, make(n, count))
            count += 1
            with lock:
                shots.append((status, latency))
        with lock:
            ends.append(time.monotonic() - deadline + seconds)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = max(ends)  # the last request may end after the deadline
    latencies = sorted(latency for status, latency in shots if status)
    served = sum(1 for status, _ in shots if 200 <= status < 300)
    return {
        "clients": clients,
        "requests": len(shots),
        "served": served,
        "shed": sum(1 for status, _ in shots if status in (429, 503)),
        "failed": sum(1 for status, _ in shots if status == 0 or (status >= 500 and status != 503)),
        "rps": served / elapsed,
        "p50Ms": statistics.median(latencies) * 1000 if latencies else None,
        "p99Ms": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000 if latencies else None,
    }


def _endpoints(key: str, agent: str) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {key}"}

    def chat(n: int, count: int) -> Request:
        body = json.dumps({"prompt": "Anything on this week?", "client": f"bench_{n:04d}_{count:06d}"}).encode()
        return "POST", f"/v1/agent/{agent}/chat", auth | {"Content-Type": "application/json"}, body

    return {
        "whoami": lambda n, count: ("GET", "/v1/agent/_whoami", auth, None),
        "feed": lambda n, count: ("GET", f"/v1/agent/{agent}/feed?channel=instagram", auth, None),
        "chat": chat,
    }


def _warm(base: str, make: Any, clients: int) -> None:
    """Start the containers the runner will keep (it bounds them), two cold starts at a time."""
    for wave in range(2, clients + 2, 2):
        _drive(base, make, min(wave, clients), 0.01)


def _markdown(rows: list[dict[str, Any]], model_delay_ms: int) -> str:
    intro = (
        f"`python -m local` on this machine, demo data, offline model at {model_delay_ms} ms between tokens; "
        "closed-loop clients, a new connection per request, after the containers were started. req/s counts 2xx "
        "answers; shed = 429/503 with Retry-After (the runner's bounded container pool, "
        "`local/containers/capacity.py`); failed = dropped connections and 5xx other than 503."
    )
    headers = ["endpoint", "clients", "requests", "req/s", "p50 ms", "p99 ms", "shed", "failed"]
    cells = [
        [r["endpoint"], r["clients"], r["requests"], r["rps"], r["p50Ms"] or "-", r["p99Ms"] or "-", r["shed"],
         r["failed"]]
        for r in rows
    ]  # fmt: skip
    return intro + "\n\n" + table(headers, cells)


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--seconds", type=float, default=3.0, help="per endpoint and client count")
    cli.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    cli.add_argument("--endpoints", nargs="+", default=["whoami", "feed", "chat"])
    cli.add_argument("--model-delay-ms", type=int, default=0)
    args = cli.parse_args(argv)
    rows = []
    with prepared_runner(args.model_delay_ms) as runner:
        endpoints = _endpoints(runner.key, runner.agent)
        for name in args.endpoints:
            _warm(runner.brain, endpoints[name], max(args.clients))
            for count in args.clients:
                rows.append({"endpoint": name} | _drive(runner.brain, endpoints[name], count, args.seconds))
    return finish(args, TITLE, command("runner_load.py", argv or []), _markdown(rows, args.model_delay_ms))


if __name__ == "__main__":
    main(sys.argv[1:])
