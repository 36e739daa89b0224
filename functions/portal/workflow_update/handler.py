"""PATCH /api/workspaces/{workspaceId}/workflows/{workflowId} {name?, suggestions?}: 200 {workflow}.

Owner or admin; the agents running it serve the new suggestions on their next read. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.workflows import providers as workflows
from core.workflows.writer_models import WorkflowUpdate

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/workflows/<workflowId>")
@contract(
    "Change a workflow",
    body=WorkflowUpdate,
    response="workflows.writer_models.WorkflowEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_workflow(workspaceId: str, workflowId: str):
    writer = author(app)
    request = parse_body(app, WorkflowUpdate, first=as_writer(app, workspaceId))
    return json_response(workflows.writer().update(writer, workspaceId, workflowId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
