"""GET /api/workspaces/{workspaceId}/brands: the workspace's brands, default first; members only."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller
from core.models.management import Brand

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/brands")
@contract("A workspace's brands, default first", response=list[Brand], errors=(NotFound,))
def list_brands(workspaceId: str):
    return json_response(deps.workspaces().brands(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
