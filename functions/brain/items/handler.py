"""GET /v1/agent/{agentId}/items: the agent's active items, by folder then order."""

from core.agents import providers as agents
from core.http import brain_api, json_response, workspace_caller
from core.items.models import Item
from core.platform.contract import contract
from core.platform.errors import NotFound

app = brain_api()


@app.get("/v1/agent/<agentId>/items")
@contract("An agent's active items", response=list[Item], errors=(NotFound,))
def get_items(agentId: str):
    return json_response(agents.reader().items(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
