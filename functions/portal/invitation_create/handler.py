"""POST /api/workspaces/{workspaceId}/invitations {email, role}: 201 {invitation}; owner or admin (only the owner
invites an admin).

Mails the address a link to the portal app (``/invitations?token=…``) that works once, for 7 days; inviting an
address again renews its one pending invitation (a new link, the old one dead); a member's address is 409. Mail
is throttled per workspace and per address: past either, 429 with ``Retry-After``, nothing stored. Honours
``Idempotency-Key``; audited as ``member.invite`` (never the token).
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, RateLimited, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import InvitationCreate

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/invitations")
@contract(
    "Invite an address to the workspace",
    body=InvitationCreate,
    response="workspaces.writer_models.InvitationEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict, RateLimited),
    request_headers=("Idempotency-Key",),
)
def create_invitation(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, InvitationCreate, first=as_writer(app, workspaceId))
    return json_response(workspaces.invitations().invite(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
