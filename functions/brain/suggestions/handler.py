"""GET /v1/agent/{agentId}/suggestions: the active workflow's starter suggestions."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import brain_api, json_response, workspace_caller
from core.models.read_plane import Suggestions

app = brain_api()


@app.get("/v1/agent/<agentId>/suggestions")
@contract("An agent's starter suggestions", response=Suggestions, errors=(NotFound,))
def get_suggestions(agentId: str):
    return json_response(deps.read_plane().suggestions(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
