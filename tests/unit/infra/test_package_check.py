"""ops.package_check's probes: the bare interpreter sees neither the virtualenv nor the source tree, and the
runner's launcher (local/containers/bare_python.py) records every import no finder could satisfy."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from local.containers.package import LAUNCHER, isolated
from ops.package_check.__main__ import _probe
from stack.template import FunctionSpec


def function(tmp: Path, code: str) -> FunctionSpec:
    folder = tmp / "function"
    folder.mkdir(parents=True)
    (folder / "handler.py").write_text(code)
    return FunctionSpec("Probed", folder, "handler.lambda_handler", timeout=3, memory=128)


def test_a_handler_that_needs_the_virtualenv_does_not_import(tmp_path: Path) -> None:
    """pytest is in this virtualenv, and core in the source tree: neither is there for a built function."""
    for needed in ("pytest", "core.http"):
        problem = _probe(function(tmp_path / needed, f"import {needed}\n"), str(tmp_path / "empty-layer"))
        assert problem is not None and f"No module named '{needed.split('.')[0]}'" in problem, problem


def test_a_handler_of_the_standard_library_and_its_layer_imports(tmp_path: Path) -> None:
    layer = tmp_path / "layer"
    (layer / "shared").mkdir(parents=True)
    (layer / "shared" / "__init__.py").write_text("VALUE = 1\n")
    assert _probe(function(tmp_path, "import json\nimport shared\n"), str(layer)) is None


def test_the_launcher_records_the_imports_nothing_could_find(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text("try:\n    import jwt\nexcept ImportError:\n    pass\nimport json\n")
    misses = tmp_path / "misses"
    misses.mkdir()
    env = {"PATH": os.environ["PATH"], "LOCAL_IMPORT_MISSES": str(misses)}
    subprocess.run([*isolated(), str(LAUNCHER), str(script)], env=env, check=True, timeout=30)
    assert [line for record in misses.iterdir() for line in record.read_text().split()] == ["jwt"]
