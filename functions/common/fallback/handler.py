"""Whatever API Gateway did not route: 404 NOT_FOUND, or 405 METHOD_NOT_ALLOWED (with ``Allow``) on a known path.

Bound to ``/{proxy+}`` (any unknown path) and to ``ANY`` on every known path (an
explicit method on the same path wins in API Gateway, so only the wrong ones land here).
The methods of each path come from ``core/routes.json``, generated from template.yaml
(``python -m stack.route_table``) and read on the first 405 only.
"""

import json
from functools import cache
from pathlib import Path

import core
from core.http import fallback_api
from core.platform.settings import get_settings


@cache
def _route_table() -> dict[str, dict[str, list[str]]]:
    return json.loads((Path(core.__file__).parent / "routes.json").read_text())


def allowed_methods(resource: str) -> list[str]:
    return _route_table().get(get_settings().api_plane, {}).get(resource, [])


app = fallback_api(allowed_methods)


def lambda_handler(event, context):
    return app.resolve(event, context)
