"""GET /api/workspaces/{workspaceId}/members: the workspace's members; members only."""

from core import deps
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/members")
def list_members(workspaceId: str):
    return json_response(deps.workspaces().members(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
