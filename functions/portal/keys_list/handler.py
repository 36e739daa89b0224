"""GET /api/workspaces/{workspaceId}/keys: {keys: [metadata]}, newest first, revoked included; never raw keys."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/keys")
@contract("A workspace's key metadata, newest first", response="envelopes.KeyList", errors=(NotFound,))
def list_keys(workspaceId: str):
    keys = deps.key_admin().list(portal_caller(app).user_id, workspaceId)
    return json_response({"keys": [k.wire() for k in keys]})


def lambda_handler(event, context):
    return app.resolve(event, context)
