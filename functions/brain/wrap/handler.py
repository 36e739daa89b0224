"""GET /v1/agent/{agentId}/wrap: the published presentation config, or neutral defaults; never fails."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import brain_api, json_response, workspace_caller
from core.models.read_plane import WrapConfig

app = brain_api()


@app.get("/v1/agent/<agentId>/wrap")
@contract("An agent's presentation config", response=WrapConfig, errors=(NotFound,))
def get_wrap(agentId: str):
    return json_response(deps.read_plane().wrap(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
