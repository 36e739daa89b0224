"""DELETE /api/workspaces/{workspaceId}/keys/{keyId}: {}; owner or admin; idempotent; unknown key 404; audited."""

from core.http import author, json_response, portal_api
from core.keys import providers as keys
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/keys/<keyId>")
@contract("Revoke a workspace key", response="platform.envelopes.Empty", errors=(NotFound, Forbidden))
def revoke_key(workspaceId: str, keyId: str):
    keys.admin().revoke(author(app), workspaceId, keyId)
    return json_response({})


def lambda_handler(event, context):
    return app.resolve(event, context)
