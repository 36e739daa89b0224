"""GET /v1/agent/{agentId}/wrap: the published presentation config, or neutral defaults; never fails."""

from core import deps
from core.http import brain_api, json_response, workspace_caller

app = brain_api()


@app.get("/v1/agent/<agentId>/wrap")
def get_wrap(agentId: str):
    return json_response(deps.read_plane().wrap(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
