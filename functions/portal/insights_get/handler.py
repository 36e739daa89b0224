"""GET /api/workspaces/{workspaceId}/agents/{agentId}/insights?days=: {days, topQuestions, topSources}.

An agent's insights per UTC day, oldest first, zeros included, the last ``days`` (1-90, default 30) ending today:
turns, threads, visitors, thumbs up and down, unanswered; its 20 most asked questions (workspaces that store
conversations) and 20 most used sources over those days. Owners and admins; a member gets 403, anyone else 404
(and another workspace's agent).
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.insights import providers as insights
from core.insights.models import InsightsQuery
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/insights")
@contract(
    "An agent's insights per day, its top questions and sources",
    query=InsightsQuery,
    response="insights.models.InsightsPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def agent_insights(workspaceId: str, agentId: str):
    query = parse_query(app, InsightsQuery, first=as_writer(app, workspaceId))
    return json_response(insights.reader().insights(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
