"""GET /api/workspaces/{workspaceId}/agents/{agentId}/site: {site}, the published document as stored (null
before any); members only.
"""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/site")
@contract(
    "The agent's published site document",
    response="authoring.resources.SiteEnvelope",
    errors=(NotFound,),
)
def get_site(workspaceId: str, agentId: str):
    return json_response({"site": deps.agents().document(portal_caller(app).user_id, workspaceId, agentId, "site")})


def lambda_handler(event, context):
    return app.resolve(event, context)
