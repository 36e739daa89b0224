"""GET /v1/agent/{agentId}: the agent's metadata (404 outside the key's workspace)."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import brain_api, json_response, workspace_caller
from core.models.read_plane import AgentMetadata

app = brain_api()


@app.get("/v1/agent/<agentId>")
@contract("An agent's metadata", response=AgentMetadata, errors=(NotFound,))
def get_agent(agentId: str):
    return json_response(deps.read_plane().metadata(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
