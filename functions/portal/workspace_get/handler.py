"""GET /api/workspaces/{workspaceId}: {workspace}; members only (anyone else gets 404)."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>")
@contract("A workspace", response="envelopes.WorkspaceEnvelope", errors=(NotFound,))
def get_workspace(workspaceId: str):
    workspace = deps.workspaces().get(portal_caller(app).user_id, workspaceId)
    return json_response({"workspace": workspace.wire()})


def lambda_handler(event, context):
    return app.resolve(event, context)
