"""GET /api/workspaces/{workspaceId}/keys?limit=&cursor=: {keys: [metadata], nextCursor}, newest first, revoked
included; never raw keys. ``limit`` 1-200 (default 200); ``nextCursor`` (null on the last page) fetches the next
page. Members only."""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.keys import providers as keys
from core.keys.models import KeyQuery
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/keys")
@contract(
    "A workspace's key metadata, newest first",
    query=KeyQuery,
    response="keys.models.KeyList",
    errors=(NotFound, ValidationFailed),
)
def list_keys(workspaceId: str):
    query = parse_query(app, KeyQuery, first=as_member(app, workspaceId))
    return json_response(keys.admin().list(portal_caller(app).user_id, workspaceId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
