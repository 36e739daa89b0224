"""GET /api/workspaces/{workspaceId}/agents: {agents}, oldest first; members only."""

from core.agents import providers as agents
from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents")
@contract(
    "A workspace's agents",
    response="agents.writer_models.AgentList",
    errors=(NotFound,),
)
def list_agents(workspaceId: str):
    return json_response({"agents": [a.wire() for a in agents.writer().list(portal_caller(app).user_id, workspaceId)]})


def lambda_handler(event, context):
    return app.resolve(event, context)
