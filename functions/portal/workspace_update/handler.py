"""PATCH /api/workspaces/{workspaceId}: change a workspace's settings; owner or admin. 200 {workspace}.

Any of ``name``, ``listed``, ``storeConversations``, ``wrapConfig`` (a JSON object, at most 64 KiB),
``defaultBrandId`` and ``defaultWorkflowId`` (each this workspace's); the slug never changes. A member is 403,
anyone else 404. Honours ``Idempotency-Key``.
"""

from core import deps
from core.contract import contract
from core.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.models.authoring.requests import WorkspaceUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>")
@contract(
    "Change a workspace's settings",
    body=WorkspaceUpdate,
    response="envelopes.WorkspaceEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_workspace(workspaceId: str):
    writer = author(app)
    request = parse_body(app, WorkspaceUpdate, first=as_writer(app, workspaceId))
    status, body = deps.workspace_settings().update(writer, workspaceId, request)
    return json_response(body, status=status)


def lambda_handler(event, context):
    return app.resolve(event, context)
