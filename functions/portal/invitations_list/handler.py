"""GET /api/workspaces/{workspaceId}/invitations?limit=&cursor=: {invitations, nextCursor}, the pending ones in
address order; owner or admin. ``limit`` 1-200 (default 200); ``nextCursor`` (null on the last page) fetches the
next page."""

from core.http import as_writer, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed
from core.workspaces import providers as workspaces
from core.workspaces.writer_models import InvitationQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/invitations")
@contract(
    "A workspace's pending invitations",
    query=InvitationQuery,
    response="workspaces.writer_models.InvitationList",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_invitations(workspaceId: str):
    query = parse_query(app, InvitationQuery, first=as_writer(app, workspaceId))
    return json_response(workspaces.invitations().pending(portal_caller(app).user_id, workspaceId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
