"""Memory size and SnapStart per function class: each class's cold path measured here, then priced and scaled.

For one function of each class (template.yaml's memory parameters), fresh interpreters time the cold
path a new execution environment pays before its first request's own work: the handler's import (the
streaming runtime loop's too), ``import boto3``, a DynamoDB client and the settings. Each sample is
taken next to a floor sample (``import boto3`` + one client), so the ratio sees the same noise.

Then, **modelled** as in docs/cost.md (this machine's core taken as one vCPU; Lambda gives 1,769 MB one
vCPU and scales CPU with memory), the cold path at 256 / 512 / 1,024 MB, and what one thousand cold
starts cost at the class's memory size: an on-demand init (billed since 2025) on arm64 against
SnapStart's restores, with SnapStart's cache charge per function and month (us-east-1 prices,
docs/decisions.md "Architecture, SnapStart and memory size").

    PYTHONPATH=layers/common:. .venv/bin/python bench/memory_classes.py [--runs 5]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script: ``local`` and ``bench`` importable when run by path

from bench import benchkit  # noqa: E402
from stack.template import Stack, load  # noqa: E402

ONE_VCPU_MB = 1769
ARM_GB_SECOND = 0.0000133334  # USD, us-east-1
SNAPSTART_CACHE_GB_SECOND = 0.0000015046
SNAPSTART_RESTORE_GB = 0.0001397998
MONTH_SECONDS = 30 * 24 * 3600

# class -> (its memory parameter, a function of the class, whether SnapStart is on by default)
CLASSES = {
    "read plane (buffered)": ("ApiMemorySize", "BrainFeedFunction", True),
    "management plane (buffered)": ("ApiMemorySize", "PortalKeysMintFunction", False),
    "r2 (streaming)": ("StreamingMemorySize", "BrainR2Function", False),
    "chat (streaming)": ("ChatMemorySize", "BrainChatFunction", False),
    "workers": ("WorkerMemorySize", "WorkspacePurgeFunction", False),
}

PROBE = """
import sys, time
sys.path[:0] = [{code!r}, {layer!r}]
start = time.perf_counter()
{runtime}import {module}
import boto3
from core.platform import aws, settings
aws.dynamodb()
settings.get_settings()
print((time.perf_counter() - start) * 1000)
"""
FLOOR = """
import time
start = time.perf_counter()
import boto3
boto3.client("dynamodb")
print((time.perf_counter() - start) * 1000)
"""


def sample(source: str, env: dict[str, str]) -> float:
    run = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, check=True)
    return float(run.stdout.strip().splitlines()[-1])


def measure(stack: Stack, function: str, runs: int) -> tuple[float, float]:
    """Median cold path of ``function`` and of the floor (ms), sampled alternately."""
    spec = stack.functions()[function]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_"))}
    env |= spec.environment | {"AWS_DEFAULT_REGION": "us-east-1", "POWERTOOLS_TRACE_DISABLED": "true"}
    module = spec.handler.rsplit(".", 1)[0]
    source = PROBE.format(
        code=str(spec.code_uri), layer=str(ROOT / "layers" / "common"), module=module,
        runtime="import core.platform.lambda_runtime.loop\n" if spec.streaming else "",
    )  # fmt: skip
    ours, floor = [], []
    for _ in range(runs):
        ours.append(sample(source, env))
        floor.append(sample(FLOOR, env))
    return benchkit.median(ours), benchkit.median(floor)


def main(argv: list[str] | None = None) -> dict[str, str]:
    parser = benchkit.parser(__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    stack = Stack(load())
    rows = []
    for name, (parameter, function, snapstart) in CLASSES.items():
        cold, floor = measure(stack, function, args.runs)
        mb = int(stack.parameters[parameter])
        gb = mb / 1024

        def at(size: int, cold: float = cold) -> float:
            return cold * ONE_VCPU_MB / size

        init_per_1k = at(mb) / 1000 * gb * ARM_GB_SECOND * 1000
        restore_per_1k = gb * SNAPSTART_RESTORE_GB * 1000
        cache_month = gb * SNAPSTART_CACHE_GB_SECOND * MONTH_SECONDS
        rows.append((
            name, function, f"{parameter} = {mb}", cold, f"{cold / floor:.2f}\u00d7", at(256), at(512), at(1024),
            f"{init_per_1k:.4f}", f"{restore_per_1k:.4f}", f"{cache_month:.2f}", "on" if snapstart else "off",
        ))  # fmt: skip
    headers = (
        "class", "function", "memory (MB)", "cold path here (ms)", "vs floor", "cold @256 MB (ms, modelled)",
        "@512", "@1,024", "on-demand init, arm64 ($ per 1k cold)", "SnapStart restores ($ per 1k)",
        "SnapStart cache ($ per month)", "SnapStart default",
    )  # fmt: skip
    markdown = (
        benchkit.table(headers, rows)
        + "\n\nCold path here: fresh interpreter, handler import + boto3 + a DynamoDB client + settings, median of "
        f"{args.runs}, each next to a floor sample (import boto3 + one client). Modelled columns scale it by "
        f"{ONE_VCPU_MB} MB / size (this core as one vCPU; an assumption, not a Lambda measurement). SnapStart "
        "costs more per cold start than the init it replaces; it is on where a visitor waits on the cold start."
    )
    return benchkit.finish(
        args,
        "Memory size and SnapStart per function class",
        benchkit.command("memory_classes.py", argv if argv is not None else sys.argv[1:]),
        markdown,
    )


if __name__ == "__main__":
    main()
