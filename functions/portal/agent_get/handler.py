"""GET /api/workspaces/{workspaceId}/agents/{agentId}: {agent}; members only."""

from core.agents import providers as agents
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>")
@contract(
    "An agent",
    response="agents.writer_models.AgentEnvelope",
    errors=(NotFound,),
)
def get_agent(workspaceId: str, agentId: str):
    return json_response({"agent": agents.writer().get(portal_caller(app).user_id, workspaceId, agentId).wire()})


def lambda_handler(event, context):
    return app.resolve(event, context)
