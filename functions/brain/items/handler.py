"""GET /v1/agent/{agentId}/items: the agent's active items, by folder then order."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import brain_api, json_response, workspace_caller
from core.models.read_plane import Item

app = brain_api()


@app.get("/v1/agent/<agentId>/items")
@contract("An agent's active items", response=list[Item], errors=(NotFound,))
def get_items(agentId: str):
    return json_response(deps.read_plane().items(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
