"""DELETE /api/workspaces/{workspaceId}/members/{userId}: {}; removes a member, or leaves when it is the caller.

The owner removes anyone but themselves; an admin removes members, never an admin or the owner (403); a member only
leaves (403 otherwise). The owner cannot leave or be removed (409): ownership moves first, by transfer. The removed
member's portal JWTs lose the workspace on their next request. Honours ``Idempotency-Key``; audited as
``member.remove`` or ``member.leave``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.workspaces import providers as workspaces

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/members/<userId>")
@contract(
    "Remove a member, or leave the workspace",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def remove_member(workspaceId: str, userId: str):
    return json_response(workspaces.members().remove(author(app), workspaceId, userId))


def lambda_handler(event, context):
    return app.resolve(event, context)
