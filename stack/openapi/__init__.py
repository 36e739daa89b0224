"""OpenAPI 3.1 documents of both planes, generated from template.yaml's routes and the handlers' contracts.

``python -m stack.openapi`` writes ``docs/openapi/{portal,brain}.json``; ``--check`` exits 1 when the
checked-in files differ from what the code says now. See docs/openapi/README.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from stack.openapi.contracts import PLANES
from stack.openapi.document import build
from stack.template import ROOT

OUT_DIR = ROOT / "docs" / "openapi"


def render(plane: str) -> str:
    return json.dumps(build(plane), indent=2, ensure_ascii=False) + "\n"


def path_of(plane: str) -> Path:
    return OUT_DIR / f"{plane}.json"


def drifted() -> list[str]:
    """Planes whose checked-in document is missing or differs from a fresh generation."""
    return [p for p in PLANES if not path_of(p).exists() or path_of(p).read_text() != render(p)]
