"""POST /api/workspaces/{workspaceId}/keys {name, rateLimit?}: 201 {key} with the raw key, once.

Owner or admin (else 403); the owner's plan must include keys (else 402
API_KEYS_NOT_AVAILABLE). Honours ``Idempotency-Key``: a retry mints nothing new and
gets the same key back, re-derived (the raw key is never stored); once the 24 h
record is gone, the same header mints a new key (``KeyAdminService.mint_once``).
"""

from core.http import author, json_response, parse_body, portal_api, portal_caller
from core.keys import providers as keys
from core.keys.models import MintKeyRequest
from core.platform.contract import contract
from core.platform.errors import ApiKeysNotAvailable, Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/keys")
@contract(
    "Mint a workspace key (the raw key is in this answer only)", body=MintKeyRequest,
    response="keys.models.MintedKeyEnvelope", status=201,
    errors=(NotFound, Forbidden, ValidationFailed, ApiKeysNotAvailable, Conflict), request_headers=("Idempotency-Key",),
)  # fmt: skip
def mint_key(workspaceId: str):
    user_id = portal_caller(app).user_id
    admin = keys.admin()
    workspace = admin.require_manager(user_id, workspaceId)  # access (404/403) before the body (400)
    request = parse_body(app, MintKeyRequest)
    minted = admin.mint_once(author(app, status=201), workspaceId, request, workspace=workspace)
    return json_response(minted, status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
