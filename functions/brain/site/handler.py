"""GET /v1/agent/{agentId}/site: the published brand-site config (`pages: []` when none)."""

from core import deps
from core.http import brain_api, json_response, workspace_caller

app = brain_api()


@app.get("/v1/agent/<agentId>/site")
def get_site(agentId: str):
    return json_response(deps.read_plane().site(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
