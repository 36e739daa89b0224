"""PATCH /api/workspaces/{workspaceId}/agents/{agentId}/items/{itemId}: any of the create fields; 200 {item}.

A new ``r2Key`` is checked and read as at creation; ``active: false`` takes it off the read plane at once. Owner or
admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.items import providers as items
from core.items.writer_models import ItemUpdate
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/agents/<agentId>/items/<itemId>")
@contract(
    "Change an item",
    body=ItemUpdate,
    response="items.writer_models.ItemEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_item(workspaceId: str, agentId: str, itemId: str):
    writer = author(app)
    request = parse_body(app, ItemUpdate, first=as_writer(app, workspaceId))
    return json_response(items.writer().update(writer, workspaceId, agentId, itemId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
