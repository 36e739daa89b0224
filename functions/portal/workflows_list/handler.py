"""GET /api/workspaces/{workspaceId}/workflows: {workflows}, oldest first; members only."""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import NotFound
from core.workflows import providers as workflows

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/workflows")
@contract(
    "A workspace's workflows",
    response="workflows.writer_models.WorkflowList",
    errors=(NotFound,),
)
def list_workflows(workspaceId: str):
    found = workflows.writer().list(portal_caller(app).user_id, workspaceId)
    return json_response({"workflows": [w.wire() for w in found]})


def lambda_handler(event, context):
    return app.resolve(event, context)
