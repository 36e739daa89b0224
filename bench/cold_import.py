"""Cold import time of each handler: a fresh interpreter per sample, as a Lambda cold start has.

Measures ``import handler`` (module-level work only: the layer, Powertools, pydantic
models). No AWS client is created at import, so this is the whole init phase a
handler adds before its first request. Prints a table of median / min / max in ms.

    .venv/bin/python bench/cold_import.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path

from local.template import Stack, load  # noqa: E402

PROBE = """
import sys, time
sys.path[:0] = [{code!r}, {layer!r}]
start = time.perf_counter()
import {module}
print((time.perf_counter() - start) * 1000)
"""


def sample(code: Path, layer: Path, module: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {"PYTHONDONTWRITEBYTECODE": "0"}
    probe = PROBE.format(code=str(code), layer=str(layer), module=module)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    stack = Stack(load())
    layer = stack.layer_dirs()[0]
    print(f"{'function':34} {'median':>8} {'min':>8} {'max':>8}   (ms, {args.runs} fresh interpreters each)")
    for name, spec in sorted(stack.functions().items()):
        module = spec.handler.rsplit(".", 1)[0]
        sample(spec.code_uri, layer, module)  # warm the bytecode cache, as a deployed package has .pyc files
        times = [sample(spec.code_uri, layer, module) for _ in range(args.runs)]
        print(f"{name:34} {statistics.median(times):8.1f} {min(times):8.1f} {max(times):8.1f}")


if __name__ == "__main__":
    main()
