"""``python -m stack.route_table``: write ``layers/common/core/routes.json`` from template.yaml.

template.yaml is the one source of truth for routes, but a deployed function cannot read
it. The fallback function answers 405 with ``Allow`` (RFC 9110) listing the methods of the
resource, so the table it reads is generated from the template and checked in inside the
layer; a test fails when it drifts (``tests/unit/http/test_boundary_routes.py``).

Per plane (the fallback's ``API_PLANE``), per resource path: the routed methods, plus
``OPTIONS`` where the API's ``Cors`` answers preflight on every path. ``HEAD`` only where it is
routed: a REST API sends a HEAD on a GET-only resource to the ``ANY`` method (the fallback).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stack.template import ROOT, Stack, load

TABLE = ROOT / "layers" / "common" / "core" / "routes.json"
CATCH_ALL = "/{proxy+}"


def route_table(stack: Stack) -> dict[str, dict[str, list[str]]]:
    functions = stack.functions()
    table: dict[str, dict[str, list[str]]] = {}
    for api in stack.of_type("AWS::Serverless::Api"):
        routes = stack.routes(api)
        fallback = next(r.function for r in routes if r.path == CATCH_ALL and r.method == "ANY")
        plane = functions[fallback].environment["API_PLANE"]
        cors = bool(stack.resources[api]["Properties"].get("Cors"))
        methods: dict[str, set[str]] = {}
        for route in routes:
            if route.function != fallback:
                methods.setdefault(route.path, set()).add(route.method)
        table[plane] = {
            path: sorted(found | ({"OPTIONS"} if cors else set())) for path, found in sorted(methods.items())
        }
    return dict(sorted(table.items()))


def render(stack: Stack | None = None) -> str:
    table: Any = route_table(stack or Stack(load()))
    return json.dumps(table, indent=2, sort_keys=True) + "\n"


def main(path: Path = TABLE) -> None:
    path.write_text(render())
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
