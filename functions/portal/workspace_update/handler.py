"""PATCH /api/workspaces/{workspaceId}: change a workspace's settings; owner or admin. 200 {workspace}.

Any of ``name``, ``listed``, ``storeConversations``, ``wrapConfig`` (a JSON object, at most 64 KiB),
``defaultBrandId`` and ``defaultWorkflowId`` (each this workspace's); the slug never changes. A member is 403,
anyone else 404. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import WorkspaceUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>")
@contract(
    "Change a workspace's settings",
    body=WorkspaceUpdate,
    response="workspaces.models.WorkspaceEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_workspace(workspaceId: str):
    writer = author(app)
    request = parse_body(app, WorkspaceUpdate, first=as_writer(app, workspaceId))
    return json_response(workspaces.writer().update(writer, workspaceId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
