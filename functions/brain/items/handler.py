"""GET /v1/agent/{agentId}/items: the agent's active items, by folder then order."""

from core import deps
from core.http import brain_api, json_response, workspace_caller

app = brain_api()


@app.get("/v1/agent/<agentId>/items")
def get_items(agentId: str):
    return json_response(deps.read_plane().items(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
