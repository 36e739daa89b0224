"""DELETE /api/workspaces/{workspaceId}/keys/{keyId}: {}; owner or admin; idempotent; unknown key 404."""

from core.http import json_response, portal_api, portal_caller
from core.keys import providers as keys
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/keys/<keyId>")
@contract("Revoke a workspace key", response="platform.envelopes.Empty", errors=(NotFound, Forbidden))
def revoke_key(workspaceId: str, keyId: str):
    keys.admin().revoke(portal_caller(app).user_id, workspaceId, keyId)
    return json_response({})


def lambda_handler(event, context):
    return app.resolve(event, context)
