"""POST /api/workspaces/{workspaceId}/agents/{agentId}/items: 201 {item}.

The body: ``name``, ``kind``, ``r2Key``, and optionally ``folder``, ``order``, ``origin``, ``active``.

``r2Key`` is workspace-relative and must be an object under ``projects/<agentId>/``; ``mimeType`` and ``size`` are
read from it. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.items import providers as items
from core.items.writer_models import ItemCreate
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/items")
@contract(
    "Create an item",
    body=ItemCreate,
    response="items.writer_models.ItemEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_item(workspaceId: str, agentId: str):
    writer = author(app, status=201)
    request = parse_body(app, ItemCreate, first=as_writer(app, workspaceId))
    return json_response(items.writer().create(writer, workspaceId, agentId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
