"""GET /api/workspaces/{workspaceId}/agents?limit=&cursor=: {agents, nextCursor}, oldest first; members only.

``limit`` 1-200 (default 200); ``nextCursor`` (null on the last page) fetches the next page.
"""

from core.agents import providers as agents
from core.agents.writer_models import AgentQuery
from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents")
@contract(
    "A workspace's agents",
    query=AgentQuery,
    response="agents.writer_models.AgentList",
    errors=(NotFound, ValidationFailed),
)
def list_agents(workspaceId: str):
    query = parse_query(app, AgentQuery, first=as_member(app, workspaceId))
    return json_response(agents.writer().list(portal_caller(app).user_id, workspaceId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
