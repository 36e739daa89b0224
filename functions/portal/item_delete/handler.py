"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}: {}; owner or admin.

Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.items import providers as items
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>/items/<itemId>")
@contract(
    "Delete an item",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_item(workspaceId: str, agentId: str, itemId: str):
    writer = author(app)
    return json_response(items.writer().delete(writer, workspaceId, agentId, itemId))


def lambda_handler(event, context):
    return app.resolve(event, context)
