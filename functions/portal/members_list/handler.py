"""GET /api/workspaces/{workspaceId}/members?limit=&cursor=: the workspace's members, a bare array (service-api.md),
in user id order; members only. ``limit`` 1-200 (default 200); when more follow, the ``Next-Cursor`` header names
the next page (absent on the last)."""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed
from core.platform.pages import NEXT_CURSOR, cursor_header
from core.workspaces import providers as workspaces
from core.workspaces.models import Member, MemberQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/members")
@contract(
    "A workspace's members",
    query=MemberQuery,
    response=list[Member],
    errors=(NotFound, ValidationFailed),
    response_headers=(NEXT_CURSOR,),
)
def list_members(workspaceId: str):
    query = parse_query(app, MemberQuery, first=as_member(app, workspaceId))
    members, cursor = workspaces.service().members(portal_caller(app).user_id, workspaceId, query)
    return json_response(members, headers=cursor_header(cursor))


def lambda_handler(event, context):
    return app.resolve(event, context)
