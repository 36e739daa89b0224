"""PATCH /api/workspaces/{workspaceId}/members/{userId} {role}: 200 {member}; the owner only.

``role`` is ``admin`` or ``member``: only the owner makes or unmakes admins (an admin or a member is 403); the
owner's own role moves only by a transfer (409). Honours ``Idempotency-Key``; audited as ``member.role``.
"""

from core.http import as_owner, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import MemberUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/members/<userId>")
@contract(
    "Change a member's role",
    body=MemberUpdate,
    response="workspaces.writer_models.MemberEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_member(workspaceId: str, userId: str):
    writer = author(app)
    request = parse_body(app, MemberUpdate, first=as_owner(app, workspaceId))
    return json_response(workspaces.members().set_role(writer, workspaceId, userId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
