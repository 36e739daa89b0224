"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}: {}; owner or admin.

Honours ``Idempotency-Key``.
"""

from core import deps
from core.contract import contract
from core.errors import Conflict, Forbidden, NotFound
from core.http import author, json_response, portal_api

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>/items/<itemId>")
@contract(
    "Delete an item",
    response="envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_item(workspaceId: str, agentId: str, itemId: str):
    writer = author(app)
    status, body = deps.items().delete(writer, workspaceId, agentId, itemId)
    return json_response(body, status=status)


def lambda_handler(event, context):
    return app.resolve(event, context)
