"""GET /v1/agent/{agentId}/suggestions: the active workflow's starter suggestions."""

from core.agents import providers as agents
from core.agents.models import Suggestions
from core.http import brain_api, json_response, workspace_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = brain_api()


@app.get("/v1/agent/<agentId>/suggestions")
@contract("An agent's starter suggestions", response=Suggestions, errors=(NotFound,))
def get_suggestions(agentId: str):
    return json_response(agents.reader().suggestions(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
