"""POST /api/workspaces/{workspaceId}/agents/{agentId}/knowledge/search {query, limit?}: 200 {passages}.

What a chat turn would retrieve for ``query``: the agent's best passages as the turn ranks them, each with its score
and source, at most ``limit`` (1-20, default 6). Unbilled. Owners, admins and members; anyone else gets 404 (and
another workspace's agent).
"""

from core.http import as_member, json_response, parse_body, portal_api, portal_caller
from core.knowledge import providers as knowledge
from core.knowledge.models import KnowledgeSearchRequest
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents/<agentId>/knowledge/search")
@contract(
    "What a chat turn would retrieve for a message (unbilled)",
    body=KnowledgeSearchRequest,
    response="knowledge.models.KnowledgeSearchResult",
    errors=(NotFound, ValidationFailed),
)
def knowledge_search(workspaceId: str, agentId: str):
    request = parse_body(app, KnowledgeSearchRequest, first=as_member(app, workspaceId))
    return json_response(knowledge.search().search(portal_caller(app).user_id, workspaceId, agentId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
