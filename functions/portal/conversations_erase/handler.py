"""DELETE /api/workspaces/{workspaceId}/agents/{agentId}/conversations?client=: {deleted}.

A visitor's privacy request: every turn the visitor (``client``, required) stored with the agent is erased, and
the audit log records how many (``conversation.erase``), never their text. Owners and admins. Honours
``Idempotency-Key``.
"""

from core.chat import providers as chat
from core.chat.conversation_models import VisitorQuery
from core.http import as_writer, author, json_response, parse_query, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/agents/<agentId>/conversations")
@contract(
    "Erase a visitor's conversations",
    query=VisitorQuery,
    response="chat.conversation_models.Erasure",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def erase_conversations(workspaceId: str, agentId: str):
    query = parse_query(app, VisitorQuery, first=as_writer(app, workspaceId))
    return json_response(chat.eraser().erase(author(app), workspaceId, agentId, query.client))


def lambda_handler(event, context):
    return app.resolve(event, context)
