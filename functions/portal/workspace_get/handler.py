"""GET /api/workspaces/{workspaceId}: {workspace}; members only (anyone else gets 404)."""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound
from core.workspaces import providers as workspaces

app = portal_api()


@app.get("/api/workspaces/<workspaceId>")
@contract("A workspace", response="workspaces.models.WorkspaceEnvelope", errors=(NotFound,))
def get_workspace(workspaceId: str):
    workspace = workspaces.service().get(portal_caller(app).user_id, workspaceId)
    return json_response({"workspace": workspace.wire()})


def lambda_handler(event, context):
    return app.resolve(event, context)
