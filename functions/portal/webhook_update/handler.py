"""PATCH /api/workspaces/{workspaceId}/webhooks/{webhookId} {url?, events?, description?, enabled?}: 200 {webhook}.

A new ``url`` is checked as create checks it; ``enabled: true`` re-enables a webhook the worker disabled
(``disabledReason`` cleared). Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, InvalidWebhookUrl, NotFound, ValidationFailed
from core.webhooks import providers as webhooks
from core.webhooks.writer_models import WebhookUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/webhooks/<webhookId>")
@contract(
    "Change a webhook",
    body=WebhookUpdate,
    response="webhooks.writer_models.WebhookEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, InvalidWebhookUrl, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_webhook(workspaceId: str, webhookId: str):
    writer = author(app)
    request = parse_body(app, WebhookUpdate, first=as_writer(app, workspaceId))
    return json_response(webhooks.writer().update(writer, workspaceId, webhookId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
