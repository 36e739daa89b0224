"""GET /api/workspaces/{workspaceId}/members: the workspace's members; members only."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller
from core.models.management import Member

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/members")
@contract("A workspace's members", response=list[Member], errors=(NotFound,))
def list_members(workspaceId: str):
    return json_response(deps.workspaces().members(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
