"""GET /api/workspaces/{workspaceId}/agents: {agents}, oldest first; members only."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents")
@contract(
    "A workspace's agents",
    response="authoring.resources.AgentList",
    errors=(NotFound,),
)
def list_agents(workspaceId: str):
    return json_response({"agents": [a.wire() for a in deps.agents().list(portal_caller(app).user_id, workspaceId)]})


def lambda_handler(event, context):
    return app.resolve(event, context)
