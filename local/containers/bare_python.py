"""Run a module or a script as a built function runs on Lambda: with nothing on the path but the standard library
and what the function and its layer bring.

    python -S -P local/containers/bare_python.py -m core.platform.lambda_runtime
    python -S -P local/containers/bare_python.py local/containers/worker.py <code_dir> <module.function> <layer_dir>

Started with ``-S`` (no site-packages: neither the virtualenv's nor the interpreter's own) and ``-P`` (neither
the script's folder nor the working directory on the path), so a module the package lacks is missing here as on
AWS, instead of being found in the development virtualenv or the source tree. With ``LOCAL_IMPORT_MISSES`` set to
a folder, every import no finder could satisfy is appended to ``<folder>/<pid>.txt``: the package check
(``ops.package_check``) compares them with what the development environment has, so a dependency reached only on
some request (``jwt`` on a portal token, ``boto3`` on the first AWS call) is caught where that request ran.

Standard library only: nothing else is importable when this starts.
"""

from __future__ import annotations

import os
import runpy
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any


class MissRecorder:
    """On ``sys.meta_path`` after the standard finders: asks the finders placed after it (a package's own, as
    ``six`` adds for ``six.moves``) and, when none finds the module either, notes its name and finds nothing."""

    def __init__(self, record: Path) -> None:
        self.record = record

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                return spec
        with self.record.open("a") as misses:
            misses.write(name + "\n")
        return None


def main() -> None:
    folder = os.environ.get("LOCAL_IMPORT_MISSES")
    if folder:
        sys.meta_path.append(MissRecorder(Path(folder) / f"{os.getpid()}.txt"))
    target, *args = sys.argv[1:]
    if target == "-m":
        module, *args = args
        sys.argv = [module, *args]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target, *args]
        runpy.run_path(target, run_name="__main__")


if __name__ == "__main__":
    main()
