"""POST /api/invitations/accept {token}: 200 {workspace}, the workspace joined (as GET /api/workspaces lists it).

The caller must be signed in with the invited address; an unknown, used, revoked, renewed or expired token, or
another address, is the same 404. So is an invitation whose inviter no longer holds a role that may make it (an owner
or admin; for an admin invitation, the owner): it is voided, audited as ``invitation.void``. The token is used up,
the invitation deleted and the membership written in one transaction, conditioned on the inviter's role; 409 when
the caller is a member already. Honours ``Idempotency-Key``; audited as ``member.join``.
"""

from core.http import author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, NotFound, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import InvitationAccept

app = portal_api()


@app.post("/api/invitations/accept")
@contract(
    "Accept an invitation",
    body=InvitationAccept,
    response="workspaces.writer_models.JoinedWorkspace",
    errors=(NotFound, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def accept_invitation():
    writer = author(app)
    return json_response(workspaces.invitations().accept(writer, parse_body(app, InvitationAccept)))


def lambda_handler(event, context):
    return app.resolve(event, context)
