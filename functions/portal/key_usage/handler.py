"""GET /api/workspaces/{workspaceId}/keys/{keyId}/usage?days=:
{days: [{date, requests, chatTurns, credits, rateLimited}]}.

A key's usage per UTC day, oldest first, zeros included, the last ``days`` (1-90, default 30) ending today.
Owners and admins; a member gets 403, anyone else 404 (and another workspace's key).
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed
from core.usage import providers as usage
from core.usage.models import UsageQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/keys/<keyId>/usage")
@contract(
    "A key's usage per day, oldest first",
    query=UsageQuery,
    response="usage.models.UsagePage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def key_usage(workspaceId: str, keyId: str):
    query = parse_query(app, UsageQuery, first=as_writer(app, workspaceId))
    return json_response(usage.reader().of_key(portal_caller(app).user_id, workspaceId, keyId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
