"""GET /api/workspaces/{workspaceId}/agents/{agentId}/usage?days=:
{days: [{date, requests, chatTurns, credits, rateLimited}]}.

An agent's usage per UTC day, oldest first, zeros included, the last ``days`` (1-90, default 30) ending today.
Owners and admins; a member gets 403, anyone else 404 (and another workspace's agent).
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed
from core.usage import providers as usage
from core.usage.models import UsageQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/usage")
@contract(
    "An agent's usage per day, oldest first",
    query=UsageQuery,
    response="usage.models.UsagePage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def agent_usage(workspaceId: str, agentId: str):
    query = parse_query(app, UsageQuery, first=as_writer(app, workspaceId))
    return json_response(usage.reader().of_agent(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
