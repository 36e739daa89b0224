"""DELETE /api/workspaces/{workspaceId}/invitations/{invitationId}: {}; owner or admin.

The invitation and its token are deleted: its link answers 404 from then on. An unknown or expired invitation is
404. Honours ``Idempotency-Key``; audited as ``invitation.revoke``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.workspaces import providers as workspaces

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/invitations/<invitationId>")
@contract(
    "Revoke a pending invitation",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def revoke_invitation(workspaceId: str, invitationId: str):
    return json_response(workspaces.invitations().revoke(author(app), workspaceId, invitationId))


def lambda_handler(event, context):
    return app.resolve(event, context)
