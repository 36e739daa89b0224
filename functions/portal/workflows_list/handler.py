"""GET /api/workspaces/{workspaceId}/workflows: {workflows}, oldest first; members only."""

from core import deps
from core.contract import contract
from core.errors import NotFound
from core.http import json_response, portal_api, portal_caller

app = portal_api()


@app.get("/api/workspaces/<workspaceId>/workflows")
@contract(
    "A workspace's workflows",
    response="authoring.resources.WorkflowList",
    errors=(NotFound,),
)
def list_workflows(workspaceId: str):
    workflows = deps.workflows().list(portal_caller(app).user_id, workspaceId)
    return json_response({"workflows": [w.wire() for w in workflows]})


def lambda_handler(event, context):
    return app.resolve(event, context)
