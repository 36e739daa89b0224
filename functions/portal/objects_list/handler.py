"""GET /api/workspaces/{workspaceId}/objects?prefix=&limit=&cursor=: {objects, nextCursor}; members only.

Path order, ``limit`` 1-200 (default 50); only paths the read plane serves (the r2 allowlist) are listed.
"""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.objects import providers as objects
from core.objects.writer_models import ObjectQuery
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/objects")
@contract(
    "A workspace's objects",
    query=ObjectQuery,
    response="objects.writer_models.ObjectPage",
    errors=(NotFound, ValidationFailed),
)
def list_objects(workspaceId: str):
    query = parse_query(app, ObjectQuery, first=as_member(app, workspaceId))
    return json_response(objects.reader().list(portal_caller(app).user_id, workspaceId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
