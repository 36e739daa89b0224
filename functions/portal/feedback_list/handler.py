"""GET /api/workspaces/{workspaceId}/agents/{agentId}/feedback?rating=&limit=&cursor=: {feedback, nextCursor}.

Visitors' ratings of the agent's replies, newest first: all, or only ``rating`` ``up`` or ``down``; the prompt and
reply beside each where the workspace stores conversations. ``limit`` 1-100 (default 20); ``nextCursor`` (null on
the last page) fetches the next page. Owners and admins; a member gets 403, anyone else 404.
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.insights import providers as insights
from core.insights.models import FeedbackQuery
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/feedback")
@contract(
    "Visitors' ratings of an agent's replies, newest first",
    query=FeedbackQuery,
    response="insights.models.FeedbackPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_feedback(workspaceId: str, agentId: str):
    query = parse_query(app, FeedbackQuery, first=as_writer(app, workspaceId))
    return json_response(insights.reader().feedback(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
