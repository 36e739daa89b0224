"""PATCH /api/workspaces/{workspaceId}/agents/{agentId}: any of name, slug, brandId, activeWorkflowId, behaviour;
200 {agent}.

Owner or admin; a brand or workflow must be this workspace's (400), a slug another agent's is 409. ``behaviour``
changes the fields it sends (``null``: that field's default); a model the deployment does not list is 400, one the
owner's plan does not offer 402 PLAN_LIMIT_REACHED. Honours ``Idempotency-Key``.
"""

from core.agents import providers as agents
from core.agents.writer_models import AgentUpdate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, PlanLimitReached, ValidationFailed

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/agents/<agentId>")
@contract(
    "Change an agent",
    body=AgentUpdate,
    response="agents.writer_models.AgentEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, PlanLimitReached, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_agent(workspaceId: str, agentId: str):
    writer = author(app)
    request = parse_body(app, AgentUpdate, first=as_writer(app, workspaceId))
    return json_response(agents.writer().update(writer, workspaceId, agentId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
