"""POST /api/workspaces/{workspaceId}/agents {name, slug?, brandId?, activeWorkflowId?, behaviour?}: 201 {agent}.

Owner or admin. Without ``brandId`` the agent has the workspace's default brand; without ``activeWorkflowId`` a
workflow of its own is made with it. The slug (from the name unless given) is unique in the workspace (409); 402
PLAN_LIMIT_REACHED over the owner's plan's agents per workspace, or for a ``behaviour.model`` the plan does not offer
(one the deployment does not list is 400). Behaviour fields not sent take their defaults. Honours
``Idempotency-Key``.
"""

from core.agents import providers as agents
from core.agents.writer_models import AgentCreate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, PlanLimitReached, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/agents")
@contract(
    "Create an agent",
    body=AgentCreate,
    response="agents.writer_models.AgentEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, PlanLimitReached, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_agent(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, AgentCreate, first=as_writer(app, workspaceId))
    return json_response(agents.writer().create(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
