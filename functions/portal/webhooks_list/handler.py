"""GET /api/workspaces/{workspaceId}/webhooks: 200 {webhooks}, oldest first; owner or admin (a member 403).

No secret is in the listing: it is shown once, by create and by rotate.
"""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound
from core.webhooks import providers as webhooks

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/webhooks")
@contract(
    "A workspace's webhooks",
    response="webhooks.writer_models.WebhookList",
    errors=(NotFound, Forbidden),
)
def list_webhooks(workspaceId: str):
    return json_response(webhooks.writer().list(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
