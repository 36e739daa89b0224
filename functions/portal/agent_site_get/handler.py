"""GET /api/workspaces/{workspaceId}/agents/{agentId}/site: {site}, the published document as stored (null
before any); members only.
"""

from core.agents import providers as agents
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/site")
@contract(
    "The agent's published site document",
    response="agents.writer_models.SiteEnvelope",
    errors=(NotFound,),
)
def get_site(workspaceId: str, agentId: str):
    return json_response({"site": agents.writer().document(portal_caller(app).user_id, workspaceId, agentId, "site")})


def lambda_handler(event, context):
    return app.resolve(event, context)
