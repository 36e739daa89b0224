"""POST /api/workspaces/{workspaceId}/webhooks/{webhookId}/rotate: 200 {secret}.

A new ``whsec_…`` secret, shown this once; for 24 hours deliveries carry two signatures, the new secret's and the
previous one's, so a receiver can switch without losing one. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.webhooks import providers as webhooks

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/webhooks/<webhookId>/rotate")
@contract(
    "Rotate a webhook's secret",
    response="webhooks.writer_models.WebhookSecret",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def rotate_webhook(workspaceId: str, webhookId: str):
    return json_response(webhooks.writer().rotate(author(app), workspaceId, webhookId))


def lambda_handler(event, context):
    return app.resolve(event, context)
