"""POST /api/workspaces/{workspaceId}/transfer {userId}: 200 {workspace}; the owner only.

Ownership moves to ``userId``, an admin of the workspace (a non-member is 404, any other member 409); the old owner
stays as an admin. The new owner's plan must allow one more workspace (402 PLAN_LIMIT_REACHED); the workspace counts
against it from then on, in the same transaction. Honours ``Idempotency-Key``; audited as ``workspace.transfer``.
"""

from core.http import as_owner, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, PlanLimitReached, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import WorkspaceTransfer

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/transfer")
@contract(
    "Transfer the workspace to an admin",
    body=WorkspaceTransfer,
    response="workspaces.models.WorkspaceEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, PlanLimitReached, Conflict),
    request_headers=("Idempotency-Key",),
)
def transfer_workspace(workspaceId: str):
    writer = author(app)
    request = parse_body(app, WorkspaceTransfer, first=as_owner(app, workspaceId))
    return json_response(workspaces.members().transfer(writer, workspaceId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
