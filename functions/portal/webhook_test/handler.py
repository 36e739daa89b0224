"""POST /api/workspaces/{workspaceId}/webhooks/{webhookId}/test: 202 {deliveryId}.

Sends a ``webhook.test`` event to this webhook (whatever its ``events``); its delivery is listed under deliveries.
A disabled webhook is 409. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.webhooks import providers as webhooks

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/webhooks/<webhookId>/test")
@contract(
    "Send a test event",
    response="webhooks.writer_models.DeliveryStarted",
    status=202,
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def test_webhook(workspaceId: str, webhookId: str):
    writer = author(app, status=202)
    return json_response(webhooks.writer().test(writer, workspaceId, webhookId), status=202)


def lambda_handler(event, context):
    return app.resolve(event, context)
