"""The local runner under load: requests per second and p50/p99 at 1, 8 and 32 clients, on whoami, feed and chat.

A runner (``python -m local``, a fresh state) with the demo data; a key of the first demo workspace
minted with a rate limit no client here reaches (the key's limiter is not what is measured), credits
granted, and the offline model without its delay between tokens (``--model-delay-ms``), so a chat
turn costs the runner's work, not the fake model's sleep. Containers are started first (ramped, as
``tests.load.support.warm``), then each endpoint is driven by N closed-loop clients (a new connection
per request, as independent clients) for ``--seconds`` each. A request the runner sheds (429/503 with
``Retry-After``: its container pool is bounded, see ``local.capacity``) counts as answered, not as
served; requests/s counts only 2xx answers. Latency is per request, to the last byte of the answer.

    .venv/bin/python bench/runner_load.py [--seconds 4] [--clients 1 8 32] [--json PATH]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: make the project importable

TITLE = "Local runner: requests per second and latency under concurrent clients"
Request = tuple[str, str, dict[str, str], bytes | None]  # method, path, headers, body


def _send(base: str, request: Request, timeout: float = 60) -> tuple[int, float]:
    """One request on a fresh connection: its status (0 if the connection failed) and seconds to the last byte."""
    url = urlsplit(base)
    method, path, headers, body = request
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    start = time.perf_counter()
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - start
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - start
    finally:
        connection.close()


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
            shot = _send(base, make(n, count))
            count += 1
            with lock:
                shots.append(shot)
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


def _prepare(service: Any, workspace: dict[str, Any]) -> str:
    """A key of the workspace that no client here will rate-limit, and credits for every turn; the raw key."""
    from tests.e2e.test_portal_http import portal, sign_in
    from tests.load.support import ops

    email = workspace["ownerEmail"]
    _, jwt = sign_in(service, email)
    path = f"/api/workspaces/{workspace['id']}/keys"
    minted = portal(service, "POST", path, jwt, {"name": "bench", "rateLimit": 100_000})
    assert minted.status == 201, minted.body
    assert ops(service, "grant", "--email", email, "--credits", "1000000", "--ref-id", "bench-load")["applied"]
    return minted.json()["key"]["key"]


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


def _markdown(rows: list[dict[str, Any]], command: str, model_delay_ms: int) -> str:
    lines = [
        f"## {TITLE}",
        "",
        f"`python -m local` on this machine, demo data, offline model at {model_delay_ms} ms between tokens;",
        "closed-loop clients, a new connection per request. req/s counts 2xx answers; shed = 429/503 with",
        "Retry-After (the runner's bounded container pool); failed = dropped connections and 5xx other than 503.",
        "",
        "| endpoint | clients | requests | req/s | p50 ms | p99 ms | shed | failed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        p50 = "-" if r["p50Ms"] is None else f"{r['p50Ms']:.0f}"
        p99 = "-" if r["p99Ms"] is None else f"{r['p99Ms']:.0f}"
        lines.append(
            f"| {r['endpoint']} | {r['clients']} | {r['requests']} | {r['rps']:.1f} | {p50} | {p99} "
            f"| {r['shed']} | {r['failed']} |"
        )
    return "\n".join([*lines, "", f"Reproduce: `{command}`", ""])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from local.process import RunnerProcess
    from tests.e2e.conftest import GENEROUS_SIGN_IN, LocalService

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per endpoint and client count")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--endpoints", nargs="+", default=["whoami", "feed", "chat"])
    parser.add_argument("--model-delay-ms", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the rows here as JSON")
    args = parser.parse_args(argv)
    clients = " ".join(map(str, args.clients))
    command = f".venv/bin/python bench/runner_load.py --seconds {args.seconds:g} --clients {clients}"
    command += f" --endpoints {' '.join(args.endpoints)} --model-delay-ms {args.model_delay_ms}"
    function_env = GENEROUS_SIGN_IN | {"OFFLINE_MODEL_DELAY_MS": str(args.model_delay_ms)}
    runner = RunnerProcess(Path(tempfile.mkdtemp(prefix="bench-runner-")), function_env=function_env, fresh=True)
    rows = []
    try:
        service = LocalService(runner.start(), runner.state_dir)
        workspace = service.demo["workspaces"][0]
        endpoints = _endpoints(_prepare(service, workspace), workspace["agents"][0]["id"])
        for name in args.endpoints:
            _warm(service.brain, endpoints[name], max(args.clients))
            for count in args.clients:
                rows.append({"endpoint": name} | _drive(service.brain, endpoints[name], count, args.seconds))
    finally:
        runner.stop()
        shutil.rmtree(runner.state_dir, ignore_errors=True)
    result = {
        "title": TITLE,
        "command": command,
        "markdown": _markdown(rows, command, args.model_delay_ms),
        "rows": rows,
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    print(main(sys.argv[1:])["markdown"])
