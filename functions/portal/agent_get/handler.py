"""GET /api/workspaces/{workspaceId}/agents/{agentId}: {agent}; members only."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>")
@contract(
    "An agent",
    response="authoring.resources.AgentEnvelope",
    errors=(NotFound,),
)
def get_agent(workspaceId: str, agentId: str):
    return json_response({"agent": deps.agents().get(portal_caller(app).user_id, workspaceId, agentId).wire()})


def lambda_handler(event, context):
    return app.resolve(event, context)
