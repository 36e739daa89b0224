"""GET /api/workspaces/{workspaceId}/keys: {keys: [metadata]}, newest first, revoked included; never raw keys."""

from core.http import json_response, portal_api, portal_caller
from core.keys import providers as keys
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/keys")
@contract("A workspace's key metadata, newest first", response="keys.models.KeyList", errors=(NotFound,))
def list_keys(workspaceId: str):
    found = keys.admin().list(portal_caller(app).user_id, workspaceId)
    return json_response({"keys": [k.wire() for k in found]})


def lambda_handler(event, context):
    return app.resolve(event, context)
