"""DELETE /api/workspaces/{workspaceId}/keys/{keyId}: {}; owner or admin; idempotent; unknown key 404."""

from core import deps
from core.contract import contract
from core.errors import Forbidden, NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/keys/<keyId>")
@contract("Revoke a workspace key", response="envelopes.Empty", errors=(NotFound, Forbidden))
def revoke_key(workspaceId: str, keyId: str):
    deps.key_admin().revoke(portal_caller(app).user_id, workspaceId, keyId)
    return json_response({})


def lambda_handler(event, context):
    return app.resolve(event, context)
