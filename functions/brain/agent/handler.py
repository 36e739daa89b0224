"""GET /v1/agent/{agentId}: the agent's metadata (404 outside the key's workspace)."""

from core.agents import providers as agents
from core.agents.models import AgentMetadata
from core.http import brain_api, json_response, workspace_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = brain_api()


@app.get("/v1/agent/<agentId>")
@contract("An agent's metadata", response=AgentMetadata, errors=(NotFound,))
def get_agent(agentId: str):
    return json_response(agents.reader().metadata(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
