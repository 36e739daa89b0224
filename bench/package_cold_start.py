"""The deployed package's cold path with and without the layer's bytecode (``layers/common/Makefile``).

Lambda mounts the layer read-only at /opt: a module without a .pyc beside it is compiled again by every cold start,
and nothing is written for the next. This copies what ``sam build`` made for some functions (``--built``, as
``make package-build`` leaves it) twice: once as built (every module with its hash-based .pyc) and once with every
.pyc removed (the layer as it was built before). Each fresh bare interpreter (``-S -P``, no site-packages, no
bytecode written, as on Lambda) then imports the handler and makes its first DynamoDB client, the whole path to a
first answer's AWS call; the two kinds alternate, and the figure is the CPU time of each and their ratio in the run.

    PYTHONPATH=layers/common:. .venv/bin/python bench/package_cold_start.py [--built .aws-sam/build-x86_64] \\
        [--runs 5] [--json PATH]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import ROOT, command, finish, parser, table  # noqa: E402

TITLE = "The deployed package's cold path: the layer's bytecode"
FUNCTIONS = ("BrainFeedFunction", "BrainChatFunction", "PortalPostCreateFunction")
PROBE = """
import sys, time
started = time.process_time()
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import handler
import boto3
boto3.client("dynamodb")
print(round((time.process_time() - started) * 1000, 1))
"""


def cold_path_ms(function: Path, layer: Path, environment: dict[str, str]) -> float:
    from local.containers.package import isolated

    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"} | environment
    done = subprocess.run([*isolated(), "-c", PROBE, str(function), str(layer)], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__)
    args.add_argument("--built", type=Path, default=ROOT / ".aws-sam" / "build-x86_64")
    args.add_argument("--runs", type=int, default=5)
    opts = args.parse_args(argv)
    from stack.template import Stack, load

    functions = Stack(load()).functions()
    layer = opts.built / "CommonLayer" / "python"
    if not layer.is_dir():
        raise SystemExit(f"{layer}: not built (make package-build)")
    assert any(layer.rglob("*.pyc")), f"{layer}: no bytecode (built before layers/common/Makefile compiled it?)"
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / "layer"
        shutil.copytree(layer, stripped, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for name in FUNCTIONS:
            code = opts.built / name
            env = functions[name].environment | {"AWS_DEFAULT_REGION": "us-east-1"}
            with_bytecode, from_source = [], []
            for _ in range(opts.runs):  # alternating, so both kinds see the same machine
                with_bytecode.append(cold_path_ms(code, layer, env))
                from_source.append(cold_path_ms(code, stripped, env))
            a, b = statistics.median(from_source), statistics.median(with_bytecode)
            rows.append([name, a, b, f"{b / a:.2f}x"])
    markdown = "\n\n".join([
        table(["function", "CPU ms, layer without bytecode", "CPU ms, layer as built", "ratio"], rows),
        f"CPU time of a fresh bare interpreter (no site-packages, nothing written) from its start to its first "
        f"DynamoDB client, the handler imported: median of {opts.runs}, the two layers alternating. The function's "
        "own folder (its handler) is the same in both.",
    ])  # fmt: skip
    return finish(opts, TITLE, command("package_cold_start.py", sys.argv[1:] if argv is None else argv), markdown)


if __name__ == "__main__":
    main()
