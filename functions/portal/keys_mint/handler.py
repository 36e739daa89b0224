"""POST /api/workspaces/{workspaceId}/keys {name, rateLimit?}: 201 {key} with the raw key, once.

Owner or admin (else 403); the owner's plan must include keys (else 402
API_KEYS_NOT_AVAILABLE). Honours ``Idempotency-Key``: a retry mints nothing new and
gets the same key back, re-derived (the raw key is never stored).
"""

from core import deps
from core.auth.api_keys import generate
from core.http import header, json_response, parse_body, portal_api, portal_caller
from core.models.management import MintKeyRequest

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/keys")
def mint_key(workspaceId: str):
    user_id = portal_caller(app).user_id
    admin = deps.key_admin()
    workspace = admin.require_manager(user_id, workspaceId)  # access (404/403) before the body (400)
    request = parse_body(app, MintKeyRequest)

    def mint(replay_of: str | None) -> tuple[int, dict]:
        key = admin.mint(user_id, workspaceId, request.name, request.rate_limit, replay_of, workspace=workspace)
        return 201, {"key": key.wire()}

    outcome = deps.idempotency().run(
        header(app, "Idempotency-Key"), scope=f"{user_id}|mint-key|{workspaceId}", request=request.model_dump_json(),
        work=mint, redact=lambda body: {"key": {k: v for k, v in body["key"].items() if k != "key"}},
    )  # fmt: skip
    body = outcome.body
    if outcome.replayed and outcome.key_hash:
        admin.check_can_mint(user_id, workspaceId)  # a replay is still subject to today's access rules
        body = {"key": body["key"] | {"key": generate(admin.replay_secret(user_id, workspaceId, outcome.key_hash))}}
    return json_response(body, status=outcome.status)


def lambda_handler(event, context):
    return app.resolve(event, context)
