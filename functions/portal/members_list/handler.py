"""GET /api/workspaces/{workspaceId}/members: the workspace's members; members only."""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound
from core.workspaces import providers as workspaces
from core.workspaces.models import Member

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/members")
@contract("A workspace's members", response=list[Member], errors=(NotFound,))
def list_members(workspaceId: str):
    return json_response(workspaces.service().members(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
