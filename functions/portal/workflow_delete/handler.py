"""DELETE /api/workspaces/{workspaceId}/workflows/{workflowId}: {}; owner or admin.

409 CONFLICT while it is an agent's active workflow or the workspace's default. Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound
from core.workflows import providers as workflows

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>/workflows/<workflowId>")
@contract(
    "Delete a workflow",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, Conflict),
    request_headers=("Idempotency-Key",),
)
def delete_workflow(workspaceId: str, workflowId: str):
    writer = author(app)
    return json_response(workflows.writer().delete(writer, workspaceId, workflowId))


def lambda_handler(event, context):
    return app.resolve(event, context)
