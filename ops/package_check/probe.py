"""Run by the bare interpreter (``-S -P``, through ``local/containers/bare_python.py``) on a built function: imports its
handler module as Lambda does, and prints where every loaded module came from, with the standard library's place.

    probe.py <function_dir> <layer_dir> <handler module> [<module> ...]

Standard library only: nothing else is importable when this starts.
"""

from __future__ import annotations

import importlib
import json
import sys
import sysconfig


def main() -> None:
    function_dir, layer_dir, *modules = sys.argv[1:]
    sys.path[:0] = [function_dir, layer_dir]
    for module in modules:
        importlib.import_module(module)
    files = sorted({getattr(m, "__file__", None) or "" for m in list(sys.modules.values())} - {"", __file__})
    stdlib = sorted({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})
    print(json.dumps({"files": files, "stdlib": stdlib, "path": sys.path}))


if __name__ == "__main__":
    main()
