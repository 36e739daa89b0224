"""GET /api/workspaces/{workspaceId}/agents/{agentId}/wrap: {wrap}, the published document as stored (null
before any); members only.
"""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/wrap")
@contract(
    "The agent's published wrap document",
    response="authoring.resources.WrapEnvelope",
    errors=(NotFound,),
)
def get_wrap(workspaceId: str, agentId: str):
    return json_response({"wrap": deps.agents().document(portal_caller(app).user_id, workspaceId, agentId, "wrap")})


def lambda_handler(event, context):
    return app.resolve(event, context)
