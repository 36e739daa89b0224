"""DELETE /api/workspaces/{workspaceId}/brands/{brandId}: {}; owner or admin.

409 CONFLICT for the workspace's default brand and for a brand an agent uses. Honours ``Idempotency-Key``.
"""

from core.brands import providers as brands
from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/brands/<brandId>")
@contract(
    "Delete a brand",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_brand(workspaceId: str, brandId: str):
    writer = author(app)
    return json_response(brands.writer().delete(writer, workspaceId, brandId))


def lambda_handler(event, context):
    return app.resolve(event, context)
