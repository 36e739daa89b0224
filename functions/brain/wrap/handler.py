"""GET /v1/agent/{agentId}/wrap: the published presentation config, or neutral defaults; never fails."""

from core.agents import providers as agents
from core.agents.models import WrapConfig
from core.http import brain_api, json_response, workspace_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = brain_api()


@app.get("/v1/agent/<agentId>/wrap")
@contract("An agent's presentation config", response=WrapConfig, errors=(NotFound,))
def get_wrap(agentId: str):
    return json_response(agents.reader().wrap(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
