"""DELETE /api/workspaces/{workspaceId}/webhooks/{webhookId}: 200 {}; owner or admin.

Nothing more is sent to it; its deliveries expire with their 30 days. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.webhooks import providers as webhooks

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/webhooks/<webhookId>")
@contract(
    "Delete a webhook",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_webhook(workspaceId: str, webhookId: str):
    return json_response(webhooks.writer().delete(author(app), workspaceId, webhookId))


def lambda_handler(event, context):
    return app.resolve(event, context)
