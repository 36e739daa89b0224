"""GET /api/workspaces/{workspaceId}/agents/{agentId}/conversations/{threadKey}?client=: {turns}.

One visitor's stored thread, oldest first: each turn's prompt, reply, credits and time. ``client`` is required (a
thread is its visitor's: two visitors may use one thread key). 404 when no turn of it is stored. Owners and admins.
"""

from core.chat import providers as chat
from core.chat.conversation_models import VisitorQuery
from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/conversations/<threadKey>")
@contract(
    "A stored thread's turns",
    query=VisitorQuery,
    response="chat.conversation_models.ThreadTurns",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def get_conversation(workspaceId: str, agentId: str, threadKey: str):
    query = parse_query(app, VisitorQuery, first=as_writer(app, workspaceId))
    user_id = portal_caller(app).user_id
    return json_response(chat.conversations().thread(user_id, workspaceId, agentId, threadKey, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
