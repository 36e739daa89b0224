"""POST /api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/retry: 202 {}.

The delivery is attempted again now (pending): a failed or pending one gets one more attempt, a delivered one is
sent again with the same ``webhook-id``. A disabled webhook is 409. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.webhooks import providers as webhooks

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/webhooks/<webhookId>/deliveries/<deliveryId>/retry")
@contract(
    "Retry a delivery",
    response="platform.envelopes.Empty",
    status=202,
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def retry_delivery(workspaceId: str, webhookId: str, deliveryId: str):
    writer = author(app, status=202)
    return json_response(webhooks.writer().retry(writer, workspaceId, webhookId, deliveryId), status=202)


def lambda_handler(event, context):
    return app.resolve(event, context)
