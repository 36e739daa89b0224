"""GET /api/workspaces/{workspaceId}/brands?limit=&cursor=: the workspace's brands, a bare array (service-api.md),
the default first, then oldest first; members only. ``limit`` 1-200 (default 200); when more follow, the
``Next-Cursor`` header names the next page (absent on the last)."""

from core.brands import providers as brands
from core.brands.models import Brand, BrandQuery
from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed
from core.platform.pages import NEXT_CURSOR, cursor_header

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/brands")
@contract(
    "A workspace's brands, default first",
    query=BrandQuery,
    response=list[Brand],
    errors=(NotFound, ValidationFailed),
    response_headers=(NEXT_CURSOR,),
)
def list_brands(workspaceId: str):
    query = parse_query(app, BrandQuery, first=as_member(app, workspaceId))
    shown, cursor = brands.reader().list(portal_caller(app).user_id, workspaceId, query)
    return json_response(shown, headers=cursor_header(cursor))


def lambda_handler(event, context):
    return app.resolve(event, context)
