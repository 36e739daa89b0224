"""GET /api/workspaces/{workspaceId}/brands: the workspace's brands, default first; members only."""

from core.brands import providers as brands
from core.brands.models import Brand
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/brands")
@contract("A workspace's brands, default first", response=list[Brand], errors=(NotFound,))
def list_brands(workspaceId: str):
    return json_response(brands.reader().list(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
