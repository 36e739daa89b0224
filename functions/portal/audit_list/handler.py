"""GET /api/workspaces/{workspaceId}/audit?limit=&cursor=: {entries, nextCursor}, newest first.

Every write to the workspace, as its audit entry: who, what, on what, in which request; never a secret, a prompt or
a body. ``limit`` 1-200 (default 50); ``nextCursor`` (null on the last page) fetches the next page. Owners and
admins; a member gets 403.
"""

from core.audit import providers as audit
from core.audit.models import AuditQuery
from core.http import as_writer, json_response, parse_query, portal_api
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/audit")
@contract(
    "A workspace's audit log, newest first",
    query=AuditQuery,
    response="audit.models.AuditPage",
    errors=(NotFound, Forbidden, ValidationFailed),
)
def list_audit(workspaceId: str):
    check = as_writer(app, workspaceId)
    query = parse_query(app, AuditQuery, first=check)
    return json_response(audit.reader().page(workspaceId, query, check=check))


def lambda_handler(event, context):
    return app.resolve(event, context)
