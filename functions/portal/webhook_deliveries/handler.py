"""GET /api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries?limit=&cursor=&status=: {deliveries, nextCursor}.

A webhook's deliveries of the last 30 days, newest first; ``limit`` 1-100 (default 20); ``status`` pending,
delivered or failed; ``nextCursor`` (null on the last page) fetches the next page. Owner or admin.
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed
from core.webhooks import providers as webhooks
from core.webhooks.writer_models import DeliveryQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/webhooks/<webhookId>/deliveries")
@contract(
    "A webhook's deliveries, newest first",
    query=DeliveryQuery,
    response="webhooks.writer_models.DeliveryPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_deliveries(workspaceId: str, webhookId: str):
    query = parse_query(app, DeliveryQuery, first=as_writer(app, workspaceId))
    return json_response(webhooks.writer().deliveries(portal_caller(app).user_id, workspaceId, webhookId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
