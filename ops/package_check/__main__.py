"""``python -m ops.package_check --built DIR`` (``make package-check``): the package that deploys, checked as it runs.

The tests, the runner and the benches import ``layers/common/core`` from the source tree with the development
virtualenv's packages; AWS runs what ``sam build`` packaged (the layer's own requirements, built by
``layers/common/Makefile``). A module or dependency the package lacks would fail every function on its first
request with no test noticing. So, on ``sam build``'s output for this machine's CPU (``make package-build``), each
in the bare interpreter with ``-S -P`` (the standard library, the function and its layer, nothing else):

1. every module the layer's and the functions' code imports anywhere (inside functions too) is in the package;
2. every function's handler imports, and every module it loads comes from its folder, the layer or the
   standard library;
3. the local runner serves the built functions (``python -m local --built``) while ``make smoke`` passes against
   it, and no function's process missed an import that the development environment has (``LOCAL_IMPORT_MISSES``).

Exit status 1 on any problem, each named.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from local.containers.package import Package, built, isolated
from stack.template import ROOT, FunctionSpec, Stack, load

from .imports import OWN_LIBRARIES, code_imports, imported, missing, reader_files

PROBE = Path(__file__).with_name("probe.py")
SCRATCH = ROOT / ".local" / "package-check"


def unpackaged_imports(package: Package) -> list[str]:
    """Check 1: what the code imports that the layer lacks; what the knowledge worker's readers import, that its own
    package and the layer lack."""
    layer = Path(package.layers[0])
    readers = reader_files(layer / "core")
    names = code_imports({layer / "core": ["core"]}, skip=readers)
    # A function's own code is its handler module; the libraries packaged beside it (the knowledge worker's) import
    # optional modules of their own, theirs to go without.
    for spec in package.functions.values():
        names |= imported(spec.code_uri / f"{spec.handler.rsplit('.', 1)[0]}.py", [])
    problems = [f"imported but not in the package: {name}" for name in missing(names, layer, isolated())]
    for function in OWN_LIBRARIES:
        names = code_imports({layer / "core": ["core"]}) - code_imports({layer / "core": ["core"]}, skip=readers)
        lacking = missing(names, layer, isolated(), function=package.functions[function].code_uri)
        problems += [f"{function}: imported but not in its package: {name}" for name in lacking]
    return problems


def _probe(spec: FunctionSpec, layer: str) -> str | None:
    """Check 2 for one function: None when its handler imports from its folder, the layer and the stdlib alone."""
    modules = [spec.handler.rsplit(".", 1)[0]] + (["core.platform.lambda_runtime.loop"] if spec.streaming else [])
    answer = subprocess.run(  # noqa: S603 - the bare interpreter and our own probe
        [*isolated(), str(PROBE), str(spec.code_uri), layer, *modules],
        capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "")}, cwd=ROOT, check=False,
    )  # fmt: skip
    if answer.returncode != 0:
        return f"{spec.logical_id}: its handler does not import: {answer.stderr.strip().splitlines()[-1:]}"
    found = json.loads(answer.stdout)
    allowed = (str(spec.code_uri), layer, *found["stdlib"])
    strays = [file for file in found["files"] if not file.startswith(allowed)]
    return f"{spec.logical_id}: loaded from outside the package: {strays[:3]}" if strays else None


def handlers_import(package: Package) -> list[str]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = pool.map(lambda spec: _probe(spec, package.layers[0]), package.functions.values())
        return [problem for problem in found if problem]


# Imports a built function tries and may go without: the development environment has them for other reasons.
OPTIONAL = {
    "certifi": "botocore takes certifi's CA bundle when installed, else its own (requests brings it to the venv)",
}


def _found_here(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # its parent package is not here either
        return False


def served(build_dir: Path) -> list[str]:
    """Check 3: the built functions behind the runner, ``make smoke`` against them, and the imports they missed."""
    from ops.smoke import running_local, smoke
    from stack.process import RunnerProcess

    misses = SCRATCH / "import-misses"
    misses.mkdir(parents=True)
    runner = RunnerProcess(
        SCRATCH / "runner", built=build_dir, env={"LOCAL_DEMO_TEMPLATE": "1"},
        function_env={"LOCAL_IMPORT_MISSES": str(misses)},
    )  # fmt: skip
    runner.start()
    try:
        target = running_local(SCRATCH / "runner")
        if target is None:
            return ["the runner of the built package did not start"]
        checks, _ = smoke(target)
    finally:
        runner.stop()
    problems = [f"make smoke against the built package: {checks.failed} check(s) failed"] if checks.failed else []
    missed = {name for record in misses.glob("*.txt") for name in record.read_text().split()} - OPTIONAL.keys()
    # A miss the development environment would have found is a module the package lacks (an optional import that
    # is nowhere, like botocore's awscrt, is missed in both).
    lacking = sorted(name for name in missed if _found_here(name))
    problems += [f"a built function missed an import the development environment has: {name}" for name in lacking]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ops.package_check", description=__doc__)
    parser.add_argument("--built", type=Path, required=True, help="sam build's output (make package-build)")
    parser.add_argument("--no-serve", action="store_true", help="checks 1 and 2 only (no runner, no smoke)")
    args = parser.parse_args(argv)
    build_dir = args.built.resolve()
    shutil.rmtree(SCRATCH, ignore_errors=True)
    package = built(Stack(load()), build_dir, SCRATCH)
    started = time.monotonic()
    steps: list[tuple[str, Callable[[Package], list[str]]]] = [
        ("imports", unpackaged_imports), ("handlers", handlers_import)
    ]  # fmt: skip
    if not args.no_serve:
        steps.append(("served", lambda _: served(build_dir)))
    problems: list[str] = []
    for name, step in steps:
        began = time.monotonic()
        found = step(package)
        problems += found
        print(f"package-check: {name}: {'ok' if not found else f'{len(found)} problem(s)'} "
              f"({time.monotonic() - began:.1f} s)", flush=True)  # fmt: skip
    for problem in problems:
        print(f"package-check: {problem}", flush=True)
    verdict = "FAILED" if problems else "passed"
    print(f"package-check: {verdict}: {len(package.functions)} functions from {build_dir} "
          f"in {time.monotonic() - started:.1f} s", flush=True)  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
