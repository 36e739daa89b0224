"""GET /api/workspaces/{workspaceId}/agents/{agentId}/conversations?limit=&cursor=&client=&since=&until=:
{threads, nextCursor}.

The agent's stored threads (workspaces with ``storeConversations``), most recent first: every visitor's, or one
visitor's with ``client``; ``since``/``until`` bound their last turn's time. ``limit`` 1-200 (default 50);
``nextCursor`` (null on the last page) fetches the next page. Owners and admins; a member gets 403.
"""

from core.chat import providers as chat
from core.chat.conversation_models import ConversationQuery
from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/conversations")
@contract(
    "An agent's stored threads, newest first",
    query=ConversationQuery,
    response="chat.conversation_models.ThreadPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_conversations(workspaceId: str, agentId: str):
    query = parse_query(app, ConversationQuery, first=as_writer(app, workspaceId))
    return json_response(chat.conversations().threads(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
