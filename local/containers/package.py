"""Where the runner's functions come from, and which Python runs them.

From the source tree (``make serve``, the tests): each function's ``CodeUri`` and the layer's folder, run by the
development virtualenv's Python. From a built package (``python -m local --built .aws-sam/build-x86_64``): what
``sam build`` made for AWS, each function from ``<build>/<LogicalId>`` and the layer from
``<build>/<LayerLogicalId>/python`` (Lambda's ``/opt/python``), run by the bare interpreter with ``-S -P`` through
``bare_python.py`` (beside this module), so that only the standard library, the function and its layer can be
imported: a module or dependency the package lacks fails here as it would on AWS (``make package-check``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

from stack.template import FunctionSpec, Stack

LAUNCHER = Path(__file__).resolve().with_name("bare_python.py")
WORKER = Path(__file__).resolve().with_name("worker.py")


@dataclass(frozen=True)
class Python:
    """The commands that start a function's process: a buffered container's worker (its arguments follow), and
    the interpreter the layer's ``stream-bootstrap`` runs the Runtime API loop with (one executable)."""

    worker: tuple[str, ...]
    runtime: str
    forks: bool = False  # buffered containers are forked from a warmed process (``fork_server``), not started


SOURCE_TREE = Python(worker=(sys.executable, "-m", "local.containers.worker"), runtime=sys.executable, forks=True)


def bare_interpreter() -> Path:
    """The Python the virtualenv was made from (``sys.base_prefix``): the same version, no packages of the venv."""
    found = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not found.exists():
        raise FileNotFoundError(f"{found}: the base interpreter of {sys.executable} is missing")
    return found


def isolated() -> list[str]:
    """The bare interpreter with ``-S`` (no site-packages) and ``-P`` (no script or working folder on the path)."""
    return [str(bare_interpreter()), "-S", "-P"]


def bare_python(scratch: Path) -> Python:
    """The isolated interpreter behind the launcher; ``stream-bootstrap`` takes one executable, so a two-line script
    in ``scratch`` stands for it."""
    command = (*isolated(), str(LAUNCHER))
    scratch.mkdir(parents=True, exist_ok=True)
    runtime = scratch / "bare-python"
    runtime.write_text("#!/bin/sh\nexec " + " ".join(f"'{part}'" for part in command) + ' "$@"\n')
    runtime.chmod(0o755)
    return Python(worker=(*command, str(WORKER)), runtime=str(runtime))


@dataclass(frozen=True)
class Package:
    functions: dict[str, FunctionSpec]
    layers: list[str]
    python: Python


def source_tree(stack: Stack) -> Package:
    return Package(stack.functions(), [str(path) for path in stack.layer_dirs()], SOURCE_TREE)


def built(stack: Stack, build_dir: Path, scratch: Path) -> Package:
    """The functions and layers of ``sam build``'s output in ``build_dir``; every one must be there."""
    functions = {name: replace(spec, code_uri=build_dir / name) for name, spec in stack.functions().items()}
    layers = [build_dir / name / "python" for name in stack.of_type("AWS::Serverless::LayerVersion")]
    missing = [str(path) for path in [*(s.code_uri for s in functions.values()), *layers] if not path.is_dir()]
    if missing:
        raise FileNotFoundError(f"not built (make package-build): {', '.join(missing[:5])}")
    return Package(functions, [str(path) for path in layers], bare_python(scratch))
