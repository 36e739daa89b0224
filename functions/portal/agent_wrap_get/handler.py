"""GET /api/workspaces/{workspaceId}/agents/{agentId}/wrap: {wrap}, the published document as stored (null
before any); members only.
"""

from core.agents import providers as agents
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/wrap")
@contract(
    "The agent's published wrap document",
    response="agents.writer_models.WrapEnvelope",
    errors=(NotFound,),
)
def get_wrap(workspaceId: str, agentId: str):
    return json_response({"wrap": agents.writer().document(portal_caller(app).user_id, workspaceId, agentId, "wrap")})


def lambda_handler(event, context):
    return app.resolve(event, context)
