"""GET /api/workspaces/{workspaceId}/agents/{agentId}/answers?limit=&cursor=: {answers, nextCursor}.

The owner's answers, newest first; ``limit`` 1-100 (default 20); ``nextCursor`` (null on the last page) fetches the
next page. Members only.
"""

from core.answers import providers as answers
from core.answers.writer_models import AnswerQuery
from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/answers")
@contract(
    "An agent's answers, newest first",
    query=AnswerQuery,
    response="answers.writer_models.AnswerPage",
    errors=(NotFound, ValidationFailed),
)
def list_answers(workspaceId: str, agentId: str):
    query = parse_query(app, AnswerQuery, first=as_member(app, workspaceId))
    return json_response(answers.writer().list(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
