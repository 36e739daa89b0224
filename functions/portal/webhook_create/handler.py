"""POST /api/workspaces/{workspaceId}/webhooks {url, events, description?}: 201 {webhook, secret}.

The secret (``whsec_…``) is shown this once. ``url`` is https:// and every address its host resolves to public
(400 ``INVALID_WEBHOOK_URL`` saying why not); ``events`` lists event types, or ``["*"]``. A workspace holds at most 10
webhooks (409 past them). Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, InvalidWebhookUrl, NotFound, ValidationFailed
from core.webhooks import providers as webhooks
from core.webhooks.writer_models import WebhookCreate

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/webhooks")
@contract(
    "Add a webhook",
    body=WebhookCreate,
    response="webhooks.writer_models.WebhookCreated",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, InvalidWebhookUrl, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_webhook(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, WebhookCreate, first=as_writer(app, workspaceId))
    return json_response(webhooks.writer().create(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
