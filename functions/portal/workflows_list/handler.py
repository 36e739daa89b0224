"""GET /api/workspaces/{workspaceId}/workflows?limit=&cursor=: {workflows, nextCursor}, oldest first; members only.

``limit`` 1-200 (default 200); ``nextCursor`` (null on the last page) fetches the next page.
"""

from core.http import as_member, json_response, parse_query, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound, ValidationFailed
from core.workflows import providers as workflows
from core.workflows.writer_models import WorkflowQuery

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/workflows")
@contract(
    "A workspace's workflows",
    query=WorkflowQuery,
    response="workflows.writer_models.WorkflowList",
    errors=(NotFound, ValidationFailed),
)
def list_workflows(workspaceId: str):
    query = parse_query(app, WorkflowQuery, first=as_member(app, workspaceId))
    return json_response(workflows.writer().list(portal_caller(app).user_id, workspaceId, query))


def lambda_handler(event, context):
    return app.resolve(event, context)
