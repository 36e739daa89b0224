"""GET /api/workspaces/{workspaceId}/agents/{agentId}/items?active=&limit=&cursor=: {items, nextCursor} (each with
``active``); members only.

Ordered by folder, then order; ``active=true`` or ``false`` picks one kind. ``limit`` 1-200 (default 200);
``nextCursor`` (null on the last page) fetches the next page.
"""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.items import providers as items
from core.items.writer_models import ItemQuery
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/agents/<agentId>/items")
@contract(
    "An agent's items",
    query=ItemQuery,
    response="items.writer_models.ItemList",
    errors=(NotFound, ValidationFailed),
)
def list_items(workspaceId: str, agentId: str):
    query = parse_query(app, ItemQuery, first=as_member(app, workspaceId))
    return json_response(items.writer().list(portal_caller(app).user_id, workspaceId, agentId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
