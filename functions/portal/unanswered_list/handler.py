"""GET /api/workspaces/{workspaceId}/agents/{agentId}/unanswered?limit=&cursor=: {questions, nextCursor}.

The agent's unanswered turns (no passage matched, or the reply was the fallback), newest first: what the visitor
asked, in which thread. Only where the workspace stores conversations (``[]`` otherwise); none past its retention.
``limit`` 1-100 (default 20); ``nextCursor`` (null on the last page) fetches the next page. Owners and admins; a
member gets 403, anyone else 404.
"""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.insights import providers as insights
from core.insights.models import UnansweredQuery
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/unanswered")
@contract(
    "An agent's unanswered questions, newest first",
    query=UnansweredQuery,
    response="insights.models.UnansweredPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_unanswered(workspaceId: str, agentId: str):
    query = parse_query(app, UnansweredQuery, first=as_writer(app, workspaceId))
    return json_response(insights.reader().unanswered(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
