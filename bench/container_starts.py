"""The local runner's cold starts: a buffered container started as a new interpreter beside one forked from the
warmed process (``local/containers/fork_server.py``), as a ratio measured in the same run.

Each round starts one container of each of ``--functions`` portal functions in a fresh pool, and invokes it
once with its sample event stripped of credentials (a 401 from the boundary: the cold start and the first
request's set-up, no AWS call), alternating the two ways round after round, so both see the same machine.
Wall time per cold start is reported, with the ratio of the two medians.

    PYTHONPATH=layers/common:. .venv/bin/python bench/container_starts.py [--rounds 3] [--functions 12]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace

from local.containers.capacity import PoolLimits
from local.containers.package import SOURCE_TREE
from local.containers.pool import ContainerPool
from stack.template import ROOT, Stack, load

FAKE_AWS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_MAX_ATTEMPTS": "1"}  # fmt: skip


def one_round(stack: Stack, names: list[str], *, forks: bool) -> float:
    """Seconds per cold start (and its first answer) over ``names``."""
    functions = {name: stack.functions()[name] for name in names}
    limits = PoolLimits(per_function=1, total=len(names), cold_starts=1, queue_wait=60, queue_depth=4,
                        idle_seconds=600)  # fmt: skip
    layers = [str(path) for path in stack.layer_dirs()]
    pool = ContainerPool(functions, layers, FAKE_AWS, limits=limits, python=replace(SOURCE_TREE, forks=forks))
    started = time.perf_counter()
    try:
        for name in names:
            event = json.loads((ROOT / "events" / f"{name}.json").read_text()) | {
                "headers": {},
                "multiValueHeaders": {},
            }
            assert pool.invoke(name, event)["statusCode"] == 401
        return (time.perf_counter() - started) / len(names)
    finally:
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--functions", type=int, default=12)
    args = parser.parse_args()
    stack = Stack(load())
    names = sorted(n for n in stack.functions() if n.startswith("Portal") and n != "PortalFallbackFunction")
    names = [n for n in names if (ROOT / "events" / f"{n}.json").exists()][: args.functions]
    spawned, forked = [], []
    for _ in range(args.rounds):
        spawned.append(one_round(stack, names, forks=False))
        forked.append(one_round(stack, names, forks=True))
    new, fork = statistics.median(spawned), statistics.median(forked)
    print(f"{len(names)} cold starts a round, {args.rounds} rounds: new interpreter {new * 1000:.0f} ms each, "
          f"forked {fork * 1000:.0f} ms each, ratio {fork / new:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
