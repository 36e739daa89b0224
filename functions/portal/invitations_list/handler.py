"""GET /api/workspaces/{workspaceId}/invitations: {invitations}, the pending ones, oldest first; owner or admin."""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound
from core.workspaces import providers as workspaces

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/invitations")
@contract(
    "A workspace's pending invitations",
    response="workspaces.writer_models.InvitationList",
    errors=(NotFound, Forbidden),
)
def list_invitations(workspaceId: str):
    return json_response(workspaces.invitations().pending(portal_caller(app).user_id, workspaceId))


def lambda_handler(event, context):
    return app.resolve(event, context)
