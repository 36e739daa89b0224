"""POST /api/workspaces {name}: 201 {workspace}; 402 PLAN_LIMIT_REACHED over the caller's plan.

Honours ``Idempotency-Key``: a retried request creates one workspace, and gets the same answer.
"""

from core.brands import providers as brands
from core.http import header, json_response, parse_body, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Conflict, PlanLimitReached, ValidationFailed
from core.workspaces.models import CreateWorkspaceRequest

app = portal_api()


@app.post("/api/workspaces")
@contract(
    "Create a workspace",
    body=CreateWorkspaceRequest,
    response="workspaces.models.WorkspaceEnvelope",
    status=201,
    errors=(ValidationFailed, PlanLimitReached, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_workspace():
    user_id = portal_caller(app).user_id
    request = parse_body(app, CreateWorkspaceRequest)
    created = brands.workspace_creation().create_once(user_id, request, header(app, "Idempotency-Key"), status=201)
    return json_response(created, status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
