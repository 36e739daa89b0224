"""GET /v1/agent/{agentId}/site: the published brand-site config (`pages: []` when none)."""

from core.agents import providers as agents
from core.agents.models import SiteConfig
from core.http import brain_api, json_response, workspace_caller
from core.platform.contract import contract
from core.platform.errors import NotFound

app = brain_api()


@app.get("/v1/agent/<agentId>/site")
@contract("An agent's brand-site config", response=SiteConfig, errors=(NotFound,))
def get_site(agentId: str):
    return json_response(agents.reader().site(workspace_caller(app).workspace_id, agentId))


def lambda_handler(event, context):
    return app.resolve(event, context)
