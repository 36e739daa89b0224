"""Generate the client's models and JSON operations from the service's OpenAPI documents.

    python clients/python/generate.py            # rewrite src/workspace_client/_generated/*.py
    python clients/python/generate.py --check    # exit 1 if the committed files differ (the drift test)

Input: ``docs/openapi/{portal,brain}.json`` (written by ``make openapi`` from the handlers' own models).
Output, per plane: ``models_<plane>.py`` (one pydantic class per component schema, snake_case
attributes with the wire's camelCase as aliases) and ``operations_<plane>.py`` (one typed method per
JSON operation, sync and async). Operations that do not answer JSON are written by hand and listed in
``HAND_WRITTEN`` (``clientgen/operations.py``); an operation that is neither fails the generation, so a
new route cannot be missed. The output is formatted with ruff (the repository's configuration), so it
is stable. This file is the command line and the file layout; the rendering is in ``clientgen/``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from clientgen.models import render_models
from clientgen.operations import render_operations

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent.parent / "docs" / "openapi"
OUTPUT = HERE / "src" / "workspace_client" / "_generated"
PLANES = ("portal", "brain")


def formatted(source: str, target: Path) -> str:
    """``source`` as ruff formats (and fixes) it under the repository's configuration for ``target``."""
    ruff = [sys.executable, "-m", "ruff"]
    name = ["--stdin-filename", str(target)]
    fixed = subprocess.run(  # noqa: S603 (this interpreter's ruff, fixed arguments)
        [*ruff, "check", "--fix-only", "--exit-zero", "--quiet", *name, "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE,
    ).stdout
    return subprocess.run(  # noqa: S603
        [*ruff, "format", "--quiet", *name, "-"], input=fixed, capture_output=True, text=True, check=True, cwd=HERE
    ).stdout


def render(docs: Path = DOCS) -> dict[Path, str]:
    """Every generated file: its path and its content."""
    files = {OUTPUT / "__init__.py": '"""Generated from docs/openapi by clients/python/generate.py: do not edit."""\n'}
    for plane in PLANES:
        document = json.loads((docs / f"{plane}.json").read_text())
        for stem, source in (
            (f"models_{plane}", render_models(plane, document)),
            (f"operations_{plane}", render_operations(plane, document)),
        ):
            target = OUTPUT / f"{stem}.py"
            files[target] = formatted(source, target)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    args = parser.parse_args()
    files = render()
    stale = [path for path, text in files.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(HERE)} (run python clients/python/generate.py)")
        return 1 if stale else 0
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for path in stale:
        path.write_text(files[path])
        print(f"wrote {path.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
